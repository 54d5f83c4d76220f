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
        do {
            if let key = try SecretFile.load(target) { return key }
            var generator = SystemRandomNumberGenerator()
            let key = SeatToken.random(using: &generator)
            // Exclusive: two first uses at once end with one key, the one both then read.
            guard try SecretFile.store(key, at: target, exclusive: true) else { return try self.key(for: name) }
            return key
        } catch let error as SecretFileError where error.problem == "it does not hold a key" {
            throw StoryClientError.keyFile(target, "it does not hold a key; remove it to make a new one (the service will then refuse the name)")
        } catch let error as SecretFileError {
            throw StoryClientError.keyFile(error.path, error.problem)
        }
    }
}

/// `$XDG_STATE_HOME/snap/story` (else `~/.local/state/snap/story`): the journal and the keys.
public func storyStateDirectory(environment: [String: String] = currentEnvironment()) -> String {
    snapStateDirectory(environment: environment) + "/story"
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
