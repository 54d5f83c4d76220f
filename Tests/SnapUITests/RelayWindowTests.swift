#if GUI
import CSDL2
import Foundation
import Logging
import NIOPosix
import SnapBytes
import SnapNet
import SnapPlatform
import SnapRelay
import SnapRelayProtocol
import SnapTestSupport
import Testing
@testable import SnapUI

/// Host Game's "Invite over the internet" and the Join screen's invitation field
/// (docs/RELAY.md §10), in windows in the test process, through a relay on 127.0.0.1.
extension InProcessWindows {
@Suite("Invitations through a relay, in windows", .blocksThreads, .serialized)
struct RelayWindowTests {
    static let logger = Logger(label: "test")

    init() {
        setenv("SDL_VIDEODRIVER", "offscreen", 0)
        setenv("SDL_AUDIODRIVER", "dummy", 0)
    }

    /// A private socket folder and settings file (the relay's address is kept there).
    static func directories(_ name: String, relay: String?) throws -> UserDirectories {
        let base = "\(scratchRoot)/rw-\(name)"
        try? FileManager.default.removeItem(atPath: base)
        try FileManager.default.createDirectory(atPath: base + "/run/snap", withIntermediateDirectories: true)
        chmod(base + "/run", 0o700)
        chmod(base + "/run/snap", 0o700)
        let directories = UserDirectories(sockets: SocketDirectory(path: base + "/run/snap"), settings: base + "/config/snap/settings",
                                          seatTokens: SeatTokenStore(directory: base + "/state/snap/seats"),
                                          journals: base + "/state/snap/matches")
        var settings = Settings(name: "Guest")
        settings.relay = relay
        #expect(settings.save(to: directories.settings))
        return directories
    }

    /// A relay on 127.0.0.1 with its own certificate.
    static func startRelay() async throws -> (RelayServer, Int) {
        let relay = RelayServer(loop: MultiThreadedEventLoopGroup.singleton.next(), logger: logger)
        let port = try await relay.listen(host: "127.0.0.1", port: 0,
                                          identity: try TLSIdentity.selfMade(in: "\(scratchRoot)/rw-relay-tls"))
        return (relay, port)
    }

    /// Ctrl+V, as a person's keyboard sends it (the app reads SDL's clipboard).
    static func pushPaste() {
        var event = SDL_Event()
        event.type = SDL_KEYDOWN.rawValue
        event.key.keysym.sym = SDL_Keycode(SDLK_v.rawValue)
        event.key.keysym.mod = UInt16(KMOD_LCTRL.rawValue)
        SDL_PushEvent(&event)
    }

    static func pushKey(_ sym: Int) {
        var event = SDL_Event()
        event.type = SDL_KEYDOWN.rawValue
        event.key.keysym.sym = SDL_Keycode(sym)
        SDL_PushEvent(&event)
    }

    /// Where a test keeps its pictures: `SNAP_SCREENSHOTS` when set (to look at), else scratch.
    static func screenshotPath(_ name: String) -> String {
        (ProcessInfo.processInfo.environment["SNAP_SCREENSHOTS"] ?? scratchRoot) + "/" + name
    }

    @Test("a host's lobby opens a room at the relay in the settings and copies its invitation; a Join window pastes it and both reach the table")
    func inviteAndJoin() async throws {
        let (relay, port) = try await Self.startRelay()
        let directories = try Self.directories("invite", relay: "127.0.0.1:\(port)")
        let host = try await GameStarter.tests.host(name: "Far", directories: directories, logger: Self.logger)

        // 1. The host's lobby: "Invite over the internet", then "Copy invitation" once it shows.
        var clicked = false, copyClicked = false
        var sawOpening = false
        let lobbyShot = Self.screenshotPath("host-lobby-invitation.png")
        let hostApp = try App(options: WindowOptions(screenshot: lobbyShot, quitAfter: 60, hidden: true), directories: directories,
                              logger: Self.logger) { app in
            HostLobbyScene(app: app, client: host)
        }
        hostApp.probing.eachFrame = { app, now in
            guard let lobby = app.scene as? HostLobbyScene else { return }
            if !clicked, now > 0.3 {
                clicked = true
                app.pushClick(at: HostLobbyScene.inviteButtonCenter)
            }
            if lobby.relayNotice?.hasPrefix("Opening a room at the relay 127.0.0.1:\(port)") == true { sawOpening = true }
            if lobby.game.invitation != nil, !copyClicked {
                copyClicked = true
                app.pushClick(at: HostLobbyScene.inviteButtonCenter)
            }
            if lobby.copied != nil || lobby.relayError != nil { app.quit() }
        }
        try await hostApp.runOffThePool()
        let lobby = try #require(hostApp.scene as? HostLobbyScene)
        #expect(lobby.relayError == nil, "\(lobby.relayError ?? "")")
        #expect(sawOpening, "the lobby did not say it was opening the room (it drew nothing meanwhile)")
        let invited = lobby.game
        let invitation = try #require(invited.invitation)
        #expect(invitation.relayHost == "127.0.0.1" && invitation.relayPort == port)
        // The invitation carries a join code: the game over the relay is not open to anyone.
        #expect(invitation.code != nil)
        #expect(lobby.copied == invitation.description)
        #expect(try RelayInvitation(parsing: lobby.copied ?? "") == invitation)

        // 2. A Join window: Ctrl+V puts the invitation in its field, Enter joins through the relay.
        var pasted = false, entered = false
        var fieldText = ""
        let joinShot = Self.screenshotPath("join-invitation.png")
        let joinApp = try App(options: WindowOptions(quitAfter: 60, hidden: true), directories: directories, logger: Self.logger) { app in
            JoinScene(app: app)
        }
        joinApp.probing.beforePresent = { app in
            // The screen with the pasted invitation, before Enter.
            if pasted, !entered, let join = app.scene as? JoinScene, !join.addressText.isEmpty { try? app.graphics.screenshot(to: joinShot) }
        }
        joinApp.probing.eachFrame = { app, now in
            if let join = app.scene as? JoinScene, !join.addressText.isEmpty { fieldText = join.addressText }
            if !pasted, now > 0.5 {
                pasted = true
                Self.pushPaste()
            } else if pasted, !entered, !fieldText.isEmpty, now > 1.0 {
                entered = true
                Self.pushKey(Int(SDLK_RETURN.rawValue))
            }
            if app.scene is TableScene { app.quit() }
            if let join = app.scene as? JoinScene, join.dialogTitle != nil { app.quit() }
        }
        try await joinApp.runOffThePool()
        #expect(fieldText == invitation.description)
        let joinDialog = (joinApp.scene as? JoinScene).map { "\($0.dialogTitle ?? ""): \($0.dialogMessage ?? "")" }
        let table = try #require(joinApp.scene as? TableScene, "\(joinDialog ?? "")")
        // Through the relay, not the socket on this computer.
        #expect(table.client.endpoint.map { if case .relayed = $0 { true } else { false } } == true)

        // 3. The host's lobby sees Guest; Start takes both to the table.
        var started = false
        let startApp = try App(options: WindowOptions(quitAfter: 60, hidden: true), directories: directories, logger: Self.logger) { app in
            HostLobbyScene(app: app, client: invited)
        }
        startApp.probing.eachFrame = { app, _ in
            if !started, invited.session.lobby.contains(where: { $0.name == "Guest" }) {
                started = true
                app.pushClick(at: HostLobbyScene.startButtonCenter)
            }
            if app.scene is TableScene { app.quit() }
        }
        try await startApp.runOffThePool()
        #expect(startApp.scene is TableScene)
        // The joined player's game began too (its own session says so).
        var playing = false
        for _ in 0..<2_000 where !playing {
            _ = table.client.poll(now: 0)
            if case .playing = table.client.session.phase { playing = true } else { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(playing, "\(table.client.session.phase)")
        table.client.leave()
        await GameStarter.tests.hosted.endAll()
        await relay.shutdown()
        // The picture shows the invitation: a gold line across the row under "On this computer…".
        let gold = try Self.invitationRowGold(lobbyShot)
        #expect(gold > 0.005, "gold share \(gold)")
    }

    /// How much of the lobby's invitation row is gold (the invitation's colour) in a picture.
    static func invitationRowGold(_ path: String) throws -> Double {
        try Screenshot(path: path).share(x: 0.1...0.9, y: (574.0 / 768)...(592.0 / 768)) { r, g, b in r > 220 && g > 170 && b < 140 }
    }

    /// A Join screen that is given `text` by Ctrl+V and Enter, run until it shows a dialog
    /// (within 60 s, a hang's bound): the scene as it was then.
    static func pasteAndEnter(_ text: String, directories: UserDirectories, screenshot: String) async throws -> JoinScene {
        var pasted = false, entered = false
        let app = try App(options: WindowOptions(screenshot: screenshotPath(screenshot), quitAfter: 60, hidden: true),
                          directories: directories, logger: logger) { app in
            JoinScene(app: app)
        }
        app.probing.eachFrame = { app, now in
            guard let join = app.scene as? JoinScene else { return }
            if !pasted, now > 0.3 {
                pasted = true
                SDL_SetClipboardText(text)
                pushPaste()
            } else if pasted, !entered, join.addressText == text {
                entered = true
                pushKey(Int(SDLK_RETURN.rawValue))
            }
            if join.dialogTitle != nil { app.quit() }
        }
        try await app.runOffThePool()
        return try #require(app.scene as? JoinScene, "\(type(of: app.scene))")
    }

    @Test("a malformed invitation pasted in the Join screen is refused in words, naming what is wrong")
    func malformedInvitation() async throws {
        let directories = try Self.directories("malformed", relay: nil)
        let malformed = "snap://127.0.0.1:7790/not-a-room#ABCDEF,SHA256:x"
        let expected: String
        do { _ = try RelayInvitation(parsing: malformed); expected = "" } catch { expected = error.problem }
        #expect(!expected.isEmpty)
        let join = try await Self.pasteAndEnter(malformed, directories: directories, screenshot: "join-invitation-malformed.png")
        #expect(join.dialogTitle == "Not an invitation")
        #expect(join.dialogMessage?.contains(expected) == true, "\(join.dialogMessage ?? "nil")")
    }

    @Test("an invitation whose fingerprint is not the host's is refused naming both; one to a room that is gone says the game is over",
          arguments: ["tampered", "gone"])
    func refusedInvitation(kind: String) async throws {
        let (relay, port) = try await Self.startRelay()
        let directories = try Self.directories("refused-\(kind)", relay: nil)
        let plain = try await GameStarter.tests.host(name: "Room", directories: directories, logger: Self.logger)
        let host = try await GameStarter.tests.invite(try #require(plain.hosting), through: HostPort(host: "127.0.0.1", port: port),
                                                      logger: Self.logger)
        var invitation = try #require(host.invitation)
        let other = CertificateFingerprint(digest: [UInt8](repeating: 7, count: 32))
        if kind == "tampered" {
            invitation.certificate = other
        } else {
            invitation.room = try #require(RelayID(String(repeating: "ab", count: 16)))
        }
        let join = try await Self.pasteAndEnter(invitation.description, directories: directories,
                                                screenshot: "join-invitation-\(kind).png")
        let message = join.dialogMessage ?? ""
        if kind == "tampered" {
            #expect(join.dialogTitle == "Not trusted")
            let real = try #require(host.invitation).certificate
            #expect(message.contains("\(real.short), not \(other.short) as the invitation says"), "\(message)")
        } else {
            #expect(join.dialogTitle == "Game not found")
            #expect(message == "The game at 127.0.0.1 is over or the host is offline.", "\(message)")
        }
        await GameStarter.tests.hosted.endAll()
        await relay.shutdown()
    }

    @Test("Invite over the internet with a bad relay setting says why in words, and the lobby's game goes on",
          arguments: ["", "nonsense", "127.0.0.1:1"])
    func badRelay(setting: String) async throws {
        let directories = try Self.directories("bad", relay: setting)
        let host = try await GameStarter.tests.host(name: "Near", directories: directories, logger: Self.logger)
        var clicked = false
        let shot = Self.screenshotPath("host-lobby-relay-\(setting.isEmpty ? "empty" : setting.hasPrefix("127") ? "unreachable" : "nonsense").png")
        let app = try App(options: WindowOptions(screenshot: shot, quitAfter: 60, hidden: true), directories: directories,
                          logger: Self.logger) { app in
            HostLobbyScene(app: app, client: host)
        }
        app.probing.eachFrame = { app, now in
            guard let lobby = app.scene as? HostLobbyScene else { return }
            if !clicked, now > 0.3 {
                clicked = true
                app.pushClick(at: HostLobbyScene.inviteButtonCenter)
            }
            if lobby.relayError != nil { app.quit() }
        }
        try await app.runOffThePool()
        let lobby = try #require(app.scene as? HostLobbyScene)
        let error = try #require(lobby.relayError)
        switch setting {
        case "": #expect(error.hasPrefix("Type the relay's address first"), "\(error)")
        case "nonsense": #expect(error.contains("is not HOST:PORT"), "\(error)")
        default: #expect(error == "No relay answered at 127.0.0.1:1 (nobody is listening there).", "\(error)")
        }
        #expect(lobby.game.invitation == nil)
        // No invitation drawn either (the row the test above finds gold).
        let gold = try Self.invitationRowGold(shot)
        #expect(gold < 0.001, "gold share \(gold)")
        // The game is still open on this computer, under its name.
        let found = await discoverHosts(in: try #require(directories.sockets), loop: GameStarter.loops.next())
        #expect(found.contains { $0.info.hostName == "Near" }, "\(found.map(\.info))")
        await GameStarter.tests.hosted.endAll()
    }
}
}
#endif
