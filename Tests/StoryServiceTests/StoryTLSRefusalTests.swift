import Foundation
import Glibc
import Logging
import NIOPosix
import SnapPlatform
import SnapBytes
import SnapTestSupport
import Testing
@testable import StoryLink
@testable import StoryProtocol
@testable import StoryService
@testable import StoryStores

/// What a client the story service will not serve over TCP reads (docs/PROTOCOL.md §2, §16):
/// real sockets on 127.0.0.1, real handshakes.
@Suite("Story service refusals over TLS", .blocksThreads, .serialized)
struct StoryTLSRefusalTests {
    func withTLSServer(connections: Int = StoryServer.Limits().connections, _ body: (Int) async throws -> Void) async throws {
        let directory = scratchDirectory("story-tls")
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let store: SQLiteStoryStore
        do { store = try await SQLiteStoryStore.open(path: directory + "/story.sqlite") } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        let server = StoryServer(store: store, loop: group.next(), logger: Logger(label: "test"))
        server.limits.connections = connections
        let outcome: Result<Void, Error>
        do {
            let port = try await server.listenLater(host: "127.0.0.1", port: 0, identity: try TLSIdentity.selfMade(in: directory + "/tls")).get()
            try await withTaskExecutorPreference(OffPoolExecutor.shared) { try await body(port) }  // see StoryServerTests
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        _ = try? await server.shutdownLater().get()
        await store.close()
        try? await group.shutdownGracefully()
        try outcome.get()
    }

    func trust() -> ServerTrust { ServerTrust(knownHosts: KnownHosts(path: scratchDirectory("story-known") + "/known_hosts")) }

    @Test("a plain client on the TLS port is refused with signIn (10), in words naming the update, in clear")
    func plainClient() async throws {
        try await withTLSServer { port in
            let socket = try #require(loopbackSocket(port: port))
            defer { close(socket) }
            let hello = StoryRequest.hello(name: "Old", publicKey: Array(repeating: 1, count: 32), joinCode: "").encode(sequence: 0)
            _ = hello.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, 0) }
            var decoder = FrameDecoder(maxBodyLength: StoryWire.maxBodyLength)
            decoder.append(readUntilClosed(socket))
            let reply = try StoryReply.decode(try #require(try decoder.nextFrame(failing: StoryWireError.self)))
            #expect(reply == StoryServer.plainRefusalReply)
            guard case .refused(let why, let words) = reply else { return }
            #expect(why == .signIn && words.contains("speaks TLS on TCP"))
        }
    }

    @Test("past its maximum of connections, a TLS client reads busy inside TLS")
    func busy() async throws {
        try await withTLSServer(connections: 1) { port in
            let holder = try #require(loopbackSocket(port: port))  // holds the one connection (it never signs in)
            defer { close(holder) }
            try await Task.sleep(for: .milliseconds(100))
            await #expect(throws: StoryClientError.refused(.busy, StoryServer.busyText(1))) {
                _ = try await StoryClient(endpoint: .tcp(host: "127.0.0.1", port: port), name: "Ann",
                                    key: StoryKey(privateKeyBytes: Array(repeating: 1, count: 32))!, trust: trust())
            }
        }
    }

    @Test("past its maximum and the 8 refusals at once: a bare close, which the client reports as busy, not as a TLS fault")
    func bareClose() async throws {
        try await withTLSServer(connections: 1) { port in
            // One holds the one connection; the next 8 hold every refusal (2 s each: they never handshake).
            let holders = try (0...TLSRefusals.allowance).map { _ in try #require(loopbackSocket(port: port)) }
            defer { holders.forEach { close($0) } }
            try await Task.sleep(for: .milliseconds(100))
            do {
                _ = try await StoryClient(endpoint: .tcp(host: "127.0.0.1", port: port), name: "Ann",
                                    key: StoryKey(privateKeyBytes: Array(repeating: 1, count: 32))!, trust: trust())
                Issue.record("let in past the caps")
            } catch StoryClientError.cannotConnect(_, let why) {
                #expect(why.contains("during the TLS handshake: the host is busy"), "\(why)")
            }
        }
    }
}
