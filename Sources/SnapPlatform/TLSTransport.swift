#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import NIOTLS

/// TLS on every TCP connection (PROTOCOL.md §2): the one mechanism the Snap! host, its
/// windows and bots, and the story service and its clients share. Unix sockets carry no
/// TLS: their file permissions already keep everyone but the user out.
public enum TLSTransport {
    /// A connection that has not finished its handshake by then is closed; meanwhile it
    /// counts against the server's cap on connections not yet signed in.
    public static let handshakeDeadline: TimeAmount = .seconds(5)

    /// The first byte of every TLS record that opens a handshake. A Snap! frame never starts
    /// with it: that would be a length prefix of over 369 MB.
    static let handshakeRecord: UInt8 = 0x16

    /// Puts TLS in front of a server's TCP connection. A client that speaks plain frames gets
    /// `plainRefusal` (a frame it can read, saying why) and is closed. A server whose own
    /// handshake goes on after TLS (the relay's line phase) passes its whole deadline.
    package static func addServer(to channel: Channel, context: NIOSSLContext, plainRefusal: [UInt8],
                                  deadline: TimeAmount = handshakeDeadline) throws {
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(PlainClientRefusal(refusal: plainRefusal))
        try pipeline.addHandler(NIOSSLServerHandler(context: context))
        try pipeline.addHandler(HandshakeDeadline(limit: deadline))
    }

    /// The client side's context: TLS 1.3, the certificate checked by `ServerTrust`.
    static let clientContext: Result<NIOSSLContext, Error> = Result {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv13
        // The name is ServerTrust's to check (a pinned self-signed certificate names no host).
        configuration.certificateVerification = .noHostnameVerification
        return try NIOSSLContext(configuration: configuration)
    }

    /// Puts TLS in front of a client's TCP connection; `handshook` completes once the server's
    /// certificate is trusted and the handshake is done, or fails with the reason (a
    /// `TLSRefusal`). Nothing the caller writes before then leaves the machine in clear:
    /// NIOSSL holds it until the handshake is done, and drops it when it fails.
    /// `deadline` bounds the whole handshake (a relay's wait for the host comes first when the
    /// hello goes out before `spliced`).
    static func addClient(to channel: Channel, host: String, port: Int, trust: ServerTrust,
                          handshook: EventLoopPromise<Void>, deadline: TimeAmount = handshakeDeadline) throws {
        let refusal = NIOLockedValueBox<TLSRefusal?>(nil)
        let handler = try NIOSSLClientHandler(
            context: clientContext.get(), serverHostname: isIPAddress(host) ? nil : host,
            customVerificationCallback: { certificates, verdict in
                let chain = certificates.map { (try? $0.toDERBytes()) ?? [] }
                switch trust.verdict(chain, host: host, port: port) {
                case .decided(let problem):
                    refusal.withLockedValue { $0 = problem }
                    verdict.succeed(problem == nil ? .certificateVerified : .failed)
                case .verifyAuthority(let leaf, let remembered):
                    Task {
                        let problem = await trust.verifyAuthority(leaf: leaf, remembered: remembered, chain: chain,
                                                                  host: host, port: port)
                        refusal.withLockedValue { $0 = problem }
                        verdict.succeed(problem == nil ? .certificateVerified : .failed)
                    }
                }
            })
        let address = formatHostPort(host, port)
        let waiter = ClientHandshakeWaiter(promise: handshook, deadline: deadline) { error in
            if let refused = refusal.withLockedValue({ $0 }) { return refused }
            return clientRefusal(for: error, address: address, deadline: deadline)
        }
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(handler)
        try pipeline.addHandler(waiter)
    }

    /// Words for a handshake that failed other than by our own check.
    static func clientRefusal(for error: Error, address: String, deadline: TimeAmount) -> TLSRefusal {
        let text = "\(error)"
        if ["WRONG_VERSION_NUMBER", "HTTP_REQUEST", "PACKET_LENGTH_TOO_LONG", "UNEXPECTED_RECORD"].contains(where: text.contains) {
            return .noTLS(address: address, detail: "it answered in clear")
        }
        if case NIOSSLError.uncleanShutdown = error { return .closedInHandshake(address: address, detail: "closed the connection") }
        if text.contains("EOF during handshake") { return .closedInHandshake(address: address, detail: "closed the connection") }
        // A reset that came while the client was writing its hello is EPIPE: the same reset.
        if let error = error as? IOError, [ECONNRESET, EPIPE].contains(error.errnoCode) {
            return .closedInHandshake(address: address, detail: "reset the connection")
        }
        if error is HandshakeTimedOut { return .handshake(address: address, detail: "no handshake within \(deadline.nanoseconds / 1_000_000_000) s") }
        if case ChannelError.ioOnClosedChannel = error { return .closedInHandshake(address: address, detail: "closed the connection") }
        return .handshake(address: address, detail: text)
    }
}

struct HandshakeTimedOut: Error {}

/// Words for an error TLS raised on an established connection's bytes, or nil for any other
/// error. TCP already checks every byte, so TLS refusing a record after the handshake (a
/// record that fails authentication, an alert saying the peer's did) means something
/// between the ends changed it: a relay, a proxy. A connection that merely closed without
/// TLS's goodbye is not this (NIOSSL's `uncleanShutdown`).
package func tamperingReason(_ error: Error) -> String? {
    guard error is BoringSSLError else { return nil }
    // BoringSSL's reason names ("BAD_DECRYPT", "SSLV3_ALERT_BAD_RECORD_MAC") say what it found.
    let names = "\(error)".split { !($0.isUppercase || $0.isNumber || $0 == "_") }.filter { $0.count >= 6 && $0.contains("_") }
    let found = names.last.map { " (\($0))" } ?? ""
    return "the connection was tampered with: a byte changed on the way, and TLS refused it\(found)"
}

/// A server-side gate before TLS: a first byte that cannot open a TLS handshake is a plain
/// Snap! (or story) client, which gets a frame saying why instead of a TLS alert it
/// could not read.
final class PlainClientRefusal: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let refusal: [UInt8]
    private var refused = false

    init(refusal: [UInt8]) { self.refusal = refusal }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        let bytes = unwrapInboundIn(data)
        guard let first = bytes.readableBytesView.first else { return }
        if first == TLSTransport.handshakeRecord {
            context.fireChannelRead(data)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        refused = true
        // Written from here, before the TLS handler: it leaves in clear, as the client expects.
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: refusal))).assumeIsolated()
            .whenComplete { _ in context.close(promise: nil) }
    }
}

/// Closes a connection whose TLS handshake is not done within `limit`.
final class HandshakeDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let limit: TimeAmount
    private var timer: Scheduled<Void>?
    /// Called once the handshake is done (a refusal waits for it: `TLSRefusals`).
    var onCompleted: (() -> Void)?
    init(limit: TimeAmount) {
        self.limit = limit
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    private func start(_ context: ChannelHandlerContext) {
        guard timer == nil else { return }
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: limit) { context.close(promise: nil) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        context.fireUserInboundEventTriggered(event)
        if case TLSUserEvent.handshakeCompleted = event {
            timer?.cancel()
            onCompleted?()
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        context.fireChannelInactive()
    }
}

/// The client's end of the handshake: completes `promise` when it is done, fails it with
/// the reason when it is not, within the deadline.
final class ClientHandshakeWaiter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private var promise: EventLoopPromise<Void>?
    private let reason: (Error) -> TLSRefusal
    private let deadline: TimeAmount
    private var timer: Scheduled<Void>?

    init(promise: EventLoopPromise<Void>, deadline: TimeAmount, reason: @escaping (Error) -> TLSRefusal) {
        self.promise = promise
        self.deadline = deadline
        self.reason = reason
    }

    func handlerAdded(context: ChannelHandlerContext) {
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: deadline) { [self] in
            fail(context, HandshakeTimedOut())
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        context.fireUserInboundEventTriggered(event)
        if case TLSUserEvent.handshakeCompleted = event, let promise {
            self.promise = nil
            timer?.cancel()
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            promise.succeed()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        guard promise != nil else { return context.fireErrorCaught(error) }
        fail(context, error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if promise != nil { fail(context, ChannelError.ioOnClosedChannel) }
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        // A connection that failed before it was ever active still answers its promise.
        if promise != nil { fail(context, ChannelError.ioOnClosedChannel) }
    }

    private func fail(_ context: ChannelHandlerContext, _ error: Error) {
        guard let promise else { return }
        self.promise = nil
        timer?.cancel()
        promise.fail(reason(error))
        context.close(promise: nil)
    }
}
