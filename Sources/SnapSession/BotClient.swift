import SnapBots
import SnapEngine
import SnapProtocol

/// A computer player on the far end of a connection: a `ClientSession` that a `Bot` plays.
public struct BotClient: Sendable {
    public private(set) var session = ClientSession()
    public private(set) var bot: Bot?
    let level: BotLevel
    let seed: UInt64
    let timeScale: Double

    public init(level: BotLevel = .normal, seed: UInt64, timeScale: Double = 1) {
        self.level = level
        self.seed = seed
        self.timeScale = timeScale
    }

    /// Applies a host message; returns what to send at once.
    public mutating func receive(_ message: HostMessage, now: Duration) -> [ClientMessage] {
        var replies = session.receive(message, now: now).replies
        switch message {
        case .welcome:
            replies.append(.ready)
        case .gameStarted(let start):
            bot = Bot(seat: start.yourSeat, level: level, seed: seed, timeScale: timeScale)
        case .events(let events):
            if let table = session.table { bot?.observe(events, table: table, now: now) }
        default:
            break
        }
        return replies
    }

    public var nextWake: Duration? { bot?.nextWake }

    /// What the bot wants to send at `now`, if anything.
    public mutating func tick(now: Duration) -> ClientMessage? {
        switch bot?.due(at: now) {
        case .turn: .turn
        case .snap: session.snap(at: now)
        case nil: nil
        }
    }
}
