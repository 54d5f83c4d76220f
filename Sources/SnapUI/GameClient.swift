#if GUI
import SnapBytes
import SnapPlatform
import SnapTable
import Glibc
import Logging
import NIOPosix
import SnapBots
import SnapEngine
import SnapHistory
import SnapNet
import SnapProtocol
import SnapSession
import Synchronization
import SnapRelayProtocol

/// One window's game: the link to the host and the mirror of what this seat knows.
/// On the host's window it also owns the `HostServer` (Start, Next Round, End game).
/// Everything here runs on the main thread; the link is the only thing shared.
public final class GameClient {
    public let link: GameLink
    public private(set) var session = ClientSession()
    public let server: HostServer?
    public let name: String
    /// Where this host listens (for the lobby and `snapcards play`).
    public let socketPath: String?
    /// A TCP host's certificate fingerprint (the lobby shows its short form).
    public internal(set) var certificate: CertificateFingerprint?
    /// Single player: everyone else at the table is a computer player.
    public private(set) var isSolo = false
    /// Where this game's window keeps what outlives it (a rejoin and a rename use the same).
    public let directories: UserDirectories

    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    /// Hosts this process started, so closing the window ends their games (and removes their
    /// sockets). Behind a lock rather than `nonisolated(unsafe)`: a join finishes on its own thread.
    static let hosted = Mutex<[HostServer]>([])

    /// Among the hosted games until it is over.
    private static func keepUntilOver(_ server: HostServer) {
        hosted.withLock { $0.append(server) }
        server.finished.whenComplete { _ in hosted.withLock { $0.removeAll { $0 === server } } }
    }

    /// Ends every game this process hosts: the players hear "host quit", the socket files go.
    /// Returns once each has ended (its last words are out).
    public static func endHostedGames() async {
        let servers = hosted.withLock { servers in
            defer { servers = [] }
            return servers
        }
        for server in servers {
            server.submit(.quit)
            _ = try? await server.finished.get()
        }
    }

    /// `signedIn`: the link says its own hello (a network link does, to sign in again after a drop).
    init(link: GameLink, name: String, joinCode: String = "", server: HostServer?, socketPath: String?,
         role: Hello.Role = .player, signedIn: Bool = false, endpoint: Endpoint? = nil,
         directories: UserDirectories = UserDirectories()) {
        self.link = link
        self.directories = directories
        self.name = name
        self.server = server
        self.socketPath = socketPath
        self.role = role
        self.joinCode = joinCode
        self.endpoint = endpoint
        // The window sleeps until input: every message from the host wakes it.
        link.onDelivery = { WindowWake.wake() }
        if !signedIn { link.send(.hello(Hello(name: name, joinCode: joinCode, role: role))) }
        WindowWake.wake()
    }

    /// A watcher never acts: the host would cut it for trying.
    public let role: Hello.Role
    /// Where a joined window's host is, and the code it gave (nil for a host's own window
    /// and single player): enough to join again under another name.
    public let endpoint: Endpoint?
    public let joinCode: String

    public var isHost: Bool { server != nil }

    /// A host on TCP: the addresses players can use (HOST:PORT) and the join code, if any.
    /// Worked out once, when the host starts listening: the lobby draws it every frame, and
    /// asking the host's loop (or the system's interfaces) from the window's thread each
    /// time would make every frame wait on them.
    public private(set) var network: (addresses: [String], code: String?)?
    /// A host with a room at a relay: the line players paste (docs/RELAY.md §5).
    public private(set) var invitation: RelayInvitation?

    /// Applies everything the host sent since the last call; returns each message with
    /// the events it carried, in order, for the scene to animate.
    public func poll(now: Double) -> [ReceivedMessage] {
        var result: [ReceivedMessage] = []
        for message in link.drain() {
            // Pings never get here: the link answers them on its loop (the host's own
            // window is never pinged).
            let received = session.receiveForWindow(message, now: .seconds(now))
            // A window that joined is ready at once (a headless host's --start-when waits for it).
            if case .welcome = message, !isHost, role == .player { link.send(.ready) }
            result.append(received)
        }
        if let lost = link.connectionLost { session.connectionLost(lost) }
        return result
    }

    /// Within the host's budgets: a click past them would only get this window cut, so it is dropped.
    private var pacer = MessagePacer()

    public func send(_ message: ClientMessage, now: Double) {
        if role == .watcher, [.ready, .turn, .snap].contains(message.budgetKind) { return }
        if pacer.allow(message, at: .seconds(now)) { link.send(message) }
    }

    /// Snap!, with this player's reaction time measured on this screen: `now` is when the
    /// press happened (the input event's time), the reference when its card was first shown.
    public func snap(now: Double) {
        let message = session.snap(at: .seconds(now))
        if case .snap(let call) = message { lastSnap = call }
        send(message, now: now)
    }

    /// The last Snap! this window sent (tests).
    private(set) var lastSnap: SnapCall?

    /// The window drew and presented round `round`'s reference `turn` (its card, or the
    /// finished deal for 0) at `time` (the app's clock).
    public func referenceShown(round: Int, turn: UInt32, at time: Double) {
        session.referenceShown(round: round, turn: turn, at: .seconds(time))
    }

    public func start() { server?.submit(.start) }
    public func nextRound() { server?.submit(.nextRound) }

    /// Leaves on purpose: a host ends the game for everyone; a client says goodbye.
    public func leave() {
        if let server {
            // It stays among the hosted games until it is over (its journal closed):
            // a window closed meanwhile waits for that.
            server.submit(.quit)
        } else {
            link.send(.leave)
            link.close()
        }
    }

    // MARK: - Starting games

    /// A host window's game with a windowed game's defaults (the menu's Host Game, `snapcards play`, tests).
    public static func host(name: String, bots: Int = 0, level: BotLevel = .normal, speed: Double = 1,
                            rules: Rules = .original, seed: UInt64? = nil, rounds: Int? = nil,
                            turnTimeout: Duration? = .seconds(15), socket: String? = nil,
                            listen: HostPort? = nil, joinCode: String? = nil,
                            nextRoundAfter: Duration? = nil, startWhen: Int? = nil,
                            directories: UserDirectories = UserDirectories(), logger: Logger) async throws -> GameClient {
        var configuration = configuration(name: name, bots: bots, level: level, speed: speed, rules: rules,
                                          seed: seed, maxClients: 3 - bots)
        configuration.joinCode = joinCode
        configuration.turnTimeout = turnTimeout
        // nil: rounds go on until the host ends the game.
        configuration.rounds = rounds
        // nil: the host clicks Next Round.
        configuration.autoNextRound = nextRoundAfter
        return try await host(configuration, HostPlacement(socket: socket.map { .path($0) } ?? .named(in: directories.sockets),
                                                           listen: listen, journalDirectory: directories.journals),
                              startWhen: startWhen, directories: directories, logger: logger)
    }

    /// A host window's game as `configuration` says (`snapcards host` builds it once, for a
    /// window as for `--headless`), placed as `placement` says, started by the one host
    /// runtime every host uses. `startWhen`: start once this many players are at the
    /// table (nil: the host clicks Start).
    public static func host(_ configuration: HostConfiguration, _ placement: HostPlacement, startWhen: Int? = nil,
                            directories: UserDirectories = UserDirectories(), logger: Logger) async throws -> GameClient {
        var placed = configuration
        if placement.listen == nil, placement.relay == nil { placed.joinCode = nil }
        let configuration = placed
        let name = configuration.hostName
        let server = HostServer(configuration, loop: group.next(), logger: logger, history: IndexedHistory { logger.warning("\($0)") })
        let runtime = HostRuntime(server: server, placement: placement) { report in
            if case .warning(let warning) = report { logger.warning("\(warning)") }
        }
        let started: HostStarted
        do { started = try await runtime.start() } catch {
            // Its socket goes on the server's loop: gone once it is over, before the name is used again
            // (a room the relay would not give is followed by the game opened again as it was).
            _ = try? await server.finished.get()
            throw error
        }
        keepUntilOver(server)
        server.startWhen(startWhen)
        let client = GameClient(link: server.connectLocal(), name: name, server: server, socketPath: started.socketPath,
                                directories: directories)
        client.certificate = started.certificate
        if started.tcp != nil { client.network = (started.reachable, server.joinCode) }
        client.invitation = started.invitation
        if placement.relay != nil {
            // The room at the relay goes with the game (it would be asked for again otherwise).
            Task { try? await runtime.playUntilOver() }
        }
        // Renaming the lobby opens the same game under the new name (an explicit socket
        // path gives way to the default one, which is named after the host).
        client.rehost = { [weak server] newName, logger in
            // A fixed port (--listen HOST:7777) is the old game's until it lets go of it;
            // nobody has joined yet, so it can.
            let fixedPort = placement.listen.map { $0.port != 0 } ?? false
            if fixedPort { try await server?.stopListeningOnTCP() }
            do {
                var renamed = configuration
                renamed.hostName = newName
                var moved = placement
                moved.socket = .named(in: directories.sockets)
                return try await host(renamed, moved, startWhen: startWhen, directories: directories, logger: logger)
            } catch {
                // The rename failed: the game goes on as it was, on its port again.
                if fixedPort { _ = try? await runtime.openTCP() }
                throw error
            }
        }
        // "Invite over the internet": the same game again, with a room at the relay and a
        // join code. The game listens under the host's name, so this one closes first; when
        // the relay cannot be had, it opens again as it was and the error says why.
        client.invite = { [weak server] relay, logger in
            if let server {
                server.submit(.quit)
                _ = try? await server.finished.get()
            }
            var invited = configuration
            invited.joinCode = invited.joinCode ?? JoinCode.random()
            var throughRelay = placement
            throughRelay.relay = relay
            throughRelay.socket = .named(in: directories.sockets)
            do {
                return try await host(invited, throughRelay, startWhen: startWhen, directories: directories, logger: logger)
            } catch {
                var again = placement
                again.socket = .named(in: directories.sockets)
                let game = try await host(configuration, again, startWhen: startWhen, directories: directories, logger: logger)
                throw NoRoomAtRelay(error: error, game: game)
            }
        }
        return client
    }

    /// The same game opened again with a room at a relay (see `host`); nil for a joined
    /// window and single player.
    private var invite: (@Sendable (HostPort, Logger) async throws -> GameClient)?

    /// `invite`, to be run off the window's thread; nil where there is no game to invite to.
    var inviter: (@Sendable (HostPort, Logger) async throws -> GameClient)? { invite }

    /// The same game (computer players, rules, seed, rounds, timer, TCP address) under another name.
    private var rehost: (@Sendable (String, Logger) async throws -> GameClient)?

    /// A host's game opened afresh under `name`, with everything else as it was.
    public func hostAgain(as name: String, logger: Logger) async throws -> GameClient {
        try await rehoster(name, logger)
    }

    /// `hostAgain`, to be run off the window's thread.
    var rehoster: @Sendable (String, Logger) async throws -> GameClient {
        if let rehost { return rehost }
        let directories = self.directories
        return { name, logger in try await Self.host(name: name, directories: directories, logger: logger) }
    }

    /// Single player: the host lives in this process with computer players and no sockets.
    public static func solo(name: String, opponents: Int, level: BotLevel, speed: Double = 1, seed: UInt64? = nil,
                            rules: Rules = .original, directories: UserDirectories = UserDirectories(),
                            logger: Logger) -> GameClient {
        let server = HostServer(configuration(name: name, bots: opponents, level: level, speed: speed, rules: rules,
                                              seed: seed, maxClients: 0),
                                loop: group.next(), logger: logger, history: IndexedHistory { logger.warning("\($0)") })
        let client = GameClient(link: server.connectLocal(), name: name, server: server, socketPath: nil,
                                directories: directories)
        client.isSolo = true
        // Ended with the window (its journal closed before the process goes).
        keepUntilOver(server)
        server.startWhen(1)
        // Every match is journaled (`snapcards history`, `snapcards replay`). The file is made off
        // this thread (the window's); the records logged meanwhile are written first.
        Task {
            do { try await server.startJournal(in: directories.journals) { logger.warning("\($0)") } } catch {
                logger.warning("this match is not journaled: \(error)")
            }
        }
        return client
    }

    /// A windowed game's host: a fresh random deal unless a seed is given.
    private static func configuration(name: String, bots: Int, level: BotLevel, speed: Double, rules: Rules,
                                      seed: UInt64?, maxClients: Int) -> HostConfiguration {
        var configuration = HostConfiguration(hostName: name)
        configuration.bots = bots
        configuration.botLevel = level
        configuration.speed = speed
        configuration.rules = rules
        configuration.seed = seed ?? UInt64.random(in: 1...UInt64.max)
        // A given seed makes the game reproducible, deals included: then they are not secret.
        configuration.secretDeals = seed == nil
        configuration.maxClients = maxClients
        return configuration
    }

    /// Joins a host over a Unix socket, TCP or a relay (an invitation's endpoint: its
    /// certificate is the only one accepted); a seat this name held in that game (the
    /// window crashed) is taken back with its kept token.
    public static func join(_ endpoint: Endpoint, name: String, joinCode: String = "",
                            role: Hello.Role = .player, trust: ServerTrust? = nil,
                            directories: UserDirectories = UserDirectories()) async throws -> GameClient {
        let link = try await connectLink(to: endpoint, on: group.next(), hello: Hello(name: name, joinCode: joinCode, role: role),
                                   tokens: directories.seatTokens, trust: trust)
        return GameClient(link: link, name: name, joinCode: joinCode, server: nil, socketPath: nil, role: role,
                          signedIn: true, endpoint: endpoint, directories: directories)
    }
}

/// "Invite over the internet" could not open a room at the relay: why, and the game opened
/// again as it was, for the lobby to go on with. Handed once from the task that made the
/// game to the window's thread, as `JoinAttempt` hands a game.
struct NoRoomAtRelay: Error, @unchecked Sendable {  // handed over once; only the window's thread reads it after
    let error: Error
    let game: GameClient
}
#endif
