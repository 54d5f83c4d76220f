import SnapBytes
import SnapPlatform
import NIOCore
import NIOPosix
import SnapProtocol
import SnapSession

/// A seat's connection to a host: carries a `SeatLink`'s actions out on one event loop.
///
/// The link decides; this opens and closes channels, writes, keeps the token in `tokens`
/// and arms the loop's timers (the link's watchdog, the pause before a redial). Nothing
/// waits: no `wait()`, no sleeping, no thread of its own. A computer player
/// (`BotConnection`) and a window (`GameLink`) are both built on it.
///
/// Touched on `loop` only: create it anywhere, then call everything else on the loop.
/// Its handlers are called on the loop, in the order the link's actions come.
final class SeatConnection: @unchecked Sendable {  // touched on `loop` only (see above)
    let loop: EventLoop
    let endpoint: Endpoint
    private var link: SeatLink
    private let tokens: SeatTokenStore?
    private let trust: ServerTrust?
    private var channel: (generation: Int, channel: Channel)?
    private var watchdog: (at: Duration, task: Scheduled<Void>)?
    private var dialling: Scheduled<Void>?
    private let origin = NIODeadline.now()
    /// Why the first connection failed (a `NetError`, such as an untrusted certificate), for
    /// the caller who asked for it.
    private var firstError: Error?
    private var everConnected = false

    /// The first connection is open.
    var onOpened: () -> Void = {}
    /// A message for the client (on the loop).
    var onDeliver: (HostMessage) -> Void = { _ in }
    /// Redialling, rejoining, rejoined: `.reconnecting`, `.rejoining`, `.rejoined`.
    var onStatus: (SeatLink.Action) -> Void = { _ in }
    /// The end, once: with the first connection's error if it never opened.
    var onFinished: (ClientOutcome, Error?) -> Void = { _, _ in }
    /// Every byte received, as it arrives (`snapcards join --record`).
    var recorder: (([UInt8]) -> Void)?

    init(loop: EventLoop, endpoint: Endpoint, link: SeatLink, tokens: SeatTokenStore?, trust: ServerTrust?) {
        self.loop = loop
        self.endpoint = endpoint
        self.link = link
        self.tokens = tokens
        self.trust = trust
    }

    /// Time for the link: since this connection object was made.
    var now: Duration { .nanoseconds((NIODeadline.now() - origin).nanoseconds) }

    func start() { handle(.start) }

    func send(_ message: ClientMessage) { handle(.send(message)) }

    /// The player leaves: nothing more is reported.
    func close() {
        handle(.close)
        dialling?.cancel()
        watchdog?.task.cancel()
    }

    fileprivate func handle(_ input: SeatLink.Input) {
        loop.preconditionInEventLoop()
        let actions = link.handle(input, now: now)
        for action in actions { perform(action) }
        arm()
    }

    fileprivate func record(_ bytes: [UInt8]) { recorder?(bytes) }

    private func perform(_ action: SeatLink.Action) {
        switch action {
        case .connect(let generation, let after, let patience):
            dialling = loop.scheduleTask(in: .nanoseconds(Int64(after.nanoseconds))) { [self] in
                dialling = nil
                dial(generation, patience: patience)
            }
        case .send(let message, let sequence):
            guard let channel = channel?.channel else { return }
            channel.writeAndFlush(channel.allocator.buffer(bytes: WireCodec.encode(message, sequence: sequence)), promise: nil)
        case .close(let generation):
            guard let open = channel, open.generation == generation else { return }
            open.channel.close(promise: nil)
            channel = nil
        case .deliver(let message):
            onDeliver(message)
        case .keepToken(let token):
            tokens?.keep(token, for: endpoint, name: link.configuration.hello.name)
        case .forgetToken:
            tokens?.forget(for: endpoint, name: link.configuration.hello.name)
        case .reconnecting, .rejoining, .rejoined:
            onStatus(action)
        case .finished(let outcome):
            dialling?.cancel()
            watchdog?.task.cancel()
            watchdog = nil
            channel?.channel.close(promise: nil)
            channel = nil
            onFinished(outcome, everConnected ? nil : firstError)
        }
    }

    private func dial(_ generation: Int, patience: Duration) {
        connectLater(to: endpoint, on: loop, patience: patience, trust: trust) { HostFrameHandler(self, generation: generation) }
            .whenComplete { [self] result in
                switch result {
                case .success(let opened):
                    guard generation == link.generation, !link.isFinished else { return opened.close(promise: nil) }
                    channel = (generation, opened)
                    if !everConnected {
                        everConnected = true
                        onOpened()
                    }
                    handle(.connected(generation: generation))
                case .failure(let error):
                    if !everConnected, firstError == nil { firstError = error }
                    handle(.connectFailed(generation: generation, reason: "\(error)"))
                }
            }
    }

    /// One timer, at the link's next deadline.
    private func arm() {
        guard let at = link.nextDeadline else {
            watchdog?.task.cancel()
            watchdog = nil
            return
        }
        if watchdog?.at == at { return }
        watchdog?.task.cancel()
        let task = loop.scheduleTask(deadline: origin + .nanoseconds(Int64(at.nanoseconds))) { [self] in
            watchdog = nil
            handle(.timerFired)
        }
        watchdog = (at, task)
    }
}

/// Bytes from the host → frames (in sequence) → messages for one connection (one
/// generation) of a `SeatConnection`; a decoding error drops the connection.
final class HostFrameHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let connection: SeatConnection
    private let generation: Int
    private var decoder = FrameDecoder()
    private var sequence = SequenceChecker()

    init(_ connection: SeatConnection, generation: Int) {
        self.connection = connection
        self.generation = generation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = Array(unwrapInboundIn(data).readableBytesView)
        connection.record(bytes)
        decoder.append(bytes)
        do {
            while let frame = try decoder.nextFrame() {
                try sequence.check(frame.sequence)
                connection.handle(.received(try WireCodec.decodeHostMessage(frame), generation: generation))
            }
        } catch {
            connection.handle(.lost(generation: generation, reason: "the host sent something unreadable: \(error)"))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection.handle(.lost(generation: generation, reason: "the host closed the connection"))
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if let tampered = tamperingReason(error) {
            return connection.handle(.tampered(generation: generation, reason: tampered))
        }
        connection.handle(.lost(generation: generation, reason: "\(error)"))
    }
}
