/// A token bucket: `capacity` messages at once, refilled at `perSecond` a second.
/// Times are `Duration`s since any origin the caller keeps (a host's clock, a client's).
public struct TokenBucket: Hashable, Sendable {
    public let capacity: Int
    public let perSecond: Double
    private var tokens: Double
    private var updatedAt: Duration?

    public init(capacity: Int, perSecond: Double) {
        self.capacity = capacity
        self.perSecond = perSecond
        tokens = Double(capacity)
    }

    /// Takes one token if there is one; false means the message is over budget.
    public mutating func take(at now: Duration) -> Bool {
        refill(at: now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// How long until a token is available (zero if one is there now). Nothing is taken.
    public mutating func wait(at now: Duration) -> Duration {
        refill(at: now)
        guard tokens < 1 else { return .zero }
        guard perSecond > 0 else { return .seconds(1_000_000) }
        return .seconds((1 - tokens) / Double(perSecond))
    }

    /// Spends `amount` tokens already used (bytes already read), into debt if need be;
    /// returns how long until the debt is paid (zero if there is none), which the caller
    /// waits before using more.
    public mutating func spend(_ amount: Int, at now: Duration) -> Duration {
        refill(at: now)
        tokens -= Double(amount)
        guard tokens < 0 else { return .zero }
        guard perSecond > 0 else { return .seconds(1_000_000) }
        return .seconds(-tokens / perSecond)
    }

    private mutating func refill(at now: Duration) {
        if let updatedAt, now > updatedAt {
            let elapsed = (now - updatedAt) / .seconds(1)
            tokens = min(Double(capacity), tokens + elapsed * Double(perSecond))
        }
        if updatedAt == nil || now > updatedAt! { updatedAt = now }
    }
}
