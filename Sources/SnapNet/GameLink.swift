import Dispatch
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SnapProtocol
import SnapSession

/// What a window talks to: intents out, the host's messages in. The host side
/// delivers on its event loop; the render loop drains on the main thread.
public final class GameLink: @unchecked Sendable {  // the inbox and handlers behind `lock`; sender and closer are set once, before delivery starts
    private let lock = NIOLock()
    private var inbox: [HostMessage] = []
    private var lostReason: String?
    fileprivate var sender: (ClientMessage) -> Void = { _ in }
    fileprivate var closer: () -> Void = {}
    private var deliveryHandler: (@Sendable () -> Void)?

    /// Called on the delivering thread after each message (or the loss) is queued: a
    /// window's loop sleeps until input, and this wakes it (SnapUI posts an SDL event).
    public var onDelivery: (@Sendable () -> Void)? {
        get { lock.withLock { deliveryHandler } }
        set { lock.withLock { deliveryHandler = newValue } }
    }

    public func send(_ message: ClientMessage) { sender(message) }

    /// Everything received since the last call, in order.
    public func drain() -> [HostMessage] {
        lock.withLock {
            defer { inbox.removeAll(keepingCapacity: true) }
            return inbox
        }
    }

    /// Set when the connection ended without a `closing` from the host.
    public var connectionLost: String? { lock.withLock { lostReason } }

    /// True while a dropped connection is being re-established (the seat waits for us).
    public var reconnecting: Bool { lock.withLock { isReconnecting } }
    private var isReconnecting = false
    fileprivate func setReconnecting(_ value: Bool) {
        let handler = lock.withLock { () -> (@Sendable () -> Void)? in
            isReconnecting = value
            return deliveryHandler
        }
        handler?()  // the window shows it at once
    }

    public func close() { closer() }

    fileprivate func deliver(_ message: HostMessage) {
        let handler = lock.withLock { () -> (@Sendable () -> Void)? in
            inbox.append(message)
            return deliveryHandler
        }
        handler?()
    }

    func deliverFromHost(_ message: HostMessage) { deliver(message) }

    fileprivate func lose(_ reason: String) {
        let handler = lock.withLock { () -> (@Sendable () -> Void)? in
            if lostReason == nil { lostReason = reason }
            return deliveryHandler
        }
        handler?()
    }
}

extension HostServer {
    /// The host's own player: an in-process link through the same session code, with
    /// the same validation and judging as any connection (its round trip is zero).
    public func connectLocal() -> GameLink {
        let link = GameLink()
        let id = try! loop.submit { self.attachLocal(link) }.wait()
        link.sender = { [weak self] message in self?.submit(.message(id, message)) }
        link.closer = { [weak self] in self?.submit(.disconnected(id)) }
        return link
    }
}

/// A window's connection to a host on this machine or another. It signs in itself
/// (`hello`), keeps the seat's token (in `tokens`, so a window opened again after a crash
/// takes its seat back), and when the connection drops mid-game reconnects with backoff
/// for as long as the host keeps the seat.
public func connectLink(to endpoint: Endpoint, on loop: EventLoop, hello: Hello, tokens: SeatTokenStore? = nil,
                        silenceLimit: Duration = .seconds(5), trust: ServerTrust? = nil) throws -> GameLink {
    let link = GameLink()
    var hello = hello
    if hello.role == .player, hello.token == nil { hello.token = tokens?.token(for: endpoint, name: hello.name) }
    let state = NetworkLinkState(link: link, loop: loop, endpoint: endpoint, hello: hello, tokens: tokens,
                                 silenceLimit: silenceLimit, trust: trust)
    let channel = try connect(to: endpoint, on: loop, trust: trust) { HostFrameHandler(state, generation: 0) }
    state.start(channel, generation: 0)
    link.sender = { message in loop.execute { state.send(message) } }
    link.closer = { loop.execute { state.close() } }
    return link
}

final class NetworkLinkState: HostMessageSink, @unchecked Sendable {  // touched on `loop` only
    let link: GameLink
    let loop: EventLoop
    let endpoint: Endpoint
    var hello: Hello
    let tokens: SeatTokenStore?
    let silenceLimit: Duration
    let trust: ServerTrust?
    var channel: Channel?
    var sequence: UInt32 = 0
    var lastHeard = ContinuousClock.now
    var watchdog: RepeatedTask?
    var ended = false
    var inGame = false
    var grace: Duration = .zero
    var generation = 0

    init(link: GameLink, loop: EventLoop, endpoint: Endpoint, hello: Hello, tokens: SeatTokenStore?, silenceLimit: Duration,
         trust: ServerTrust?) {
        self.trust = trust
        self.link = link
        self.loop = loop
        self.endpoint = endpoint
        self.hello = hello
        self.tokens = tokens
        self.silenceLimit = silenceLimit
    }

    func start(_ channel: Channel, generation: Int) {
        loop.execute {
            guard !self.ended, generation == self.generation else { return channel.close(promise: nil) }
            self.channel = channel
            self.sequence = 0
            self.lastHeard = .now
            self.send(.hello(self.hello))
            self.watchdog?.cancel()
            self.watchdog = self.loop.scheduleRepeatedTask(initialDelay: .milliseconds(250), delay: .milliseconds(250)) { _ in
                if self.channel != nil, ContinuousClock.now - self.lastHeard >= self.silenceLimit {
                    self.lost("nothing heard from the host for \(self.silenceLimit)", generation: generation)
                }
            }
        }
    }

    func send(_ message: ClientMessage) {
        guard let channel else { return }
        // The window's own hello went out when the connection opened.
        if case .hello = message, sequence > 0 { return }
        channel.writeAndFlush(channel.allocator.buffer(bytes: WireCodec.encode(message, sequence: sequence)), promise: nil)
        sequence &+= 1
    }

    func received(_ message: HostMessage, generation: Int) {
        guard generation == self.generation, !ended else { return }
        lastHeard = .now
        switch message {
        case .ping(let nonce):
            // Answered here, on the network thread, and only here: a window busy for a
            // while still answers at once, and its loop never sees a ping to answer again
            // (a second pong per ping, sent in a burst after a stall, went over the host's
            // pong budget and cut the window for a protocol violation).
            send(.pong(nonce: nonce))
            return
        case .welcome(let welcome):
            link.setReconnecting(false)
            if let token = welcome.token {
                hello.token = token
                tokens?.keep(token, for: endpoint, name: hello.name)
            }
            // A reconnection's welcome tells the window nothing new.
            if inGame { return }
        case .gameStarted(let start):
            grace = .milliseconds(Int64(start.graceMillis))
            if inGame { return }  // the snapshot that follows brings the table up to date
            inGame = true
        case .closing(let reason, _):
            if reason == .badToken, !inGame, hello.token != nil {
                // A token kept from an older game of this name: forget it and sign in fresh.
                tokens?.forget(for: endpoint, name: hello.name)
                hello.token = nil
                return reconnect(after: .zero, since: .now, reason: "signing in afresh")
            }
            ended = true
            if reason != .badToken { tokens?.forget(for: endpoint, name: hello.name) }
        default: break
        }
        link.deliver(message)
    }

    func lost(_ reason: String, generation: Int) {
        guard generation == self.generation, !ended else { return }
        guard inGame, hello.token != nil, grace > .zero else {
            link.lose(reason)
            return close()
        }
        link.setReconnecting(true)
        reconnect(after: .milliseconds(100), since: .now, reason: reason)
    }

    private func reconnect(after pause: Duration, since lostAt: ContinuousClock.Instant, reason: String) {
        watchdog?.cancel()
        channel?.close(promise: nil)
        channel = nil
        generation += 1
        let generation = self.generation
        guard ContinuousClock.now - lostAt <= grace + .seconds(5) else {
            link.setReconnecting(false)
            link.lose("\(reason); could not get back to the table within the grace period")
            return
        }
        let endpoint = self.endpoint
        // Timers on the link's loop: no thread waits for the host to come back.
        loop.scheduleTask(in: .nanoseconds(Int64(pause.nanoseconds))) { [self] in
            connectLater(to: endpoint, on: loop, patience: .seconds(1), trust: trust) { HostFrameHandler(self, generation: generation) }
                .whenComplete { result in
                    switch result {
                    case .success(let channel):
                        self.start(channel, generation: generation)
                    case .failure:
                        guard generation == self.generation, !self.ended else { return }
                        self.reconnect(after: min(max(pause * 2, .milliseconds(100)), .seconds(1)), since: lostAt, reason: reason)
                    }
                }
        }
    }

    func close() {
        ended = true
        generation += 1
        watchdog?.cancel()
        channel?.close(promise: nil)
        channel = nil
    }
}
