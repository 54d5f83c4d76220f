#if GUI
import CSDL2
import Foundation
import Logging
import SnapEngine
@testable import SnapHistory
import SnapJournal
import SnapMatchFiles
import SnapNet
import SnapProtocol
import SnapSession
import SnapTable
import SnapTestSupport
import Testing
@testable import SnapUI

extension InProcessWindows {
@Suite("The Statistics screen in a window in the test process", .blocksThreads, .serialized)
struct StatisticsWindowTests {
    static let logger = Logger(label: "test")

    init() {
        setenv("SDL_VIDEODRIVER", "offscreen", 0)
        setenv("SDL_AUDIODRIVER", "dummy", 0)
    }

    /// One solo match of one round: `name` against three computer players, journaled in `directory`.
    static func playSolo(in directory: String, name: String) async throws {
        var configuration = HostConfiguration(hostName: name)
        configuration.bots = 3
        configuration.maxClients = 0
        configuration.speed = 0.01
        configuration.rounds = 1
        configuration.rules = Rules(turnLimit: 60)
        configuration.turnTimeout = .milliseconds(20)  // the local player never turns: the host turns for it
        let server = HostServer(configuration, loop: GameStarter.loops.next(), logger: logger, history: IndexedHistory())
        _ = try await server.startJournalLater(in: directory, onWarning: { _ in }).get()
        server.startWhen(1)
        let link = server.connectLocal()
        link.send(.hello(Hello(name: name)))
        _ = try await server.finished.get()
        link.close()
    }

    /// Rounds won by name and matches played by name, replayed here from the journals (not the index).
    static func replayed(_ directory: String) throws -> (wins: [String: Int], matches: [String: Int]) {
        var wins: [String: Int] = [:], matches: [String: Int] = [:]
        for path in MatchJournal.files(in: directory) {
            let replay = try MatchReplay.fold(MatchJournal.read(path: path).records)
            for winner in replay.winners { wins[winner, default: 0] += 1 }
            for player in replay.start?.players ?? [] { matches[player.name, default: 0] += 1 }
        }
        return (wins, matches)
    }

    /// Opens the screen over `directory`, lets `script` act each frame, and returns the texts it
    /// showed (each time the figures came in) and the scene at the end.
    static func open(_ directory: String, player: String, screenshot: String? = nil, quitAfter: Double = 60,
                     script: @escaping (App, StatisticsScene, Double) -> Void = { app, scene, _ in if scene.isSettled { app.quit() } })
        async throws -> (shown: [[String]], scene: StatisticsScene, frames: Int) {
        var options = WindowOptions(screenshot: screenshot, quitAfter: quitAfter, hidden: true)
        options.muted = true
        var shown: [[String]] = []
        var made: StatisticsScene?
        let app = try App(options: options, logger: logger) { app in
            let scene = StatisticsScene(app: app, player: player, directory: directory)
            scene.onShown = { shown.append($0) }
            made = scene
            return scene
        }
        let scene = try #require(made)
        app.probing.eachFrame = { app, now in script(app, scene, now) }
        try await app.runOffThePool()
        return (shown, scene, app.frames)
    }

    @Test("over a host's real journals the screen shows the player's matches, rounds won and opponents as the journals have them",
          .timeLimit(.minutes(3)))
    func realJournals() async throws {
        let directory = scratchDirectory("stats-window")
        try await Self.playSolo(in: directory, name: "Tess")
        try await Self.playSolo(in: directory, name: "Tess")
        let (wins, matches) = try Self.replayed(directory)
        #expect(matches["Tess"] == 2)
        let shot = scratchPath("stats-window.png")
        let (shown, scene, _) = try await Self.open(directory, player: "Tess", screenshot: shot)
        let texts = try #require(shown.last, "the figures never came in")
        #expect(texts.first == "Tess")
        let summary = try #require(texts.first { $0.hasPrefix("2 matches, ") }, "\(texts)")
        #expect(summary.contains("2 rounds, \(wins["Tess"] ?? 0) won"), "\(summary) against \(wins)")
        // Everyone Tess sat with: the computer players, each met twice.
        for bot in ["Ray", "Lucy", "Steve"] {
            #expect(texts.contains { $0.hasPrefix("\(bot) matches ") && $0.hasSuffix(" of 2 · rounds \(wins["Tess"] ?? 0)–\(wins[bot] ?? 0)") },
                    "\(bot) in \(texts)")
        }
        #expect(texts.contains { $0.hasPrefix("Snap! calls: ") })
        #expect(scene.warnings.isEmpty)
        // Drawn: the gold of the matches-won columns or the blue of the rounds-won ones inside
        // the wins panel when Tess won a round, and the heading's gold at the top either way.
        let picture = try Screenshot(path: shot)
        #expect(picture.share(y: 0...0.07) { r, g, b in r > 220 && g > 180 && b < 140 } > 0.01, "the gold heading")
        if (wins["Tess"] ?? 0) > 0 {
            #expect(picture.share(x: 0.08...0.48, y: 0.25...0.48) { r, g, b in (r > 220 && g > 180 && b < 140) || (b > 230 && r < 150) } > 0.01)
        }
    }

    @Test("the index is read off the window's thread: while a journal blocks its reader the screen says it is reading and keeps drawing",
          .timeLimit(.minutes(3)))
    func readsInTheBackground() async throws {
        let directory = scratchDirectory("stats-blocked")
        try await Self.playSolo(in: directory, name: "Tess")
        // A "journal" that blocks whoever opens it to read: a FIFO with no writer yet.
        let fifo = directory + "/zz-blocking.snapjournal"
        #expect(mkfifo(fifo, 0o600) == 0)
        var framesWhileReading = 0
        var released = false
        let (shown, scene, _) = try await Self.open(directory, player: "Tess") { app, scene, _ in
            if !scene.isSettled {
                framesWhileReading += 1
                app.setNeedsRedraw()
                if framesWhileReading == 20, !released {
                    released = true
                    // A writer that opens and closes: the reader sees an empty file and goes on.
                    Thread { let fd = Glibc.open(fifo, O_WRONLY); if fd >= 0 { Glibc.close(fd) } }.start()
                }
            } else {
                app.quit()
            }
        }
        #expect(framesWhileReading >= 20, "the window drew while the index was being read")
        #expect(released)
        #expect(shown.count == 1)
        #expect(shown.last?.contains { $0.hasPrefix("1 match, ") } == true, "\(shown)")
        #expect(scene.isSettled)
    }

    @Test("no journals: the screen says so in words; a damaged index is built again from the journals and says so",
          .timeLimit(.minutes(3)))
    func emptyAndDamaged() async throws {
        let empty = scratchDirectory("stats-empty")
        let (shownEmpty, _, _) = try await Self.open(empty, player: "Tess")
        #expect(shownEmpty.last?.contains { $0.hasPrefix("No matches on this computer yet.") } == true, "\(shownEmpty)")

        // The journal copied into a directory of its own: no host task of the match's can
        // touch that directory's index after it is damaged here.
        let played = scratchDirectory("stats-played")
        try await Self.playSolo(in: played, name: "Tess")
        let directory = scratchDirectory("stats-damaged")
        for path in MatchJournal.files(in: played) {
            try FileManager.default.copyItem(atPath: path, toPath: directory + "/" + URL(fileURLWithPath: path).lastPathComponent)
        }
        mkdir(directory + "/index", 0o700)
        try Data(repeating: 0x5A, count: 8_192).write(to: URL(fileURLWithPath: MatchIndex.path(in: directory)))
        let (shown, scene, _) = try await Self.open(directory, player: "Tess")
        let texts = try #require(shown.last)
        #expect(texts.contains("The match index was damaged; it was built again from the journals."), "\(texts)")
        #expect(texts.contains { $0.hasPrefix("1 match, ") }, "\(texts)")
        #expect(scene.warnings.count == 1)
    }

    @Test("→ shows the next player's figures, read again; Esc goes back to the menu", .timeLimit(.minutes(3)))
    func pickAndBack() async throws {
        let directory = scratchDirectory("stats-pick")
        try await Self.playSolo(in: directory, name: "Tess")
        var step = 0
        var players: [String] = []
        let (shown, _, _) = try await Self.open(directory, player: "Tess") { app, scene, _ in
            guard scene.isSettled || app.scene !== scene else { return }
            if app.scene is MenuScene { app.quit(); return }
            players.append(scene.player)
            switch step {
            case 0: InProcessTests.pushKey(Int(SDLK_RIGHT.rawValue))
            case 1: InProcessTests.pushKey(Int(SDLK_ESCAPE.rawValue))
            default: break
            }
            step += 1
        }
        // Tess, then the next name after hers round the list: Lucy, Ray, Steve, Tess → Lucy.
        #expect(players.first == "Tess")
        #expect(players.contains("Lucy"), "\(players)")
        #expect(shown.count == 2)
        #expect(shown.last?.first == "Lucy")
        #expect(shown.last?.contains { $0.hasPrefix("1 match, ") } == true)
    }

    @Test("a table whose round is over offers Statistics: the player's figures over this computer's journals, and Back returns to the table",
          .timeLimit(.minutes(3)))
    func fromTheTable() async throws {
        var directories = InProcessTests.directories
        directories.journals = scratchDirectory("stats-table")
        let client = GameStarter.tests.solo(name: "Tess", opponents: 1, level: .easy, speed: 0.05, seed: 5, rules: Rules(turnLimit: 30),
                                            directories: directories, logger: Self.logger)
        var table: TableScene?
        let app = try App(options: WindowOptions(quitAfter: 120, muted: true, hidden: true), logger: Self.logger) { app in
            let scene = TableScene(app: app, client: client)
            table = scene
            return scene
        }
        let scene = try #require(table)
        var step = 0
        var lastClick = -10.0
        var opened: StatisticsScene?
        var shown: [String] = []
        app.probing.eachFrame = { app, now in
            switch step {
            case 0:
                // Play Tess's seat: turn on her turn, until the round is over.
                if scene.showsStatistics {
                    app.pushClick(at: scene.placedStatisticsButton.frame.center)
                    step = 1
                } else if let seat = scene.mySeat, let view = scene.client.session.table, view.phase == .playing,
                          view.active == seat, !view.hasTurned, now - lastClick > 0.15 {
                    lastClick = now
                    app.pushClick(at: scene.pileFrame(for: seat).center)
                }
            case 1:
                guard let statistics = app.scene as? StatisticsScene else { return }
                opened = statistics
                statistics.onShown = { shown = $0 }
                step = 2
            case 2:
                guard opened?.isSettled == true else { return }
                InProcessTests.pushKey(Int(SDLK_ESCAPE.rawValue))
                step = 3
            default:
                if app.scene === scene { app.quit() }
            }
        }
        try await app.runOffThePool()
        client.leave()
        await GameStarter.tests.hosted.endAll()
        #expect(step == 3, "the round ended, Statistics opened and settled")
        #expect(app.scene === scene, "Back came back to the same table")
        #expect(opened?.player == "Tess")
        // Read over the table's own journal directory: this match, under way, is there.
        #expect(shown.first == "Tess")
        #expect(shown.contains { $0.hasPrefix("1 match, ") && $0.contains("1 round") }, "\(shown)")
        #expect(shown.contains { $0.hasPrefix("Ray matches ") }, "\(shown)")
    }
}
}
#endif
