#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import NIOCore
import NIOPosix
import SnapBytes

/// Where a client connects.
public enum Endpoint: Sendable, CustomStringConvertible {
    case unix(String)
    case tcp(host: String, port: Int)
    /// A host behind a relay: TLS to the relay at `host`:`port`, then the relay's own phase
    /// (`through`: which host, in the relay's words), then the host's TLS inside it, which
    /// accepts `certificate` only. The platform knows no relay's protocol: SnapRelayClient's
    /// `Endpoint(invitation)` makes one for Snap!'s relay (docs/RELAY.md).
    case relayed(host: String, port: Int, through: any RelayPassage, certificate: CertificateFingerprint)

    public var description: String {
        switch self {
        case .unix(let path): "unix:\(path)"
        case .tcp(let host, let port): "tcp:" + formatHostPort(host, port)
        case .relayed(let host, let port, let passage, _): "relay:" + formatHostPort(host, port) + "/" + passage.text
        }
    }
}

/// What a relay is told and answers on a relayed connection, between the relay's TLS and the
/// host's (SnapRelayClient's `RelayRoomPassage` for Snap!'s relay).
public protocol RelayPassage: Sendable {
    /// The host at the relay in an endpoint's description, after `relay:HOST:PORT/`.
    var text: String { get }
    /// How long the relay may wait before it answers: the host's TLS handshake may take
    /// that much longer than a direct one.
    var wait: Duration { get }
    /// The handler that speaks the relay's phase; it joins the pipeline before the host's
    /// TLS handler. It tells `failed` once, and closes the connection, if the relay refuses
    /// (a `RelayRefusal`) or the connection fails before the relay put the host through.
    func handler(relay: String, failed: @escaping (any Error) -> Void) -> any ChannelHandler
}

/// A relay's no (or its protocol broken, or the connection closed) before it put the host
/// through: the player reads its description, as when no host is there.
public protocol RelayRefusal: Error, CustomStringConvertible {}

/// What a client says of a host that closed (or reset) its connection during the TLS
/// handshake: a host past its caps does so when even its refusals in words are too many
/// (PROTOCOL.md §2). The player reads "the host is busy", as from a refusal in words.
package func closedInHandshakeText(_ detail: String) -> String {
    "\(detail) during the TLS handshake: the host is busy (past its connection limits); try again later"
}

/// How long a TCP connect may wait for an answer (LAN.md quotes it).
package let tcpConnectTimeout: TimeAmount = .seconds(5)

/// Opens a client connection whose frames go to `onMessage` (on the loop).
///
/// A Unix socket whose listen queue is full refuses at once with EAGAIN: that is a busy
/// host, not an absent one, so the connection is retried politely (50 ms, doubling, at
/// most 1 s apart) until `patience` has passed, then fails with `NetError.hostBusy`.
/// Nothing else is retried: ECONNREFUSED on a Unix socket means a stale socket file, and
/// on TCP that nobody listens (a full TCP queue drops the SYN and the kernel retries).
///
/// The polite retries are timers on `loop`: nobody's thread waits for them.
///
/// Over TCP the connection is TLS (PROTOCOL.md §2): it succeeds only once `trust` (by
/// default the player's known hosts) accepts the server's certificate and the handshake
/// is done, and `handler` joins the pipeline only then, so nothing it writes can go out
/// to a server that was not trusted. A refusal fails with `NetError.untrusted`.
package func connectLater(to endpoint: Endpoint, on loop: EventLoop, patience: Duration = .seconds(5), trust: ServerTrust? = nil,
                  handler: @escaping @Sendable () -> ChannelHandler) -> EventLoopFuture<Channel> {
    connectLater(to: endpoint, on: loop, patience: patience, trust: trust) { channel in
        try channel.pipeline.syncOperations.addHandler(handler())
        return channel
    }
}

/// The same, with `configure` run on the channel's loop where `handler` would join (after
/// the TLS handshake over TCP): e.g. to wrap the channel in an `NIOAsyncChannel`, which
/// then sees everything the server sent.
package func connectLater<Output: Sendable>(to endpoint: Endpoint, on loop: EventLoop, patience: Duration = .seconds(5),
                                            trust: ServerTrust? = nil,
                                            configure: @escaping @Sendable (Channel) throws -> Output) -> EventLoopFuture<Output> {
    let promise = loop.makePromise(of: Output.self)
    let deadline = NIODeadline.now() + .nanoseconds(Int64(patience.nanoseconds))
    @Sendable func attempt(_ number: Int, pause: TimeAmount) {
        let handshake = HandshakeSlot<Output>()
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(tcpConnectTimeout)
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                // The initializer runs on the channel's loop: the handler never crosses threads.
                channel.eventLoop.makeCompletedFuture {
                    switch endpoint {
                    case .unix:
                        handshake.output = try configure(channel)
                    case .tcp where trust?.plainTCPForBenchmarks == true:
                        handshake.output = try configure(channel)
                    case .tcp(let host, let port), .relayed(let host, let port, _, _):
                        let handshook = channel.eventLoop.makePromise(of: Void.self)
                        handshake.future = handshook.futureResult
                        try TLSTransport.addClient(to: channel, host: host, port: port, trust: trust ?? .standard(),
                                                   handshook: handshook)
                    }
                }
            }
        let connecting = switch endpoint {
        case .unix(let path): bootstrap.connect(unixDomainSocketPath: path)
        case .tcp(let host, let port), .relayed(let host, let port, _, _): bootstrap.connect(host: host, port: port)
        }
        connecting.whenComplete { result in
            switch result {
            case .success(let channel):
                guard let handshook = handshake.future else {
                    guard let output = handshake.output else {
                        return promise.fail(NetError.cannotConnect(endpoint.description, "the connection was not set up"))
                    }
                    return promise.succeed(output)
                }
                // Through a relay: the relay's TLS, then its own phase, then the host's TLS inside.
                let endToEnd = if case .relayed(let host, let port, let passage, let certificate) = endpoint {
                    handshook.flatMap {
                        throughRelay(channel, host: host, port: port, passage: passage, certificate: certificate,
                                     knownHosts: (trust ?? .standard()).knownHosts)
                    }
                } else { handshook }
                endToEnd.whenComplete { handshake in
                    switch handshake {
                    case .success:
                        do {
                            promise.succeed(try configure(channel))
                        } catch {
                            channel.close(promise: nil)
                            promise.fail(NetError.cannotConnect(endpoint.description, "\(error)"))
                        }
                    case .failure(TLSRefusal.closedInHandshake(_, let detail)):
                        promise.fail(NetError.hostBusy(endpoint.description, closedInHandshakeText(detail)))
                    case .failure(let refusal as TLSRefusal):
                        promise.fail(NetError.untrusted(refusal))
                    case .failure(let refused as any RelayRefusal):
                        channel.close(promise: nil)
                        promise.fail(NetError.noHost(refused.description))
                    case .failure(let error):
                        promise.fail(NetError.cannotConnect(endpoint.description, "\(error)"))
                    }
                }
            case .failure(let error as IOError) where error.errnoCode == EAGAIN:
                guard NIODeadline.now() + pause <= deadline else {
                    return promise.fail(NetError.hostBusy(endpoint.description,
                        "kept its connection queue full for \(patience) (\(number) attempts); try again later"))
                }
                loop.scheduleTask(in: pause) { attempt(number + 1, pause: min(pause * 2, .seconds(1))) }
            case .failure(let error):
                let unix = if case .unix = endpoint { true } else { false }
                promise.fail(NetError.cannotConnect(endpoint.description, plainReason(error, listening: false, unix: unix)))
            }
        }
    }
    attempt(1, pause: .milliseconds(50))
    return promise.futureResult
}

/// A player's way through a relay, once the relay's own TLS is up: the relay's phase (for
/// Snap!'s relay, `connect ROOM`), and right behind it the host's TLS inside, its certificate
/// checked against the invitation's `certificate` and nothing else. The inner hello does not
/// wait for the relay's answer: Snap!'s relay holds it and hands it over first (docs/RELAY.md
/// §3), which saves a round trip to the relay. Completes when that handshake is done; fails
/// with the passage's `RelayRefusal` (it hears of a refusal before the inner handshake can)
/// or a `TLSRefusal` (nothing of the game sent).
func throughRelay(_ channel: Channel, host: String, port: Int, passage: any RelayPassage, certificate: CertificateFingerprint,
                  knownHosts: KnownHosts) -> EventLoopFuture<Void> {
    let handshook = channel.eventLoop.makePromise(of: Void.self)
    let innerHandshake = channel.eventLoop.makePromise(of: Void.self)
    var inner = ServerTrust(knownHosts: knownHosts)
    inner.invited = certificate
    let refused = HandshakeSlot<Void>()  // reused as a flag: `future` set once the relay refused
    let client = passage.handler(relay: formatHostPort(host, port), failed: { error in
        refused.future = handshook.futureResult
        handshook.fail(error)
    })
    innerHandshake.futureResult.whenComplete { result in
        if refused.future == nil { handshook.completeWith(result) }
    }
    do {
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(client)
        // The relay may wait its own deadline for the host to accept before it answers.
        let wait = TimeAmount.nanoseconds(passage.wait.nanoseconds)
        try TLSTransport.addClient(to: channel, host: host, port: port, trust: inner, handshook: innerHandshake,
                                   deadline: TLSTransport.handshakeDeadline + wait)
    } catch {
        handshook.fail(error)
    }
    return handshook.futureResult
}

/// The handshake of the one connection attempt that got a channel (TCP), or what
/// `configure` made of it at once (Unix). Touched on the attempt's loop only.
private final class HandshakeSlot<Output>: @unchecked Sendable {  // touched on the attempt's loop only
    var future: EventLoopFuture<Void>?
    var output: Output?
}
