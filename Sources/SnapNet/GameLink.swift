import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SnapProtocol
import SnapSession

/// What a window talks to: intents out, the host's messages in. The host side
/// delivers on its event loop; the render loop drains on the main thread.
public final class GameLink: @unchecked Sendable {
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

/// A window's connection to a host on this machine or another.
public func connectLink(to endpoint: Endpoint, on loop: EventLoop, silenceLimit: Duration = .seconds(5)) throws -> GameLink {
    let link = GameLink()
    let state = NetworkLinkState(link: link, loop: loop, silenceLimit: silenceLimit)
    let channel = try connect(to: endpoint, on: loop) { LinkHandler(state: state) }
    state.start(channel)
    link.sender = { message in loop.execute { state.send(message) } }
    link.closer = { loop.execute { state.close() } }
    return link
}

final class NetworkLinkState: @unchecked Sendable {
    let link: GameLink
    let loop: EventLoop
    let silenceLimit: Duration
    var channel: Channel?
    var sequence: UInt32 = 0
    var lastHeard = ContinuousClock.now
    var watchdog: RepeatedTask?
    var ended = false

    init(link: GameLink, loop: EventLoop, silenceLimit: Duration) {
        self.link = link
        self.loop = loop
        self.silenceLimit = silenceLimit
    }

    func start(_ channel: Channel) {
        loop.execute {
            self.channel = channel
            self.lastHeard = .now
            self.watchdog = self.loop.scheduleRepeatedTask(initialDelay: .milliseconds(250), delay: .milliseconds(250)) { _ in
                if ContinuousClock.now - self.lastHeard >= self.silenceLimit {
                    self.lost("nothing heard from the host for \(self.silenceLimit)")
                }
            }
        }
    }

    func send(_ message: ClientMessage) {
        guard let channel else { return }
        channel.writeAndFlush(channel.allocator.buffer(bytes: WireCodec.encode(message, sequence: sequence)), promise: nil)
        sequence &+= 1
    }

    func received(_ message: HostMessage) {
        lastHeard = .now
        if case .ping(let nonce) = message { send(.pong(nonce: nonce)) }
        if case .closing = message { ended = true }
        link.deliver(message)
    }

    func lost(_ reason: String) {
        if !ended { link.lose(reason) }
        close()
    }

    func close() {
        watchdog?.cancel()
        channel?.close(promise: nil)
        channel = nil
    }
}

final class LinkHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let state: NetworkLinkState
    private var decoder = FrameDecoder()
    private var sequence = SequenceChecker()

    init(state: NetworkLinkState) {
        self.state = state
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        decoder.append(unwrapInboundIn(data).readableBytesView)
        do {
            while let frame = try decoder.nextFrame() {
                try sequence.check(frame.sequence)
                state.received(try WireCodec.decodeHostMessage(frame))
            }
        } catch {
            state.lost("the host sent something unreadable: \(error)")
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        state.lost("the host closed the connection")
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        state.lost("\(error)")
    }
}
