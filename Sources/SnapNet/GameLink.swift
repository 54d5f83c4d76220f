import SnapPlatform
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

    init() {}

    /// A link whose intents go to `sender` and whose `close` to `closer` (set once, here).
    init(sender: @escaping (ClientMessage) -> Void, closer: @escaping () -> Void) {
        (self.sender, self.closer) = (sender, closer)
    }

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

/// A window's connection to a host on this machine or another, on a `SeatConnection`.
/// It signs in itself (`hello`), keeps the seat's token (in `tokens`, so a window opened
/// again after a crash takes its seat back), and when the connection drops mid-game
/// redials with backoff for as long as the host keeps the seat (see `SeatLink`). Pings are
/// answered by the link on the loop and never reach the window: a window busy for a while
/// still answers at once, and never answers twice.
///
/// Returns once the first connection is open (or throws its error, such as `NetError.untrusted`).
public func connectLink(to endpoint: Endpoint, on loop: EventLoop, hello: Hello, tokens: SeatTokenStore? = nil,
                        silenceLimit: Duration = .seconds(5), trust: ServerTrust? = nil) async throws -> GameLink {
    try await connectLinkLater(to: endpoint, on: loop, hello: hello, tokens: tokens, silenceLimit: silenceLimit, trust: trust).get()
}

/// `connectLink` as a future: it succeeds once the first connection is open.
public func connectLinkLater(to endpoint: Endpoint, on loop: EventLoop, hello: Hello, tokens: SeatTokenStore? = nil,
                             silenceLimit: Duration = .seconds(5), trust: ServerTrust? = nil) -> EventLoopFuture<GameLink> {
    let link = GameLink()
    var hello = hello
    if hello.role == .player, hello.token == nil { hello.token = tokens?.token(for: endpoint, name: hello.name) }
    let connection = SeatConnection(loop: loop, endpoint: endpoint, link: SeatLink(.init(hello: hello, silenceLimit: silenceLimit)),
                                    tokens: tokens, trust: trust)
    var opening: EventLoopPromise<GameLink>? = loop.makePromise(of: GameLink.self)
    let opened = opening!.futureResult
    connection.onDeliver = { message in link.deliver(message) }
    connection.onStatus = { status in
        switch status {
        case .reconnecting: link.setReconnecting(true)
        case .rejoined: link.setReconnecting(false)
        default: break
        }
    }
    connection.onOpened = {
        opening?.succeed(link)
        opening = nil
    }
    connection.onFinished = { outcome, error in
        if let opening {
            opening.fail(error ?? NetError.cannotConnect(endpoint.description, "\(outcome)"))
        }
        opening = nil
        link.setReconnecting(false)
        // The host's goodbye was delivered; anything else is a lost connection.
        if case .dropped(let reason) = outcome { link.lose(reason) }
    }
    link.sender = { message in loop.execute { connection.send(message) } }
    link.closer = { loop.execute { connection.close() } }
    loop.execute { connection.start() }
    return opened
}
