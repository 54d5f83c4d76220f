#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import SnapJournal
import SnapNet
import SnapProtocol
import StoryEngine

/// The story service on the network: one event loop, a `StoryHost`, and the journal.
/// Every request is journalled and written to disk before its answer goes out, so an
/// answered turn survives a `kill -9`.
///
/// Sign-in (docs/PROTOCOL.md §16): hello (name, public key) → challenge (a fresh nonce)
/// → proof (the signature of the nonce, the name and the listener's channel binding) →
/// welcome. The hello timeout covers all of it.
public final class StoryServer: @unchecked Sendable {  // all state is touched on `loop` only
    public let loop: EventLoop
    private var host: StoryHost
    private let journal: JournalWriter
    private let logger: Logger
    private var connections: [UInt64: Connection] = [:]
    /// Watching connections by player name.
    private var watchers: [String: Set<UInt64>] = [:]
    private var nextID: UInt64 = 1
    private var listeners: [Channel] = []
    private var socketPaths: [String] = []
    /// The code TCP players must give (nil: none, or no TCP).
    public var joinCode: String?
    public var limits = Limits()

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

    /// What a start found in the journal.
    public struct Restored: Sendable {
        public var matches: Int
        public var records: Int
        /// A torn tail that was cut, or damage that was set aside, if either.
        public var fault: JournalFault?
        /// Where the whole damaged file was kept before it was cut (damage only).
        public var damagedCopy: String?
        public var problems: [String]
        /// Version 1 keys the journal held, now replaced by their digests (the file was rewritten).
        public var oldKeysRemoved: Int

        public init(matches: Int, records: Int, fault: JournalFault? = nil, damagedCopy: String? = nil, problems: [String],
                    oldKeysRemoved: Int = 0) {
            (self.matches, self.records, self.fault, self.damagedCopy, self.problems) = (matches, records, fault, damagedCopy, problems)
            self.oldKeysRemoved = oldKeysRemoved
        }
    }

    public private(set) var restored = Restored(matches: 0, records: 0, problems: [])

    /// Opens (or creates) the journal at `journalPath` and rebuilds every match from it.
    /// A journal holding version 1's secret keys is first rewritten without them
    /// (`StoryJournal`). `checks`: how sign-ins are verified (tests may pass others).
    public init(journalPath: String, loop: EventLoop, logger: Logger, checks: StoryKeyChecks = .live,
                onWarning: @escaping @Sendable (String) -> Void) throws {
        self.loop = loop
        self.logger = logger
        host = StoryHost(checks: checks)
        if access(journalPath, F_OK) == 0 {
            let bytes = try Journal.bytes(atPath: journalPath)
            var contents = try Journal.read(bytes, path: journalPath)
            guard contents.kind == StoryRecord.journalKind else {
                throw JournalError.notAJournal(journalPath, "it holds \(contents.kind), not \(StoryRecord.journalKind)")
            }
            var oldKeys = 0
            if let rewrite = StoryJournal.withoutOldKeys(bytes, contents, digest: checks.digest) {
                try Journal.replace(journalPath, with: rewrite.bytes)
                contents = try Journal.read(rewrite.bytes, path: journalPath)
                oldKeys = rewrite.replaced
            }
            let problems = host.replay(contents.records)
            // A torn tail (a kill -9 mid-write) is cut, never misread. Damage is cut too, so
            // that the service can go on, but only after the whole file is kept aside.
            let copy = contents.fault?.isDamage == true ? try Journal.keepDamagedCopy(of: journalPath) : nil
            journal = try JournalWriter(continuing: journalPath, intactLength: contents.intactLength, onError: onWarning)
            restored = Restored(matches: host.book.matches.count, records: contents.records.count,
                                fault: contents.fault, damagedCopy: copy, problems: problems, oldKeysRemoved: oldKeys)
        } else {
            journal = try JournalWriter(creating: journalPath, kind: StoryRecord.journalKind, onError: onWarning)
        }
    }

    // MARK: - Listening

    /// Listens on a Unix socket. `channelBinding`: what its sign-ins are bound to
    /// (`StoryChannelBinding`; `.unbound` here).
    public func listen(unixPath path: String, channelBinding: StoryChannelBinding = .unbound) throws {
        try claimSocketPath(path)
        do {
            let channel = try withRestrictiveUmask { try bootstrap(channelBinding, tls: nil).bind(unixDomainSocketPath: path).wait() }
            chmod(path, 0o600)
            listeners.append(channel)
            socketPaths.append(path)
        } catch {
            throw NetError.cannotListen(path, plainReason(error, listening: true, unix: true))
        }
    }

    /// Listens on TCP, every connection in TLS shown `identity`; returns the port bound.
    /// Sign-ins on it are bound to the certificate's fingerprint (`StoryChannelBinding`),
    /// which a client passes as the fingerprint it verified.
    public func listen(host: String, port: Int, identity: TLSIdentity) throws -> Int {
        let binding = StoryChannelBinding.tlsCertificate(sha256: identity.fingerprint.digest) ?? .unbound
        return try listen(host: host, port: port, binding: binding, tls: try identity.serverContext())
    }

    /// TCP without TLS (`tls` nil) is for benchmarks only: the baseline TLS is measured against.
    package func listen(host: String, port: Int, tls: NIOSSLContext?) throws -> Int {
        try listen(host: host, port: port, binding: .unbound, tls: tls)
    }

    private func listen(host: String, port: Int, binding: StoryChannelBinding, tls: NIOSSLContext?) throws -> Int {
        do {
            let channel = try bootstrap(binding, tls: tls).bind(host: host, port: port).wait()
            listeners.append(channel)
            return channel.localAddress?.port ?? port
        } catch {
            throw NetError.cannotListen(formatHostPort(host, port), plainReason(error, listening: true, unix: false))
        }
    }

    /// What a plain client reaching a TLS port reads before it is closed.
    static let plainRefusal = StoryReply.refused(.badRequest, "this story service speaks TLS on TCP: update snap to reach it")
        .encode(sequence: 0)

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

    /// Stops listening, removes the socket files, closes the journal.
    public func shutdown() {
        try? loop.submit {
            for listener in self.listeners { listener.close(promise: nil) }
            for path in self.socketPaths { unlink(path) }
            for connection in self.connections.values { connection.channel.close(promise: nil) }
            self.listeners = []
            self.socketPaths = []
        }.wait()
        journal.close()
    }

    // MARK: - Connections (on the loop)

    func connected(_ channel: Channel, channelBinding: StoryChannelBinding) -> UInt64? {
        guard connections.count < limits.connections else {
            var sequence = SequenceCounter()
            let bytes = StoryReply.refused(.busy, "the story service is busy (\(limits.connections) connections); try again later")
                .encode(sequence: sequence.next())
            channel.writeAndFlush(channel.allocator.buffer(bytes: bytes)).whenComplete { _ in channel.close(promise: nil) }
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
        connections[id]!.bucket = connection.bucket
        guard let name = connection.name else { return signIn(request, connection, id) }
        switch request {
        case .hello, .otherVersionHello, .proof:
            refuse(id, .badRequest, "a second sign-in (\(request.kind)) after the welcome", close: true)
            return false
        case .ping(let nonce):
            send(.pong(nonce), to: id)
        case .watch:
            watchers[name, default: []].insert(id)
        case .list:
            let matches = host.book.matches(of: name)
            for match in matches { send(.match(match), to: id) }
            send(.listed(count: UInt32(matches.count)), to: id)
        case .show(let matchID):
            if let match = host.book[matchID] {
                send(.match(match), to: id)
            } else {
                refuse(id, .unknownMatch, StoryError.unknownMatch(matchID).description)
            }
        case .create, .automatch, .turn, .quit, .decline, .rematch:
            switch host.apply(request, by: name, at: now) {
            case .failure(let error):
                refuse(id, error.refusal, error.message)
            case .success(let (record, match)):
                journal.append { record.bytes }
                // On disk before anyone hears of it: an answered turn is never lost.
                journal.flush()
                send(.match(match), to: id)
                for participant in match.participants {
                    for watcher in watchers[participant.name] ?? [] where watcher != id {
                        send(.update(match), to: watcher)
                    }
                }
            }
        }
        return connections[id] != nil
    }

    /// hello → challenge, proof → welcome; anything else, or a refused step, cuts the connection.
    private func signIn(_ request: StoryRequest, _ connection: Connection, _ id: UInt64) -> Bool {
        var connection = connection
        switch (connection.signIn, request) {
        case (.awaitingHello, .otherVersionHello(let version, _)):
            refuse(id, .signIn, StoryHost.versionRefusal(version), close: true)
            return false
        case (.awaitingHello, .hello(let name, let publicKey, let code)):
            if connection.remote, let joinCode, JoinCode.normalized(code) != joinCode {
                refuse(id, .signIn, code.isEmpty ? "this story service needs its join code (--code)" : "wrong join code", close: true)
                return false
            }
            if let problem = host.checkHello(name: name, publicKey: publicKey) {
                refuse(id, problem.refusal, problem.message, close: true)
                return false
            }
            // Fresh for each connection, from the system's secure generator: a proof signed
            // for one connection is worth nothing on the next.
            var generator = SystemRandomNumberGenerator()
            var nonce: [UInt8] = []
            for _ in 0..<(StoryWire.nonceBytes / 8) { withUnsafeBytes(of: generator.next()) { nonce += $0 } }
            connection.signIn = .awaitingProof(name: name, publicKey: publicKey, nonce: nonce)
            connections[id] = connection
            send(.challenge(nonce: nonce), to: id)
            return true
        case (.awaitingProof(let name, let publicKey, let nonce), .proof(let signature, let oldKey)):
            let message = StoryWire.signInMessage(nonce: nonce, name: name, channelBinding: connection.channelBinding)
            switch host.signIn(name: name, publicKey: publicKey, signature: signature, oldKey: oldKey, message: message) {
            case .refused(let why, let words):
                refuse(id, why, words, close: true)
                return false
            case .welcome(let register):
                if let register {
                    host.register(register)
                    journal.append { register.bytes }
                    // On disk before the welcome: a name answered is never lost (nor its move from an old key).
                    journal.flush()
                }
                connection.helloTimer?.cancel()
                connection.helloTimer = nil
                connection.signIn = .signedIn(name)
                connections[id] = connection
                send(.welcome(version: StoryWire.version, name: name), to: id)
                return true
            }
        case (.awaitingHello, _):
            refuse(id, .signIn, "the first message must be a story hello", close: true)
            return false
        default:
            refuse(id, .signIn, "after the challenge comes the proof of your key, not a \(request.kind)", close: true)
            return false
        }
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

    /// Matches and resident memory, for `snap bench story`.
    public var matchCount: Int { (try? loop.submit { self.host.book.matches.count }.wait()) ?? 0 }

    /// What the service knows of a name's key (tests).
    public func registeredKey(of name: String) -> StoryRegisteredKey? {
        try? loop.submit { self.host.keys[name] }.wait()
    }
}

/// One listener's connections: they reach the server with the channel binding their
/// sign-ins are checked against.
final class StoryListener: FrameServer {
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
