import SnapPlatform
import Logging
import NIOCore
import SnapBots
import SnapProtocol
import SnapSession

/// A computer player over the network (`snapcards join --bot`), or a headless watcher: a
/// `BotClient` on a `SeatConnection`.
///
/// A seat is not a connection: when the connection drops mid-game (not when the host
/// says goodbye), it redials with backoff and shows its token, for as long as the host
/// keeps the seat (see `SeatLink`).
public final class BotConnection: @unchecked Sendable {  // set up before `run`, then touched on `loop` only
    private let loop: EventLoop
    private let name: String
    private let role: Hello.Role
    private let joinCode: String
    private var bot: BotClient
    private var wake: Scheduled<Void>?
    private let silenceLimit: Duration
    private let logger: Logger
    private let done: EventLoopPromise<ClientOutcome>
    private var connection: SeatConnection?
    /// Given every byte received, as it arrives (for `snapcards join --record`).
    public var recorder: (([UInt8]) -> Void)?
    /// Reconnect after a dropped connection (`--no-rejoin` turns it off).
    public var rejoins = true
    /// Where the token is kept between runs, so a restarted bot takes its seat back.
    public var tokenStore: SeatTokenStore?
    /// Told about reconnections, for the CLI to print.
    public var onReconnect: (@Sendable (String) -> Void)?
    /// Each round's verdict on the host's deal, as the reveal comes in.
    public var onDealVerdict: (@Sendable (DealVerdict) -> Void)?

    /// How a TCP host's certificate is checked (nil: the player's known hosts).
    public var trust: ServerTrust?

    public init(name: String, joinCode: String = "", bot: BotClient, loop: EventLoop, role: Hello.Role = .player,
                silenceLimit: Duration = .seconds(5), logger: Logger) {
        self.name = name
        self.joinCode = joinCode
        self.bot = bot
        self.loop = loop
        self.role = role
        self.silenceLimit = silenceLimit
        self.logger = logger
        done = loop.makePromise()
    }

    /// Connects, signs in and plays; the future completes when the game is over for this
    /// player, or fails with the first connection's error (a `NetError`) if it never opened.
    public func run(_ endpoint: Endpoint) throws -> EventLoopFuture<ClientOutcome> {
        let token = rejoins && role == .player ? tokenStore?.token(for: endpoint, name: name) : nil
        let link = SeatLink(.init(hello: Hello(name: name, joinCode: joinCode, role: role, token: token), rejoins: rejoins,
                                  silenceLimit: silenceLimit))
        let connection = SeatConnection(loop: loop, endpoint: endpoint, link: link, tokens: tokenStore, trust: trust)
        connection.recorder = recorder
        connection.onDeliver = { [self] message in received(message) }
        connection.onStatus = { [self] status in
            switch status {
            case .reconnecting(let reason):
                logger.info("connection lost (\(reason)); rejoining")
                wake?.cancel()
                wake = nil
            case .rejoining(let token):
                onReconnect?("rejoining \(endpoint) with \(token.map { "\($0)" } ?? "no token")")
            case .rejoined:
                bot.rejoined()
            default:
                break
            }
        }
        connection.onFinished = { [self] outcome, error in
            wake?.cancel()
            wake = nil
            if let error { done.fail(error) } else { done.succeed(outcome) }
        }
        self.connection = connection
        loop.execute { connection.start() }
        return done.futureResult
    }

    private var now: Duration { connection?.now ?? .zero }

    private func received(_ message: HostMessage) {
        let verdicts = bot.session.dealVerdicts.count
        for reply in bot.receive(message, now: now) { connection?.send(reply) }
        for verdict in bot.session.dealVerdicts.dropFirst(verdicts) { onDealVerdict?(verdict) }
        schedule()
    }

    private func schedule() {
        wake?.cancel()
        wake = nil
        guard let at = bot.nextWake else { return }
        wake = loop.scheduleTask(in: .nanoseconds(max(.zero, at - now).nanoseconds)) { [weak self] in
            guard let self else { return }
            self.wake = nil
            if let message = self.bot.tick(now: self.now) { self.connection?.send(message) }
            self.schedule()
        }
    }
}
