import Glibc
import SnapBytes
import SnapMatchFiles
import SnapPlatform
import Logging
import NIOCore
import NIOSSL
import SnapProtocol
import SnapSession

/// The host on the network: drives a `HostSession` from sockets and one event loop.
/// Every connection's handler and every timer run on `loop`, so the session needs no
/// locks; everything here is touched on that loop only. Callers on other threads (the
/// CLI, a window) hand it inputs (`submit`) or ask it with `await` (`onLoop`): nothing
/// off the loop ever blocks a thread on it.
///
/// It keeps the session, its timer and its observers, performs the session's actions, and
/// composes the parts that carry them out, each in its own file: `HostListeners` (the Unix
/// socket, TCP and TLS), `OutboundQueue` (the connections' sending side: back-pressure, and
/// closing once the last words are out), `LocalLinks` (the host's own players in this
/// process), `HostAnnouncement` (the LAN's lists) and `MatchRecording` (the journal and the
/// history).
public final class HostServer: FrameServer, @unchecked Sendable {  // state touched on `loop` only (see above)
    public let loop: EventLoop
    private var session: HostSession
    private var nextID: UInt64 = 1
    private var timer: Scheduled<Void>?
    private let origin: ContinuousClock.Instant
    let logger: Logger
    private let outbound: OutboundQueue
    private let localLinks = LocalLinks()
    private var listeners: HostListeners!  // set once in `init` (it calls back into the server)
    private let announcement: HostAnnouncement
    private let recording: MatchRecording
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
    /// How far behind a connection may fall before it is cut as too slow (set before listening).
    public var outboundLimits: OutboundLimits {
        get { outbound.limits }
        set { outbound.limits = newValue }
    }
    private let done: EventLoopPromise<String>
    /// The code TCP players must give, nil for an open game (`HostConfiguration.joinCode`).
    public let joinCode: String?
    /// The TCP addresses listened on, as bound, in order.
    public var tcpListeners: [HostPort] { get async { await onLoop { self.listeners.tcpAddresses } } }

    /// `history`: where the won counts of earlier matches come from and where this match's
    /// rounds go as they end (SnapHistory's index); nil: neither (this match's wins only).
    public init(_ configuration: HostConfiguration, loop: EventLoop, logger: Logger, history: (any MatchHistory)? = nil) {
        origin = ContinuousClock.now
        var configuration = configuration
        if configuration.startedAt == 0 { configuration.startedAt = UInt64(max(0, time(nil))) }
        joinCode = configuration.joinCode
        hostName = configuration.hostName
        session = HostSession(configuration)
        (self.loop, self.logger, done) = (loop, logger, loop.makePromise())
        (outbound, announcement, recording) = Self.parts(loop: loop, logger: logger, history: history, origin: origin)
        listeners = makeListeners()
    }

    /// A host restarted from a crashed one's journal (`snapcards host --resume`): the match
    /// goes on from its last intact record, and the journal file goes on growing. A torn
    /// tail is cut with a warning; a damaged journal is refused (`JournalDamaged`) unless
    /// `fromLastGoodRecord`, and then the whole damaged file is first kept beside it.
    public init(resuming path: String, _ configuration: HostConfiguration, loop: EventLoop, logger: Logger,
                fromLastGoodRecord: Bool = false, history: (any MatchHistory)? = nil,
                onWarning: @escaping @Sendable (String) -> Void) throws {
        origin = ContinuousClock.now
        let journal = try MatchRecording.readForResuming(path, fromLastGoodRecord: fromLastGoodRecord, onWarning: onWarning)
        session = try HostSession(resuming: journal.records, configuration, now: .zero)
        hostName = session.configuration.hostName
        joinCode = configuration.joinCode
        (self.loop, self.logger, done) = (loop, logger, loop.makePromise())
        (outbound, announcement, recording) = Self.parts(loop: loop, logger: logger, history: history, origin: origin)
        listeners = makeListeners()
        try recording.continue(path, intactLength: journal.intactLength, onWarning: onWarning) { [self] wins in
            perform(session.setEarlierWins(wins))
        }
    }

    private static func parts(loop: EventLoop, logger: Logger, history: (any MatchHistory)?,
                              origin: ContinuousClock.Instant) -> (OutboundQueue, HostAnnouncement, MatchRecording) {
        (OutboundQueue(loop: loop) { ContinuousClock.now - origin }, HostAnnouncement(loop: loop),
         MatchRecording(loop: loop, logger: logger, history: history))
    }

    private func makeListeners() -> HostListeners {
        HostListeners(loop: loop, limits: { [unowned self] in outbound.limits }, plainRefusal: Self.plainRefusal) { [unowned self] channel in
            try channel.pipeline.syncOperations.addHandler(FrameConnectionHandler(server: self))
        }
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
        recording.start(in: directory, hostName: hostName, onWarning: onWarning, log: { [self] in session.log }) { [self] wins in
            perform(session.setEarlierWins(wins))
        }
    }

    /// The won counts of earlier matches once the session has them (tests wait for it).
    package var earlierWinsCounted: EventLoopFuture<[String: Int]>? { recording.earlierWinsCounted }

    // MARK: - Listening

    /// Listens on a Unix socket; the path is claimed safely first (see `claimSocketPath`).
    public func listen(unixPath path: String) async throws {
        try await listenLater(unixPath: path).get()
    }

    /// `listen(unixPath:)` as a future (NIO's own terms; tests wait on it).
    public func listenLater(unixPath path: String) -> EventLoopFuture<Void> {
        listeners.listenLater(unixPath: path)
    }

    /// Listens on TCP, every connection in TLS shown `identity`; returns the port (useful
    /// with port 0).
    public func listen(host: String, port: Int, identity: TLSIdentity) async throws -> Int {
        try await listenLater(host: host, port: port, identity: identity).get()
    }

    /// `listen(host:port:identity:)` as a future.
    public func listenLater(host: String, port: Int, identity: TLSIdentity) -> EventLoopFuture<Int> {
        listeners.listenLater(host: host, port: port, identity: identity)
    }

    /// The fingerprint of the certificate TCP players see; the LAN announcement carries it.
    public var certificate: CertificateFingerprint? { get async { await onLoop { self.listeners.certificate } } }

    /// TCP without TLS (`tls` nil) is for benchmarks only: the baseline TLS is measured against.
    package func listen(host: String, port: Int, tls: NIOSSLContext?) async throws -> Int {
        try await listenLater(host: host, port: port, tls: tls).get()
    }

    package func listenLater(host: String, port: Int, tls: NIOSSLContext?) -> EventLoopFuture<Int> {
        listeners.listenLater(host: host, port: port, tls: tls)
    }

    /// Stops listening on TCP and announcing it (the Unix socket stays), and returns once
    /// the ports are free: a lobby renamed before anyone joined reopens under its new
    /// name on the same fixed port, which the old listener would otherwise still hold.
    public func stopListeningOnTCP() async throws {
        try await onLoop { () -> EventLoopFuture<Void> in
            let goodbye = self.announcement.stop()  // first: every list drops the game
            return EventLoopFuture.andAllComplete([self.listeners.closeTCP(), goodbye], on: self.loop)
        }
    }

    /// Announces the game on the local network (DNS-SD over multicast DNS, docs/LAN.md)
    /// for players to connect to `port` at `addresses`. A game on a loopback address is
    /// announced on loopback only. Throws when multicast is not possible here.
    public func announceOnLAN(listeningOn host: String, port: Int) async throws {
        try await announcement.start(hostName: hostName, listeningOn: host, port: port, fingerprint: await certificate,
                                     logger: logger) { [unowned self] in session.publicInfo }
    }

    /// Stops announcing the game (the goodbye goes out first); listening goes on.
    public func stopAnnouncing() -> EventLoopFuture<Void> {
        loop.flatSubmit { self.announcement.stop() }
    }

    /// Announcement bytes sent so far (0 when not announcing).
    public var announcementBytes: Int { get async { await onLoop { self.announcement.bytesSent } } }

    /// What a plain client reaching a TLS port reads before it is closed.
    static let plainRefusalMessage = HostMessage.closing(.versionUnsupported, message: "this host speaks TLS on TCP (PROTOCOL.md §2): "
        + "update snap to join it, or join on its Unix socket from the same machine")
    static let plainRefusal = WireCodec.encode(plainRefusalMessage, sequence: 0)

    // MARK: - Inputs (on the loop)

    package typealias Failure = ProtocolError
    package var maxFrameBody: Int { Frame.maxBodyLength }

    package func decode(_ frame: Frame) throws -> ClientMessage { try WireCodec.decodeClientMessage(frame) }

    package func connected(_ channel: Channel) -> ConnectionID? {
        // A TCP peer's address (nil on a Unix socket): the session asks it for the join code.
        connected(channel, remote: channel.remoteAddress?.ipAddress)
    }

    /// A connection whose `remote` is not its channel's peer: a player through a relay
    /// (`relay peer TAG`, RelayRoom), whose wrong join codes are counted by that.
    func connected(_ channel: Channel, remote: String?) -> ConnectionID? {
        let id = newConnectionID()
        outbound.open(id, channel)
        handle(.connected(id, local: false, remote: remote))
        return id
    }

    /// The host's own player's link (`connectLocal`), on the loop.
    func attachLocal(_ link: GameLink) -> ConnectionID {
        let id = newConnectionID()
        localLinks.attach(link, as: id)
        handle(.connected(id, local: true))
        return id
    }

    private func newConnectionID() -> ConnectionID {
        defer { nextID += 1 }
        return ConnectionID(nextID)
    }

    /// Returns whether the connection is still open (a cut one reads nothing more).
    package func received(_ message: ClientMessage, from id: ConnectionID) -> Bool {
        handle(.message(id, message))
        return outbound.isOpen(id)
    }

    package func malformed(_ id: ConnectionID, _ reason: String) {
        handle(.malformed(id, reason))
    }

    package func disconnected(_ id: ConnectionID) {
        guard outbound.disconnected(id) || localLinks.detach(id) else { return }
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
        outbound.cutTooSlow { id, why in perform(session.handle(.tooSlow(id, why), now: now)) }
        announcement.refresh()
        if let startWhen = startWhenOnLoop, session.phase == .lobby, session.lobby.count >= startWhen, session.lobby.allSatisfy({ $0.ready }) {
            perform(session.handle(.start, now: now))
        }
        reschedule()
    }

    private func perform(_ actions: [HostAction]) {
        var roundEnded = false
        defer { if roundEnded { recording.roundEnded() } }  // after the batch: the reveal and any end are appended
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
                recording.append(record)
            case .gameOver(let why):
                logger.info("game over: \(why)")
                shutdown(reason: why)
            }
        }
    }

    private func write(_ message: HostMessage, to id: ConnectionID) {
        guard !localLinks.deliver(message, to: id) else { return }
        outbound.send(message, to: id)
    }

    private func hangUp(_ id: ConnectionID) {
        localLinks.detach(id)
        outbound.hangUp(id)
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
            _ = self.announcement.stop()
            self.listeners.close()
            // The last words (closing frames, the game's end) go out before each connection
            // closes, and the game is over once they have (a host process exits then).
            let closed = self.outbound.hangUpAll()
            self.timer?.cancel()
            guard !self.over else { return }
            self.over = true
            let (loop, done) = (self.loop, self.done)
            let allClosed = EventLoopFuture.andAllComplete(closed, on: loop)
            // The game is over once its journal is on disk (`snapcards replay` may read it at
            // once); the loop does not wait for the disk meanwhile.
            self.recording.close { allClosed.whenComplete { _ in done.succeed(reason) } }
        }
    }

    private var over = false

    deinit {
        // A server that never got going (it could not listen) still completes its promise.
        if !over { done.fail(NetError.noHost("the host stopped before the game ended")) }
    }
}

/// Whether every card is still where the rules put it ("held after N commands"), or what broke.
public struct ConservationReport: Sendable {
    public var held: Bool
    public var text: String
}
