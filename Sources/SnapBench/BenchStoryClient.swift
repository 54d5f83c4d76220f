import SnapPlatform
import StoryEngine
import StoryLink
import StoryProtocol

/// The story client for the benchmark's own threads, which time each call: every call
/// awaited by `blockingAwait` (benchmarks only; the product awaits `StoryClient`).
final class BenchStoryClient: Sendable {
    let client: StoryClient

    init(endpoint: StoryEndpoint, name: String, key: StoryKey, trust: ServerTrust? = nil) throws {
        client = try blockingAwait { try await StoryClient(endpoint: endpoint, name: name, key: key, trust: trust) }
    }

    func send(_ request: StoryRequest) throws {
        try blockingAwait { [client] in try await client.send(request) }
    }

    func next() throws -> StoryReply {
        try blockingAwait { [client] in try await client.next() }
    }

    func match(_ request: StoryRequest) throws -> StoryMatch {
        try blockingAwait { [client] in try await client.match(request) }
    }

    func ping(_ nonce: UInt64) throws {
        try blockingAwait { [client] in try await client.ping(nonce) }
    }
}
