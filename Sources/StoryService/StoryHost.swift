import SnapProtocol
import StoryEngine

/// The service's state apart from the sockets: the matches, the keys, and what a signed-in
/// player's request does. `handle` returns the records to journal (before any reply goes
/// out) and the replies; the server only moves bytes. Tests drive it directly too.
public struct StoryHost: Sendable {
    public private(set) var book = StoryBook()
    /// Each name's key, registered by the first hello with that name.
    public private(set) var keys: [String: SeatToken] = [:]

    public init() {}

    /// Rebuilds from journal records; returns why any record could not be applied.
    public mutating func replay(_ records: [[UInt8]]) -> [String] {
        var problems: [String] = []
        for (index, bytes) in records.enumerated() {
            do {
                switch try StoryRecord(bytes) {
                case .register(let name, let key): keys[name] = key
                case .command(let command): try book.apply(command)
                }
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

    /// Checks a hello: the name's first use registers its key; another key is refused.
    public func signIn(version: UInt16, name: String, key bytes: [UInt8]) -> SignIn {
        guard version == StoryWire.version else {
            return .refused(.signIn, "this story service speaks version \(StoryWire.version), not \(version)")
        }
        do { _ = try PlayerName.validate(name) } catch {
            return .refused(.signIn, "not a usable name: \(error)")
        }
        guard let key = SeatToken(bytes: bytes) else {
            return .refused(.signIn, "a key of sixteen zero bytes is not a key: a player's key is 16 random bytes (docs/STORY.md, Identity)")
        }
        guard let known = keys[name] else { return .welcome(register: .register(name: name, key: key)) }
        guard known == key else {
            return .refused(.wrongKey, "the name \(name) belongs to someone else here (their key is not yours); choose another --name")
        }
        return .welcome(register: nil)
    }

    public mutating func register(_ record: StoryRecord) {
        if case .register(let name, let key) = record { keys[name] = key }
    }

    /// A signed-in player's command: the record to journal and the match it changed.
    public mutating func apply(_ request: StoryRequest, by name: String, at now: UInt64) -> Result<(StoryRecord, StoryMatch), StoryRequestError> {
        let command: StoryCommand
        switch request {
        case .create(let others, let title):
            for other in others {
                do { _ = try PlayerName.validate(other) } catch {
                    return .failure(.init(.badRequest, "not a usable name \"\(other)\": \(error)"))
                }
            }
            command = .create(starter: name, others: others, title: title, at: now)
        case .automatch: command = .automatch(name: name, at: now)
        case .turn(let id, let text): command = .turn(id, name: name, text: text, at: now)
        case .quit(let id): command = .quit(id, name: name, at: now)
        default: return .failure(.init(.badRequest, "not a command"))
        }
        do {
            let match = try book.apply(command)
            return .success((.command(command), match))
        } catch {
            return .failure(.init(StoryRefusal(error), error.description))
        }
    }
}

public struct StoryRequestError: Error, Sendable {
    public var refusal: StoryRefusal
    public var message: String
    public init(_ refusal: StoryRefusal, _ message: String) {
        self.refusal = refusal
        self.message = message
    }
}
