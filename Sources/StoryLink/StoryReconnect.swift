/// A Story client's sign-ins over time, as a value (SeatLink's counterpart for Story): when
/// to sign in, how long to wait before trying again, when to give up. No sockets and no
/// clock: the caller signs in, reports how it went, and gives the time. `snapcards story
/// notify` and the window's Story screen both run it.
public struct StoryReconnect: Sendable {
    /// The first wait before trying again; each further one doubles, up to `longestWait`.
    public static let firstWait: Duration = .seconds(1)
    public static let longestWait: Duration = .seconds(60)

    public enum Input: Sendable {
        case start
        case signedIn
        /// Signing in failed; `retry`: worth another try (the network, a busy service),
        /// not a refusal of this player that another try would meet again.
        case signInFailed(String, retry: Bool)
        /// A signed-in connection ended.
        case lost(String)
        /// The time `nextDeadline` asked for has come.
        case timerFired
        /// The player is done: nothing more is tried.
        case close
    }

    public enum Action: Equatable, Sendable {
        case signIn
        /// Signed in; `again`: after a connection was lost (only what changed meanwhile is news).
        case signedIn(again: Bool)
        /// The next try comes after `wait`: a sign-in failed, or (`wasSignedIn`) a connection ended.
        case retrying(after: Duration, reason: String, wasSignedIn: Bool)
        /// Over: a refusal another try would meet again.
        case finished(String)
    }

    private enum Phase: Equatable {
        case idle, signingIn, connected, waiting(until: Duration), finished
    }

    private var phase = Phase.idle
    private var wait = firstWait
    private var everSignedIn = false

    public init() {}

    /// When `timerFired` is due; nil when no timer runs.
    public var nextDeadline: Duration? {
        if case .waiting(let until) = phase { until } else { nil }
    }

    public var isFinished: Bool { phase == .finished }

    public mutating func handle(_ input: Input, now: Duration) -> [Action] {
        switch (input, phase) {
        case (.start, .idle):
            phase = .signingIn
            return [.signIn]
        case (.signedIn, .signingIn):
            phase = .connected
            defer { everSignedIn = true }
            return [.signedIn(again: everSignedIn)]
        case (.signInFailed(let reason, let retry), .signingIn):
            guard retry else {
                phase = .finished
                return [.finished(reason)]
            }
            return waitThenTry(reason, wasSignedIn: false, now: now)
        case (.lost(let reason), .connected):
            wait = Self.firstWait  // it was signed in: the backoff starts again
            return waitThenTry(reason, wasSignedIn: true, now: now)
        case (.timerFired, .waiting(let until)) where now >= until:
            phase = .signingIn
            return [.signIn]
        case (.close, _):
            phase = .finished
            return []
        default:
            return []
        }
    }

    private mutating func waitThenTry(_ reason: String, wasSignedIn: Bool, now: Duration) -> [Action] {
        let after = wait
        wait = min(wait * 2, Self.longestWait)
        phase = .waiting(until: now + after)
        return [.retrying(after: after, reason: reason, wasSignedIn: wasSignedIn)]
    }
}

extension StoryClientError {
    /// The network, or a service too busy now: another try may go through. A refusal of
    /// this player, or a key file that cannot be read, would be met again.
    public var isWorthRetrying: Bool {
        switch self {
        case .refused(.busy, _), .refused(.overBudget, _), .refused(.unavailable, _), .cannotConnect, .broken: true
        case .refused, .keyFile: false
        }
    }
}

extension Error {
    /// `StoryClientError.isWorthRetrying`; any other error is not.
    public var storySignInIsWorthRetrying: Bool { (self as? StoryClientError)?.isWorthRetrying ?? false }
}
