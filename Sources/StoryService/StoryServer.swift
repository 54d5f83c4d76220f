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
/// A connection's requests are answered in order, one at a time (its queue); store calls
/// run off the loop (the store's own threads), and every send happens on the loop. A
/// store fault refuses the request with `unavailable`, in words, and keeps the connection.
/// A sweeper passes the turn of matches whose deadline went by (`StoryCommand.timeout`),
/// and watchers hear of those, and of matches other processes changed (`store.changes()`).
///
/// Sign-in (docs/PROTOCOL.md §16): hello (name, public key) → challenge (a fresh nonce)
/// → proof (the signature of the nonce, the name and the listener's channel binding) →
/// welcome. The hello timeout covers all of it.
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
    public static let unavailableWords = "the story service cannot reach its database; try again"

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
        var signIn = SignInState.awaitingHello
        var sequence = SequenceCounter()
        var bucket: TokenBucket
        var helloTimer: Scheduled<Void>?
        /// Over TCP (the join code is asked for).
        let remote: Bool
        /// What this connection's proof must be bound to (its listener's).
        let channelBinding: StoryChannelBinding
        /// Requests not yet answered, in order; `busy` while the first is at the store.
        var queue: [StoryRequest] = []
        var busy = false

        var name: String? {
            if case .signedIn(let name) = signIn { name } else { nil }
        }
    }

    enum SignInState {
        case awaitingHello
        /// The challenge went out with `nonce`; the proof must sign it.
        case awaitingProof(name: String, publicKey: [UInt8], nonce: [UInt8])
        case signedIn(String)
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
        changesTask = Task(executorPreference: OffPoolExecutor.shared) { [weak self, store] in
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
    /// Bound on the loop, the listener kept there (everything here is the loop's), with a
    /// restrictive umask so the socket is never open to others, not even briefly.
    public func listenLater(unixPath path: String, channelBinding: StoryChannelBinding = .unbound) -> EventLoopFuture<Void> {
        do { try claimSocketPath(path) } catch { return loop.makeFailedFuture(error) }
        return loop.flatSubmit {
            bindWithRestrictiveUmask { self.bootstrap(channelBinding, tls: nil).bind(unixDomainSocketPath: path) }.map { channel in
                chmod(path, 0o600)
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
        let seconds = limits.helloTimeout.nanoseconds / 1_000_000_000
        let timer = loop.scheduleTask(in: limits.helloTimeout) { [weak self] () -> Void in
            self?.refuse(id, .signIn, "not signed in within \(seconds) s (hello, then the proof of your key)", close: true)
        }
        connections[id] = Connection(channel: channel, bucket: TokenBucket(capacity: limits.burst, perSecond: limits.perSecond),
                                     helloTimer: timer, remote: channel.remoteAddress?.ipAddress != nil,
                                     channelBinding: channelBinding)
        return id
    }

    func disconnected(_ id: UInt64) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        connection.helloTimer?.cancel()
        if let name = connection.name { watchers[name]?.remove(id) }
    }

    func malformed(_ id: UInt64, _ why: String) {
        logger.info("connection \(id): \(why)")
        refuse(id, .badRequest, "malformed message: \(why)", close: true)
    }

    private var now: UInt64 { UInt64(max(0, time(nil))) }
    private let clock = ContinuousClock.now

    /// Returns whether the connection is still open.
    func received(_ request: StoryRequest, from id: UInt64) -> Bool {
        guard var connection = connections[id] else { return false }
        let elapsed = ContinuousClock.now - clock
        guard connection.bucket.take(at: elapsed) else {
            refuse(id, .overBudget, "over budget: more than \(limits.burst) requests at once, or \(Int(limits.perSecond)) a second", close: true)
            return false
        }
        connection.queue.append(request)
        connections[id] = connection
        drain(id)
        return connections[id] != nil
    }

    /// What is left of a request once its store call returned: run on the loop.
    typealias Finish = @Sendable () -> Void
    /// A request's store call (off the loop), returning what to do then.
    typealias Work = @Sendable () async -> Finish

    /// Answers connection `id`'s requests in order: those that need no store at once, and
    /// one store call at a time, the next request waiting for its answer.
    private func drain(_ id: UInt64) {
        while let connection = connections[id], !connection.busy, !connection.queue.isEmpty {
            let request = connections[id]!.queue.removeFirst()
            guard let work = handle(request, connection, id) else { continue }
            connections[id]!.busy = true
            Task(executorPreference: OffPoolExecutor.shared) { [self] in
                let finish = await work()
                loop.execute { [self] in
                    finish()
                    guard connections[id] != nil else { return }
                    connections[id]!.busy = false
                    drain(id)
                }
            }
        }
    }

    /// A store call whose fault (not a refusal) refuses with `unavailable`; the connection stays.
    private func storeCall(_ id: UInt64, _ body: @escaping @Sendable () async throws -> Finish) -> Work {
        { [self] in
            do {
                return try await body()
            } catch let error as StoryError {
                return { [self] in refuse(id, StoryRefusal(error), error.description) }
            } catch {
                logger.warning("connection \(id): the store failed: \(error)")
                return { [self] in refuse(id, .unavailable, Self.unavailableWords) }
            }
        }
    }

    /// Answers `request`, or returns the store call that will.
    private func handle(_ request: StoryRequest, _ connection: Connection, _ id: UInt64) -> Work? {
        guard let name = connection.name else { return signIn(request, connection, id) }
        let store = self.store
        switch request {
        case .hello, .otherVersionHello, .proof:
            refuse(id, .badRequest, "a second sign-in (\(request.kind)) after the welcome", close: true)
        case .ping(let nonce):
            send(.pong(nonce), to: id)
        case .watch:
            watchers[name, default: []].insert(id)
        case .list:
            return storeCall(id) { [self] in
                let matches = try await store.matches(of: name)
                return { [self] in
                    for match in matches { send(.match(match), to: id) }
                    send(.listed(count: UInt32(matches.count)), to: id)
                }
            }
        case .show(let matchID):
            return storeCall(id) { [self] in
                let match = try await store.match(matchID)
                return { [self] in
                    if let match {
                        send(.match(match), to: id)
                    } else {
                        refuse(id, .unknownMatch, StoryError.unknownMatch(matchID).description)
                    }
                }
            }
        case .create, .automatch, .turn, .quit, .decline, .rematch:
            switch StoryHost.command(request, by: name, at: now, turnSeconds: turnSeconds) {
            case .failure(let error):
                refuse(id, error.refusal, error.message)
            case .success(let command):
                return storeCall(id) { [self] in
                    // Committed before anyone hears of it: an answered turn is never lost.
                    let match = try await store.apply(command)
                    return { [self] in
                        send(.match(match), to: id)
                        push(match, except: id)
                    }
                }
            }
        }
        return nil
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
        Task(executorPreference: OffPoolExecutor.shared) { [self] in
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

    /// hello → challenge, proof → welcome; anything else, or a refused step, cuts the connection.
    private func signIn(_ request: StoryRequest, _ connection: Connection, _ id: UInt64) -> Work? {
        let store = self.store, checks = self.checks
        switch (connection.signIn, request) {
        case (.awaitingHello, .otherVersionHello(let version, _)):
            refuse(id, .signIn, StoryHost.versionRefusal(version), close: true)
        case (.awaitingHello, .hello(let name, let publicKey, let code)):
            if connection.remote, let joinCode, JoinCode.normalized(code) != joinCode {
                refuse(id, .signIn, code.isEmpty ? "this story service needs its join code (--code)" : "wrong join code", close: true)
                return nil
            }
            return storeCall(id) { [self] in
                let known = try await store.registeredKey(of: name)
                return { [self] in
                    if let problem = StoryHost.checkHello(name: name, publicKey: publicKey, known: known) {
                        refuse(id, problem.refusal, problem.message, close: true)
                        return
                    }
                    // Fresh for each connection, from the system's secure generator: a proof signed
                    // for one connection is worth nothing on the next.
                    var generator = SystemRandomNumberGenerator()
                    var nonce: [UInt8] = []
                    for _ in 0..<(StoryWire.nonceBytes / 8) { withUnsafeBytes(of: generator.next()) { nonce += $0 } }
                    connections[id]?.signIn = .awaitingProof(name: name, publicKey: publicKey, nonce: nonce)
                    send(.challenge(nonce: nonce), to: id)
                }
            }
        case (.awaitingProof(let name, let publicKey, let nonce), .proof(let signature, let oldKey)):
            let message = StoryWire.signInMessage(nonce: nonce, name: name, channelBinding: connection.channelBinding)
            return storeCall(id) { [self] in
                let known = try await store.registeredKey(of: name)
                let answer = StoryHost.signIn(name: name, publicKey: publicKey, signature: signature, oldKey: oldKey,
                                              message: message, known: known, checks: checks)
                if case .welcome(.publicKey(let registered, let key)?) = answer {
                    // Committed before the welcome: a name answered is never lost (nor its move from an old key).
                    try await store.register(.publicKey(key), for: registered)
                }
                return { [self] in
                    switch answer {
                    case .refused(let why, let words):
                        refuse(id, why, words, close: true)
                    case .welcome:
                        guard var connection = connections[id] else { return }
                        connection.helloTimer?.cancel()
                        connection.helloTimer = nil
                        connection.signIn = .signedIn(name)
                        connections[id] = connection
                        send(.welcome(version: StoryWire.version, name: name), to: id)
                    }
                }
            }
        case (.awaitingHello, _):
            refuse(id, .signIn, "the first message must be a story hello", close: true)
        default:
            refuse(id, .signIn, "after the challenge comes the proof of your key, not a \(request.kind)", close: true)
        }
        return nil
    }

    private func send(_ reply: StoryReply, to id: UInt64) {
        guard let channel = connections[id]?.channel else { return }
        let bytes = reply.encode(sequence: connections[id]!.sequence.next())
        channel.writeAndFlush(channel.allocator.buffer(bytes: bytes), promise: nil)
    }

    private func refuse(_ id: UInt64, _ why: StoryRefusal, _ message: String, close: Bool = false) {
        send(.refused(why, message), to: id)
        guard close, let connection = connections[id] else { return }
        disconnected(id)
        // The refusal goes out first.
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
