import SnapJournal
import SnapBytes
import StoryEngine

/// One journal record of the story service: a name's key registered, or a command that
/// was applied. Replaying them in order rebuilds every match and every identity.
///
///     oldKey       = 1, name, 16-byte key      (version 1's secret key: read, never written)
///     create       = 2, u64 at, starter, title, u8 count, names
///     automatch    = 3, u64 at, name
///     turn         = 4, u64 at, u32 match, name, u16 length, text
///     quit         = 5, u64 at, u32 match, name
///     oldKeyDigest = 6, name, 32-byte SHA-256 of a version 1 key
///     publicKey    = 7, name, 32-byte Ed25519 public key
///     decline      = 8, u64 at, u32 match, name
///     timeout      = 9, u64 at, u32 match
///     rematch      = 10, u64 at, u32 match, name
///
/// create and automatch end with a u64 of seconds a turn when there is a deadline.
/// Since the service keeps its matches in a database (`StoryStore`), journals are only
/// read, by `snapcards story import`; writing them stays for tests and benchmarks that make one.
///
/// Strings are u8 length + UTF-8, integers big-endian (docs/JOURNAL.md). An `oldKey`
/// record is imported as its digest (`StoryHost.register`), so that the service's database
/// holds no secret.
public enum StoryRecord: Hashable, Sendable {
    /// A name's key as version 1 registered it, the secret itself.
    case oldKey(name: String, key: SeatToken)
    /// What is kept of a version 1 key until its player signs in with a key pair: its SHA-256.
    case oldKeyDigest(name: String, digest: [UInt8])
    /// A name's public key, registered by its first sign-in (or when it moved over from an
    /// old key); it replaces whatever was registered for the name before.
    case publicKey(name: String, key: [UInt8])
    case command(StoryCommand)

    /// The journal's kind, in its header.
    public static let journalKind = "snap-story"

    public var bytes: [UInt8] {
        var writer = ByteWriter()
        switch self {
        case .oldKey(let name, let key):
            writer.u8(1)
            writer.string(name)
            writer.bytes(key.bytes)
        case .oldKeyDigest(let name, let digest):
            writer.u8(6)
            writer.string(name)
            writer.bytes(digest)
        case .publicKey(let name, let key):
            writer.u8(7)
            writer.string(name)
            writer.bytes(key)
        case .command(.create(let starter, let others, let title, let at, let turnSeconds)):
            writer.u8(2)
            writer.u64(at)
            writer.string(starter)
            writer.string(title)
            writer.u8(UInt8(others.count))
            for name in others { writer.string(name) }
            if turnSeconds > 0 { writer.u64(turnSeconds) }
        case .command(.automatch(let name, let at, let turnSeconds)):
            writer.u8(3)
            writer.u64(at)
            writer.string(name)
            if turnSeconds > 0 { writer.u64(turnSeconds) }
        case .command(.turn(let id, let name, let text, let at)):
            writer.u8(4)
            writer.u64(at)
            writer.u32(id.value)
            writer.string(name)
            writer.u16(UInt16(text.utf8.count))
            writer.bytes(text.utf8)
        case .command(.quit(let id, let name, let at)):
            writer.u8(5)
            writer.u64(at)
            writer.u32(id.value)
            writer.string(name)
        case .command(.decline(let id, let name, let at)):
            writer.u8(8)
            writer.u64(at)
            writer.u32(id.value)
            writer.string(name)
        case .command(.timeout(let id, let at)):
            writer.u8(9)
            writer.u64(at)
            writer.u32(id.value)
        case .command(.rematch(let id, let name, let at)):
            writer.u8(10)
            writer.u64(at)
            writer.u32(id.value)
            writer.string(name)
        }
        return writer.bytes
    }

    public init(_ bytes: [UInt8]) throws(StoryWireError) {
        var reader = ByteReader<StoryWireError>(bytes, type: 0)
        switch try reader.u8() {
        case 1:
            let name = try reader.string()
            guard let key = SeatToken(bytes: try reader.bytes(16)) else { throw .truncatedPayload(type: 1) }
            self = .oldKey(name: name, key: key)
        case 2:
            let at = try reader.u64()
            let starter = try reader.string()
            let title = try reader.string()
            let count = try reader.count8(.participants, in: 0...StoryRules.participants.upperBound)
            var others: [String] = []
            for _ in 0..<count { others.append(try reader.string()) }
            self = .command(.create(starter: starter, others: others, title: title, at: at, turnSeconds: try Self.turnSeconds(&reader)))
        case 3:
            let at = try reader.u64()
            let name = try reader.string()
            self = .command(.automatch(name: name, at: at, turnSeconds: try Self.turnSeconds(&reader)))
        case 4:
            let at = try reader.u64()
            let id = StoryMatchID(try reader.u32())
            let name = try reader.string()
            let length = try reader.count16(.textBytes, in: 0...StoryWire.maxTurnBytes)
            guard let text = String(validating: try reader.bytes(length), as: UTF8.self) else { throw .invalidUTF8 }
            self = .command(.turn(id, name: name, text: text, at: at))
        case 5:
            let at = try reader.u64()
            let id = StoryMatchID(try reader.u32())
            self = .command(.quit(id, name: try reader.string(), at: at))
        case 6:
            let name = try reader.string()
            self = .oldKeyDigest(name: name, digest: try reader.bytes(32))
        case 7:
            let name = try reader.string()
            self = .publicKey(name: name, key: try reader.bytes(StoryWire.publicKeyBytes))
        case 8:
            let at = try reader.u64()
            let id = StoryMatchID(try reader.u32())
            self = .command(.decline(id, name: try reader.string(), at: at))
        case 9:
            let at = try reader.u64()
            self = .command(.timeout(StoryMatchID(try reader.u32()), at: at))
        case 10:
            let at = try reader.u64()
            let id = StoryMatchID(try reader.u32())
            self = .command(.rematch(id, name: try reader.string(), at: at))
        case let tag:
            throw .unknownEventTag(tag)
        }
        try reader.finish()
    }

    /// A create's or automatch's optional last field: nothing (no deadline) or a nonzero u64.
    private static func turnSeconds(_ reader: inout ByteReader<StoryWireError>) throws(StoryWireError) -> UInt64 {
        guard reader.remaining > 0 else { return 0 }
        let seconds = try reader.u64()
        guard seconds > 0 else { throw .truncatedPayload(type: 0) }  // 0 is written as nothing
        return seconds
    }
}
