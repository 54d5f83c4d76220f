#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ArgumentParser
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import SnapBytes
import SnapFiles
import SnapPlatform
import StoryEngine
import StoryLink
import StoryProtocol
import StoryService
import StoryStores

public struct StoryServe: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the story service (headless, until stopped); every match is kept in a database.",
        discussion: """
            Listens on story.socket in $XDG_RUNTIME_DIR/snap (or --socket), and on TCP with --listen \
            (players give the printed join code). Keeps every match in the SQLite file \
            $XDG_STATE_HOME/snap/story/story.sqlite (or --database); a turn is answered once it is \
            committed, so a restart (even after kill -9) goes on from there. On its first start an old \
            story.journal beside it (or --journal) is imported. Prints "store: …", "restored N matches", \
            "listening on …" and, on TCP, "join code: …". docs/STORY.md shows how to run it as a \
            systemd user service.
            """)
    @Option(help: "Listen on this Unix socket path instead of the default.") var socket: String?
    @Option(help: "Also listen on TCP, e.g. 0.0.0.0:7788 (port 0 picks a free one).") var listen: String?
    @Option(help: "The join code TCP players must give (default: a random one).") var code: String?
    @Flag(help: "No join code on TCP: for a trusted network only.") var open = false
    @OptionGroup var tls: TLSServerOptions
    @Option(help: "The database: an SQLite file (default: $XDG_STATE_HOME/snap/story/story.sqlite) or a postgres:// URL.")
    var database: String?
    @Option(help: "An old story journal to import when the database is empty (default: story.journal beside the default database).")
    var journal: String?
    @Option(help: "How long a turn may take unless the match says (e.g. 30m, 72h, 3d); then it passes to the next player.")
    var turnDeadline = "72h"
    @Option(help: "Connections at once; one more is told the service is busy.")
    var connectionLimit = StoryServer.Limits().connections
    @Flag(help: "Log connections and refusals to standard error.") var verbose = false

    public init() {}

    public func validate() throws {
        if let listen { _ = try validAddress(listen, option: "--listen", use: .listen) }
        if let code, let problem = JoinCode.problem(code) { throw ValidationError("--code: \(problem)") }
        if case .failure(let error) = StoryDuration.parse(turnDeadline) { throw ValidationError("--turn-deadline: \(error)") }
        guard connectionLimit >= 1 else { throw ValidationError("--connection-limit must be at least 1") }
    }

    public func run() async throws {
        let postgres = try postgresDriverOrHelper(database)
        let logger = makeLogger("snap.story", verbose: verbose)
        let group = MultiThreadedEventLoopGroup.singleton
        let turnSeconds = (try? StoryDuration.parse(turnDeadline).get()) ?? StoryDuration.defaultTurnSeconds
        let started = ContinuousClock.now
        // The database first: unreachable, damaged or newer is a plain error and exit 3.
        let store: any StoryStore
        let count: Int
        do {
            store = try await openStoryStore(database, postgres: postgres)
            say("store: \(store.description)")
            let journalPath = journal ?? (database == nil ? storyStateDirectory() + "/story.journal" : nil)
            if let journalPath, access(journalPath, F_OK) == 0 || journal != nil, try await StoryJournalImport.wanted(by: store) {
                let now = UInt64(max(0, time(nil)))
                let (imported, problems) = try await StoryJournalImport.run(path: journalPath, into: store,
                                                                            turnSeconds: turnSeconds, now: now)
                for problem in problems { warn("journal \(problem)") }
                say("imported \(imported) matches from \(journalPath)")
            }
            count = try await store.matchCount()
        } catch {
            printError("error: \(error)")
            throw ExitCode(3)
        }
        let millis = Double((ContinuousClock.now - started).components.attoseconds / 1_000_000_000_000) / 1000
            + Double((ContinuousClock.now - started).components.seconds) * 1000
        say("restored \(count) matches: the store holds them, each read when a request needs it (opened in \(String(printf: "%.1f", millis)) ms)")
        let server = StoryServer(store: store, loop: group.next(), logger: logger, turnSeconds: turnSeconds)
        server.limits.connections = connectionLimit
        // Listening and serving run as a service of a ServiceGroup, which takes SIGINT and
        // SIGTERM before anything listens: whoever sees "listening on" and sends SIGTERM is
        // always heard (a benchmark once waited for ever on a signal ignored and lost).
        let socket = self.socket, listen = self.listen, open = self.open, code = self.code
        let tls = self.tls
        let service = StoryServing(server: server, store: store) {
            let socketPath = try socket ?? defaultStorySocketPath(create: true)
            do { try await server.listen(unixPath: socketPath) } catch NetError.hostNameTaken {
                throw NetError.noHost("a story service is already running at \(socketPath)")
            }
            say("listening on unix:\(socketPath)")
            if let listen {
                let address = try validAddress(listen, option: "--listen", use: .listen)
                server.joinCode = open ? nil : code.flatMap(JoinCode.normalized) ?? JoinCode.random()
                let port = try await server.listen(host: address.host, port: address.port, identity: try tls.identity())
                say("listening on tcp:" + formatHostPort(address.host, port))
                say(server.joinCode.map { "join code: \($0)" } ?? "join code: none (--open: anyone who can reach the port may play)")
            }
        }
        try await runServices([service], logger: logger)
        say("stopped")
    }
}

/// `snapcards story serve`'s listening and serving as a service (swift-service-lifecycle): it
/// listens, serves until a graceful shutdown (SIGINT, SIGTERM), then stops listening,
/// removes its socket file and closes the store.
struct StoryServing: Service {
    let server: StoryServer
    let store: any StoryStore
    let listen: @Sendable () async throws -> Void

    func run() async throws {
        do {
            try await listen()
        } catch {
            await server.shutdown()
            await store.close()
            throw storyFailure(error)
        }
        try? await gracefulShutdown()
        await server.shutdown()
        await store.close()
    }
}

/// `snapcards story import FILE`: an old story journal into the database, once.
public struct StoryImport: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import an old story journal into the story database (ids and players' keys kept; the file is left as it is).",
        discussion: "Prints \"imported N matches from FILE\". A database that already holds matches is left alone.")
    @Argument(help: "The journal, e.g. ~/.local/state/snap/story/story.journal.") var file: String
    @Option(help: "The database: an SQLite file (default: $XDG_STATE_HOME/snap/story/story.sqlite) or a postgres:// URL.")
    var database: String?
    @Option(help: "The deadline live matches get, from now (as the service's --turn-deadline).") var turnDeadline = "72h"

    public init() {}

    public func validate() throws {
        if case .failure(let error) = StoryDuration.parse(turnDeadline) { throw ValidationError("--turn-deadline: \(error)") }
        guard access(file, R_OK) == 0 else { throw ValidationError("cannot read \(file): \(String(cString: strerror(errno)))") }
    }

    public func run() async throws {
        let postgres = try postgresDriverOrHelper(database)
        let turnSeconds = (try? StoryDuration.parse(turnDeadline).get()) ?? StoryDuration.defaultTurnSeconds
        let store: any StoryStore
        do {
            store = try await openStoryStore(database, postgres: postgres)
        } catch {
            printError("error: \(error)")
            throw ExitCode(3)
        }
        do {
            try await importJournal(into: store, turnSeconds: turnSeconds)
            await store.close()
        } catch {
            await store.close()
            throw error
        }
    }

    private func importJournal(into store: any StoryStore, turnSeconds: UInt64) async throws {
        do {
            guard try await StoryJournalImport.wanted(by: store) else {
                let held = try await store.matchCount()
                printError("error: \(store.description) already holds \(held) matches (or an imported journal); nothing was imported")
                throw ExitCode(1)
            }
            let now = UInt64(max(0, time(nil)))
            let (imported, problems) = try await StoryJournalImport.run(path: file, into: store, turnSeconds: turnSeconds, now: now)
            for problem in problems { warn("journal \(problem)") }
            say("imported \(imported) matches from \(file)")
        } catch let error as ExitCode {
            throw error
        } catch {
            printError("error: \(error)")
            throw ExitCode(1)
        }
    }
}
