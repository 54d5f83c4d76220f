import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Logging
import NIOCore
import NIOPosix
import SnapBots
import SnapProtocol
import SnapSession

/// Where a client connects.
public enum Endpoint: Sendable, CustomStringConvertible {
    case unix(String)
    case tcp(host: String, port: Int)

    public var description: String {
        switch self {
        case .unix(let path): "unix:\(path)"
        case .tcp(let host, let port): "tcp:" + formatHostPort(host, port)
        }
    }
}

/// How a client's game ended.
public enum ClientOutcome: Equatable, Sendable, CustomStringConvertible {
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

/// Opens a client connection whose frames go to `onMessage` (on the loop).
///
/// A Unix socket whose listen queue is full refuses at once with EAGAIN: that is a busy
/// host, not an absent one, so the connection is retried politely (50 ms, doubling, at
/// most 1 s apart) until `patience` has passed, then fails with `NetError.hostBusy`.
/// Nothing else is retried: ECONNREFUSED on a Unix socket means a stale socket file, and
/// on TCP that nobody listens (a full TCP queue drops the SYN and the kernel retries).
func connect(to endpoint: Endpoint, on loop: EventLoop, patience: Duration = .seconds(5), trust: ServerTrust? = nil,
             handler: @escaping @Sendable () -> ChannelHandler) throws -> Channel {
    try connectLater(to: endpoint, on: loop, patience: patience, trust: trust, handler: handler).wait()
}

/// `connect`, without blocking: the polite retries are timers on `loop`, so a caller on a
/// window's thread (or on the loop itself) never waits for them.
///
/// Over TCP the connection is TLS (PROTOCOL.md §2): it succeeds only once `trust` (by
/// default the player's known hosts) accepts the server's certificate and the handshake
/// is done, and `handler` joins the pipeline only then, so nothing it writes can go out
/// to a server that was not trusted. A refusal fails with `NetError.untrusted`.
func connectLater(to endpoint: Endpoint, on loop: EventLoop, patience: Duration = .seconds(5), trust: ServerTrust? = nil,
                  handler: @escaping @Sendable () -> ChannelHandler) -> EventLoopFuture<Channel> {
    let promise = loop.makePromise(of: Channel.self)
    let deadline = NIODeadline.now() + .nanoseconds(Int64(patience.nanoseconds))
    @Sendable func attempt(_ number: Int, pause: TimeAmount) {
        let handshake = HandshakeSlot()
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(.seconds(5))
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                // The initializer runs on the channel's loop: the handler never crosses threads.
                channel.eventLoop.makeCompletedFuture {
                    switch endpoint {
                    case .unix:
                        try channel.pipeline.syncOperations.addHandler(handler())
                    case .tcp where trust?.plainTCPForBenchmarks == true:
                        try channel.pipeline.syncOperations.addHandler(handler())
                    case .tcp(let host, let port):
                        let handshook = channel.eventLoop.makePromise(of: Void.self)
                        handshake.future = handshook.futureResult
                        try TLSTransport.addClient(to: channel, host: host, port: port, trust: trust ?? .standard(),
                                                   handshook: handshook)
                    }
                }
            }
        let connecting = switch endpoint {
        case .unix(let path): bootstrap.connect(unixDomainSocketPath: path)
        case .tcp(let host, let port): bootstrap.connect(host: host, port: port)
        }
        connecting.whenComplete { result in
            switch result {
            case .success(let channel):
                guard let handshook = handshake.future else { return promise.succeed(channel) }
                handshook.whenComplete { handshake in
                    switch handshake {
                    case .success:
                        do {
                            try channel.pipeline.syncOperations.addHandler(handler())
                            promise.succeed(channel)
                        } catch {
                            channel.close(promise: nil)
                            promise.fail(NetError.cannotConnect(endpoint.description, "\(error)"))
                        }
                    case .failure(let refusal as TLSRefusal):
                        promise.fail(NetError.untrusted(refusal))
                    case .failure(let error):
                        promise.fail(NetError.cannotConnect(endpoint.description, "\(error)"))
                    }
                }
            case .failure(let error as IOError) where error.errnoCode == EAGAIN:
                guard NIODeadline.now() + pause <= deadline else {
                    return promise.fail(NetError.hostBusy(endpoint.description,
                        "kept its connection queue full for \(patience) (\(number) attempts); try again later"))
                }
                loop.scheduleTask(in: pause) { attempt(number + 1, pause: min(pause * 2, .seconds(1))) }
            case .failure(let error):
                let unix = if case .unix = endpoint { true } else { false }
                promise.fail(NetError.cannotConnect(endpoint.description, plainReason(error, listening: false, unix: unix)))
            }
        }
    }
    attempt(1, pause: .milliseconds(50))
    return promise.futureResult
}

/// The handshake of the one connection attempt that got a channel (TCP only). Touched on
/// the attempt's loop only.
private final class HandshakeSlot: @unchecked Sendable {
    var future: EventLoopFuture<Void>?
}

/// A computer player over the network (`snap join --bot`), or a headless watcher.
///
/// A seat is not a connection: when the connection drops mid-game (not when the host
/// says goodbye), it reconnects with backoff and shows its token, for as long as the
/// host keeps the seat (the grace period from `gameStarted`, plus a little).
public final class BotConnection: HostMessageSink, @unchecked Sendable {  // touched on `loop` only, but for the reconnect thread's hand-off
    private let loop: EventLoop
    private let name: String
    private let role: Hello.Role
    private let joinCode: String
    private var bot: BotClient
    private var channel: Channel?
    private var sequence: UInt32 = 0
    private var wake: Scheduled<Void>?
    private var watchdog: RepeatedTask?
    private var lastHeard: Duration = .zero
    private let origin = ContinuousClock.now
    private let silenceLimit: Duration
    private let logger: Logger
    private let done: EventLoopPromise<ClientOutcome>
    private var endpoint: Endpoint?
    /// The seat's token (from `welcome`, or kept from an earlier run) and how long the
    /// host keeps a seat whose connection dropped.
    private var token: SeatToken?
    private var grace: Duration = .zero
    private var inGame = false
    /// A generation per connection: a late event from an old one is ignored.
    private var generation = 0
    /// Given every byte received, as it arrives (for `snap join --record`).
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

    private var now: Duration { ContinuousClock.now - origin }

    /// Connects, signs in and plays; the future completes when the game is over for this player.
    public func run(_ endpoint: Endpoint) throws -> EventLoopFuture<ClientOutcome> {
        self.endpoint = endpoint
        if rejoins, role == .player { token = tokenStore?.token(for: endpoint, name: name) }
        let channel: Channel
        do {
            channel = try open(endpoint, generation: 0)
        } catch {
            loop.execute { self.finish(.dropped("\(error)")) }  // NIO insists every promise is completed
            throw error
        }
        loop.execute { self.attach(channel, generation: 0) }
        return done.futureResult
    }

    private func open(_ endpoint: Endpoint, generation: Int, patience: Duration = .seconds(5)) throws -> Channel {
        try connect(to: endpoint, on: loop, patience: patience, trust: trust) { HostFrameHandler(self, generation: generation) }
    }

    private func attach(_ channel: Channel, generation: Int) {
        guard !over, generation == self.generation else {
            channel.close(promise: nil)
            return
        }
        self.channel = channel
        sequence = 0
        lastHeard = now
        send(.hello(Hello(name: name, joinCode: joinCode, role: role, token: token)))
        // Keepalive: the host pings every second; silence past the bound means it is gone.
        watchdog?.cancel()
        watchdog = loop.scheduleRepeatedTask(initialDelay: .milliseconds(250), delay: .milliseconds(250)) { [self] _ in
            if self.channel != nil, now - lastHeard >= silenceLimit {
                lost("nothing heard from the host for \(silenceLimit)", generation: generation)
            }
        }
    }

    func received(_ message: HostMessage, generation: Int) {
        guard generation == self.generation, !over else { return }
        lastHeard = now
        let verdicts = bot.session.dealVerdicts.count
        for reply in bot.receive(message, now: now) { send(reply) }
        for verdict in bot.session.dealVerdicts.dropFirst(verdicts) { onDealVerdict?(verdict) }
        switch message {
        case .welcome(let welcome):
            if let given = welcome.token, given != token {
                token = given
                if let endpoint { tokenStore?.keep(given, for: endpoint, name: name) }
            }
        case .gameStarted(let start):
            inGame = true
            grace = .milliseconds(Int64(start.graceMillis))
        case .closing(let reason, let text):
            if reason == .badToken, let endpoint, tokenStore?.token(for: endpoint, name: name) != nil, !inGame {
                // A token kept from an older game of the same name: forget it, sign in fresh.
                tokenStore?.forget(for: endpoint, name: name)
                token = nil
                return reconnect(after: .zero, since: now, reason: "signing in afresh")
            }
            if let endpoint { tokenStore?.forget(for: endpoint, name: name) }
            finish(reason == .gameFinished || reason == .hostQuit ? .ended(reason, text) : .refused(reason, text))
            return
        default:
            break
        }
        schedule()
    }

    /// The connection broke without a goodbye: in a game with a seat to go back to, try again.
    func lost(_ reason: String, generation: Int) {
        guard generation == self.generation, !over else { return }
        guard rejoins, inGame, token != nil, grace > .zero else { return finish(.dropped(reason)) }
        logger.info("connection lost (\(reason)); rejoining")
        reconnect(after: .milliseconds(100), since: now, reason: reason)
    }

    private func reconnect(after pause: Duration, since lostAt: Duration, reason: String) {
        wake?.cancel()
        wake = nil
        watchdog?.cancel()
        channel?.close(promise: nil)
        channel = nil
        generation += 1
        let generation = self.generation
        // The host may itself be restarting (snap host --resume): keep trying through its grace period.
        guard let endpoint, now - lostAt <= grace + .seconds(5) else {
            return finish(.dropped("\(reason); could not get back to the table within the grace period"))
        }
        let token = self.token
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(pause.nanoseconds))) { [self] in
            do {
                let channel = try open(endpoint, generation: generation, patience: .seconds(1))
                loop.execute {
                    self.onReconnect?("rejoining \(endpoint) with \(token.map { "\($0)" } ?? "no token")")
                    self.attach(channel, generation: generation)
                }
            } catch {
                loop.execute {
                    guard generation == self.generation, !self.over else { return }
                    self.reconnect(after: min(max(pause * 2, .milliseconds(100)), .seconds(1)), since: lostAt, reason: reason)
                }
            }
        }
    }

    func record(_ bytes: [UInt8]) { recorder?(bytes) }

    private func schedule() {
        wake?.cancel()
        wake = nil
        guard let at = bot.nextWake else { return }
        wake = loop.scheduleTask(in: .nanoseconds(max(.zero, at - now).nanoseconds)) { [weak self] in
            guard let self else { return }
            self.wake = nil
            if let message = self.bot.tick(now: self.now) { self.send(message) }
            self.schedule()
        }
    }

    private func send(_ message: ClientMessage) {
        guard let channel else { return }
        let bytes = WireCodec.encode(message, sequence: sequence)
        sequence &+= 1
        channel.writeAndFlush(channel.allocator.buffer(bytes: bytes), promise: nil)
    }

    private var over = false

    private func finish(_ outcome: ClientOutcome) {
        // The close that follows a closing frame reports again: the first word counts.
        guard !over else { return }
        over = true
        generation += 1
        wake?.cancel()
        watchdog?.cancel()
        channel?.close(promise: nil)
        channel = nil
        done.succeed(outcome)
    }
}

/// What a connection to a host feeds: a computer player's connection or a window's link.
/// Both run on the connection's loop and ignore reports from an older `generation`
/// (a connection they have since replaced).
protocol HostMessageSink: AnyObject {
    func received(_ message: HostMessage, generation: Int)
    func lost(_ reason: String, generation: Int)
    /// The raw bytes, as they came (a bot's `--record`).
    func record(_ bytes: [UInt8])
}

extension HostMessageSink {
    func record(_ bytes: [UInt8]) {}
}

/// Bytes from the host → frames (in sequence) → messages; a decoding error drops the connection.
final class HostFrameHandler<Sink: HostMessageSink>: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let sink: Sink
    private let generation: Int
    private var decoder = FrameDecoder()
    private var sequence = SequenceChecker()

    init(_ sink: Sink, generation: Int) {
        self.sink = sink
        self.generation = generation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = Array(unwrapInboundIn(data).readableBytesView)
        sink.record(bytes)
        decoder.append(bytes)
        do {
            while let frame = try decoder.nextFrame() {
                try sequence.check(frame.sequence)
                sink.received(try WireCodec.decodeHostMessage(frame), generation: generation)
            }
        } catch {
            sink.lost("the host sent something unreadable: \(error)", generation: generation)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        sink.lost("the host closed the connection", generation: generation)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        sink.lost("\(error)", generation: generation)
    }
}
