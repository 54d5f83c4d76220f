#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SnapFiles
import SnapPlatform
import SnapBytes

/// A player's identity across days: their name and an Ed25519 key pair whose private key
/// is kept in `$XDG_STATE_HOME/snap/story/keys/NAME.ed25519` (directory 0700, file 0600)
/// and never sent anywhere, created on first use. The service registers the public key
/// the first time it sees the name and from then on asks every sign-in to prove it holds
/// the private key (a signature of a fresh nonce).
///
/// Version 1 kept a secret 16-byte key in `keys/NAME` and sent it as it was. While that
/// file is there it is sent once more with the first proof, so that a service which knew
/// the name by it moves the name over to the key pair; the file is removed after that
/// welcome.
public struct StoryKeyStore: Sendable {
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    public static func `default`(environment: [String: String] = currentEnvironment()) -> StoryKeyStore {
        StoryKeyStore(directory: storyStateDirectory(environment: environment) + "/keys")
    }

    /// Version 1's key file for `name`.
    public func oldKeyPath(for name: String) -> String {
        // Names may hold spaces and punctuation; the file name keeps letters and digits only
        // and adds the name's bytes in hex so that two names never share a file.
        let safe = name.map { $0.isLetter || $0.isNumber ? $0 : "_" }
        let hex = name.utf8.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        return directory + "/" + String(String(safe).prefix(40)) + "-" + hex
    }

    /// The private key's file for `name`.
    public func keyPath(for name: String) -> String { oldKeyPath(for: name) + ".ed25519" }

    /// Who signs in as `name` from here: the key pair, made and kept (0600) the first time,
    /// and the old key while its file is there.
    public func identity(for name: String) throws -> StoryIdentity {
        let target = keyPath(for: name)
        let key: StoryKey
        if let kept = try StoryKeyFile.load(target) {
            key = kept
        } else {
            try makePrivateDirectoriesOrThrow(directory)
            // Exclusive: two first uses at once end with one key, the one both then read.
            if let made = try StoryKeyFile.create(StoryKey(), at: target) {
                key = made
            } else if let theirs = try StoryKeyFile.load(target) {
                key = theirs
            } else {
                throw StoryClientError.keyFile(target, "it vanished while it was being made; try again")
            }
        }
        let old: SeatToken?
        do {
            old = try SecretFile.load(oldKeyPath(for: name))
        } catch {
            // A version 1 file that holds no key carries nothing over: the key pair is used alone.
            old = nil
        }
        return StoryIdentity(name: name, key: key, oldKey: old)
    }

    /// Removes version 1's key file for `name`: a service has taken the key pair with it.
    /// Once the service has the public key the old key opens nothing, so a failure here
    /// (the file is then sent again, and ignored) is not worth stopping for.
    public func forgetOldKey(for name: String) {
        unlink(oldKeyPath(for: name))
    }

    /// Signs in to the service at `endpoint` as `name` with this store's key pair (made on
    /// first use). `channelBinding`: see `StoryChannelBinding` (`.unbound` but over TLS).
    /// An old key is sent along and its file removed after the welcome.
    public func signIn(endpoint: StoryEndpoint, name: String, joinCode: String = "",
                       timeoutSeconds: Int = 30, trust: ServerTrust? = nil) async throws -> StoryClient {
        let identity = try identity(for: name)
        let client = try await StoryClient(endpoint: endpoint, name: name, key: identity.key, oldKey: identity.oldKey,
                                     joinCode: joinCode, timeoutSeconds: timeoutSeconds, trust: trust)
        if identity.oldKey != nil { forgetOldKey(for: name) }
        return client
    }
}

/// A name's keys on this machine.
public struct StoryIdentity: Sendable {
    public let name: String
    public let key: StoryKey
    /// Version 1's key, until a service has carried the name over with it.
    public let oldKey: SeatToken?
}

/// A private key file: its first line is the key's 32 bytes in 64 hex digits; a second
/// line says what it is (`load` reads the first only).
enum StoryKeyFile {
    static let note = "a snap story private key (Ed25519): it proves who you are; never share it"
    /// The most bytes looked at: the key line, its newline and room for either case of CR.
    static let lineLimit = 66

    /// The key in `path`: nil when there is no such file; an error when it holds none.
    static func load(_ path: String) throws -> StoryKey? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw StoryClientError.keyFile(path, String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: lineLimit)
        var count = 0
        while count < buffer.count {
            let read = buffer[count...].withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if read < 0, errno == EINTR { continue }
            guard read > 0 else { break }
            count += read
        }
        guard let bytes = hexBytes(buffer[0..<count].prefix { $0 != 10 && $0 != 13 && $0 != 0 }), let key = StoryKey(privateKeyBytes: bytes) else {
            throw StoryClientError.keyFile(path, "it does not hold a key; remove it to make a new one (the service will then refuse the name)")
        }
        return key
    }

    /// Writes `key` to `path` (0600) unless a file is there already: nil then (another
    /// process made it first; read that one). Written whole to a temporary name first and
    /// linked into place, so that nobody ever reads half a key.
    static func create(_ key: StoryKey, at path: String) throws -> StoryKey? {
        let temporary = path + ".new-\(getpid())"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StoryClientError.keyFile(temporary, String(cString: strerror(errno))) }
        defer { unlink(temporary) }
        let hex = key.privateKeyBytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        let text = Array((hex + "\n" + note + "\n").utf8)
        var written = 0
        while written < text.count {
            let count = text[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let why = String(cString: strerror(errno))
                close(descriptor)
                throw StoryClientError.keyFile(path, "cannot write it: \(why)")
            }
            written += count
        }
        // Losing the key loses the name: on disk before anything is signed with it.
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard synced else { throw StoryClientError.keyFile(path, "cannot write it: \(String(cString: strerror(errno)))") }
        guard link(temporary, path) == 0 else {
            if errno == EEXIST { return nil }
            throw StoryClientError.keyFile(path, "cannot create it: \(String(cString: strerror(errno)))")
        }
        return key
    }

    /// Exactly 64 hex digits (either case) as 32 bytes; nil for anything else.
    static func hexBytes(_ digits: some Collection<UInt8>) -> [UInt8]? {
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case 0x30...0x39: digit - 0x30
            case 0x41...0x46: digit - 0x41 + 10
            case 0x61...0x66: digit - 0x61 + 10
            default: nil
            }
        }
        let digits = Array(digits)
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}

/// The service's default Unix socket: `story.socket` in the socket directory `snapcards host`
/// uses (not `.sock`, so `snapcards list` does not take it for a game).
public func defaultStorySocketPath(environment: [String: String] = currentEnvironment(), create: Bool) throws -> String {
    let directory = create ? try SocketDirectory.forHost(environment: environment) : SocketDirectory.default(environment: environment)
    return directory.path + "/story.socket"
}

public func makePrivateDirectoriesOrThrow(_ path: String) throws {
    if let failure = makePrivateDirectories(path) {
        throw StoryClientError.keyFile(failure.directory, "cannot create it: \(String(cString: strerror(failure.errno)))")
    }
}
