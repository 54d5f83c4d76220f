#if canImport(Glibc)
import Glibc
#endif
import SnapBytes
import SnapPlatform
import StoryEngine
import StoryLink
import StoryProtocol

/// What the turn timings need of a story client, each call made and waited for on the
/// benchmark's own thread.
protocol TimedStoryClient: AnyObject {
    func send(_ request: StoryRequest) throws
    /// The next message from the service, whatever it is.
    func next() throws -> StoryReply
    /// Sends a request answered with a match; updates arriving first are skipped.
    func match(_ request: StoryRequest) throws -> StoryMatch
    func ping(_ nonce: UInt64) throws
}

/// The product's `StoryClient`, every call awaited by `blockingAwait` (benchmarks only; the
/// window awaits `StoryClient` itself). Each call is a hand-off from the benchmark's thread
/// to Swift's pool and back, beside the client's own event loop.
final class BenchStoryClient: TimedStoryClient, Sendable {
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

/// A story client on a plain blocking Unix socket, for timing the service alone: a request
/// is one `write`, a reply one `read` on the thread that waits for it, with nothing of the
/// client's own between (no event loop, no task). It speaks the wire as `StoryClient` does
/// (hello, challenge, proof unbound to any certificate, then requests); the service cannot
/// tell them apart.
final class RawStoryClient: TimedStoryClient {
    private let socket: BenchSocket
    private var outSequence = SequenceCounter()
    private var inSequence = SequenceChecker()
    private var decoder = FrameDecoder(maxBodyLength: StoryWire.maxBodyLength)
    private var buffer = [UInt8](repeating: 0, count: 65_536)

    /// Connects to the service's socket and signs in as `name` with `key`.
    init(unixPath path: String, name: String, key: StoryKey) throws {
        socket = try BenchSocket(unixPath: path)
        // A service that stops answering fails the benchmark instead of hanging it.
        var limit = timeval(tv_sec: 10, tv_usec: 0)
        _ = setsockopt(socket.fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        try send(.hello(name: name, publicKey: key.publicKey, joinCode: ""))
        guard case .challenge(let nonce) = try next() else { throw BenchError.closed("\(name): the service sent no challenge") }
        try send(key.proof(nonce: nonce, name: name, channelBinding: .unbound))
        guard case .welcome = try next() else { throw BenchError.closed("\(name): the service did not welcome the proof") }
    }

    func send(_ request: StoryRequest) throws {
        socket.write(request.encode(sequence: outSequence.next()))
    }

    func next() throws -> StoryReply {
        while true {
            if let frame = try decoder.nextFrame(failing: StoryWireError.self) {
                try inSequence.check(frame.sequence, failing: StoryWireError.self)
                let reply = try StoryReply.decode(frame)
                if case .refused(let why, let message) = reply { throw BenchError.closed("the service refused (\(why)): \(message)") }
                return reply
            }
            let count = buffer.withUnsafeMutableBufferPointer { read(socket.fd, $0.baseAddress!, $0.count) }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { throw BenchError.timedOut("the story service's reply (10 s)") }
            if count <= 0 { throw BenchError.closed("the story service closed the connection") }
            decoder.append(buffer[0..<count])
        }
    }

    func match(_ request: StoryRequest) throws -> StoryMatch {
        try send(request)
        while true {
            switch try next() {
            case .match(let match): return match
            case .update: continue
            case let other: throw BenchError.closed("expected a match, got \(other.kind)")
            }
        }
    }

    func ping(_ nonce: UInt64) throws {
        try send(.ping(nonce))
        while true {
            switch try next() {
            case .pong(nonce): return
            case .update: continue
            case let other: throw BenchError.closed("expected pong \(nonce), got \(other.kind)")
            }
        }
    }
}
