import ArgumentParser
import Dispatch
import Logging
import NIOCore
import NIOPosix
import SnapBots
import SnapBytes
import SnapCommandLine
import SnapEngine
import SnapFiles
import SnapHistory
import SnapJournal
import SnapLAN
import SnapMatchFiles
import SnapNet
import SnapPlatform
import SnapProtocol
import SnapRelayClient
import SnapRelayProtocol
import SnapSession

#if canImport(Glibc)
import Glibc
#endif
#if GUI
import SnapUI
#endif

func defaultPlayerName() -> String {
    let login = currentEnvironment()["USER"] ?? "Player"
    return (try? PlayerName.validate(login)) ?? "Player"
}

func validName(_ name: String, option: String) throws -> String {
    do { return try PlayerName.validate(name) } catch {
        throw ValidationError("\(option): \(error)")
    }
}

struct Host: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Host a game that up to three players join.",
        discussion: """
            Listens on $XDG_RUNTIME_DIR/snap/NAME.sock (or --socket), and on TCP only with --listen. \
            On TCP it announces the game on the local network (DNS-SD, _snap._tcp) and prints \
            "join code: XXXXXX": players on TCP must give it (--code sets one, --open needs none). \
            Over TCP every connection is TLS: it prints "certificate: SHA256:…", the fingerprint \
            players see (a self-signed certificate made on first use, or --tls-cert/--tls-key). \
            A socket directory that is not yours and 0700 is refused (with a warning) for \
            ~/.local/state/snap/sockets.
            With --headless, prints "listening on …" lines, then one line per finished round \
            ("round N: NAME wins"), and exits 0 when all rounds are played.
            """)

    @Flag(help: "No window: wait for players, play the rounds, print the winners.") var headless = false
    @Flag(help: "Restart a crashed host from its journal (headless): the latest unfinished match hosted as --name, or JOURNAL.")
    var resume = false
    @Argument(help: "With --resume: the journal file to resume.") var journal: String?
    @Flag(help: "With --resume: go on from a damaged journal's last good record (the whole file is first kept as JOURNAL.damaged).")
    var fromLastGoodRecord = false
    @Option(help: "The host's name (the socket file and what joining players see).") var name = defaultPlayerName()
    @Option(help: "Listen on this Unix socket path instead of the default.") var socket: String?
    @Option(help: "Also listen on TCP, e.g. 127.0.0.1:7777, or 0.0.0.0:7777 for the local network (port 0 picks a free one).")
    var listen: String?
    @Option(help: "The join code TCP players must give (6 characters, no 0/O/1/I/L); default: a random one.")
    var code: String?
    @Flag(help: "No join code on TCP: for a trusted network only.") var open = false
    @Flag(help: "Do not announce a TCP game on the local network.") var noAnnounce = false
    @Option(help: "Also take players through this relay (HOST:PORT, docs/RELAY.md): prints \"invite: snap://…\", the line players join with; no port is opened here.")
    var relay: String?
    @OptionGroup var tls: TLSServerOptions
    @Option(help: "Start once this many players have joined (headless: default 1); in a window, once this many players are at the table, the host's included, instead of when the host clicks Start.")
    var startWhen: Int?
    @Option(help: "Rounds to play before the game ends (default: 1 headless; in a window, until the host ends it).")
    var rounds: Int?
    @Option(help: "Seed for the deals, the host's bots and tie breaks, for reproducible games: deals from a seed are not secret (default: each round's deal from the system's secure generator).")
    var seed: UInt64?
    @Option(help: "Multiply every host-side delay (0 removes them; 0.1 is ten times faster).") var speed = 1.0
    @Option(help: "Computer players the host seats after the joined players (default: headless, enough to make 2 players; in a window, 0).")
    var bots: Int?
    @Option(help: "Level of the host's computer players.") var level = BotLevel.normal
    @OptionGroup var ruleOptions: RuleOptions
    @Option(help: ArgumentHelp("Seconds a player may take to turn before the host turns for them; after 3 such turns in a row a computer plays the seat until its owner acts (0: wait for ever).", valueName: "seconds"))
    var turnTimeout = 15.0
    @Option(help: ArgumentHelp("Seconds a player whose connection dropped keeps their seat (skipped meanwhile) before their cards are handed out (0: at once).", valueName: "seconds"))
    var grace = 30.0
    @Option(help: ArgumentHelp("Start the next round this many seconds after a round is won (default: 2 headless; in a window, when the host clicks Next Round).", valueName: "seconds"))
    var nextRoundAfter: Double?
    @Option(help: "Journal the match in this directory (default: $XDG_STATE_HOME/snap/matches).") var journalDirectory: String?
    @Flag(help: "Do not journal the match.") var noJournal = false
    @Flag(help: "Log connections, refusals and judging to standard error.") var verbose = false
    #if GUI
    @OptionGroup var window: WindowFlags
    #endif

    static func duration(_ seconds: Double) -> Duration { .milliseconds(Int64((seconds * 1000).rounded())) }

    /// `--turn-timeout` as the session takes it.
    var turnTimeoutDuration: Duration? { turnTimeout == 0 ? nil : .milliseconds(Int64((turnTimeout * 1000).rounded())) }

    /// `--bots`, or its default: a headless host fills up to two players, so that
    /// `snapcards host --headless` alone plays against one joined player.
    var seatedBots: Int { bots ?? (headless ? max(0, 2 - (startWhen ?? 1)) : 0) }

    func validate() throws {
        _ = try validName(name, option: "--name")
        let bots = seatedBots
        guard turnTimeout == 0 || (0.1...3600).contains(turnTimeout) else {
            throw ValidationError("--turn-timeout must be 0 (never) or 0.1 to 3600 seconds")
        }
        guard (0...3600).contains(grace) else { throw ValidationError("--grace must be 0 to 3600 seconds") }
        if let nextRoundAfter, !(0...3600).contains(nextRoundAfter) {
            throw ValidationError("--next-round-after must be 0 to 3600 seconds")
        }
        if let rounds, rounds < 1 { throw ValidationError("--rounds must be at least 1") }
        guard speed >= 0 else { throw ValidationError("--speed cannot be negative") }
        guard (0...3).contains(bots) else { throw ValidationError("--bots must be 0 to 3") }
        if headless, !resume {  // a resumed match has its players already
            let startWhen = self.startWhen ?? 1
            guard (1...3).contains(startWhen) else { throw ValidationError("--start-when must be 1 to 3") }
            guard startWhen + bots >= 2, startWhen + bots <= 4 else {
                throw ValidationError("--start-when plus --bots must make 2 to 4 players")
            }
        }
        if let listen { _ = try validAddress(listen, option: "--listen", use: .listen) }
        if let relay { _ = try validAddress(relay, option: "--relay", use: .connect) }
        if let code {
            if let problem = JoinCode.problem(code) { throw ValidationError("--code: \(problem)") }
            if open { throw ValidationError("--code and --open exclude each other") }
            if listen == nil, relay == nil { throw ValidationError("--code needs --listen or --relay: games on a Unix socket need no code") }
        }
    }

    /// The code TCP players must give: nil without TCP or with --open.
    func joinCode() -> String? {
        guard listen != nil || relay != nil, !open else { return nil }
        return code.flatMap(JoinCode.normalized) ?? JoinCode.random()
    }

    /// The game every option describes, built once for a window and for `--headless`; only
    /// the defaults differ (headless: one round, the next after 2 s; a window: rounds until
    /// the host ends the game, each started by a click).
    func hostConfiguration() -> HostConfiguration {
        var configuration = HostConfiguration(hostName: name)
        configuration.rounds = rounds ?? (headless ? 1 : nil)
        configuration.seed = seed ?? (headless ? 1 : UInt64.random(in: 1...UInt64.max))
        // A given seed makes the game reproducible, deals included: then they are not secret.
        configuration.secretDeals = seed == nil
        configuration.speed = speed
        let bots = seatedBots
        configuration.bots = bots
        configuration.botLevel = level
        configuration.rules = ruleOptions.rules
        configuration.autoNextRound = nextRoundAfter.map(Self.duration) ?? (headless ? .seconds(2) : nil)
        configuration.maxClients = min(3, 4 - bots)
        configuration.turnTimeout = turnTimeoutDuration
        configuration.grace = .milliseconds(Int64((grace * 1000).rounded()))
        configuration.joinCode = joinCode()
        return configuration
    }

    /// The options `run` and `runInWindow` both refuse.
    func checkResumeOptions() throws {
        if journal != nil, !resume { throw ValidationError("a journal file is only taken with --resume") }
        if fromLastGoodRecord, !resume { throw ValidationError("--from-last-good-record is only taken with --resume") }
        if resume, !headless { throw ValidationError("--resume needs --headless (windows cannot resume yet)") }
    }

    /// Where the host listens, as the options say.
    func placement(journal: Bool) throws -> HostPlacement {
        let tls = self.tls
        var placement = HostPlacement(
            socket: socket.map { .path($0) } ?? .named(in: nil),
            listen: try listen.map { text in
                let address = try validAddress(text, option: "--listen", use: .listen)
                return HostPort(host: address.host, port: address.port)
            },
            identity: { try tls.identity() }, announce: !noAnnounce,
            journalDirectory: journal && !noJournal ? journalDirectory ?? MatchJournal.directory() : nil)
        placement.relay = try relay.map { text in
            let address = try validAddress(text, option: "--relay", use: .connect)
            return HostPort(host: address.host, port: address.port)
        }
        return placement
    }

    func run() async throws {
        try checkResumeOptions()
        #if !GUI
        guard headless else { throw ValidationError("this snap was built without windows (--disable-default-traits); use --headless") }
        #endif
        let configuration = hostConfiguration()
        let group = MultiThreadedEventLoopGroup.singleton
        let logger = makeLogger("snap.host", verbose: verbose)
        let server: HostServer
        var resumedFrom: String?
        if resume {
            let directory = journalDirectory ?? MatchJournal.directory()
            guard let path = journal ?? latestUnfinishedMatch(in: directory, hostName: name) else {
                say("error: no unfinished match hosted as \(name) in \(directory)")
                throw ExitCode(1)
            }
            do {
                server = try HostServer(resuming: path, configuration, loop: group.next(), logger: logger,
                                        fromLastGoodRecord: fromLastGoodRecord, history: IndexedHistory(onWarning: warn), onWarning: warn)
            } catch let damaged as JournalDamaged {
                say("error: cannot resume \(path): it is \(damaged.fault).")
                say("To go on from its last good record (record \(damaged.fault.record - 1)), run this again with "
                    + "--from-last-good-record; the whole file is kept as \(path).damaged first.")
                throw ExitCode(1)
            } catch {
                say("error: cannot resume \(path): \(error)")
                throw ExitCode(1)
            }
            resumedFrom = path
        } else {
            server = HostServer(configuration, loop: group.next(), logger: logger, history: IndexedHistory(onWarning: warn))
        }
        server.startWhen(startWhen ?? 1)
        server.observe { action in
            switch action {
            case .roundWon(let round, let winner): say("round \(round): \(winner) wins")
            case .announce(let line): say(line)
            default: break
            }
        }
        // A resumed match's journal goes on growing; a new one's starts.
        let joinCode = configuration.joinCode
        let runtime = HostRuntime(server: server, placement: try placement(journal: resumedFrom == nil)) { report in
            switch report {
            case .listening(let endpoint): say("listening on \(endpoint)")
            case .reachable(let addresses):
                say("players can connect to: " + addresses.joined(separator: ", "))
                say(joinCode.map { "join code: \($0)" } ?? "join code: none (--open: anyone who can reach the port may join)")
            case .journal(let path): say("journal: " + path)
            case .invite(let url):
                if listen == nil { say(joinCode.map { "join code: \($0)" } ?? "join code: none (--open: anyone with the invitation may join)") }
                say("invite: " + url)
            case .note(let line): say("relay: " + line)
            case .warning(let problem): warn(problem)
            }
        }
        // The host runs as a service of a group that takes SIGINT and SIGTERM before
        // anything listens: a signal ends the game on purpose (clients hear "host quit")
        // and is never lost.
        let host = HeadlessHostService(runtime: runtime, resumedFrom: resumedFrom)
        do {
            try await runServices([host], logger: logger)
        } catch let error as NetError {
            say("error: \(error)")
            throw ExitCode(3)
        }
        let reason = try await server.finished.get()
        say("game over: \(reason)")
        let conservation = await server.conservationReport
        say("card conservation: \(conservation.text)")
        if !conservation.held { throw ExitCode(1) }
    }
}

#if GUI
extension Host: WindowCommand {
    var opensWindow: Bool { !headless }

    @MainActor func runInWindow(_ games: GameStarter) async throws {
        try checkResumeOptions()
        let configuration = hostConfiguration()
        if let joinCode = configuration.joinCode { say("join code: \(joinCode)") }
        let client: GameClient
        do {
            client = try await games.host(configuration, try placement(journal: true), startWhen: startWhen,
                                          logger: windowLogger(verbose: verbose))
        } catch { try windowFailure(error) }
        try await runWindow(window, games: games, verbose: verbose) { app in HostLobbyScene(app: app, client: client) }
    }
}
#endif

/// The newest journal in `directory` of a match hosted as `hostName` that did not end.
func latestUnfinishedMatch(in directory: String, hostName: String) -> String? {
    for path in MatchJournal.files(in: directory).reversed() {
        guard let journal = try? MatchJournal.read(path: path),
              case .started(let start) = journal.records.first?.entry, start.hostName == hostName,
              !journal.records.contains(where: { if case .ended = $0.entry { true } else { false } }) else { continue }
        return path
    }
    return nil
}

struct Join: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Join a game on this machine (a Unix socket) or another (TCP).",
        discussion: """
            With --bot, a computer player plays. Exits 0 when the host ends the game; otherwise \
            prints the quit reason and exits 1 (refused), 2 (connection dropped) or 3 (cannot connect).
            """)

    @Flag(help: "Play as a computer player (no window).") var bot = false
    @Option(help: "Computer player's level.") var level = BotLevel.normal
    @Option(help: "Your name.") var name = defaultPlayerName()
    @Option(help: "The host's Unix socket path.") var socket: String?
    @Option(help: "The host's name, among the hosts on this machine.") var host: String?
    @Option(help: "Connect over TCP to HOST:PORT.") var connect: String?
    @Option(help: "The host's join code (shown in its lobby), for a game over TCP.") var code: String?
    @Option(help: "Join through a relay by the host's invitation (snap://RELAY:PORT/ROOM#CODE,SHA256:…, docs/RELAY.md); its certificate is the only one accepted.")
    var invite: String?
    @Option(help: "Multiply the computer player's delays.") var speed = 1.0
    @Option(help: "Seed of the computer player's choices.") var seed: UInt64 = 1
    @Option(help: "Write every byte received from the host to this file.") var record: String?
    @Flag(help: "Watch the table instead of playing: see what every player sees, never act.") var watch = false
    @Flag(help: "Sign in fresh: do not take back a seat this name held (after a crash) or reconnect when the connection drops.")
    var noRejoin = false
    @Flag(help: "Log to standard error.") var verbose = false
    @OptionGroup var tls: TLSClientOptions
    #if GUI
    @OptionGroup var window: WindowFlags
    #endif

    func validate() throws {
        _ = try validName(name, option: "--name")
        if socket != nil, connect != nil { throw ValidationError("--socket and --connect exclude each other") }
        if let connect { _ = try validAddress(connect, option: "--connect", use: .connect) }
        if let code, let problem = JoinCode.problem(code) { throw ValidationError("--code: \(problem)") }
        if let invite {
            if socket != nil || connect != nil || host != nil || code != nil {
                throw ValidationError("--invite carries the relay, the room and the code: it excludes --socket, --connect, --host and --code")
            }
            do { _ = try RelayInvitation(parsing: invite) } catch { throw ValidationError("--invite: \(error)") }
        }
        guard speed >= 0 else { throw ValidationError("--speed cannot be negative") }
    }

    func run() async throws {
        #if !GUI
        guard bot else { throw ValidationError("this snap was built without windows (--disable-default-traits); use --bot") }
        #endif
        let group = MultiThreadedEventLoopGroup.singleton
        let loop = group.next()
        let endpoint: Endpoint
        let invitation = try invite.map { try RelayInvitation(parsing: $0) }
        do {
            if let invitation { endpoint = Endpoint(invitation) } else { endpoint = try await resolveEndpoint(loop: loop) }
        } catch let error as NetError {
            say("error: \(error)")
            throw ExitCode(3)
        }
        let player = BotConnection(name: name, joinCode: invitation?.code ?? code.flatMap(JoinCode.normalized) ?? "",
                                   bot: BotClient(level: level, seed: seed, timeScale: speed), loop: loop,
                                   role: watch ? .watcher : .player, logger: makeLogger("snap.join", verbose: verbose))
        do { player.trust = try tls.trust() } catch {
            say("error: \(error)")
            throw ExitCode(3)
        }
        player.rejoins = !noRejoin
        player.tokenStore = noRejoin ? nil : .default()
        player.onReconnect = { line in say(line) }
        player.onDealVerdict = { verdict in
            say(verdict.line)
            if verdict.isMismatch { warn(verdict.line) }
        }
        if let record {
            let file = open(record, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard file >= 0 else { throw ValidationError("--record: cannot write \(record)") }
            player.recorder = { bytes in bytes.withUnsafeBufferPointer { _ = write(file, $0.baseAddress, $0.count) } }
        }
        let outcome: ClientOutcome
        do {
            outcome = try await player.run(endpoint).get()
        } catch let error as NetError {
            say("error: \(error)")
            throw ExitCode(3)
        }
        say(outcome.description)
        switch outcome {
        case .ended: return
        case .refused: throw ExitCode(1)
        case .dropped: throw ExitCode(2)
        }
    }

    func resolveEndpoint(loop: EventLoop) async throws -> Endpoint {
        if let connect {
            let (host, port) = try parseHostPort(connect, for: .connect)
            return .tcp(host: host, port: port)
        }
        if let socket { return .unix(socket) }
        let directory = SocketDirectory.default()
        if let host { return .unix(directory.socketPath(forHost: host)) }
        let found = await discoverHosts(in: directory, loop: loop)
        switch found.count {
        case 1: return .unix(found[0].socketPath)
        case 0: throw NetError.noHost("no game is hosted on this machine (\(directory.path)); start one with snapcards host")
        default:
            throw NetError.noHost("several games are hosted here; pick one with --host: "
                + found.map(\.info.hostName).joined(separator: ", "))
        }
    }
}

#if GUI
extension Join: WindowCommand {
    var opensWindow: Bool { !bot }

    @MainActor func runInWindow(_ games: GameStarter) async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let client: GameClient
        do {
            let invitation = try invite.map { try RelayInvitation(parsing: $0) }
            let endpoint = if let invitation { Endpoint(invitation) } else { try await resolveEndpoint(loop: group.next()) }
            client = try await games.join(endpoint, name: name, joinCode: invitation?.code ?? code ?? "",
                                          role: watch ? .watcher : .player, trust: try tls.trust())
        } catch { try windowFailure(error) }
        try await runWindow(window, games: games, verbose: verbose) { app in TableScene(app: app, client: client) }
    }
}
#endif

struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the games hosted on this machine that answer (and, with --lan, on the local network).",
        discussion: """
            One line a host: NAME, players joined out of the most, open or started, and the socket path. \
            With --lan, every line starts with its kind, local or lan; a lan line ends with the \
            address, the host computer and "code" or "no code".
            """)

    @Option(help: "Look in this socket directory instead of the default.") var directory: String?
    @Flag(help: "Also list the games announced on the local network (DNS-SD over multicast DNS).") var lan = false
    @Option(help: ArgumentHelp("With --lan: how long to listen for announcements.", valueName: "seconds"))
    var wait = 1.2
    @Flag(help: "With --lan: keep listening (for --wait seconds, default for ever) and print a line as each LAN game appears (+), changes (~) or goes (-).")
    var watch = false
    @Option(name: .customLong("for"), help: ArgumentHelp("With --watch: stop after this many seconds.", valueName: "seconds"))
    var duration: Double?

    /// One LAN game as a line.
    static func line(_ game: LANGame) -> String {
        "lan\t\(game.hostName)\tplayers \(game.players)/\(game.maxPlayers)\t\(game.started ? "started" : "open")"
            + "\t\(game.endpoint)\t\(game.machine)\t\(game.needsCode ? "code" : "no code")"
    }

    func validate() throws {
        guard (0.1...30).contains(wait) else { throw ValidationError("--wait must be 0.1 to 30 seconds") }
        if watch, !lan { throw ValidationError("--watch needs --lan") }
    }

    func run() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let socketDirectory = directory.map(SocketDirectory.init(path:)) ?? .default()
        // Listen on the network while the local sockets are probed.
        var browser: LANBrowser?
        if lan {
            let started = LANBrowser(loop: group.next())
            do {
                try await started.start()
                browser = started
            } catch {
                warn("cannot look on the local network: \(error)")
            }
        }
        let clock = ContinuousClock()
        let begin = clock.now
        if watch {
            guard let browser else { throw ExitCode(3) }
            var shown: [String: LANGame] = [:]
            while duration.map({ clock.now - begin < .milliseconds(Int64($0 * 1000)) }) ?? true {
                let games = Dictionary(browser.games.map { ($0.instance, $0) }) { first, _ in first }
                for (key, game) in games.sorted(by: { $0.key < $1.key }) where shown[key] != game {
                    say((shown[key] == nil ? "+" : "~") + "\t" + Self.line(game))
                }
                for (key, game) in shown.sorted(by: { $0.key < $1.key }) where games[key] == nil {
                    say("-\t" + Self.line(game))
                }
                shown = games
                try await Task.sleep(for: .milliseconds(50))
            }
            await browser.stop()
            return
        }
        let hosts = await discoverHosts(in: socketDirectory, loop: group.next())
        guard lan else {
            if hosts.isEmpty {
                say("no games hosted on this machine (\(socketDirectory.path))")
                return
            }
            for host in hosts {
                let info = host.info
                say("\(info.hostName)\tplayers \(info.players)/\(info.maxPlayers)\t\(info.started ? "started" : "open")\t\(host.socketPath)")
            }
            return
        }
        let remaining = Duration.milliseconds(Int64(wait * 1000)) - (clock.now - begin)
        if remaining > .zero { try await Task.sleep(for: remaining) }
        let games = browser?.games ?? []
        await browser?.stop()
        for host in hosts {
            let info = host.info
            say("local\t\(info.hostName)\tplayers \(info.players)/\(info.maxPlayers)\t\(info.started ? "started" : "open")\tunix:\(host.socketPath)")
        }
        for game in games { say(Self.line(game)) }
        if hosts.isEmpty, games.isEmpty {
            say("no games hosted on this machine (\(socketDirectory.path)) or announced on the local network")
        }
    }
}
