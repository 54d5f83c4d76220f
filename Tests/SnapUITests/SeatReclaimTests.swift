#if GUI
import CSDL2
import Foundation
import Logging
import SnapNet
import SnapPlatform
import SnapProtocol
import SnapTable
import SnapTestSupport
import Testing
@testable import SnapUI

extension InProcessWindows {
/// A window opened again after a crash, under whatever name, finds the seat this machine
/// kept in that game and offers it back; with no seat kept, it offers to watch.
@Suite("A reopened window takes its seat back, whatever its name", .blocksThreads, .serialized)
struct SeatReclaimTests {
    static let logger = Logger(label: "test")
    let base = scratchPath("snap-reclaim")
    /// Sockets, the settings file, seat tokens and journals in this suite's folder, never
    /// the user's: given to the code under test, not set in the environment.
    let directories: UserDirectories

    init() {
        try? FileManager.default.createDirectory(atPath: base + "/run", withIntermediateDirectories: true)
        chmod(base + "/run", 0o700)
        directories = UserDirectories(sockets: SocketDirectory(path: base + "/run"), settings: base + "/config/snap/settings",
                                      seatTokens: SeatTokenStore(directory: base + "/state/snap/seats"),
                                      journals: base + "/state/snap/matches")
        // SDL reads these in this process; scripts/test exports both first, so (0: never replace) these change nothing there.
        setenv("SDL_VIDEODRIVER", "offscreen", 0)
        setenv("SDL_AUDIODRIVER", "dummy", 0)
    }

    /// Polls until `done` or 20 s.
    private func poll(_ clients: [GameClient], until done: () -> Bool) {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, !done() {
            for client in clients { _ = client.poll(now: 0) }
            usleep(10_000)
        }
    }

    /// A host window's game with one joined player, started.
    /// `keepsToken`: the player's seat token is kept on this machine, as a window keeps it.
    private func startedGame(host name: String, player: String,
                             keepsToken: Bool = true) async throws -> (host: GameClient, player: GameClient, path: String) {
        let path = base + "/run/\(name).sock"
        let host = try await GameStarter.tests.host(name: name, turnTimeout: nil, socket: path, directories: directories, logger: Self.logger)
        let joined = keepsToken ? try await GameStarter.tests.join(.unix(path), name: player, directories: directories)
            : GameClient(link: try await connectLink(to: .unix(path), on: GameStarter.loops.next(), hello: Hello(name: player)),
                         name: player, server: nil, socketPath: nil, signedIn: true, endpoint: .unix(path),
                         directories: directories)
        poll([host, joined]) { host.session.lobby.contains { $0.name == player && $0.ready } }
        host.start()
        poll([host, joined]) { joined.session.phase == .playing }
        #expect(joined.session.phase == .playing)
        return (host, joined, path)
    }

    /// Seats Ann's game (the host's window) with `players`, each joined as a window on this
    /// machine keeps its token, and starts it.
    private func startedGame(host name: String, players: [String]) async throws -> (host: GameClient, players: [GameClient], path: String) {
        let path = base + "/run/\(name).sock"
        let host = try await GameStarter.tests.host(name: name, turnTimeout: nil, socket: path, directories: directories, logger: Self.logger)
        var joined: [GameClient] = []
        for player in players {
            // One at a time: seats follow the order of joining, so the middle name gets the middle seat.
            joined.append(try await GameStarter.tests.join(.unix(path), name: player, directories: directories))
            poll([host] + joined) { host.session.lobby.contains { $0.name == player && $0.ready } }
        }
        host.start()
        poll([host] + joined) { joined.allSatisfy { $0.session.phase == .playing } }
        #expect(joined.allSatisfy { $0.session.phase == .playing })
        return (host, joined, path)
    }

    /// Opens a window joining `path` as `name`, answers its first dialog with `key` (Y: the
    /// first answer), and runs until `done` (given the table, or nil once the window left it);
    /// returns that dialog and the table scene at the end.
    private func reopen(_ path: String, as name: String, host: GameClient, key: SDL_KeyCode = SDLK_y,
                        keepPolling others: [GameClient] = [],
                        until done: @escaping (TableScene?) -> Bool) async throws -> (Dialog?, TableScene?) {
        var offered: Dialog?
        let client = try await GameStarter.tests.join(.unix(path), name: name, directories: directories)
        let app = try App(options: WindowOptions(quitAfter: 30, hidden: true), logger: Self.logger) { app in
            TableScene(app: app, client: client)
        }
        app.probing.eachFrame = { app, _ in
            _ = host.poll(now: 0)
            for other in others { _ = other.poll(now: 0) }
            let table = app.scene as? TableScene
            if offered == nil, let dialog = table?.dialog {
                offered = dialog
                InProcessWindows.InProcessTests.pushKey(Int(key.rawValue))
            }
            if offered != nil, table?.dialog == nil, done(table) { app.quit() }
        }
        try await app.runOffThePool()
        return (offered, app.scene as? TableScene)
    }

    @Test("kill a joined window mid-game, open one under another name: it offers Player 2's seat, and Yes takes it back")
    func reclaimUnderAnotherName() async throws {
        let (host, crashed, path) = try await startedGame(host: "Ann", player: "Player 2")
        let seat = try #require(crashed.session.seat)
        #expect(directories.seatTokens.keptNames(for: .unix(path)) == ["Player 2"])
        // A crash: the connection drops with no goodbye; the host keeps the seat.
        crashed.link.close()
        poll([host]) { host.session.awaySince[seat] != nil }
        #expect(host.session.awaySince[seat] != nil, "the host did not see the window go")
        let (dialog, table) = try await reopen(path, as: "Zed", host: host) { table in
            table?.client.name == "Player 2" && table?.client.session.seat != nil
        }
        let offered = try #require(dialog, "no dialog offered the seat")
        #expect(offered.title == "Take back Player 2's seat?", "\(offered.title): \(offered.message)")
        let back = try #require(table)
        #expect(back.client.name == "Player 2")
        #expect(back.client.session.seat == seat)
        #expect(back.client.session.phase == .playing)
        back.client.leave()
        await GameStarter.tests.hosted.endAll()
    }

    @Test("three windows on this machine, the middle one killed: a window opened under another name offers that seat, takes it, and cuts no other")
    func reclaimTheAwaySeatOnly() async throws {
        let names = ["Player 2", "Player 3", "Player 4"]
        let (host, windows, path) = try await startedGame(host: "Ann", players: names)
        #expect(directories.seatTokens.keptNames(for: .unix(path)) == names)
        let seat = try #require(windows[1].session.seat)
        windows[1].link.close()
        poll([host, windows[0], windows[2]]) { host.session.awaySince[seat] != nil }
        #expect(host.session.awaySince.keys.sorted() == [seat], "the host did not see only Player 3 go")
        let (dialog, table) = try await reopen(path, as: "Zed", host: host, keepPolling: [windows[0], windows[2]]) { table in
            table?.client.name == "Player 3" && table?.client.session.seat != nil
        }
        let offered = try #require(dialog, "no dialog offered the seat")
        #expect(offered.title == "Take back Player 3's seat?", "\(offered.title): \(offered.message)")
        let back = try #require(table)
        #expect(back.client.session.seat == seat)
        #expect(back.client.session.phase == .playing)
        poll([host, windows[0], windows[2]]) { host.session.awaySince.isEmpty }
        #expect(host.session.awaySince.isEmpty, "a seat is still away: \(host.session.awaySince)")
        for window in [windows[0], windows[2]] {
            _ = window.poll(now: 0)
            #expect(window.link.connectionLost == nil, "\(window.name)'s window was cut: \(window.link.connectionLost ?? "")")
            #expect(window.session.phase == .playing, "\(window.name): \(window.session.phase)")
        }
        back.client.leave()
        for window in windows { window.leave() }
        await GameStarter.tests.hosted.endAll()
    }

    @Test("the Join screen's list: a started game where the middle of three windows was killed offers that seat, and Enter takes it")
    func joinScreenOffersTheAwaySeat() async throws {
        let names = ["Player 2", "Player 3", "Player 4"]
        let (host, windows, _) = try await startedGame(host: "Fay", players: names)
        let seat = try #require(windows[1].session.seat)
        windows[1].link.close()
        poll([host, windows[0], windows[2]]) { host.session.awaySince[seat] != nil }
        Settings(name: "Zed").save(to: directories.settings)
        var clicked = false
        var offered: (title: String?, message: String?)?
        let app = try App(options: WindowOptions(quitAfter: 20, hidden: true), directories: directories, logger: Self.logger) { app in
            JoinScene(app: app)
        }
        app.probing.eachFrame = { app, now in
            _ = host.poll(now: 0)
            for other in [windows[0], windows[2]] { _ = other.poll(now: 0) }
            if !clicked, now > 1.2 {
                clicked = true
                app.pushClick(at: Point(512, 285))  // the first game in the list: Fay's, the only one
            }
            if offered == nil, let join = app.scene as? JoinScene, let title = join.dialogTitle {
                offered = (title, join.dialogMessage)
                InProcessWindows.InProcessTests.pushKey(Int(SDLK_RETURN.rawValue))
            }
            if let table = app.scene as? TableScene, table.client.session.seat != nil { app.quit() }
        }
        try await app.runOffThePool()
        #expect(offered?.title == "Take back Player 3's seat?", "\(offered.map { "\($0.title ?? ""): \($0.message ?? "")" } ?? "no dialog")")
        let table = try #require(app.scene as? TableScene, "\(type(of: app.scene))")
        #expect(table.client.name == "Player 3")
        #expect(table.client.session.seat == seat)
        poll([host, windows[0], windows[2]]) { host.session.awaySince.isEmpty }
        for window in [windows[0], windows[2]] {
            _ = window.poll(now: 0)
            #expect(window.link.connectionLost == nil, "\(window.name)'s window was cut: \(window.link.connectionLost ?? "")")
            #expect(window.session.phase == .playing)
        }
        table.client.leave()
        for window in windows { window.leave() }
        await GameStarter.tests.hosted.endAll()
    }

    @Test("no seat kept here is away, one is playing in another window: the offer says so and moves it only if asked; No cuts nobody")
    func livesSeatIsNeverTakenBack() async throws {
        let (host, playing, path) = try await startedGame(host: "Dee", player: "Player 2")
        let (dialog, table) = try await reopen(path, as: "Zed", host: host, key: SDLK_n, keepPolling: [playing]) { table in
            table == nil  // No: back to the menu
        }
        let offered = try #require(dialog, "no dialog")
        #expect(offered.title == "Move Player 2's seat here?", "\(offered.title): \(offered.message)")
        #expect(offered.message.hasPrefix("Player 2 is playing in another window on this computer — move the seat here?"),
                "\(offered.message)")
        #expect(offered.options.map(\.label) == ["Move the seat here", "Watch"])
        #expect(table == nil)
        _ = playing.poll(now: 0)
        #expect(playing.link.connectionLost == nil, "Player 2's window was cut: \(playing.link.connectionLost ?? "")")
        #expect(playing.session.phase == .playing)
        #expect(host.session.awaySince.isEmpty)
        // Asking who is away signed in as a watcher for a moment: it is gone again.
        poll([host, playing]) { host.session.watchers == 0 && playing.session.watchers == 0 }
        #expect(host.session.watchers == 0 && playing.session.watchers == 0,
                "\(host.session.watchers), \(playing.session.watchers) watching")
        playing.leave()
        await GameStarter.tests.hosted.endAll()
    }

    @Test("a window that finds the game started and no seat kept for it offers Watch, and Yes watches")
    func watchWhenNoSeat() async throws {
        // Cy plays from another computer: no seat of this game is kept on this one.
        let (host, player, path) = try await startedGame(host: "Bea", player: "Cy", keepsToken: false)
        #expect(directories.seatTokens.keptNames(for: .unix(path)).isEmpty)
        let (dialog, table) = try await reopen(path, as: "Zed", host: host) { table in
            table?.client.role == .watcher && table?.client.session.phase == .playing
        }
        let offered = try #require(dialog, "no dialog")
        #expect(offered.title == "The game has started")
        #expect(offered.yes.label == "Watch")
        let watching = try #require(table)
        #expect(watching.client.role == .watcher)
        #expect(watching.client.session.isWatching)
        watching.client.leave()
        player.leave()
        await GameStarter.tests.hosted.endAll()
    }
}
}
#endif
