import SnapBots
import SnapEngine

/// Everything a host is told before it starts: its name, limits, timings, computers and
/// seeds. Each part of the session takes the settings it needs from it.
public struct HostConfiguration: Sendable {
    public var hostName: String
    /// How many network clients at most (the protocol's limit is 3).
    public var maxClients = 3
    /// Computer players seated by the host itself, after everyone who joined.
    public var bots: Int = 0
    public var botLevel: BotLevel = .normal
    /// Seeds the host's computer players and its tie breaks; with `secretDeals` off, the deals too.
    public var seed: UInt64 = 1
    /// Each round's deal seed and salt come from the system's secure generator, so no
    /// revealed deal tells anything about the next. Off (`snapcards host --seed`): they are
    /// derived from `seed`, for reproducible tests and simulations, and are not secret.
    public var secretDeals = true
    /// Rounds each player name won in this host's earlier matches (read from its
    /// journals); a name not listed has won none. Sent to everyone as `wonCounts`.
    public var earlierWins: [String: Int] = [:]
    public var rules: Rules = .original
    /// Play this many rounds, then end the game (nil: until the host quits).
    public var rounds: Int?
    /// Start the next round by itself this long after a win (nil: wait for `.nextRound`).
    public var autoNextRound: Duration?
    /// Multiplies every host-side delay (pacing and the host's bots); 0 removes them.
    public var speed: Double = 1
    public var pacing: Pacing = .original
    public var pingInterval: Duration = .seconds(1)
    public var silenceLimit: Duration = .seconds(5)
    /// The longest the host waits for slower calls after the first Snap! arrives.
    public var judgingWindowCap: Duration = .milliseconds(300)
    /// Cut any connection that exceeds a message kind's budget (`MessageBudget`); only
    /// `snap-bench net`, which times thousands of calls a second, turns this off.
    public var budgetsEnforced = true
    /// A player who has not turned this long after being activated has their card
    /// turned for them (nil: wait for ever).
    public var turnTimeout: Duration? = .seconds(15)
    /// After this many turns in a row taken for them, a computer plays the seat until
    /// its owner acts again.
    public var awayAfterMissedTurns = 3
    /// Network connections at once, and of those, how many may not have signed in yet.
    public var maxConnections = 32
    public var maxSigningIn = 8
    /// A connection must send `hello` (or `query`) this soon after connecting.
    public var signInTimeout: Duration = .seconds(5)
    /// Seeds the ping nonces; unpredictable unless a test fixes it, so a client that
    /// does not read cannot fake its pongs.
    public var nonceSeed = UInt64.random(in: .min ... .max)
    /// Wall-clock seconds since 1970 when the host started, for the match history.
    public var startedAt: UInt64 = 0
    /// How long a seat whose connection dropped waits for its player (`--grace`); zero
    /// hands its cards out at once.
    public var grace: Duration = .seconds(30)
    /// The code a TCP connection's hello must carry (`JoinCode`), or nil for an open
    /// game. Unix-socket connections never need it: file permissions guard them.
    public var joinCode: String?
    /// Wrong codes from one address allowed before it is refused for a while: 1 s after
    /// the next, then doubling up to `wrongCodeMaxPause`.
    public var wrongCodesAllowed = 3
    public var wrongCodeMaxPause: Duration = .seconds(60)

    public init(hostName: String) {
        self.hostName = hostName
    }
}

extension Duration {
    /// Whole microseconds, rounded down.
    public var microseconds: Int64 {
        let (seconds, attoseconds) = components  // once: each reading divides 128 bits
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }

    /// "5 s", "0.5 s": how the host's messages and docs/PROTOCOL.md write a limit.
    public var secondsText: String {
        let value = self / .seconds(1)
        return value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
