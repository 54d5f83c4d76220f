import Glibc
import NIOCore
import NIOPosix
import SnapBytes
import SnapPlatform
import SnapTestSupport
import Testing
@testable import SnapNet

/// Where a host listens (`HostListeners`), on real sockets: a Unix socket in a scratch
/// directory, TCP on 127.0.0.1 port 0. Each test waits for what it looks at.
@Suite("A host's listeners")
struct HostListenersTests {
    let loop = MultiThreadedEventLoopGroup.singleton.next()

    /// Listeners whose connections are handed to `accepted`, each once TLS (if any) is in place.
    func listeners(refusal: [UInt8] = [], accepted: @escaping @Sendable (Channel) -> Void = { _ in }) -> HostListeners {
        HostListeners(loop: loop, limits: { OutboundLimits() }, plainRefusal: refusal) { channel in accepted(channel) }
    }

    func onLoop<T: Sendable>(_ body: @escaping @Sendable () -> T) async throws -> T { try await loop.submit(body).get() }

    @Test("a Unix socket: bound 0600, a second host on its path refused, connections handed over, the file gone at the end")
    func unixSocket() async throws {
        let accepted = loop.makePromise(of: Void.self)
        let listeners = listeners { _ in accepted.succeed() }
        let path = scratchDirectory("listeners") + "/host.sock"
        try await listeners.listenLater(unixPath: path).get()
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & S_IFMT == S_IFSOCK && status.st_mode & 0o777 == 0o600)

        await #expect(throws: NetError.self) { try await self.listeners().listenLater(unixPath: path).get() }

        let client = try await ClientBootstrap(group: loop).connect(unixDomainSocketPath: path).get()
        try await accepted.futureResult.get()
        try await client.close()

        try await onLoop { listeners.close() }
        #expect(access(path, F_OK) != 0)
    }

    @Test("TCP on port 0: the port bound is told; closing TCP frees it and keeps the Unix socket")
    func tcp() async throws {
        let listeners = listeners()
        let path = scratchDirectory("listeners") + "/host.sock"
        try await listeners.listenLater(unixPath: path).get()
        let port = try await listeners.listenLater(host: "127.0.0.1", port: 0, tls: nil).get()
        #expect(port > 0)
        #expect(try await onLoop { listeners.tcpAddresses } == [HostPort(host: "127.0.0.1", port: port)])

        try await loop.flatSubmit { listeners.closeTCP() }.get()
        #expect(try await onLoop { listeners.tcpAddresses }.isEmpty)
        // The port is free: another listener takes it at once.
        let again = self.listeners()
        #expect(try await again.listenLater(host: "127.0.0.1", port: port, tls: nil).get() == port)
        // The Unix socket still answers.
        let client = try await ClientBootstrap(group: loop).connect(unixDomainSocketPath: path).get()
        try await client.close()

        try await onLoop {
            listeners.close()
            again.close()
        }
    }

    @Test("TLS: the certificate is the identity's, and a plain client reads the refusal before it is closed")
    func tls() async throws {
        let identity = try TLSIdentity.selfMade(in: scratchDirectory("listeners") + "/tls")
        let refusal = Array("plain? no".utf8)
        let listeners = listeners(refusal: refusal)
        #expect(try await onLoop { listeners.certificate } == nil)
        let port = try await listeners.listenLater(host: "127.0.0.1", port: 0, identity: identity).get()
        #expect(try await onLoop { listeners.certificate } == identity.fingerprint)

        let received = loop.makePromise(of: [UInt8].self)
        let client = try await ClientBootstrap(group: loop).channelInitializer { channel in
            channel.pipeline.addHandler(Collect(received))
        }.connect(host: "127.0.0.1", port: port).get()
        // A plain client's first bytes: any frame header will do.
        try await client.writeAndFlush(client.allocator.buffer(bytes: [0, 0, 0, 1, 0, 0, 0, 0, 1]))
        #expect(try await received.futureResult.get() == refusal)
        try await onLoop { listeners.close() }
    }
}

/// Every byte a connection reads, handed over when it closes.
private final class Collect: ChannelInboundHandler, @unchecked Sendable {  // on its channel's loop
    typealias InboundIn = ByteBuffer
    private var bytes: [UInt8] = []
    private let promise: EventLoopPromise<[UInt8]>
    init(_ promise: EventLoopPromise<[UInt8]>) { self.promise = promise }
    func channelRead(context: ChannelHandlerContext, data: NIOAny) { bytes += Array(buffer: unwrapInboundIn(data)) }
    func channelInactive(context: ChannelHandlerContext) { promise.succeed(bytes) }
}
