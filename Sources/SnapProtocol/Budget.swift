import SnapBytes

/// Every client message kind's budget, per connection: what an honest client never
/// exceeds, so a host can cut whoever does (docs/PROTOCOL.md §10, "Budgets"), and what
/// clients (computer players included) pace themselves by.
public enum MessageBudget {
    /// The kinds of client message, for budgeting.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        case hello, query, ready, turn, snap, leave, pong
    }

    /// `(capacity, perSecond)` of each kind's bucket.
    public static func limits(_ kind: Kind) -> (capacity: Int, perSecond: Int) {
        switch kind {
        // The first frame only; a second is a violation before any budget applies.
        case .hello, .query, .leave: (1, 0)
        // Once per player; a few repeats are an honest double click.
        case .ready: (4, 1)
        // One per activation: every half second at the original pace, faster in fast
        // test games; a flood is thousands a second.
        case .turn: (20, 20)
        case .snap: (20, 10)
        // The host pings once a second.
        case .pong: (4, 2)
        }
    }

    public static func bucket(_ kind: Kind) -> TokenBucket {
        let limit = limits(kind)
        return TokenBucket(capacity: limit.capacity, perSecond: Double(limit.perSecond))
    }

    /// A fresh set of buckets, one per kind.
    public static func buckets() -> [Kind: TokenBucket] {
        Dictionary(uniqueKeysWithValues: Kind.allCases.map { ($0, bucket($0)) })
    }

    /// "more than 20 turn messages at once, or 20 a second".
    public static func overBudgetText(_ kind: Kind) -> String {
        let limit = limits(kind)
        return "over budget: more than \(limit.capacity) \(kind.rawValue) messages at once, or \(limit.perSecond) a second"
    }
}

extension ClientMessage {
    public var budgetKind: MessageBudget.Kind {
        switch self {
        case .hello: .hello
        case .query: .query
        case .ready: .ready
        case .turn: .turn
        case .snap: .snap
        case .leave: .leave
        case .pong: .pong
        }
    }
}

/// A client's side of the budgets: it never sends more than the host allows. It keeps
/// half the burst and a quarter of the rate in hand, because messages sent evenly can
/// arrive bunched (a scheduling hiccup, a busy link) and the host counts arrivals.
public struct MessagePacer: Sendable {
    private var buckets = Dictionary(uniqueKeysWithValues: MessageBudget.Kind.allCases.map { kind in
        let limit = MessageBudget.limits(kind)
        return (kind, TokenBucket(capacity: max(1, limit.capacity / 2), perSecond: Double(limit.perSecond) * 0.75))
    })

    public init() {}

    /// Takes a token for `message` if its budget has one now.
    public mutating func allow(_ message: ClientMessage, at now: Duration) -> Bool {
        let kind = message.budgetKind
        guard ![.hello, .query, .leave].contains(kind) else { return true }
        return buckets[kind, default: MessageBudget.bucket(kind)].take(at: now)
    }

    /// How long until `message` would be allowed.
    public mutating func wait(_ message: ClientMessage, at now: Duration) -> Duration {
        let kind = message.budgetKind
        return buckets[kind, default: MessageBudget.bucket(kind)].wait(at: now)
    }
}
