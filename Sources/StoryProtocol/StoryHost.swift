import SnapBytes
import StoryEngine

/// The two checks a sign-in needs, as values: StoryHost stays free of any crypto library
/// (the fuzzer, Fuzz/StoryFuzz.swift, builds it alone). `StoryKeyChecks.live`
/// (StoryKeys.swift) is SHA-256 and Ed25519 from swift-crypto.
public struct StoryKeyChecks: Sendable {
    /// SHA-256 of a version 1 key: what the service keeps instead of the key.
    public var digest: @Sendable ([UInt8]) -> [UInt8]
    /// Whether `signature` is `publicKey`'s signature of `message`.
    public var verify: @Sendable (_ publicKey: [UInt8], _ signature: [UInt8], _ message: [UInt8]) -> Bool

    public init(digest: @escaping @Sendable ([UInt8]) -> [UInt8],
                verify: @escaping @Sendable (_ publicKey: [UInt8], _ signature: [UInt8], _ message: [UInt8]) -> Bool) {
        self.digest = digest
        self.verify = verify
    }
}

/// What the service knows of a name's key: never a secret.
public enum StoryRegisteredKey: Hashable, Sendable {
    /// Registered by version 1: the SHA-256 of its secret key, until the player signs in
    /// with a key pair and that key once more.
    case oldKeyDigest([UInt8])
    case publicKey([UInt8])
}

/// The sign-in checks (static, given the key a store holds for the name: what the service
/// uses), and the replay of an old story journal into matches and keys in memory (what
/// `snapcards story import` and a first start's import use; tests and the fuzzer drive it too).
public struct StoryHost: Sendable {
    public private(set) var book = StoryBook()
    /// Each name's key, registered by the first sign-in with that name.
    public private(set) var keys: [String: StoryRegisteredKey] = [:]
    public let checks: StoryKeyChecks

    public init(checks: StoryKeyChecks) {
        self.checks = checks
    }

    /// Rebuilds from journal records; returns why any record could not be applied.
    public mutating func replay(_ records: [[UInt8]]) -> [String] {
        var problems: [String] = []
        for (index, bytes) in records.enumerated() {
            do {
                let record = try StoryRecord(bytes)
                if case .command(let command) = record { try book.apply(command) } else { register(record) }
            } catch {
                problems.append("record \(index + 1): \(error)")
            }
        }
        return problems
    }

    public enum SignIn: Equatable, Sendable {
        case welcome(register: StoryRecord?)
        case refused(StoryRefusal, String)
    }

    /// The refusal of a hello of another version, in words naming the upgrade.
    public static func versionRefusal(_ version: UInt16) -> String {
        version < StoryWire.version
            ? "this story service speaks version \(StoryWire.version) (players sign in with a key pair), not \(version): "
                + "upgrade snap to play here; your name and key file carry over"
            : "this story service speaks version \(StoryWire.version), not \(version): it is older than your snap; ask for it to be upgraded"
    }

    /// A hello's checks before the challenge: a usable name, and no other public key
    /// registered for it. Nil: send the challenge.
    public func checkHello(name: String, publicKey: [UInt8]) -> StoryRequestError? {
        Self.checkHello(name: name, publicKey: publicKey, known: keys[name])
    }

    /// The same, with `known` the key a store holds for the name (the service's path).
    public static func checkHello(name: String, publicKey: [UInt8], known: StoryRegisteredKey?) -> StoryRequestError? {
        do { _ = try PlayerName.validate(name, failing: StoryWireError.self) } catch {
            return .init(.signIn, "not a usable name: \(error)")
        }
        if case .publicKey(let registered) = known, registered != publicKey { return .init(.wrongKey, Self.taken(name)) }
        return nil
    }

    /// The proof: `signature` must be `publicKey`'s signature of `message` (the nonce this
    /// connection was sent, its name and channel binding: `StoryWire.signInMessage`). A new
    /// name registers its public key. A name registered by version 1 moves over to the
    /// public key when `oldKey` is its old key (which the service then forgets); a name
    /// registered with another public key is refused.
    public func signIn(name: String, publicKey: [UInt8], signature: [UInt8], oldKey: [UInt8], message: [UInt8]) -> SignIn {
        Self.signIn(name: name, publicKey: publicKey, signature: signature, oldKey: oldKey, message: message,
                    known: keys[name], checks: checks)
    }

    /// The same, with `known` the key a store holds for the name (the service's path).
    public static func signIn(name: String, publicKey: [UInt8], signature: [UInt8], oldKey: [UInt8], message: [UInt8],
                              known: StoryRegisteredKey?, checks: StoryKeyChecks) -> SignIn {
        if let problem = checkHello(name: name, publicKey: publicKey, known: known) { return .refused(problem.refusal, problem.message) }
        guard checks.verify(publicKey, signature, message) else {
            return .refused(.wrongKey, "the proof does not match the key offered for \(name): it was made for another "
                            + "sign-in (another connection, or a channel other than this one); sign in again")
        }
        switch known {
        case nil:
            return .welcome(register: .publicKey(name: name, key: publicKey))
        case .publicKey:
            return .welcome(register: nil)  // the same key: checkHello refused any other
        case .oldKeyDigest(let digest):
            guard !oldKey.isEmpty else {
                return .refused(.wrongKey, "the name \(name) was registered by an older snap: sign in once from the "
                                + "account that has its old key file, which carries the name over to your new key")
            }
            guard SeatToken(bytes: oldKey) != nil else {
                return .refused(.signIn, "an old key of sixteen zero bytes is not a key (docs/STORY.md, Identity)")
            }
            guard constantTimeEqual(checks.digest(oldKey), digest) else { return .refused(.wrongKey, Self.taken(name)) }
            return .welcome(register: .publicKey(name: name, key: publicKey))
        }
    }

    static func taken(_ name: String) -> String {
        "the name \(name) belongs to someone else here (their key is not yours); choose another --name"
    }

    /// Applies a key record (a sign-in's, or one replayed); the last one for a name wins.
    public mutating func register(_ record: StoryRecord) {
        switch record {
        case .oldKey(let name, let key): keys[name] = .oldKeyDigest(checks.digest(key.bytes))
        case .oldKeyDigest(let name, let digest): keys[name] = .oldKeyDigest(digest)
        case .publicKey(let name, let key): keys[name] = .publicKey(key)
        case .command: break
        }
    }

    /// A signed-in player's command: the record to journal and the match it changed.
    /// `turnSeconds`: the deadline of a match that does not ask for its own.
    public mutating func apply(_ request: StoryRequest, by name: String, at now: UInt64,
                               turnSeconds: UInt64 = 0) -> Result<(StoryRecord, StoryMatch), StoryRequestError> {
        let command: StoryCommand
        switch StoryHost.command(request, by: name, at: now, turnSeconds: turnSeconds) {
        case .failure(let error): return .failure(error)
        case .success(let made): command = made
        }
        do {
            let match = try book.apply(command)
            return .success((.command(command), match))
        } catch {
            return .failure(.init(StoryRefusal(error), error.description))
        }
    }

    /// The command a signed-in player's request asks for, stamped with the time and the
    /// deadline (`turnSeconds`, the service's, unless a create asks for its own).
    public static func command(_ request: StoryRequest, by name: String, at now: UInt64,
                               turnSeconds: UInt64) -> Result<StoryCommand, StoryRequestError> {
        switch request {
        case .create(let others, let title, let asked):
            for other in others {
                do { _ = try PlayerName.validate(other, failing: StoryWireError.self) } catch {
                    return .failure(.init(.badRequest, "not a usable name \"\(other)\": \(error)"))
                }
            }
            return .success(.create(starter: name, others: others, title: title, at: now,
                                    turnSeconds: asked > 0 ? asked : turnSeconds))
        case .automatch: return .success(.automatch(name: name, at: now, turnSeconds: turnSeconds))
        case .turn(let id, let text): return .success(.turn(id, name: name, text: text, at: now))
        case .quit(let id): return .success(.quit(id, name: name, at: now))
        case .decline(let id): return .success(.decline(id, name: name, at: now))
        case .rematch(let id): return .success(.rematch(id, name: name, at: now))
        default: return .failure(.init(.badRequest, "not a command"))
        }
    }
}

public struct StoryRequestError: Error, Equatable, Sendable {
    public var refusal: StoryRefusal
    public var message: String
    public init(_ refusal: StoryRefusal, _ message: String) {
        self.refusal = refusal
        self.message = message
    }
}

/// Whether two byte strings are equal, in a time that depends on their lengths only: a
/// comparison that stops at the first difference tells a prober how much was right.
public func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for index in a.indices { difference |= a[index] ^ b[index] }
    return difference == 0
}
