#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SnapNet
import SnapProtocol

/// A player's identity across days: their name and a secret 128-bit key, kept in
/// `$XDG_STATE_HOME/snap/story/keys/NAME` (directory 0700, file 0600), created on first
/// use. The service registers the key the first time it sees the name and refuses any
/// other key for it afterwards.
public struct StoryKeyStore: Sendable {
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    public static func `default`(environment: [String: String] = currentEnvironment()) -> StoryKeyStore {
        StoryKeyStore(directory: storyStateDirectory(environment: environment) + "/keys")
    }

    func path(for name: String) -> String {
        // Names may hold spaces and punctuation; the file name keeps letters and digits only
        // and adds the name's bytes in hex so that two names never share a file.
        let safe = name.map { $0.isLetter || $0.isNumber ? $0 : "_" }
        let hex = name.utf8.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        return directory + "/" + String(String(safe).prefix(40)) + "-" + hex
    }

    /// The key for `name`, made and kept (0600) the first time.
    public func key(for name: String) throws -> SeatToken {
        let target = path(for: name)
        if let file = fopen(target, "r") {
            defer { fclose(file) }
            var buffer = [CChar](repeating: 0, count: 64)
            if fgets(&buffer, 64, file) != nil,
               let key = SeatToken(hex: String(decoding: buffer.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) {
                return key
            }
            throw StoryClientError.keyFile(target, "it does not hold a key; remove it to make a new one (the service will then refuse the name)")
        }
        try makePrivateDirectoriesOrThrow(directory)
        var generator = SystemRandomNumberGenerator()
        let key = SeatToken.random(using: &generator)
        // O_EXCL: two first uses at once end with one key, the one both then read.
        let descriptor = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST { return try self.key(for: name) }
            throw StoryClientError.keyFile(target, String(cString: strerror(errno)))
        }
        let line = Array((key.hex + "\n").utf8)
        let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == line.count else { throw StoryClientError.keyFile(target, "cannot write it") }
        return key
    }
}

/// `$XDG_STATE_HOME/snap/story` (else `~/.local/state/snap/story`): the journal and the keys.
public func storyStateDirectory(environment: [String: String] = currentEnvironment()) -> String {
    let state = environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        ?? (environment["HOME"] ?? "/tmp") + "/.local/state"
    return state + "/snap/story"
}

/// The service's default Unix socket: `story.socket` in the socket directory `snap host`
/// uses (not `.sock`, so `snap list` does not take it for a game).
public func defaultStorySocketPath(environment: [String: String] = currentEnvironment(), create: Bool) throws -> String {
    let directory = create ? try SocketDirectory.forHost(environment: environment) : SocketDirectory.default(environment: environment)
    return directory.path + "/story.socket"
}

public func makePrivateDirectoriesOrThrow(_ path: String) throws {
    if let failure = makePrivateDirectories(path) {
        throw StoryClientError.keyFile(failure.directory, "cannot create it: \(String(cString: strerror(failure.errno)))")
    }
}
