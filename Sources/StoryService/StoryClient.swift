#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SnapNet
import SnapProtocol
import StoryEngine

public enum StoryClientError: Error, CustomStringConvertible, Equatable {
    case cannotConnect(String, String)
    case refused(StoryRefusal, String)
    case broken(String)
    case keyFile(String, String)

    public var description: String {
        switch self {
        case .cannotConnect(let where_, let why):
            "cannot reach the story service at \(where_): \(why) (is `snap story serve` running?)"
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

/// A signed-in connection to the story service, used from one thread at a time: send a
/// request, read what comes back. Blocking sockets: the command line and the benchmark
/// want nothing cleverer, and the window reads on its own thread.
public final class StoryClient: @unchecked Sendable {  // one thread at a time (see above)
    public let name: String
    private let descriptor: Int32
    private var decoder = FrameDecoder(maxBodyLength: StoryWire.maxBodyLength)
    private var outSequence = SequenceCounter()
    private var inSequence = SequenceChecker()
    private let writeLock = NSLockish()
    /// Updates that arrived while waiting for an answer (a watching connection).
    public private(set) var pendingUpdates: [StoryMatch] = []

    /// Connects and signs in as `name`: a hello with `key`'s public key, then the proof
    /// (`key`'s signature of the service's nonce, the name and `channelBinding`) with
    /// `oldKey` if given (version 1's key, to carry the name over). Throws the service's
    /// refusal if any. `channelBinding` must be what the service uses on this channel:
    /// `.unbound` on a Unix socket or plain TCP; over TLS the SHA-256 fingerprint of the
    /// certificate this client verified (`StoryChannelBinding`).
    /// `StoryKeyStore.signIn` does this with the player's own keys.
    public init(endpoint: StoryEndpoint, name: String, key: StoryKey, oldKey: SeatToken? = nil, joinCode: String = "",
                channelBinding: StoryChannelBinding = .unbound, timeoutSeconds: Int = 30) throws {
        self.name = name
        descriptor = try Self.connect(endpoint)
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if case .tcp = endpoint {
            var one: Int32 = 1
            setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        // NB: no close on a throw here: the instance is whole, so deinit closes the socket (a
        // second close could shut a descriptor another thread has opened since).
        try send(.hello(name: name, publicKey: key.publicKey, joinCode: joinCode))
        switch try next() {
        case .challenge(let nonce):
            try send(key.proof(nonce: nonce, name: name, channelBinding: channelBinding, oldKey: oldKey))
        case .refused(let why, let message): throw StoryClientError.refused(why, message)
        case let other: throw StoryClientError.broken("expected a challenge, got \(other.kind)")
        }
        switch try next() {
        case .welcome: break
        case .refused(let why, let message): throw StoryClientError.refused(why, message)
        case let other: throw StoryClientError.broken("expected a welcome, got \(other.kind)")
        }
    }

    deinit { Glibc.close(descriptor) }

    /// Closes the socket now (a window's reader thread then stops).
    public func hangUp() { shutdown(descriptor, Int32(SHUT_RDWR)) }

    public func send(_ request: StoryRequest) throws {
        // What cannot go on the wire is refused here, in the service's words where it has them.
        if let problem = request.problem { throw StoryClientError.refused(problem.refusal, problem.message) }
        let bytes = writeLock.locked { request.encode(sequence: outSequence.next()) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 {
                if errno == EINTR { continue }
                throw StoryClientError.broken(String(cString: strerror(errno)))
            }
            offset += written
        }
    }

    /// The next message from the service, whatever it is.
    public func next() throws -> StoryReply {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            do {
                if let frame = try decoder.nextFrame() {
                    try inSequence.check(frame.sequence)
                    return try StoryReply.decode(frame)
                }
            } catch {
                throw StoryClientError.broken("\(error)")
            }
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { throw StoryClientError.broken("no answer in time") }
            if count < 0 { throw StoryClientError.broken(String(cString: strerror(errno))) }
            if count == 0 { throw StoryClientError.broken("the service closed the connection") }
            decoder.append(chunk[0..<count])
        }
    }

    /// The next message that is not a pushed update (those are kept in `pendingUpdates`).
    private func answer() throws -> StoryReply {
        while true {
            switch try next() {
            case .update(let match): pendingUpdates.append(match)
            case .refused(let why, let message): throw StoryClientError.refused(why, message)
            case let reply: return reply
            }
        }
    }

    /// Sends a command that answers with a match (create, automatch, show, turn, quit).
    public func match(_ request: StoryRequest) throws -> StoryMatch {
        try send(request)
        guard case .match(let match) = try answer() else { throw StoryClientError.broken("expected a match") }
        return match
    }

    /// Every match this player takes part in, in order of joining.
    public func list() throws -> [StoryMatch] {
        try send(.list)
        var matches: [StoryMatch] = []
        while true {
            switch try answer() {
            case .match(let match): matches.append(match)
            case .listed(let count):
                guard count == matches.count else { throw StoryClientError.broken("a list of \(count) brought \(matches.count)") }
                return matches
            case let other: throw StoryClientError.broken("unexpected \(other.kind) in a list")
            }
        }
    }

    public func ping(_ nonce: UInt64) throws {
        try send(.ping(nonce))
        guard case .pong(nonce) = try answer() else { throw StoryClientError.broken("expected pong \(nonce)") }
    }

    public func takeUpdates() -> [StoryMatch] {
        defer { pendingUpdates = [] }
        return pendingUpdates
    }

    static func connect(_ endpoint: StoryEndpoint) throws -> Int32 {
        switch endpoint {
        case .unix(let path):
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            guard bytes.count <= SocketDirectory.maxSocketPathBytes else { throw NetError.pathTooLong(path) }
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in bytes.enumerated() { raw[index] = byte }
            }
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else { throw StoryClientError.cannotConnect(path, String(cString: strerror(errno))) }
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard result == 0 else {
                let code = errno
                Glibc.close(descriptor)
                throw StoryClientError.cannotConnect(path, plainErrno(code, unix: true))
            }
            return descriptor
        case .tcp(let host, let port):
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
                throw StoryClientError.cannotConnect(endpoint.description, "cannot resolve \(host)")
            }
            defer { freeaddrinfo(list) }
            var entry: UnsafeMutablePointer<addrinfo>? = first
            var lastError: Int32 = ECONNREFUSED
            while let current = entry {
                let descriptor = socket(current.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
                if descriptor >= 0 {
                    if Glibc.connect(descriptor, current.pointee.ai_addr, current.pointee.ai_addrlen) == 0 { return descriptor }
                    lastError = errno
                    Glibc.close(descriptor)
                }
                entry = current.pointee.ai_next
            }
            throw StoryClientError.cannotConnect(endpoint.description, plainErrno(lastError))
        }
    }
}

/// A pthread mutex (the client avoids Foundation so the headless build stays small).
final class NSLockish: @unchecked Sendable {  // the mutex is the synchronisation
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body()
    }
}
