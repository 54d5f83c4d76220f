#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import SnapPlatform
import SnapBytes
import StoryEngine
import StoryLink
import StoryProtocol
import StoryStores

/// The story service on the network: one event loop for the sockets, and a `StoryStore`
/// (a database) for the matches and keys. Nothing of a match is kept in memory: each
/// request reads and writes the store, and its answer goes out only after the store call
/// returned, so an answered turn is committed and survives a `kill -9`.
///
/// What a connection is answered, and when, is its `StoryConnection` (a pure state
/// machine: sign-in, the request queue, the budget); this class is its I/O: it feeds each
/// connection its requests, store answers and sign-in deadline on the loop, makes the
/// store calls it asks for off the loop, and sends on the loop. A sweeper passes the turn
/// of matches whose deadline went by (`StoryCommand.timeout`), and watchers hear of those,
/// and of matches other processes changed (`store.changes()`).
public final class StoryServer: @unchecked Sendable {  // all state is touched on `loop` only
    public let loop: EventLoop
    public let store: any StoryStore
    private let checks: StoryKeyChecks
    /// Seconds a turn may take in matches that do not ask for their own deadline (0: none).
    public let turnSeconds: UInt64
    private let logger: Logger
    private var connections: [UInt64: Connection] = [:]
    /// Watching connections by player name.
    private var watchers: [String: Set<UInt64>] = [:]
    private var nextID: UInt64 = 1
    private var listeners: [Channel] = []
    private var socketPaths: [String] = []
    private var sweeper: RepeatedTask?
    private var sweeping = false
    private var changesTask: Task<Void, Never>?
    /// The code TCP players must give (nil: none, or no TCP).
    public var joinCode: String?
    public var limits = Limits()
    /// Busy refusals written before a TLS handshake was done, and their bound.
    private let refusals = TLSRefusals()

    /// 72 hours: the deadline of a turn unless the service or the match says otherwise.
    public static let defaultTurnSeconds = StoryDuration.defaultTurnSeconds
    /// How often the matches out of time are looked for, unless a test says otherwise.
    public static let defaultSweepInterval: TimeAmount = .seconds(1)
    /// What a request is answered when the store fails.
    public static let unavailableWords = StoryConnection.unavailableWords

    public struct Limits: Sendable {
        /// Connections at once; one more is refused.
        public var connections = 512
        /// A connection that has not signed in (hello, challenge, proof, welcome) by then is closed.
        public var helloTimeout: TimeAmount = .seconds(10)
        /// Requests per connection: a burst of this many, then this many a second.
        public var burst = 60
        public var perSecond = 30.0
        public init() {}
    }

    struct Connection {
        let channel: Channel
        var machine: StoryConnection
        var sequence = SequenceCounter()
        var helloTimer: Scheduled<Void>?
    }

    /// Serves from `store`. `checks`: how sign-ins are verified (tests may pass others).
    /// `turnSeconds`: the deadline of matches that do not ask their own; every
    /// `sweepInterval` the matches out of time have their turn passed.
    public init(store: any StoryStore, loop: EventLoop, logger: Logger, checks: StoryKeyChecks = .live,
                turnSeconds: UInt64 = StoryServer.defaultTurnSeconds, sweepInterval: TimeAmount = StoryServer.defaultSweepInterval) {
        self.store = store
        self.loop = loop
        self.logger = logger
        self.checks = checks
        self.turnSeconds = turnSeconds
        sweeper = loop.scheduleRepeatedTask(initialDelay: sweepInterval, delay: sweepInterval) { [weak self] _ in
            self?.sweep()
        }
        let changes = store.changes()
        changesTask = Task { [weak self, store] in
            for await id in changes {
                guard let match = try? await store.match(id) else { continue }
                guard let server = self else { return }
                server.loop.execute { server.push(match, except: nil) }
            }
        }
    }

    // MARK: - Listening

    /// Listens on a Unix socket. `channelBinding`: what its sign-ins are bound to
    /// (`StoryChannelBinding`; `.unbound` here).
    public func listen(unixPath path: String, channelBinding: StoryChannelBinding = .unbound) async throws {
        try await listenLater(unixPath: path, channelBinding: channelBinding).get()
    }

    /// `listen(unixPath:)` as a future (NIO's own terms; tests and benchmarks wait on it).
    /// Bound 0600 (never open to others, not even briefly), the listener kept on the loop
    /// (everything here is the loop's).
    public func listenLater(unixPath path: String, channelBinding: StoryChannelBinding = .unbound) -> EventLoopFuture<Void> {
        do { try claimSocketPath(path) } catch { return loop.makeFailedFuture(error) }
        return loop.flatSubmit {
            let socket: CInt
            do { socket = try bindPrivateUnixSocket(path) } catch { return self.loop.makeFailedFuture(error) }
            return self.bootstrap(channelBinding, tls: nil).withBoundSocket(socket).map { channel in
                self.listeners.append(channel)
                self.socketPaths.append(path)
            }
        }.flatMapErrorThrowing { error in
            throw NetError.cannotListen(path, plainReason(error, listening: true, unix: true))
        }
    }

    /// Listens on TCP, every connection in TLS shown `identity`; returns the port bound.
    /// Sign-ins on it are bound to the certificate's fingerprint (`StoryChannelBinding`),
    /// which a client passes as the fingerprint it verified.
    public func listen(host: String, port: Int, identity: TLSIdentity) async throws -> Int {
        try await listenLater(host: host, port: port, identity: identity).get()
    }

    /// `listen(host:port:identity:)` as a future.
    public func listenLater(host: String, port: Int, identity: TLSIdentity) -> EventLoopFuture<Int> {
        let binding = StoryChannelBinding.tlsCertificate(sha256: identity.fingerprint.digest) ?? .unbound
        do {
            return listenLater(host: host, port: port, binding: binding, tls: try identity.serverContext())
        } catch {
            return loop.makeFailedFuture(error)
        }
    }

    /// TCP without TLS (`tls` nil) is for benchmarks only: the baseline TLS is measured against.
    package func listenLater(host: String, port: Int, tls: NIOSSLContext?) -> EventLoopFuture<Int> {
        listenLater(host: host, port: port, binding: .unbound, tls: tls)
    }

    private func listenLater(host: String, port: Int, binding: StoryChannelBinding, tls: NIOSSLContext?) -> EventLoopFuture<Int> {
        loop.flatSubmit {
            self.bootstrap(binding, tls: tls).bind(host: host, port: port).map { channel in
                self.listeners.append(channel)
                return channel.localAddress?.port ?? port
            }
        }.flatMapErrorThrowing { error in
            throw NetError.cannotListen(formatHostPort(host, port), plainReason(error, listening: true, unix: false))
        }
    }

    /// What a connection past the service's maximum is told.
    static func busyText(_ connections: Int) -> String { "the story service is busy (\(connections) connections); try again later" }

    /// What a plain client reaching a TLS port reads before it is closed.
    static let plainRefusalReply = StoryReply.refused(.signIn, "this story service speaks TLS on TCP: update snap to reach it")
    static let plainRefusal = plainRefusalReply.encode(sequence: 0)

    /// A listener's bootstrap: each connection's frames go to this server with the
    /// listener's channel binding, after TLS when there is TLS.
    private func bootstrap(_ channelBinding: StoryChannelBinding, tls: NIOSSLContext?) -> ServerBootstrap {
        ServerBootstrap(group: loop)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { [unowned self] channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try TLSTransport.addServer(to: channel, context: tls, plainRefusal: Self.plainRefusal) }
                    let listener = StoryListener(server: self, channelBinding: channelBinding)
                    try channel.pipeline.syncOperations.addHandler(FrameConnectionHandler(server: listener))
                }
            }
    }

    /// Stops listening and sweeping, removes the socket files. The store stays open (its
    /// opener closes it).
    public func shutdown() async {
        try? await shutdownLater().get()
    }

    /// `shutdown()` as a future: done once the socket files are gone.
    public func shutdownLater() -> EventLoopFuture<Void> {
        changesTask?.cancel()
        return loop.submit {
            self.sweeper?.cancel()
            self.sweeper = nil
            for listener in self.listeners { listener.close(promise: nil) }
            for path in self.socketPaths { unlink(path) }
            for connection in self.connections.values { connection.channel.close(promise: nil) }
            self.listeners = []
            self.socketPaths = []
        }
    }

    // MARK: - Connections (on the loop)

    func connected(_ channel: Channel, channelBinding: StoryChannelBinding) -> UInt64? {
        guard connections.count < limits.connections else {
            var sequence = SequenceCounter()
            let bytes = StoryReply.refused(.busy, Self.busyText(limits.connections))
                .encode(sequence: sequence.next())
            channel.writeAndFlush(channel.allocator.buffer(bytes: bytes), promise: nil)
            refusals.close(channel)
            return nil
        }
        let id = nextID
        nextID += 1
        let timer = loop.scheduleTask(in: limits.helloTimeout) { [weak self] () -> Void in
            self?.feed(id, .helloTimedOut)
        }
        let machine = StoryConnection(StoryConnection.Context(
            remote: channel.remoteAddress?.ipAddress != nil, joinCode: joinCode, channelBinding: channelBinding,
            turnSeconds: turnSeconds, checks: checks, helloTimeoutSeconds: limits.helloTimeout.nanoseconds / 1_000_000_000,
            burst: limits.burst, perSecond: limits.perSecond))
        connections[id] = Connection(channel: channel, machine: machine, helloTimer: timer)
        return id
    }

    func disconnected(_ id: UInt64) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        connection.helloTimer?.cancel()
        if let name = connection.machine.name { watchers[name]?.remove(id) }
    }

    func malformed(_ id: UInt64, _ why: String) {
        logger.info("connection \(id): \(why)")
        send(.refused(.badRequest, "malformed message: \(why)"), to: id)
        close(id)
    }

    private var now: UInt64 { UInt64(max(0, time(nil))) }
    private let clock = ContinuousClock.now

    /// Returns whether the connection is still open.
    func received(_ request: StoryRequest, from id: UInt64) -> Bool {
        feed(id, .request(request, elapsed: ContinuousClock.now - clock))
        return connections[id] != nil
    }

    /// Hands connection `id`'s machine `input` and carries out what it says.
    private func feed(_ id: UInt64, _ input: StoryConnection.Input) {
        guard var connection = connections[id] else { return }
        let actions = connection.machine.handle(input, now: now)
        connections[id] = connection
        for action in actions {
            switch action {
            case .send(let reply):
                send(reply, to: id)
            case .close:
                close(id)
            case .signedIn:
                connections[id]?.helloTimer?.cancel()
                connections[id]?.helloTimer = nil
            case .watch(let name):
                watchers[name, default: []].insert(id)
            case .push(let match):
                push(match, except: id)
            case .call(let call):
                store.perform(call, answeringOn: loop).whenComplete { [self] result in
                    feed(id, .answered(answer(result, connection: id)))
                }
            }
        }
    }

    /// The store's answer, its refusals and faults as answers too.
    private func answer(_ result: Result<StoryConnection.StoreAnswer, any Error>, connection id: UInt64) -> StoryConnection.StoreAnswer {
        switch result {
        case .success(let answer): return answer
        case .failure(let error as StoryError): return .refused(StoryRequestError(StoryRefusal(error), error.description))
        case .failure(let error):
            logger.warning("connection \(id): the store failed: \(error)")
            return .failed
        }
    }

    /// An update of `match` to every watching participant's connections but `except`.
    private func push(_ match: StoryMatch, except: UInt64?) {
        for participant in match.participants {
            for watcher in watchers[participant.name] ?? [] where watcher != except {
                send(.update(match), to: watcher)
            }
        }
    }

    /// Passes the turn of matches out of time, as if their participant had passed.
    private func sweep() {
        guard !sweeping else { return }
        sweeping = true
        let now = self.now, store = self.store
        Task { [self] in
            do {
                for id in try await store.due(at: now, limit: 256) {
                    do {
                        let match = try await store.apply(.timeout(id, at: now))
                        loop.execute { [self] in push(match, except: nil) }
                    } catch is StoryError {
                        // Taken, or passed, by another process meanwhile: nothing is due.
                    }
                }
            } catch {
                logger.warning("the deadline sweep failed: \(error)")
            }
            loop.execute { [self] in sweeping = false }
        }
    }

    private func send(_ reply: StoryReply, to id: UInt64) {
        guard let channel = connections[id]?.channel else { return }
        let bytes = reply.encode(sequence: connections[id]!.sequence.next())
        channel.writeAndFlush(channel.allocator.buffer(bytes: bytes), promise: nil)
    }

    /// Forgets connection `id` and closes it, after what was sent to it.
    private func close(_ id: UInt64) {
        guard let connection = connections[id] else { return }
        disconnected(id)
        connection.channel.close(promise: nil)
    }
}

/// One listener's connections: they reach the server with the channel binding their
/// sign-ins are checked against.
final class StoryListener: FrameServer {
    typealias Failure = StoryWireError
    let server: StoryServer
    let channelBinding: StoryChannelBinding

    init(server: StoryServer, channelBinding: StoryChannelBinding) {
        self.server = server
        self.channelBinding = channelBinding
    }

    var maxFrameBody: Int { StoryWire.maxBodyLength }
    func decode(_ frame: Frame) throws -> StoryRequest { try StoryRequest.decode(frame) }
    func connected(_ channel: Channel) -> UInt64? { server.connected(channel, channelBinding: channelBinding) }
    func received(_ message: StoryRequest, from key: UInt64) -> Bool { server.received(message, from: key) }
    func malformed(_ key: UInt64, _ reason: String) { server.malformed(key, reason) }
    func disconnected(_ key: UInt64) { server.disconnected(key) }
}
