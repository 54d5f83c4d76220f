import SnapBytes
import SnapProtocol

/// A seat's link to its host, as a value: the client's counterpart of `HostSession`.
///
/// It owns everything about staying connected that a computer player and a window share:
/// the hello and the seat's token, the sequence numbers, a generation per connection (a
/// late report from a replaced connection is ignored), the grace period, the watchdog on
/// the host's silence and the backoff when it redials. It answers pings, and is the only
/// client code that does: a ping is never delivered. It has no clock and does no I/O: each
/// input comes with the time (a `Duration` since any origin) and it answers with actions
/// in order, which `SeatConnection` (SnapNet) carries out on an event loop and the tests
/// in virtual time.
///
/// A seat is not a connection: when the connection drops mid-game (not when the host says
/// goodbye), it redials with backoff (100 ms, doubling, at most 1 s apart) and shows its
/// token for as long as the host keeps the seat, the grace period from `gameStarted`
/// plus `rejoinSlack` (the host may itself be restarting with `snapcards host --resume`).
public struct SeatLink: Sendable {
    public struct Configuration: Sendable {
        /// The sign-in; its token (kept from an earlier run) takes a seat back.
        public var hello: Hello
        /// Redial after a dropped connection mid-game (`snapcards join --no-rejoin` turns it off).
        public var rejoins = true
        /// Nothing from the host for this long (it pings every second) means it is gone.
        public var silenceLimit: Duration = .seconds(5)
        /// How long a first connection may wait for a host whose queue is full; a redial's.
        public var firstPatience: Duration = .seconds(5)
        public var rejoinPatience: Duration = .seconds(1)
        /// How long past the grace period redialling goes on.
        public var rejoinSlack: Duration = .seconds(5)
        /// A watchdog that fires this late means this process stalled, not the host: it
        /// looks again this much later, so bytes that waited in the socket are read first.
        public var stallSlack: Duration = .milliseconds(250)

        public init(hello: Hello, rejoins: Bool = true, silenceLimit: Duration = .seconds(5)) {
            self.hello = hello
            self.rejoins = rejoins
            self.silenceLimit = silenceLimit
        }
    }

    public enum Input: Sendable {
        /// Dial the host for the first time.
        case start
        /// The connection asked for by `.connect(generation, …)` is open.
        case connected(generation: Int)
        /// That connection could not be opened.
        case connectFailed(generation: Int, reason: String)
        case received(HostMessage, generation: Int)
        /// The connection closed, errored or sent something unreadable.
        case lost(generation: Int, reason: String)
        /// TLS refused what came: something between the ends changed a byte. Not redialled:
        /// the way to the host cannot be trusted, and the game ends here with the reason.
        case tampered(generation: Int, reason: String)
        /// The player's intent, for the current connection (dropped while there is none).
        case send(ClientMessage)
        /// The player leaves: close, and report nothing more.
        case close
        /// The time `nextDeadline` asked for has come.
        case timerFired
    }

    public enum Action: Hashable, Sendable {
        /// Open connection `generation` after `after`, waiting at most `patience` for a busy host.
        case connect(generation: Int, after: Duration, patience: Duration)
        /// Write on the current connection.
        case send(ClientMessage, sequence: UInt32)
        /// Close connection `generation`, if it is open.
        case close(generation: Int)
        /// A host message for the client (never a ping, nor a rejoin's welcome and `gameStarted`).
        case deliver(HostMessage)
        /// Keep the seat's token for this endpoint and name (a restarted client takes the seat back).
        case keepToken(SeatToken)
        case forgetToken
        /// The connection dropped mid-game; redialling (the reason, for a log).
        case reconnecting(String)
        /// Connected again; signing in with this token (nil: afresh).
        case rejoining(SeatToken?)
        /// The host welcomed the seat back mid-game (the snapshot follows).
        case rejoined
        /// Over: nothing more comes from this link.
        case finished(ClientOutcome)
    }

    private enum Phase: Sendable {
        case idle
        /// `.connect(generation)` is out; nothing open.
        case connecting
        case connected
        case finished
    }

    /// A run of redials since the connection dropped (or since a lobby `badToken`), until a welcome.
    private struct Redial: Sendable {
        var since: Duration
        var reason: String
        var pause: Duration
    }

    public let configuration: Configuration
    public private(set) var generation = 0
    /// The token shown in the next hello: kept from an earlier run, or the latest welcome's.
    public private(set) var token: SeatToken?
    public private(set) var inGame = false
    /// How long the host keeps this seat after a dropped connection (from `gameStarted`).
    public private(set) var grace: Duration = .zero
    private var phase = Phase.idle
    private var sequence: UInt32 = 0
    private var watchdog: Duration?
    private var redial: Redial?

    public init(_ configuration: Configuration) {
        self.configuration = configuration
        token = configuration.hello.token
    }

    public var isFinished: Bool { if case .finished = phase { true } else { false } }
    /// A connection is open (it may not have been welcomed yet).
    public var isConnected: Bool { if case .connected = phase { true } else { false } }
    /// When the driver must send `.timerFired` (the watchdog), if ever.
    public var nextDeadline: Duration? { isConnected ? watchdog : nil }

    public mutating func handle(_ input: Input, now: Duration) -> [Action] {
        switch input {
        case .start:
            guard case .idle = phase else { return [] }
            phase = .connecting
            generation += 1
            return [.connect(generation: generation, after: .zero, patience: configuration.firstPatience)]
        case .connected(let generation):
            guard generation == self.generation, case .connecting = phase else { return [.close(generation: generation)] }
            phase = .connected
            sequence = 0
            watchdog = now + configuration.silenceLimit
            var hello = configuration.hello
            hello.token = token
            var actions: [Action] = redial == nil ? [] : [.rejoining(token)]
            actions.append(send(.hello(hello)))
            return actions
        case .connectFailed(let generation, let reason):
            guard generation == self.generation, case .connecting = phase else { return [] }
            guard var redial else { return finish(.dropped(reason)) }
            redial.pause = min(max(redial.pause * 2, .milliseconds(100)), .seconds(1))
            self.redial = redial
            return dialAgain(now: now)
        case .received(let message, let generation):
            guard generation == self.generation, case .connected = phase else { return [] }
            watchdog = now + configuration.silenceLimit
            return received(message, now: now)
        case .lost(let generation, let reason):
            guard generation == self.generation, case .connected = phase else { return [] }
            return lost(reason, now: now)
        case .tampered(let generation, let reason):
            guard generation == self.generation, case .connected = phase else { return [] }
            return finish(.dropped(reason))
        case .send(let message):
            guard case .connected = phase else { return [] }
            switch message {
            case .hello, .pong: return []  // this link signs in and answers pings, nobody else
            default: return [send(message)]
            }
        case .close:
            guard !isFinished else { return [] }
            phase = .finished
            return [.close(generation: generation)]
        case .timerFired:
            guard case .connected = phase, let due = watchdog, due <= now else { return [] }
            if now - due >= configuration.stallSlack {
                // The timer itself is late: this process stalled, and what the host sent
                // meanwhile may still wait to be read. Look again shortly.
                watchdog = now + configuration.stallSlack
                return []
            }
            return lost("nothing heard from the host for \(configuration.silenceLimit)", now: now)
        }
    }

    private mutating func send(_ message: ClientMessage) -> Action {
        defer { sequence &+= 1 }
        return .send(message, sequence: sequence)
    }

    private mutating func received(_ message: HostMessage, now: Duration) -> [Action] {
        var actions: [Action] = []
        switch message {
        case .ping(let nonce):
            return [send(.pong(nonce: nonce))]
        case .welcome(let welcome):
            if let given = welcome.token, given != token {
                token = given
                actions.append(.keepToken(given))
            }
            if redial != nil, inGame { actions.append(.rejoined) }
            redial = nil
            // A rejoin's welcome tells the client nothing new.
            if inGame { return actions }
        case .gameStarted(let start):
            grace = start.grace
            // A rejoin's: the snapshot that follows brings the table up to date.
            if inGame { return actions }
            inGame = true
        case .closing(let reason, let text):
            if reason == .badToken, !inGame, token != nil {
                // A token kept from an older game of this name: forget it and sign in afresh.
                token = nil
                phase = .connecting
                redial = Redial(since: now, reason: "signing in afresh", pause: .zero)
                return [.forgetToken, .close(generation: generation)] + dialAgain(now: now)
            }
            // The host is done with this seat; its token takes nothing back any more.
            if token != nil { actions.append(.forgetToken) }
            actions.append(.deliver(message))
            return actions + finish(reason == .gameFinished || reason == .hostQuit ? .ended(reason, text) : .refused(reason, text))
        default:
            break
        }
        actions.append(.deliver(message))
        return actions
    }

    /// The connection broke without a goodbye: in a game with a seat to go back to, redial.
    private mutating func lost(_ reason: String, now: Duration) -> [Action] {
        guard configuration.rejoins, inGame, token != nil, grace > .zero else { return finish(.dropped(reason)) }
        let closing = Action.close(generation: generation)
        phase = .connecting
        if redial == nil { redial = Redial(since: now, reason: reason, pause: .milliseconds(100)) }
        return [closing, .reconnecting(reason)] + dialAgain(now: now)
    }

    private mutating func dialAgain(now: Duration) -> [Action] {
        let redial = redial!
        generation += 1
        guard now - redial.since <= grace + configuration.rejoinSlack else {
            return finish(.dropped("\(redial.reason); could not get back to the table within the grace period"))
        }
        return [.connect(generation: generation, after: redial.pause, patience: configuration.rejoinPatience)]
    }

    private mutating func finish(_ outcome: ClientOutcome) -> [Action] {
        let open = isConnected
        phase = .finished
        return (open ? [.close(generation: generation)] : []) + [.finished(outcome)]
    }
}

extension GameStart {
    /// How long the host keeps a seat whose connection dropped: read here and nowhere else.
    public var grace: Duration { .milliseconds(Int64(graceMillis)) }
}

/// How a client's game ended.
public enum ClientOutcome: Hashable, Sendable, CustomStringConvertible {
    /// The host ended the game: all rounds played, or the host quit on purpose.
    case ended(CloseReason, String)
    /// The host closed this connection for another reason (refused, full, violation…).
    case refused(CloseReason, String)
    /// The connection was lost without a word, or went silent past the keepalive bound.
    case dropped(String)

    public var description: String {
        switch self {
        case .ended(let reason, let message): "game ended (\(reason)): \(message)"
        case .refused(let reason, let message): "the host closed the connection (\(reason)): \(message)"
        case .dropped(let message): "connection dropped: \(message)"
        }
    }

    public var isSuccess: Bool {
        if case .ended = self { true } else { false }
    }
}
