import SnapBytes
import SnapMatchFiles
import SnapPlatform
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import SnapJournal
import SnapProtocol
import SnapSession

/// The host on the network: drives a `HostSession` from sockets and one event loop.
/// Every connection's handler and every timer run on `loop`, so the session needs no
/// locks; everything here is touched on that loop only. Callers on other threads (the
/// CLI, a window) hand it inputs (`submit`) or ask it with `await` (`onLoop`): nothing
/// off the loop ever blocks a thread on it.
public final class HostServer: FrameServer, @unchecked Sendable {  // state touched on `loop` only (see above)
    public let loop: EventLoop
    private var session: HostSession
    private var channels: [ConnectionID: Channel] = [:]
    private var sequences: [ConnectionID: UInt32] = [:]
    private var outbound: [ConnectionID: Outbound] = [:]
    /// Connections that fell too far behind during the current input, cut right after it.
    private var tooSlow: [ConnectionID: String] = [:]
    /// Connections hung up (or ended with the game) whose last words still wait in NIO's
    /// buffer, their reader being behind: each closes once they are written (`wrote`), or at
    /// `slowLimit`.
    private var closingOnceWritten: [ConnectionID: Channel] = [:]
    private var nextID: UInt64 = 1
    private var timer: Scheduled<Void>?
    private var listeners: [Channel] = []
    private var socketPaths: [String] = []
    private let origin = ContinuousClock.now
    let logger: Logger
    /// Refusals written before a TLS handshake was done, and their bound.
    private let refusals = TLSRefusals()
    /// Start by itself once this many players have joined and are ready (set from any
    /// thread, before or during the lobby: the value is handed to the loop).
    public func startWhen(_ players: Int?) {
        loop.execute { self.startWhenOnLoop = players }
    }
    private var startWhenOnLoop: Int?
    /// Tells `observer` about every action (the CLI prints round winners and the end); set
    /// from any thread, before or during the game.
    public func observe(_ observer: (@Sendable (HostAction) -> Void)?) {
        loop.execute { self.observerOnLoop = observer }
    }
    private var observerOnLoop: (@Sendable (HostAction) -> Void)?
    /// How far behind a connection may fall before it is cut as too slow.
    public var outboundLimits = OutboundLimits()
    /// Past matches' won counts, and this match's rounds as they end (nil: none).
    private let history: (any MatchHistory)?
    /// Where the match log is written as it grows (nil: not at all).
    public private(set) var journal: JournalWriter?
    private let done: EventLoopPromise<String>
    /// The code TCP players must give, nil for an open game (`HostConfiguration.joinCode`).
    public let joinCode: String?
    /// The TCP addresses listened on, as bound, in order.
    public var tcpListeners: [HostPort] { get async { await onLoop { self.tcpAddresses } } }
    private var tcpAddresses: [HostPort] = []

    /// `history`: where the won counts of earlier matches come from and where this match's
    /// rounds go as they end (SnapHistory's index); nil: neither (this match's wins only).
    public init(_ configuration: HostConfiguration, loop: EventLoop, logger: Logger, history: (any MatchHistory)? = nil) {
        self.loop = loop
        self.logger = logger
        self.history = history
        var configuration = configuration
        if configuration.startedAt == 0 { configuration.startedAt = UInt64(max(0, time(nil))) }
        joinCode = configuration.joinCode
        hostName = configuration.hostName
        session = HostSession(configuration)
        done = loop.makePromise()
    }

    /// A host restarted from a crashed one's journal (`snapcards host --resume`): the match
    /// goes on from its last intact record, and the journal file goes on growing. A torn
    /// tail is cut with a warning; a damaged journal is refused (`JournalDamaged`) unless
    /// `fromLastGoodRecord`, and then the whole damaged file is first kept beside it.
    public init(resuming path: String, _ configuration: HostConfiguration, loop: EventLoop, logger: Logger,
                fromLastGoodRecord: Bool = false, history: (any MatchHistory)? = nil,
                onWarning: @escaping @Sendable (String) -> Void) throws {
        self.loop = loop
        self.logger = logger
        self.history = history
        let journal = try MatchJournal.read(path: path)
        if let fault = journal.fault {
            if fault.isDamage {
                guard fromLastGoodRecord else { throw JournalDamaged(path: path, fault: fault) }
                let copy = try Journal.keepDamagedCopy(of: path)
                onWarning("the journal is \(fault); the whole file is kept as \(copy), and the match goes on from record \(fault.record - 1)")
            } else {
                onWarning("the journal's tail was cut: \(fault)")
            }
        }
        session = try HostSession(resuming: journal.records, configuration, now: .zero)
        hostName = session.configuration.hostName
        joinCode = configuration.joinCode
        done = loop.makePromise()
        self.journal = try JournalWriter(continuing: path, intactLength: journal.intactLength, onError: onWarning)
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        countEarlierWins(in: directory.isEmpty ? "." : directory, excluding: path)
    }

    /// The name the host plays under (a resumed one takes its journal's).
    public let hostName: String

    /// Commands in the match so far (what `resumed PATH at command K` names).
    public var commandsApplied: Int { get async { await onLoop { self.session.commandsApplied } } }

    /// Puts a resumed match back in motion: its seats wait for their owners.
    public func resume() {
        loop.execute {
            self.perform(self.session.resume(now: self.now))
            self.reschedule()
        }
    }

    /// Completes with the reason when the game is over.
    public var finished: EventLoopFuture<String> { done.futureResult }

    private var now: Duration { ContinuousClock.now - origin }

    // MARK: - From other threads

    /// The one bridge for callers off the loop: runs `body` on the loop and awaits its
    /// answer (the caller's thread is never held).
    func onLoop<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        // A loop that is shutting down no longer runs tasks; the body then runs here, which
        // races with nothing, since nothing runs on that loop any more.
        do { return try await loop.submit(body).get() } catch { return body() }
    }

    /// `onLoop` for work that completes later on the loop (binding, closing).
    func onLoop<T: Sendable>(_ body: @escaping @Sendable () -> EventLoopFuture<T>) async throws -> T {
        try await loop.flatSubmit(body).get()
    }

    // MARK: - The journal

    /// Journals this match in `directory` (see `MatchJournal`); returns the file's path.
    /// The file is made on NIO's thread pool, never on the caller's thread (a window's).
    /// A failure to write later is a warning through `onWarning`; the game goes on.
    @discardableResult
    public func startJournal(in directory: String, onWarning: @escaping @Sendable (String) -> Void) async throws -> String {
        try await startJournalLater(in: directory, onWarning: onWarning).get()
    }

    /// `startJournal` as a future.
    public func startJournalLater(in directory: String, onWarning: @escaping @Sendable (String) -> Void) -> EventLoopFuture<String> {
        let hostName = self.hostName
        return NIOThreadPool.singleton.runIfActive(eventLoop: loop) {
            try MatchJournal.create(in: directory, hostName: hostName, onError: onWarning)
        }.map { [self] writer in
            // On the loop, in one step: whatever the match logged before (a game that started
            // as soon as its local player sat down), then everything after. A journal attached
            // mid-match without its first records is damage, not a match.
            for record in session.log { writer.append { MatchRecordCodec.encode(record, into: $0) } }
            journal = writer
            countEarlierWins(in: directory, excluding: writer.path)
            return writer.path
        }
    }

    /// The won counts the table shows come from the matches journaled before this one, as
    /// `history` has them (indexing any journal it lacks first). That is never done on the
    /// caller's thread (a window's) nor on the loop: the history's threads do it, and the loop takes the
    /// counts when they are ready. A game that starts before then shows this match's wins only.
    private func countEarlierWins(in directory: String, excluding path: String) {
        guard let history else { return }
        let promise = loop.makePromise(of: [String: Int].self)
        history.roundsWon(in: directory, excluding: path) { promise.completeWith($0) }
        let counted = promise.futureResult
        counted.whenSuccess { [self] wins in  // on the loop
            session.setEarlierWins(wins)
            logger.info("earlier matches counted: \(wins.count) players have won rounds here before")
        }
        counted.whenFailure { [logger] error in logger.warning("the won counts of earlier matches could not be read: \(error)") }
        winsCounted.withLockedValue { $0 = counted }
    }

    /// A round ended (its records are appended): once the writer's queue has put them on
    /// disk, `history` indexes this match's rows (neither step on the loop).
    private func journalRoundEnded() {
        guard let history, let writer = journal else { return }
        let path = writer.path
        writer.flush { history.journalGrew(path) }
    }

    /// The counts of `countEarlierWins` once the session has them (tests wait for it).
    package var earlierWinsCounted: EventLoopFuture<[String: Int]>? { winsCounted.withLockedValue { $0 } }
    private let winsCounted = NIOLockedValueBox<EventLoopFuture<[String: Int]>?>(nil)  // set off the loop

    // MARK: - Listening

    /// Listens on a Unix socket; the path is claimed safely first (see `claimSocketPath`).
    public func listen(unixPath path: String) async throws {
        try await listenLater(unixPath: path).get()
    }

    /// `listen(unixPath:)` as a future (NIO's own terms; tests wait on it).
    public func listenLater(unixPath path: String) -> EventLoopFuture<Void> {
        do { try claimSocketPath(path) } catch { return loop.makeFailedFuture(error) }
        // Bound 0600 (never open to others, not even briefly), the listener kept on the loop.
        return loop.flatSubmit {
            let socket: CInt
            do { socket = try bindPrivateUnixSocket(path) } catch { return self.loop.makeFailedFuture(error) }
            return self.bootstrap(tls: nil).withBoundSocket(socket).map { channel in
                self.listeners.append(channel)
                self.socketPaths.append(path)
            }
        }.flatMapErrorThrowing { error in
            throw NetError.cannotListen(path, plainReason(error, listening: true, unix: true))
        }
    }

    /// Listens on TCP, every connection in TLS shown `identity`; returns the port (useful
    /// with port 0).
    public func listen(host: String, port: Int, identity: TLSIdentity) async throws -> Int {
        try await listenLater(host: host, port: port, identity: identity).get()
    }

    /// `listen(host:port:identity:)` as a future.
    public func listenLater(host: String, port: Int, identity: TLSIdentity) -> EventLoopFuture<Int> {
        let context: NIOSSLContext
        do { context = try identity.serverContext() } catch { return loop.makeFailedFuture(error) }
        return listenLater(host: host, port: port, tls: context).map { port in
            self.certificateOnLoop = identity.fingerprint
            return port
        }
    }

    /// The fingerprint of the certificate TCP players see; the LAN announcement carries it.
    public var certificate: CertificateFingerprint? { get async { await onLoop { self.certificateOnLoop } } }
    private var certificateOnLoop: CertificateFingerprint?

    /// TCP without TLS (`tls` nil) is for benchmarks only: the baseline TLS is measured against.
    package func listen(host: String, port: Int, tls: NIOSSLContext?) async throws -> Int {
        try await listenLater(host: host, port: port, tls: tls).get()
    }

    package func listenLater(host: String, port: Int, tls: NIOSSLContext?) -> EventLoopFuture<Int> {
        loop.flatSubmit {
            self.bootstrap(tls: tls).bind(host: host, port: port).map { channel in
                self.listeners.append(channel)
                let bound = channel.localAddress?.port ?? port
                self.tcpAddresses.append(HostPort(host: host, port: bound))
                return bound
            }
        }.flatMapErrorThrowing { error in
            throw NetError.cannotListen(formatHostPort(host, port), plainReason(error, listening: true, unix: false))
        }
    }

    private var announcer: LANAnnouncer?

    /// Stops listening on TCP and announcing it (the Unix socket stays), and returns once
    /// the ports are free: a lobby renamed before anyone joined reopens under its new
    /// name on the same fixed port, which the old listener would otherwise still hold.
    public func stopListeningOnTCP() async throws {
        try await onLoop { () -> EventLoopFuture<Void> in
            let goodbye = self.announcer?.stopOnLoop() ?? self.loop.makeSucceededVoidFuture()
            self.announcer = nil
            let tcp = self.listeners.filter { listener in
                if case .unixDomainSocket = listener.localAddress { return false }
                return true
            }
            self.listeners.removeAll { listener in tcp.contains { $0 === listener } }
            self.tcpAddresses = []
            return EventLoopFuture.andAllComplete(tcp.map { $0.close() } + [goodbye], on: self.loop)
        }
    }

    /// Announces the game on the local network (DNS-SD over multicast DNS, docs/LAN.md)
    /// for players to connect to `port` at `addresses`. A game on a loopback address is
    /// announced on loopback only. Throws when multicast is not possible here.
    public func announceOnLAN(listeningOn host: String, port: Int) async throws {
        let loopback = host.hasPrefix("127.") || host == "::1" || host == "localhost"
        let addresses = loopback ? ["127.0.0.1"] : reachableAddresses(listeningOn: host).filter { !$0.hasPrefix("127.") }
        let announcer = LANAnnouncer(loop: loop, hostName: hostName, port: port,
                                     addresses: addresses, interface: loopback ? "127.0.0.1" : nil,
                                     fingerprint: await certificate, logger: logger) {
            [unowned self] in self.session.publicInfo
        }
        try await announcer.start()
        loop.execute { self.announcer = announcer }
    }

    /// Stops announcing the game (the goodbye goes out first); listening goes on.
    public func stopAnnouncing() -> EventLoopFuture<Void> {
        loop.flatSubmit {
            let goodbye = self.announcer?.stopOnLoop() ?? self.loop.makeSucceededVoidFuture()
            self.announcer = nil
            return goodbye
        }
    }

    /// Announcement bytes sent so far (0 when not announcing).
    public var announcementBytes: Int { get async { await onLoop { self.announcer?.bytesSent ?? 0 } } }

    /// What a plain client reaching a TLS port reads before it is closed.
    static let plainRefusalMessage = HostMessage.closing(.versionUnsupported, message: "this host speaks TLS on TCP (PROTOCOL.md §2): "
        + "update snap to join it, or join on its Unix socket from the same machine")
    static let plainRefusal = WireCodec.encode(plainRefusalMessage, sequence: 0)

    private func bootstrap(tls: NIOSSLContext?) -> ServerBootstrap {
        let sendBuffer = outboundLimits.socketSendBuffer
        return ServerBootstrap(group: loop)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(ChannelOptions.writeBufferWaterMark,
                                value: .init(low: outboundLimits.lowWater, high: outboundLimits.highWater))
            .childChannelInitializer { [unowned self] channel in
                if let sendBuffer {
                    _ = channel.setOption(ChannelOptions.socketOption(.so_sndbuf), value: SocketOptionValue(sendBuffer))
                }
                return channel.eventLoop.makeCompletedFuture {
                    if let tls { try TLSTransport.addServer(to: channel, context: tls, plainRefusal: Self.plainRefusal) }
                    try channel.pipeline.syncOperations.addHandler(FrameConnectionHandler(server: self))
                }
            }
    }

    // MARK: - Inputs (on the loop)

    package typealias Failure = ProtocolError
    package var maxFrameBody: Int { Frame.maxBodyLength }

    package func decode(_ frame: Frame) throws -> ClientMessage { try WireCodec.decodeClientMessage(frame) }

    package func connected(_ channel: Channel) -> ConnectionID? {
        let id = ConnectionID(nextID)
        nextID += 1
        channels[id] = channel
        sequences[id] = 0
        outbound[id] = Outbound()
        // A TCP peer's address (nil on a Unix socket): the session asks it for the join code.
        handle(.connected(id, local: false, remote: channel.remoteAddress?.ipAddress))
        return id
    }

    private var localLinks: [ConnectionID: GameLink] = [:]

    func attachLocal(_ link: GameLink) -> ConnectionID {
        let id = ConnectionID(nextID)
        nextID += 1
        localLinks[id] = link
        handle(.connected(id, local: true))
        return id
    }

    /// Returns whether the connection is still open (a cut one reads nothing more).
    package func received(_ message: ClientMessage, from id: ConnectionID) -> Bool {
        handle(.message(id, message))
        return channels[id] != nil
    }

    package func malformed(_ id: ConnectionID, _ reason: String) {
        handle(.malformed(id, reason))
    }

    package func disconnected(_ id: ConnectionID) {
        guard channels.removeValue(forKey: id) != nil || localLinks.removeValue(forKey: id) != nil else { return }
        outbound[id] = nil
        sequences[id] = nil
        handle(.disconnected(id))
    }

    /// "held after N commands", or what broke. Call after the game is over.
    public var conservationReport: ConservationReport {
        get async {
            await onLoop { [self] in
                if let broken = session.invariantViolation { return ConservationReport(held: false, text: "FAILED \(broken)") }
                return ConservationReport(held: true, text: "held after every one of \(session.commandsApplied) commands")
            }
        }
    }

    /// The lobby as the host sees it.
    public var lobby: [LobbyPlayer] { get async { await onLoop { self.session.lobby } } }

    /// Feeds the session on the loop (callable from anywhere).
    public func submit(_ input: HostInput) {
        loop.execute { self.handle(input) }
    }

    /// An input from the host's own player's link, already on the loop.
    func handleLocal(_ input: HostInput) { handle(input) }

    private func handle(_ input: HostInput) {
        loop.preconditionInEventLoop()
        perform(session.handle(input, now: now))
        cutSlowConnections()
        announcer?.refresh()
        if let startWhen = startWhenOnLoop, session.phase == .lobby, session.lobby.count >= startWhen, session.lobby.allSatisfy({ $0.ready }) {
            perform(session.handle(.start, now: now))
        }
        reschedule()
    }

    private func perform(_ actions: [HostAction]) {
        var roundEnded = false
        defer { if roundEnded { journalRoundEnded() } }  // after the batch: the reveal and any end are appended
        for action in actions {
            observerOnLoop?(action)
            switch action {
            case .send(let id, let message):
                write(message, to: id)
            case .close(let id, let reason, let message):
                write(.closing(reason, message: message), to: id)
                hangUp(id)
            case .hangUp(let id):
                hangUp(id)
            case .log(let line):
                logger.info("\(line)")
            case .roundWon(let round, let winner):
                logger.info("round \(round) won by \(winner)")
                roundEnded = true
            case .announce(let line):
                logger.info("\(line)")
            case .record(let record):
                journal?.append { MatchRecordCodec.encode(record, into: $0) }
            case .gameOver(let why):
                logger.info("game over: \(why)")
                shutdown(reason: why)
            }
        }
    }

    private func write(_ message: HostMessage, to id: ConnectionID) {
        if let link = localLinks[id] {
            link.deliverFromHost(message)
            return
        }
        guard let channel = channels[id], let sequence = sequences[id], tooSlow[id] == nil else { return }
        sequences[id] = sequence &+ 1
        let bytes = WireCodec.encode(message, sequence: sequence)
        // Back-pressure: count what waits to go out; the session cuts who falls too far behind.
        let size = bytes.count
        outbound[id, default: Outbound()].pending += size
        let pending = outbound[id]!.pending
        if pending > outboundLimits.highWater, outbound[id]!.congestedSince == nil { outbound[id]!.congestedSince = now }
        if pending > outboundLimits.hardCap {
            tooSlow[id] = "more than \(outboundLimits.hardCap / 1024) KiB waiting to be sent"
            return
        }
        let promise = loop.makePromise(of: Void.self)
        promise.futureResult.whenComplete { [weak self] _ in self?.wrote(size, to: id) }
        channel.writeAndFlush(channel.allocator.buffer(bytes: bytes), promise: promise)
    }

    private func wrote(_ size: Int, to id: ConnectionID) {
        guard outbound[id] != nil else { return }
        outbound[id]!.pending -= size
        if outbound[id]!.pending <= outboundLimits.lowWater { outbound[id]!.congestedSince = nil }
        if outbound[id]!.pending <= 0, let channel = closingOnceWritten.removeValue(forKey: id) {
            outbound[id] = nil
            channel.close(promise: nil)
        }
    }

    /// Closes `channel` once its last words (a `closing`, the game's end) have gone out, or
    /// at `slowLimit` at the latest: a close drops what still waits in NIO's buffer, and a
    /// player whose reader was behind would see the connection end without being told why
    /// (at the game's end, a bot would try to rejoin). A connection cut as too slow closes
    /// at once; one still in its TLS handshake is `refusals`' to close.
    private func closeOnceWritten(_ id: ConnectionID, _ channel: Channel) -> EventLoopFuture<Void> {
        guard let pending = outbound[id]?.pending, pending > 0, tooSlow[id] == nil, !refusals.isHandshaking(channel) else {
            outbound[id] = nil
            refusals.close(channel)
            return channel.closeFuture
        }
        closingOnceWritten[id] = channel
        let deadline = loop.scheduleTask(in: .nanoseconds(outboundLimits.slowLimit.nanoseconds)) { [weak self] in
            guard let self, let channel = self.closingOnceWritten.removeValue(forKey: id) else { return }
            self.outbound[id] = nil
            channel.close(promise: nil)
        }
        channel.closeFuture.whenComplete { _ in deadline.cancel() }
        return channel.closeFuture
    }

    /// Cuts the connections over the hard cap, and those congested for too long.
    private func cutSlowConnections() {
        let current = now
        for (id, state) in outbound where closingOnceWritten[id] == nil {
            if let since = state.congestedSince, current - since >= outboundLimits.slowLimit, tooSlow[id] == nil {
                tooSlow[id] = "more than \(outboundLimits.highWater / 1024) KiB waiting to be sent for \(outboundLimits.slowLimit.secondsText)"
            }
        }
        while let (id, why) = tooSlow.first {
            perform(session.handle(.tooSlow(id, why), now: now))
            tooSlow[id] = nil
            hangUp(id)
        }
    }

    private func hangUp(_ id: ConnectionID) {
        localLinks[id] = nil
        guard let channel = channels.removeValue(forKey: id) else { return }
        sequences[id] = nil
        _ = closeOnceWritten(id, channel)
    }

    private func reschedule() {
        timer?.cancel()
        timer = nil
        guard let deadline = session.nextDeadline else { return }
        let delay = max(.zero, deadline - now)
        timer = loop.scheduleTask(in: .nanoseconds(delay.nanoseconds)) { [weak self] in
            self?.timer = nil
            self?.handle(.tick)
        }
    }

    // MARK: - Ending

    /// Stops listening, closes every connection, removes the socket files.
    public func shutdown(reason: String) {
        loop.execute {
            // The goodbye first: every list drops the game at once.
            _ = self.announcer?.stopOnLoop()
            self.announcer = nil
            for listener in self.listeners { listener.close(promise: nil) }
            self.listeners = []
            for path in self.socketPaths { unlink(path) }
            self.socketPaths = []
            // The last words (closing frames, the game's end) go out before each connection
            // closes, and the game is over once they have (a host process exits then).
            let closed = self.channels.map { id, channel in self.closeOnceWritten(id, channel) }
            self.channels = [:]
            self.timer?.cancel()
            guard !self.over else { return }
            self.over = true
            let (loop, done) = (self.loop, self.done)
            let allClosed = EventLoopFuture.andAllComplete(closed, on: loop)
            // The game is over once its journal is on disk (`snapcards replay` may read it at
            // once); the loop does not wait for the disk meanwhile.
            guard let journal = self.journal else { return allClosed.whenComplete { _ in done.succeed(reason) } }
            journal.close { loop.execute { allClosed.whenComplete { _ in done.succeed(reason) } } }
        }
    }

    private var over = false

    deinit {
        // A server that never got going (it could not listen) still completes its promise.
        if !over { done.fail(NetError.noHost("the host stopped before the game ended")) }
    }
}

/// How much a connection may have waiting to be sent. Past `highWater` for `slowLimit`,
/// or past `hardCap` at any moment, it is cut as too slow (docs/PROTOCOL.md §10).
public struct OutboundLimits: Sendable {
    public var lowWater = 16 * 1024
    public var highWater = 64 * 1024
    public var hardCap = 256 * 1024
    public var slowLimit: Duration = .seconds(3)
    /// The kernel's send buffer per connection (SO_SNDBUF), nil for the system's default;
    /// tests shrink it so that a slow reader shows at once.
    public var socketSendBuffer: Int?
    public init() {}
}

struct Outbound {
    var pending = 0
    var congestedSince: Duration?
}

/// A bound TCP address.
public struct HostPort: Sendable, Equatable {
    public var host: String
    public var port: Int
    public init(host: String, port: Int) { (self.host, self.port) = (host, port) }
}

/// Whether every card is still where the rules put it ("held after N commands"), or what broke.
public struct ConservationReport: Sendable {
    public var held: Bool
    public var text: String
}
