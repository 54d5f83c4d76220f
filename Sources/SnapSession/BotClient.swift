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
        var replies: [ClientMessage] = []
        session.receive(message, now: now)
        switch message {
        case .welcome(let welcome):
            // A player is ready at once; a watcher (no token) has nothing to be ready for.
            if welcome.token != nil, bot == nil { replies.append(.ready) }
        case .gameStarted(let start):
            // A watcher has no seat to play.
            bot = start.yourSeat.map { Bot(seat: $0, level: level, seed: seed, timeScale: timeScale) }
        case .snapshot:
            // Back at the table after a dropped connection: plan from the table as it stands.
            if let table = session.table { bot?.observe([], table: table, now: now) }
        case .events(let events):
            if let table = session.table { bot?.observe(events, table: table, now: now) }
        default:
            break
        }
        return replies
    }

    /// Back at the table after a dropped connection: plans made before it are void (the
    /// snapshot that follows is the table to plan from).
    public mutating func rejoined() {
        if let seat = session.seat { bot = Bot(seat: seat, level: level, seed: seed, timeScale: timeScale) }
        held = nil
    }

    /// Keeps the bot within the host's budgets, however fast it plays (`--speed 0`).
    private var pacer = MessagePacer()
    /// A message the budget held back, and when it may go.
    private var held: (message: ClientMessage, at: Duration)?

    /// While a message is held back, nothing else goes before it.
    public var nextWake: Duration? { held?.at ?? bot?.nextWake }

    /// What the bot wants to send at `now`, if anything.
    public mutating func tick(now: Duration) -> ClientMessage? {
        if let held {
            guard held.at <= now else { return nil }
            guard pacer.allow(held.message, at: now) else {
                self.held!.at = now + max(pacer.wait(held.message, at: now), .milliseconds(1))
                return nil
            }
            self.held = nil
            return held.message
        }
        let message: ClientMessage
        switch bot?.due(at: now) {
        case .turn: message = .turn
        case .snap: message = session.snap(at: now)
        case nil: return nil
        }
        if pacer.allow(message, at: now) { return message }
        held = (message, now + max(pacer.wait(message, at: now), .milliseconds(1)))
        return nil
    }
}
