import SnapPlatform
import SnapBytes
import StoryEngine
import StoryProtocol

public enum StoryClientError: Error, CustomStringConvertible, Equatable {
    case cannotConnect(String, String)
    case refused(StoryRefusal, String)
    case broken(String)
    case keyFile(String, String)

    public var description: String {
        switch self {
        case .cannotConnect(let where_, let why):
            "cannot reach the story service at \(where_): \(why) (is `snapcards story serve` running?)"
        case .refused(_, let message): message
        case .broken(let why): "the story service connection broke: \(why)"
        case .keyFile(let path, let why): "identity key \(path): \(why)"
        }
    }
}

/// Where the service listens: a Unix socket path or a TCP address.
public enum StoryEndpoint: Sendable, CustomStringConvertible, Equatable {
    case unix(String)
    case tcp(host: String, port: Int)

    public var description: String {
        switch self {
        case .unix(let path): path
        case .tcp(let host, let port): formatHostPort(host, port)
        }
    }
}

/// A signed-in connection to the story service: send a request, await what comes back.
/// An actor: a window's reader task may wait in `next` while requests are sent; requests
/// go one at a time (a send is awaited before the next, so that their sequence numbers go
/// out in order).
public actor StoryClient {
    public nonisolated let name: String
    private nonisolated let stream: AsyncByteStream
    /// How long to wait for an answer (nil: for ever, a window's reader).
    private let timeout: Duration?
    /// The certificate the service showed over TCP (nil on a Unix socket).
    public nonisolated var serverFingerprint: CertificateFingerprint? { stream.serverFingerprint }
    private var decoder = FrameDecoder(maxBodyLength: StoryWire.maxBodyLength)
    private var outSequence = SequenceCounter()
    private var inSequence = SequenceChecker()
    /// Updates that arrived while waiting for an answer (a watching connection).
    public private(set) var pendingUpdates: [StoryMatch] = []

    /// Connects and signs in as `name`: a hello with `key`'s public key, then the proof
    /// (`key`'s signature of the service's nonce, the name and the channel binding) with
    /// `oldKey` if given (version 1's key, to carry the name over). Throws the service's
    /// refusal if any. Over TCP the connection is TLS, the service's certificate checked
    /// by `trust` (default: the player's known hosts, PROTOCOL.md §2), and the proof is
    /// bound to the fingerprint of the certificate verified; on a Unix socket it is
    /// `.unbound`. `StoryKeyStore.signIn` does this with the player's own keys.
    public init(endpoint: StoryEndpoint, name: String, key: StoryKey, oldKey: SeatToken? = nil, joinCode: String = "",
                timeoutSeconds: Int = 30, trust: ServerTrust? = nil, channelBinding: StoryChannelBinding? = nil) async throws {
        self.name = name
        timeout = timeoutSeconds > 0 ? .seconds(timeoutSeconds) : nil
        do {
            stream = try await AsyncByteStream.connect(endpoint: endpoint.endpoint, trust: trust)
        } catch {
            if case .untrusted = error { throw StoryClientError.cannotConnect(endpoint.description, error.description) }
            throw StoryClientError.cannotConnect(endpoint.description, Self.reason(error))
        }
        // `channelBinding` given: a test's, to check that a proof bound elsewhere is refused.
        let channelBinding = channelBinding ?? stream.serverFingerprint.flatMap { StoryChannelBinding.tlsCertificate(sha256: $0.digest) } ?? .unbound
        do {
            do { try await send(.hello(name: name, publicKey: key.publicKey, joinCode: joinCode)) } catch {
                // A busy service refuses before the hello, and closes: its words say more.
                if case .refused(let why, let message)? = try? await next() { throw StoryClientError.refused(why, message) }
                throw error
            }
            switch try await next() {
            case .challenge(let nonce):
                try await send(key.proof(nonce: nonce, name: name, channelBinding: channelBinding, oldKey: oldKey))
            case .refused(let why, let message): throw StoryClientError.refused(why, message)
            case let other: throw StoryClientError.broken("expected a challenge, got \(other.kind)")
            }
            switch try await next() {
            case .welcome: break
            case .refused(let why, let message): throw StoryClientError.refused(why, message)
            case let other: throw StoryClientError.broken("expected a welcome, got \(other.kind)")
            }
        } catch {
            stream.close()
            throw error
        }
    }

    deinit { stream.close() }

    /// Closes the connection now (a window's reader then stops).
    public nonisolated func hangUp() { stream.close() }

    public func send(_ request: StoryRequest) async throws {
        // What cannot go on the wire is refused here, in the service's words where it has them.
        if let problem = request.problem { throw StoryClientError.refused(problem.refusal, problem.message) }
        let bytes = request.encode(sequence: outSequence.next())
        do { try await stream.write(bytes) } catch {
            throw StoryClientError.broken("the connection is closed")
        }
    }

    /// The next message from the service, whatever it is.
    public func next() async throws -> StoryReply {
        while true {
            do {
                if let frame = try decoder.nextFrame(failing: StoryWireError.self) {
                    try inSequence.check(frame.sequence, failing: StoryWireError.self)
                    return try StoryReply.decode(frame)
                }
            } catch {
                throw StoryClientError.broken("\(error)")
            }
            let (bytes, closed) = await stream.read(timeout: timeout)
            if let closed { throw StoryClientError.broken(closed == "the other side closed the connection" ? "the service closed the connection" : closed) }
            if bytes.isEmpty { throw StoryClientError.broken("no answer in time") }
            decoder.append(bytes)
        }
    }

    /// The next message that is not a pushed update (those are kept in `pendingUpdates`).
    private func answer() async throws -> StoryReply {
        while true {
            switch try await next() {
            case .update(let match): pendingUpdates.append(match)
            case .refused(let why, let message): throw StoryClientError.refused(why, message)
            case let reply: return reply
            }
        }
    }

    /// Sends a command that answers with a match (create, automatch, show, turn, quit).
    public func match(_ request: StoryRequest) async throws -> StoryMatch {
        try await send(request)
        guard case .match(let match) = try await answer() else { throw StoryClientError.broken("expected a match") }
        return match
    }

    /// Every match this player takes part in, in order of joining.
    public func list() async throws -> [StoryMatch] {
        try await send(.list)
        var matches: [StoryMatch] = []
        while true {
            switch try await answer() {
            case .match(let match): matches.append(match)
            case .listed(let count):
                guard count == matches.count else { throw StoryClientError.broken("a list of \(count) brought \(matches.count)") }
                return matches
            case let other: throw StoryClientError.broken("unexpected \(other.kind) in a list")
            }
        }
    }

    public func ping(_ nonce: UInt64) async throws {
        try await send(.ping(nonce))
        guard case .pong(nonce) = try await answer() else { throw StoryClientError.broken("expected pong \(nonce)") }
    }

    public func takeUpdates() -> [StoryMatch] {
        defer { pendingUpdates = [] }
        return pendingUpdates
    }

    /// The words of a connection failure, without `NetError`'s "cannot connect to …" (the
    /// client's own error says that).
    static func reason(_ error: NetError) -> String {
        switch error {
        case .cannotConnect(let where_, let why): plainReason(describing: why, listening: false, unix: where_.hasPrefix("unix:"))
        default: error.description
        }
    }
}

extension StoryEndpoint {
    var endpoint: Endpoint {
        switch self {
        case .unix(let path): .unix(path)
        case .tcp(let host, let port): .tcp(host: host, port: port)
        }
    }
}
