#if GUI
import CSDL2
import Foundation
import Logging
import SnapNet
import SnapProtocol
import SnapTestSupport
import Testing
@testable import SnapUI

extension InProcessWindows {
/// A window opened again after a crash, under whatever name, finds the seat this machine
/// kept in that game and offers it back; with no seat kept, it offers to watch.
@Suite("A reopened window takes its seat back, whatever its name", .serialized)
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
                             keepsToken: Bool = true) throws -> (host: GameClient, player: GameClient, path: String) {
        let path = base + "/run/\(name).sock"
        let host = try GameClient.host(name: name, turnTimeout: nil, socket: path, directories: directories, logger: Self.logger)
        let joined = keepsToken ? try GameClient.join(.unix(path), name: player, directories: directories)
            : GameClient(link: try connectLink(to: .unix(path), on: GameClient.group.next(), hello: Hello(name: player)),
                         name: player, server: nil, socketPath: nil, signedIn: true, endpoint: .unix(path),
                         directories: directories)
        poll([host, joined]) { host.server!.lobby.contains { $0.name == player && $0.ready } }
        host.start()
        poll([host, joined]) { joined.session.phase == .playing }
        #expect(joined.session.phase == .playing)
        return (host, joined, path)
    }

    /// Opens a window joining `path` as `name`, answers its first dialog with Y, and runs
    /// until `done`; returns that dialog and the table scene at the end.
    private func reopen(_ path: String, as name: String, host: GameClient,
                        until done: @escaping (TableScene) -> Bool) throws -> (Dialog?, TableScene?) {
        var offered: Dialog?
        let app = try App(options: WindowOptions(quitAfter: 30, hidden: true), logger: Self.logger) { app in
            TableScene(app: app, client: try! GameClient.join(.unix(path), name: name, directories: directories))
        }
        app.onFrame = { app, _ in
            _ = host.poll(now: 0)
            guard let table = app.scene as? TableScene else { return }
            if offered == nil, let dialog = table.dialog {
                offered = dialog
                InProcessWindows.InProcessTests.pushKey(Int(SDLK_y.rawValue))
            }
            if offered != nil, table.dialog == nil, done(table) { app.quit() }
        }
        try app.run()
        return (offered, app.scene as? TableScene)
    }

    @Test("kill a joined window mid-game, open one under another name: it offers Player 2's seat, and Yes takes it back")
    func reclaimUnderAnotherName() throws {
        let (host, crashed, path) = try startedGame(host: "Ann", player: "Player 2")
        let seat = try #require(crashed.session.seat)
        #expect(directories.seatTokens.keptNames(for: .unix(path)) == ["Player 2"])
        // A crash: the connection drops with no goodbye; the host keeps the seat.
        crashed.link.close()
        poll([host]) { host.session.awaySince[seat] != nil }
        #expect(host.session.awaySince[seat] != nil, "the host did not see the window go")
        let (dialog, table) = try reopen(path, as: "Zed", host: host) { table in
            table.client.name == "Player 2" && table.client.session.seat != nil
        }
        let offered = try #require(dialog, "no dialog offered the seat")
        #expect(offered.title == "Take back Player 2's seat?", "\(offered.title): \(offered.message)")
        let back = try #require(table)
        #expect(back.client.name == "Player 2")
        #expect(back.client.session.seat == seat)
        #expect(back.client.session.phase == .playing)
        back.client.leave()
        GameClient.endHostedGames()
    }

    @Test("a window that finds the game started and no seat kept for it offers Watch, and Yes watches")
    func watchWhenNoSeat() throws {
        // Cy plays from another computer: no seat of this game is kept on this one.
        let (host, player, path) = try startedGame(host: "Bea", player: "Cy", keepsToken: false)
        #expect(directories.seatTokens.keptNames(for: .unix(path)).isEmpty)
        let (dialog, table) = try reopen(path, as: "Zed", host: host) { table in
            table.client.role == .watcher && table.client.session.phase == .playing
        }
        let offered = try #require(dialog, "no dialog")
        #expect(offered.title == "The game has started")
        #expect(offered.yes.label == "Watch")
        let watching = try #require(table)
        #expect(watching.client.role == .watcher)
        #expect(watching.client.session.isWatching)
        watching.client.leave()
        player.leave()
        GameClient.endHostedGames()
    }
}
}
#endif
