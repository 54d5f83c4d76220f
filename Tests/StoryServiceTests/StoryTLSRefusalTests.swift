import Foundation
import Glibc
import Logging
import NIOPosix
import SnapNet
import SnapProtocol
import SnapTestSupport
import Testing
@testable import StoryService

/// What a client the story service will not serve over TCP reads (docs/PROTOCOL.md §2, §16):
/// real sockets on 127.0.0.1, real handshakes.
@Suite("Story service refusals over TLS", .serialized)
struct StoryTLSRefusalTests {
    func withTLSServer(connections: Int = StoryServer.Limits().connections, _ body: (Int) throws -> Void) throws {
        let directory = scratchDirectory("story-tls")
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let store = try StoryExecutor.wait { try await SQLiteStoryStore.open(path: directory + "/story.sqlite") }
        defer { try? StoryExecutor.wait { await store.close() } }
        let server = StoryServer(store: store, loop: group.next(), logger: Logger(label: "test"))
        server.limits.connections = connections
        let port = try server.listen(host: "127.0.0.1", port: 0, identity: try TLSIdentity.selfMade(in: directory + "/tls"))
        defer { server.shutdown() }
        try body(port)
    }

    func trust() -> ServerTrust { ServerTrust(knownHosts: KnownHosts(path: scratchDirectory("story-known") + "/known_hosts")) }

    @Test("a plain client on the TLS port is refused with signIn (10), in words naming the update, in clear")
    func plainClient() throws {
        try withTLSServer { port in
            let socket = try #require(tcpSocket(port))
            defer { close(socket) }
            let hello = StoryRequest.hello(name: "Old", publicKey: Array(repeating: 1, count: 32), joinCode: "").encode(sequence: 0)
            _ = hello.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, 0) }
            var decoder = FrameDecoder(maxBodyLength: StoryWire.maxBodyLength)
            decoder.append(readUntilClosed(socket))
            let reply = try StoryReply.decode(try #require(try decoder.nextFrame()))
            #expect(reply == StoryServer.plainRefusalReply)
            guard case .refused(let why, let words) = reply else { return }
            #expect(why == .signIn && words.contains("speaks TLS on TCP"))
        }
    }

    @Test("past its maximum of connections, a TLS client reads busy inside TLS")
    func busy() throws {
        try withTLSServer(connections: 1) { port in
            let holder = try #require(tcpSocket(port))  // holds the one connection (it never signs in)
            defer { close(holder) }
            usleep(100_000)
            #expect(throws: StoryClientError.refused(.busy, StoryServer.busyText(1))) {
                _ = try StoryClient(endpoint: .tcp(host: "127.0.0.1", port: port), name: "Ann",
                                    key: StoryKey(privateKeyBytes: Array(repeating: 1, count: 32))!, trust: trust())
            }
        }
    }
}

/// A TCP connection to 127.0.0.1:`port`, its reads limited to 10 s.
func tcpSocket(_ port: Int) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(fd)
        return nil
    }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    return fd
}

/// Everything `fd` reads until the other side closes it (or 10 s pass without a byte).
func readUntilClosed(_ fd: Int32) -> [UInt8] {
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(fd, &buffer, buffer.count)
        if count <= 0 { return received }
        received += buffer[0..<count]
    }
}
