import Synchronization

/// A flag one side raises and the other awaits: how a test holds async work (a window's
/// game being made) until the window has shown something, without blocking a thread.
public final class Flag: Sendable {
    private let state = Mutex(false)

    public init() {}

    public func raise() { state.withLock { $0 = true } }

    public var isRaised: Bool { state.withLock { $0 } }

    /// Whether the flag went up within `limit` (looked at every 5 ms).
    public func raised(within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while !isRaised {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}
