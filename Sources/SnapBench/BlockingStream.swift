import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import SnapBytes
import SnapPlatform

/// A byte stream for the benchmark's clients, which read in a loop on threads of their own
/// and time each read: the connection itself is NIO's, TLS on TCP like every other
/// (`connectLater`), and reads and writes block the calling thread only (benchmarks only:
/// the product reads an `AsyncByteStream`).
package final class BlockingStream: @unchecked Sendable {  // `received` and `ended` behind `condition`
    private let channel: Channel
    /// 1 while there are bytes or an end to read.
    private let condition = ConditionLock(value: 0)
    private var received: [UInt8] = []
    private var ended: String?
    /// The fingerprint of the certificate the server showed and the client trusted (TCP only).
    package let serverFingerprint: CertificateFingerprint?

    /// Connects (over TCP: TLS, the certificate checked by `trust`); throws `NetError`.
    package init(endpoint: Endpoint, trust: ServerTrust? = nil,
                 group: EventLoopGroup = MultiThreadedEventLoopGroup.singleton) throws {
        let box = BlockingStreamBox()
        channel = try connectLater(to: endpoint, on: group.next(), trust: trust) { BlockingStreamReader(box) }.wait()
        // Read on the loop: the handler lives there. (Never called on a loop: it blocks.)
        serverFingerprint = try? channel.eventLoop.submit { [channel] in
            try channel.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self).peerCertificate
                .map { CertificateFingerprint(certificateDER: try $0.toDERBytes()) }
        }.wait()
        box.attach(self)
    }

    deinit {
        // Later, not here: the last reference may go inside the reader's own delivery on the
        // loop, and closing there would deliver again into the same lock.
        let channel = self.channel
        channel.eventLoop.execute { channel.close(promise: nil) }
    }

    fileprivate func deliver(_ bytes: [UInt8], ended reason: String?) {
        condition.lock()
        received += bytes
        if let reason, ended == nil { ended = reason }
        condition.unlock(withValue: received.isEmpty && ended == nil ? 0 : 1)
    }

    /// Writes all of `bytes`; throws when the connection is gone.
    package func write(_ bytes: [UInt8]) throws(NetError) {
        let written = channel.writeAndFlush(channel.allocator.buffer(bytes: bytes))
        do { try written.wait() } catch {
            throw NetError.cannotConnect("the connection", "it is closed (\(error))")
        }
    }

    /// What has arrived, waiting up to `timeout` for something: empty when nothing came in
    /// time, nil once the connection is closed and everything was read (with why).
    package func read(timeout: Duration) -> (bytes: [UInt8], closed: String?) {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        guard condition.lock(whenValue: 1, timeoutSeconds: max(0, seconds)) else { return ([], nil) }
        let bytes = received
        received = []
        // The end is told once everything before it was read.
        let closed = bytes.isEmpty ? ended : nil
        condition.unlock(withValue: ended == nil ? 0 : 1)
        return (bytes, closed)
    }

    /// Closes the connection; a thread blocked in `read` wakes with it closed.
    package func close() {
        channel.close(promise: nil)
        deliver([], ended: "closed here")
    }
}

private final class BlockingStreamBox: @unchecked Sendable {  // touched under `lock`
    private let lock = NIOLock()
    private var early: [UInt8] = []
    private var earlyEnd: String?
    private weak var _stream: BlockingStream?

    /// From now on bytes go to `stream`, after those that came before it (in order: both
    /// under the lock).
    func attach(_ stream: BlockingStream) {
        lock.withLock {
            _stream = stream
            if !early.isEmpty || earlyEnd != nil { stream.deliver(early, ended: earlyEnd) }
            early = []
            earlyEnd = nil
        }
    }

    func deliver(_ bytes: [UInt8], ended: String?) {
        lock.withLock {
            if let stream = _stream { return stream.deliver(bytes, ended: ended) }
            early += bytes
            if let ended { earlyEnd = ended }
        }
    }
}

private final class BlockingStreamReader: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let box: BlockingStreamBox

    init(_ box: BlockingStreamBox) { self.box = box }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        box.deliver(Array(unwrapInboundIn(data).readableBytesView), ended: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        box.deliver([], ended: "the other side closed the connection")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        box.deliver([], ended: "\(error)")
        context.close(promise: nil)
    }
}
