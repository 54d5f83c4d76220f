#if GUI
import Foundation
import Logging
import NIOPosix
import SnapEngine
import SnapNet
import SnapPlatform
import SnapProtocol
import SnapSession
import SnapTable
import SnapUI

/// `snap-bench ui`'s Host Game rows: the menu's Host Game clicked, the game started on TCP
/// (a TLS certificate, a socket, a port, the LAN announcement, the journal and the count of
/// the rounds won in every past match) while the window goes on answering wakes. Measured
/// with no past matches and with `pastMatches` journals (copies of one real match), in
/// the same run: wake → presented frame from the click until the count is done, and how
/// long the lobby took to open.
public struct HostGameBenchmark {
    public struct Result {
        public var pastMatches: Int
        /// Wake → presented frame (ms), from the click until the past matches were counted.
        public var wakesNone: [Double]
        public var wakesPast: [Double]
        /// Each frame's draw + present (ms) over the same span: the window's own frame time.
        public var framesNone: [Double]
        public var framesPast: [Double]
        /// Click → the lobby on screen (ms).
        public var lobbyNoneMs: Double
        public var lobbyPastMs: Double
        /// Click → the past matches counted (ms).
        public var countedPastMs: Double
    }

    public var pastMatches: Int
    public var renderer: RendererChoice

    public init(pastMatches: Int = 5_000, renderer: RendererChoice = .software) {
        self.pastMatches = pastMatches
        self.renderer = renderer
    }

    public func run(logger: Logger) throws -> Result {
        var template = Array("/tmp/snapbench-host-XXXXXX".utf8CString)
        let base = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        defer { try? FileManager.default.removeItem(atPath: base) }
        let journal = try Self.oneMatch(in: base + "/one")
        let past = base + "/past"
        try FileManager.default.createDirectory(atPath: past, withIntermediateDirectories: true)
        for index in 0..<pastMatches {
            try FileManager.default.copyItem(atPath: journal, toPath: past + "/2026-01-01T00-00-00-\(index).snapjournal")
        }
        let none = try measure(journals: base + "/none", sockets: base + "/run-none", logger: logger)
        let full = try measure(journals: past, sockets: base + "/run-past", logger: logger)
        return Result(pastMatches: pastMatches, wakesNone: none.wakes, wakesPast: full.wakes,
                      framesNone: none.frames, framesPast: full.frames,
                      lobbyNoneMs: none.lobbyMs, lobbyPastMs: full.lobbyMs, countedPastMs: full.countedMs)
    }

    /// One real match of one round (three computer players; the local seat turned for by
    /// the host), journaled in `directory`: its file.
    static func oneMatch(in directory: String) throws -> String {
        var configuration = HostConfiguration(hostName: "Bench")
        configuration.bots = 3
        configuration.maxClients = 0
        configuration.speed = 0.01
        configuration.rounds = 1
        configuration.rules = Rules(turnLimit: 60)
        configuration.turnTimeout = .milliseconds(20)
        var quiet = Logger(label: "snap-bench.host-game")
        quiet.logLevel = .critical
        let server = HostServer(configuration, loop: MultiThreadedEventLoopGroup.singleton.next(), logger: quiet)
        let path = try server.startJournalLater(in: directory, onWarning: { _ in }).wait()
        server.startWhen(1)
        let link = server.connectLocal()
        link.send(.hello(Hello(name: "Bench")))
        _ = try server.finished.wait()
        link.close()
        return path
    }

    private func measure(journals: String, sockets: String, logger: Logger) throws
        -> (wakes: [Double], frames: [Double], lobbyMs: Double, countedMs: Double) {
        try FileManager.default.createDirectory(atPath: sockets, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let directories = UserDirectories(sockets: SocketDirectory(path: sockets), settings: sockets + "/settings",
                                          seatTokens: SeatTokenStore(directory: sockets + "/seats"), journals: journals)
        let hosted = HostedBox()
        var games = GameStarter(hosted: HostedGames())
        games.hostGame = { [games] name, logger in
            let client = try await games.host(name: name, listen: HostPort(host: "127.0.0.1", port: 0),
                                              directories: directories, logger: logger)
            hosted.server = client.server
            client.server?.earlierWinsCounted?.whenComplete { _ in hosted.counted = .now }
            return client
        }
        var options = WindowOptions(quitAfter: 120, muted: true, hidden: true)
        options.renderer = renderer
        let app = try App(options: options, logger: logger, games: games) { app in app.menu() }
        // Wakes from another thread every 4 ms, as a host's messages would come.
        let waking = WakeThread()
        var clickedAt: ContinuousClock.Instant?
        var lobbyAt: ContinuousClock.Instant?
        var countedAt: ContinuousClock.Instant?
        var skipped = false
        app.probing.eachFrame = { app, now in
            if !skipped {
                skipped = true
                app.pushClick(at: Point(40, 40))  // a click during the title skips it
                return
            }
            if clickedAt == nil, now > 0.5 {
                _ = app.probing.takeWakeLatencies()
                app.probing.recordsFrameTimes = true
                clickedAt = .now
                waking.start()
                app.pushClick(at: Point(512, 390))  // Host Game
            }
            if lobbyAt == nil, app.scene is HostLobbyScene { lobbyAt = .now }
            if countedAt == nil, let counted = hosted.counted { countedAt = counted }
            if let countedAt, let lobbyAt, ContinuousClock.now - max(countedAt, lobbyAt) > .milliseconds(300) { app.quit() }
        }
        try app.run()
        waking.stop()
        let wakes = app.probing.takeWakeLatencies()
        if let server = hosted.server {
            server.submit(.quit)
            _ = try? server.finished.wait()
        }
        guard let clickedAt, let lobbyAt, let countedAt else {
            throw NetError.noHost("Host Game did not open its lobby and count the past matches within 120 s")
        }
        func ms(_ duration: Duration) -> Double {
            Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        }
        return (wakes, app.probing.frameTimes, ms(lobbyAt - clickedAt), ms(countedAt - clickedAt))
    }
}

private final class HostedBox: @unchecked Sendable {  // behind `lock`
    private let lock = NSLock()
    private var _server: HostServer?
    private var _counted: ContinuousClock.Instant?
    var server: HostServer? {
        get { lock.withLock { _server } }
        set { lock.withLock { _server = newValue } }
    }
    var counted: ContinuousClock.Instant? {
        get { lock.withLock { _counted } }
        set { lock.withLock { _counted = newValue } }
    }
}

private final class WakeThread: @unchecked Sendable {  // `running` behind `lock`
    private let lock = NSLock()
    private var running = false

    func start() {
        lock.withLock { running = true }
        Thread.detachNewThread { [self] in
            while lock.withLock({ running }) {
                WindowWake.wake()
                usleep(4_000)
            }
        }
    }

    func stop() { lock.withLock { running = false } }
}
#endif
