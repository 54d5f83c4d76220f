import Glibc
import NIOCore
import NIOPosix
import NIOSSL
import SnapBytes
import SnapPlatform

/// Where a host listens: its Unix socket (claimed safely first, bound 0600, the file removed
/// at the end) and its TCP ports, every TCP connection in TLS (or, for benchmarks only, plain).
/// Each accepted connection gets the outbound limits' options, then TLS on TCP, then
/// `connection` (the host's frame handler). Touched on `loop` only, but for the `listen…`
/// calls, which hand their work to it.
final class HostListeners: @unchecked Sendable {  // loop-confined (see above)
    let loop: EventLoop
    /// The options every accepted connection gets (read as it is accepted).
    private let limits: () -> OutboundLimits
    /// What a plain client reaching a TLS port reads before it is closed.
    private let plainRefusal: [UInt8]
    /// Adds the connection's own handler, after TLS.
    private let connection: @Sendable (Channel) throws -> Void
    private var listeners: [Channel] = []
    private var socketPaths: [String] = []
    /// The TCP addresses listened on, as bound, in order.
    private(set) var tcpAddresses: [HostPort] = []
    /// The fingerprint of the certificate TCP players see (nil before TLS is listened on).
    private(set) var certificate: CertificateFingerprint?

    init(loop: EventLoop, limits: @escaping () -> OutboundLimits, plainRefusal: [UInt8],
         connection: @escaping @Sendable (Channel) throws -> Void) {
        self.loop = loop
        self.limits = limits
        self.plainRefusal = plainRefusal
        self.connection = connection
    }

    /// Listens on a Unix socket; the path is claimed safely first (see `claimSocketPath`).
    func listenLater(unixPath path: String) -> EventLoopFuture<Void> {
        do { try claimSocketPath(path) } catch { return loop.makeFailedFuture(error) }
        // Bound 0600 (never open to others, not even briefly), the listener kept on the loop.
        return loop.flatSubmit {
            let socket: CInt
            do { socket = try bindPrivateUnixSocket(path) } catch { return self.loop.makeFailedFuture(error) }
            return self.bootstrap(tls: nil).withBoundSocket(socket).map { channel in
                self.listeners.append(channel)
                self.socketPaths.append(path)
            }
        }.flatMapErrorThrowing { error in
            throw NetError.cannotListen(path, plainReason(error, listening: true, unix: true))
        }
    }

    /// Listens on TCP, every connection in TLS shown `identity`; the future has the port bound.
    func listenLater(host: String, port: Int, identity: TLSIdentity) -> EventLoopFuture<Int> {
        let context: NIOSSLContext
        do { context = try identity.serverContext() } catch { return loop.makeFailedFuture(error) }
        return listenLater(host: host, port: port, tls: context).map { port in
            self.certificate = identity.fingerprint
            return port
        }
    }

    /// Listens on TCP, every connection in TLS with `tls` (nil: plain, for benchmarks only);
    /// the future has the port bound (useful with port 0).
    func listenLater(host: String, port: Int, tls: NIOSSLContext?) -> EventLoopFuture<Int> {
        loop.flatSubmit {
            self.bootstrap(tls: tls).bind(host: host, port: port).map { channel in
                self.listeners.append(channel)
                let bound = channel.localAddress?.port ?? port
                self.tcpAddresses.append(HostPort(host: host, port: bound))
                return bound
            }
        }.flatMapErrorThrowing { error in
            throw NetError.cannotListen(formatHostPort(host, port), plainReason(error, listening: true, unix: false))
        }
    }

    /// Closes the TCP listeners (the Unix socket stays); on the loop. The future completes
    /// once the ports are free.
    func closeTCP() -> EventLoopFuture<Void> {
        let tcp = listeners.filter { listener in
            if case .unixDomainSocket = listener.localAddress { return false }
            return true
        }
        listeners.removeAll { listener in tcp.contains { $0 === listener } }
        tcpAddresses = []
        return EventLoopFuture.andAllComplete(tcp.map { $0.close() }, on: loop)
    }

    /// Stops listening and removes the socket files; on the loop. Connections stay open.
    func close() {
        for listener in listeners { listener.close(promise: nil) }
        listeners = []
        for path in socketPaths { unlink(path) }
        socketPaths = []
    }

    private func bootstrap(tls: NIOSSLContext?) -> ServerBootstrap {
        let limits = self.limits()
        let (plainRefusal, connection) = (self.plainRefusal, self.connection)
        return ServerBootstrap(group: loop)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(ChannelOptions.writeBufferWaterMark, value: .init(low: limits.lowWater, high: limits.highWater))
            .childChannelInitializer { channel in
                if let sendBuffer = limits.socketSendBuffer {
                    _ = channel.setOption(ChannelOptions.socketOption(.so_sndbuf), value: SocketOptionValue(sendBuffer))
                }
                return channel.eventLoop.makeCompletedFuture {
                    if let tls { try TLSTransport.addServer(to: channel, context: tls, plainRefusal: plainRefusal) }
                    try connection(channel)
                }
            }
    }
}

/// A bound TCP address.
public struct HostPort: Sendable, Equatable {
    public var host: String
    public var port: Int
    public init(host: String, port: Int) { (self.host, self.port) = (host, port) }
}
