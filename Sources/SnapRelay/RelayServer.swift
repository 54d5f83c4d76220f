import Crypto
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import SnapBytes
import SnapPlatform
import SnapRelayProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The relay on the network (docs/RELAY.md): TLS connections in, lines read until
/// `RelayMachine` splices two of them, then bytes copied between them unread. Every
/// connection and timer runs on `loop`, so the machine needs no locks; everything here
/// is touched on that loop only.
public final class RelayServer: @unchecked Sendable {  // state touched on `loop` only (see above)
    public let loop: EventLoop
    private var machine: RelayMachine
    private var channels: [RelayConnection: Channel] = [:]
    private var handlers: [RelayConnection: RelayConnectionHandler] = [:]
    private var nextNumber: UInt64 = 1
    private var listeners: [Channel] = []
    private var timer: Scheduled<Void>?
    private let origin = ContinuousClock.now
    private let logger: Logger
    /// A spliced pair with no byte either way for this long is closed (docs/RELAY.md §7).
    public let idleLimit: TimeAmount
    /// Sees every buffer copied between spliced connections before it goes on (`toPlayer`:
    /// from the host's side to the player's), and may change it: tests keep what the relay
    /// could read, or flip a byte to show that the ends notice. nil in a relay people run.
    /// Called on the loop.
    package var copyHook: (@Sendable (_ toPlayer: Bool, inout ByteBuffer) -> Void)?
    /// Sees every line the relay is about to say (its bytes, the line feed included) and returns
    /// what it says instead: tests play a relay that breaks its protocol (a peer tag that is not
    /// one). nil in a relay people run. Called on the loop.
    package var replyHook: (@Sendable (_ line: [UInt8]) -> [UInt8])?

    public init(limits: RelayLimits = RelayLimits(), idleLimit: TimeAmount = .seconds(120), loop: EventLoop, logger: Logger) {
        self.loop = loop
        self.logger = logger
        self.idleLimit = idleLimit
        // Drawn at start and never shown: a host cannot turn a tag back into its address
        // (an IPv4 address is only 32 bits: an unkeyed hash of one is no secret).
        let secret = SymmetricKey(size: .bits256)
        machine = RelayMachine(limits: limits, peerTag: { address, room in Self.peerTag(of: address, in: room, secret: secret) }) {
            var generator = SystemRandomNumberGenerator()
            return RelayID(bytes: (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
    }

    private var now: Duration { ContinuousClock.now - origin }

    /// What a room's host is told of a player's own address (docs/RELAY.md §3, `spliced TAG`):
    /// the first 8 bytes of HMAC-SHA256(secret, "ROOM ADDRESS"), in hex. The same address gives
    /// the same tag in the same room for as long as this relay runs (the host's count of wrong
    /// join codes needs that); in another room another (hosts cannot match their players up);
    /// another run draws another secret.
    static func peerTag(of address: String, in room: RelayID, secret: SymmetricKey) -> RelayPeerTag {
        let code = HMAC<SHA256>.authenticationCode(for: Array("\(room) \(address)".utf8), using: secret)
        return RelayPeerTag(bytes: Array(code).prefix(RelayPeerTag.length / 2))
    }

    /// Listens on TCP, every connection in TLS shown `identity`; returns the port bound.
    public func listen(host: String, port: Int, identity: TLSIdentity) async throws -> Int {
        let context = try identity.serverContext()
        return try await loop.flatSubmit {
            self.bootstrap(tls: context).bind(host: host, port: port).map { channel in
                self.listeners.append(channel)
                return channel.localAddress?.port ?? port
            }
        }.flatMapErrorThrowing { error in
            throw NetError.cannotListen(formatHostPort(host, port), plainReason(error, listening: true, unix: false))
        }.get()
    }

    /// Rooms open now.
    public var roomCount: Int { get async { (try? await loop.submit { self.machine.roomCount }.get()) ?? 0 } }
    /// Whether `room` holds its host's data connection waiting ahead of the next player.
    package func holdsAhead(_ room: RelayID) async -> Bool {
        (try? await loop.submit { self.machine.ready(in: room) != nil }.get()) ?? false
    }

    /// Players spliced so far, and of those, spliced at once with the host's connection waiting ahead.
    public var splices: (all: Int, ahead: Int) {
        get async { (try? await loop.submit { (self.machine.splices, self.machine.splicesAhead) }.get()) ?? (0, 0) }
    }

    /// Stops listening and closes every connection.
    public func shutdown() async {
        try? await loop.flatSubmit {
            self.timer?.cancel()
            let closing = (self.listeners + Array(self.channels.values)).map { $0.close() }
            self.listeners = []
            return EventLoopFuture.andAllComplete(closing, on: self.loop)
        }.get()
    }

    private func bootstrap(tls: NIOSSLContext) -> ServerBootstrap {
        // TLS is the first part of the relay's handshake: one deadline bounds both.
        let deadline = TimeAmount.nanoseconds(machine.limits.handshakeDeadline.nanoseconds)
        let bytesPerSecond = machine.limits.bytesPerSecond
        return ServerBootstrap(group: loop)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { [weak self] channel in
                channel.eventLoop.makeCompletedFuture {
                    guard let self else { throw ChannelError.ioOnClosedChannel }  // shut down meanwhile
                    // A room's control connection is quiet while nobody joins: keepalive frees
                    // the room of a host that vanished.
                    try KeepAlive().apply(to: channel)
                    try TLSTransport.addServer(to: channel, context: tls, plainRefusal: RelayLine.encode(.error(.malformed)),
                                               deadline: deadline)
                    try channel.pipeline.syncOperations.addHandler(RelayConnectionHandler(server: self, bytesPerSecond: bytesPerSecond))
                }
            }
    }

    // MARK: - From the connections (on the loop)

    func opened(_ channel: Channel, handler: RelayConnectionHandler) -> RelayConnection {
        let connection = RelayConnection(nextNumber)
        nextNumber += 1
        channels[connection] = channel
        handlers[connection] = handler
        handle(.opened(connection, address: channel.remoteAddress?.ipAddress ?? "local"))
        return connection
    }

    func received(_ request: RelayRequest, from connection: RelayConnection) { handle(.line(connection, request)) }

    func malformed(_ connection: RelayConnection) { handle(.malformed(connection)) }

    func closed(_ connection: RelayConnection) {
        guard channels.removeValue(forKey: connection) != nil else { return }
        handlers[connection] = nil
        handle(.closed(connection))
    }

    func copying(_ buffer: inout ByteBuffer, toPlayer: Bool) { copyHook?(toPlayer, &buffer) }

    private func handle(_ input: RelayInput) {
        loop.preconditionInEventLoop()
        for action in machine.handle(input, now: now) { perform(action) }
        reschedule()
    }

    private func perform(_ action: RelayAction) {
        switch action {
        case .send(let connection, let reply):
            guard let channel = channels[connection] else { return }
            let line = RelayLine.encode(reply)
            channel.writeAndFlush(channel.allocator.buffer(bytes: replyHook?(line) ?? line), promise: nil)
            if case .error(let code) = reply { logger.info("\(connection): error \(code.rawValue)") }
        case .splice(let first, let second):
            guard let a = channels[first], let b = channels[second], let ha = handlers[first], let hb = handlers[second] else { return }
            logger.info("spliced \(first) and \(second)")
            for channel in [a, b] {
                try? channel.pipeline.syncOperations.addHandler(IdleStateHandler(allTimeout: idleLimit), position: .first)
            }
            // The machine names the player's connection first, the host's second.
            ha.splice(to: b, handler: hb, toPlayer: false)
            hb.splice(to: a, handler: ha, toPlayer: true)
        case .close(let connection):
            handlers[connection] = nil
            channels.removeValue(forKey: connection)?.close(promise: nil)
        }
    }

    private func reschedule() {
        timer?.cancel()
        timer = nil
        guard let deadline = machine.nextDeadline else { return }
        let delay = max(.zero, deadline - now)
        timer = loop.scheduleTask(in: .nanoseconds(Int64(delay.nanoseconds))) { [weak self] in
            self?.timer = nil
            self?.handle(.tick)
        }
    }
}

/// One connection to the relay: lines to the server until spliced, then every byte to the
/// peer's channel (the same loop's). Reading pauses while the peer cannot take more, and
/// while the connection has sent more than its bytes-per-second budget (until it is paid).
final class RelayConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    /// Held strongly: a connection's last events (its close) may come after the server
    /// was let go of; the server drops its handlers as their connections close.
    private let server: RelayServer
    private var connection: RelayConnection?
    private var channel: Channel?
    private var lines = RelayLineBuffer()
    /// A player's `connect` was read: what follows is the host's, however it looks.
    private var holdsEarlyBytes = false
    private var peer: Channel?
    private weak var peerHandler: RelayConnectionHandler?
    /// This is the host's side: what it reads goes to the player.
    private var toPlayer = false
    /// What this connection may send; nil: no cap.
    private var budget: TokenBucket?
    /// Over its budget: waiting for the debt to be paid.
    private var throttled = false
    /// The peer cannot take more now.
    private var peerFull = false

    init(server: RelayServer, bytesPerSecond: Int?) {
        self.server = server
        budget = bytesPerSecond.map { TokenBucket(capacity: $0, perSecond: Double($0)) }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { open(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        open(context)
        context.fireChannelActive()
    }

    private func open(_ context: ChannelHandlerContext) {
        guard connection == nil else { return }
        channel = context.channel
        connection = server.opened(context.channel, handler: self)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        if let peer { return forward(buffer, to: peer, from: context.eventLoop) }
        guard let connection else { return }
        lines.append(buffer.readableBytesView)
        do {
            while peer == nil, !holdsEarlyBytes, let line = try lines.nextLine() {
                guard let request = RelayLine.decodeRequest(line) else { return server.malformed(connection) }
                if case .connect = request { holdsEarlyBytes = true }
                server.received(request, from: connection)
            }
        } catch {
            return server.malformed(connection)
        }
        // A player's first bytes for the host may follow its `connect` line at once: held, unread,
        // for the host's side once spliced (docs/RELAY.md §3), up to the cap.
        if holdsEarlyBytes, peer == nil, lines.count > RelayLine.maxEarlyBytes { server.malformed(connection) }
    }

    /// From now on bytes go to `other` (whose handler is `handler`; the player's when
    /// `toPlayer`); any that came after the line go first.
    func splice(to other: Channel, handler: RelayConnectionHandler, toPlayer: Bool) {
        peer = other
        peerHandler = handler
        self.toPlayer = toPlayer
        let rest = lines.takeRest()
        if !rest.isEmpty { forward(other.allocator.buffer(bytes: rest), to: other, from: other.eventLoop) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // Idle (watched once spliced only: a control connection waits quietly for players).
        if event is IdleStateHandler.IdleStateEvent { return context.close(promise: nil) }
        context.fireUserInboundEventTriggered(event)
    }

    private func forward(_ buffer: ByteBuffer, to peer: Channel, from loop: EventLoop) {
        var buffer = buffer
        server.copying(&buffer, toPlayer: toPlayer)
        let count = buffer.readableBytes
        peer.writeAndFlush(buffer, promise: nil)
        peerFull = !peer.isWritable
        if let pause = budget?.spend(count, at: .nanoseconds(Int64(NIODeadline.now().uptimeNanoseconds))), pause > .zero, !throttled {
            throttled = true
            loop.assumeIsolated().scheduleTask(in: .nanoseconds(pause.nanoseconds)) { [self] in
                throttled = false
                updateReading()
            }
        }
        updateReading()
    }

    /// Reads while neither the budget nor the peer holds it back.
    private func updateReading() {
        _ = channel?.setOption(ChannelOptions.autoRead, value: !throttled && !peerFull)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        // This side drained (or filled): the peer reads again (or waits).
        if let peerHandler {
            peerHandler.peerFull = !context.channel.isWritable
            peerHandler.updateReading()
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let connection { server.closed(connection) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}
