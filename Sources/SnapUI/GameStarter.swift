#if GUI
import Logging
import NIOPosix
import SnapBots
import SnapEngine
import SnapHistory
import SnapBytes
import SnapNet
import SnapPlatform
import SnapProtocol
import SnapRelayProtocol
import SnapSession

/// How a window makes its games: host, single player, join, and a host's game opened again
/// (renamed, or with a room at a relay). A value given to `App`; the games it hosts are kept
/// by the process's one `HostedGames`, and every game runs on the process's one event-loop
/// group (NIO's singleton). A test or a benchmark passes its own Host Game or join again (a
/// slower host, a host on another port) by setting `hostGame` or `joinAgain`.
public struct GameStarter: Sendable {
    /// The games this process hosts, ended with it.
    public let hosted: HostedGames
    /// Host Game: a game under this name on this machine.
    public var hostGame: @Sendable (_ name: String, Logger) async throws -> GameClient
    /// A table's "join again" (another name, or to watch): the same host, another hello.
    public var joinAgain: @Sendable (Endpoint, _ name: String, _ code: String, Hello.Role, UserDirectories) async throws -> GameClient

    public init(hosted: HostedGames) {
        self.hosted = hosted
        hostGame = { name, logger in try await GameStarter(hosted: hosted).host(name: name, logger: logger) }
        joinAgain = { endpoint, name, code, role, directories in
            try await GameStarter(hosted: hosted).join(endpoint, name: name, joinCode: code, role: role, directories: directories)
        }
    }

    /// The process's one event-loop group: every game's host and link, the finder, a seat lookup.
    static var loops: MultiThreadedEventLoopGroup { .singleton }

    /// A host window's game with a windowed game's defaults (the menu's Host Game, `snapcards play`, tests).
    public func host(name: String, bots: Int = 0, level: BotLevel = .normal, speed: Double = 1,
                     rules: Rules = .original, seed: UInt64? = nil, rounds: Int? = nil,
                     turnTimeout: Duration? = .seconds(15), socket: String? = nil,
                     listen: HostPort? = nil, joinCode: String? = nil,
                     nextRoundAfter: Duration? = nil, startWhen: Int? = nil,
                     directories: UserDirectories = UserDirectories(), logger: Logger) async throws -> GameClient {
        var configuration = Self.configuration(name: name, bots: bots, level: level, speed: speed, rules: rules,
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
    public func host(_ configuration: HostConfiguration, _ placement: HostPlacement, startWhen: Int? = nil,
                     directories: UserDirectories = UserDirectories(), logger: Logger) async throws -> GameClient {
        var placed = configuration
        if placement.listen == nil, placement.relay == nil { placed.joinCode = nil }
        let configuration = placed
        let name = configuration.hostName
        let server = HostServer(configuration, loop: Self.loops.next(), logger: logger,
                                history: IndexedHistory { logger.warning("\($0)") })
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
        hosted.keep(server)
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
        client.hosting = GameClient.Hosting(configuration: configuration, placement: placement, startWhen: startWhen,
                                            directories: directories, runtime: runtime)
        return client
    }

    /// Renaming the lobby: the same game (computer players, rules, seed, rounds, timer, TCP
    /// address) opened afresh under `newName` (an explicit socket path gives way to the default
    /// one, which is named after the host).
    public func hostAgain(_ game: GameClient.Hosting, as newName: String, logger: Logger) async throws -> GameClient {
        // A fixed port (--listen HOST:7777) is the old game's until it lets go of it;
        // nobody has joined yet, so it can.
        let fixedPort = game.placement.listen.map { $0.port != 0 } ?? false
        if fixedPort { try await game.runtime.server.stopListeningOnTCP() }
        do {
            var renamed = game.configuration
            renamed.hostName = newName
            var moved = game.placement
            moved.socket = .named(in: game.directories.sockets)
            return try await host(renamed, moved, startWhen: game.startWhen, directories: game.directories, logger: logger)
        } catch {
            // The rename failed: the game goes on as it was, on its port again.
            if fixedPort { _ = try? await game.runtime.openTCP() }
            throw error
        }
    }

    /// "Invite over the internet": the same game again, with a room at the relay and a
    /// join code. The game listens under the host's name, so this one closes first; when
    /// the relay cannot be had, it opens again as it was and the error says why.
    public func invite(_ game: GameClient.Hosting, through relay: HostPort, logger: Logger) async throws -> GameClient {
        let server = game.runtime.server
        server.submit(.quit)
        _ = try? await server.finished.get()
        var invited = game.configuration
        invited.joinCode = invited.joinCode ?? JoinCode.random()
        var throughRelay = game.placement
        throughRelay.relay = relay
        throughRelay.socket = .named(in: game.directories.sockets)
        do {
            return try await host(invited, throughRelay, startWhen: game.startWhen, directories: game.directories, logger: logger)
        } catch {
            var again = game.placement
            again.socket = .named(in: game.directories.sockets)
            let reopened = try await host(game.configuration, again, startWhen: game.startWhen, directories: game.directories,
                                          logger: logger)
            throw NoRoomAtRelay(error: error, game: reopened)
        }
    }

    /// Single player: the host lives in this process with computer players and no sockets.
    public func solo(name: String, opponents: Int, level: BotLevel, speed: Double = 1, seed: UInt64? = nil,
                     rules: Rules = .original, directories: UserDirectories = UserDirectories(),
                     logger: Logger) -> GameClient {
        let server = HostServer(Self.configuration(name: name, bots: opponents, level: level, speed: speed, rules: rules,
                                                   seed: seed, maxClients: 0),
                                loop: Self.loops.next(), logger: logger, history: IndexedHistory { logger.warning("\($0)") })
        let client = GameClient(link: server.connectLocal(), name: name, server: server, socketPath: nil,
                                directories: directories)
        client.isSolo = true
        // Ended with the window (its journal closed before the process goes).
        hosted.keep(server)
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
    public func join(_ endpoint: Endpoint, name: String, joinCode: String = "",
                     role: Hello.Role = .player, trust: ServerTrust? = nil,
                     directories: UserDirectories = UserDirectories()) async throws -> GameClient {
        let link = try await connectLink(to: endpoint, on: Self.loops.next(),
                                         hello: Hello(name: name, joinCode: joinCode, role: role),
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
