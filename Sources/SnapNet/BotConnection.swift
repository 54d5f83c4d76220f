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
func connect(to endpoint: Endpoint, on loop: EventLoop, patience: Duration = .seconds(5),
             handler: @escaping @Sendable () -> ChannelHandler) throws -> Channel {
    let bootstrap = ClientBootstrap(group: loop)
        .connectTimeout(.seconds(5))
        .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
        .channelInitializer { channel in channel.pipeline.addHandler(handler()) }
    let clock = ContinuousClock()
    let deadline = clock.now + patience
    var pause = Duration.milliseconds(50)
    var attempts = 0
    while true {
        attempts += 1
        do {
            switch endpoint {
            case .unix(let path): return try bootstrap.connect(unixDomainSocketPath: path).wait()
            case .tcp(let host, let port): return try bootstrap.connect(host: host, port: port).wait()
            }
        } catch let error as IOError where error.errnoCode == EAGAIN {
            guard clock.now + pause <= deadline else {
                throw NetError.hostBusy(endpoint.description,
                                        "kept its connection queue full for \(patience) (\(attempts) attempts); try again later")
            }
            usleep(useconds_t(pause / .microseconds(1)))
            pause = min(pause * 2, .seconds(1))
        } catch {
            let unix = if case .unix = endpoint { true } else { false }
            throw NetError.cannotConnect(endpoint.description, plainReason(error, listening: false, unix: unix))
        }
    }
}

/// A computer player over the network (`snap join --bot`).
public final class BotConnection: @unchecked Sendable {
    private let loop: EventLoop
    private let name: String
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
    /// Given every byte received, as it arrives (for `snap join --record`).
    public var recorder: (([UInt8]) -> Void)?

    public init(name: String, joinCode: String = "", bot: BotClient, loop: EventLoop, silenceLimit: Duration = .seconds(5),
                logger: Logger) {
        self.name = name
        self.joinCode = joinCode
        self.bot = bot
        self.loop = loop
        self.silenceLimit = silenceLimit
        self.logger = logger
        done = loop.makePromise()
    }

    private var now: Duration { ContinuousClock.now - origin }

    /// Connects, signs in and plays; the future completes when the game is over for this player.
    public func run(_ endpoint: Endpoint) throws -> EventLoopFuture<ClientOutcome> {
        let channel: Channel
        do {
            channel = try connect(to: endpoint, on: loop) { ClientFrameHandler(connection: self) }
        } catch {
            loop.execute { self.finish(.dropped("\(error)")) }  // NIO insists every promise is completed
            throw error
        }
        loop.execute {
            self.channel = channel
            self.lastHeard = self.now
            self.send(ClientSession.hello(name: self.name, joinCode: self.joinCode))
            // Keepalive: the host pings every second; silence past the bound means it is gone.
            self.watchdog = self.loop.scheduleRepeatedTask(initialDelay: .milliseconds(250), delay: .milliseconds(250)) { _ in
                if self.now - self.lastHeard >= self.silenceLimit {
                    self.finish(.dropped("nothing heard from the host for \(self.silenceLimit)"))
                }
            }
        }
        return done.futureResult
    }

    func received(_ message: HostMessage) {
        lastHeard = now
        for reply in bot.receive(message, now: now) { send(reply) }
        if case .closing(let reason, let text) = message {
            finish(reason == .gameFinished || reason == .hostQuit ? .ended(reason, text) : .refused(reason, text))
            return
        }
        schedule()
    }

    func failed(_ reason: String) { finish(.dropped(reason)) }

    func record(_ bytes: [UInt8]) { recorder?(bytes) }

    func closed() { finish(.dropped("the host closed the connection")) }

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
        wake?.cancel()
        watchdog?.cancel()
        channel?.close(promise: nil)
        channel = nil
        done.succeed(outcome)
    }
}

/// Bytes from the host → frames → messages; a decoding error drops the connection.
final class ClientFrameHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let connection: BotConnection
    private var decoder = FrameDecoder()
    private var sequence = SequenceChecker()

    init(connection: BotConnection) {
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = Array(unwrapInboundIn(data).readableBytesView)
        connection.record(bytes)
        decoder.append(bytes)
        do {
            while let frame = try decoder.nextFrame() {
                try sequence.check(frame.sequence)
                connection.received(try WireCodec.decodeHostMessage(frame))
            }
        } catch {
            connection.failed("the host sent something unreadable: \(error)")
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection.closed()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        connection.failed("\(error)")
    }
}
