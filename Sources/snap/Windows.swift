#if GUI
import ArgumentParser
import Logging
import ServiceLifecycle
import SnapBots
import SnapCommandLine
import SnapNet
import SnapPlatform
import SnapSimulation
import SnapScreens
import SnapUI

/// Options of every command that opens a window.
struct WindowFlags: ParsableArguments {
    @Option(help: "Save a PNG of the window when quitting (with --quit-after, for tests and docs).") var screenshot: String?
    @Option(help: "Quit after this many seconds.") var quitAfter: Double?
    @Flag(help: "Start with the sound off (M toggles it).") var mute = false
    @Option(help: ArgumentHelp("Open the window with its top-left corner here (screen pixels; snapcards play tiles its windows).",
                               valueName: "X,Y"))
    var position: String?
    @Option(help: ArgumentHelp("Open the window at this size (screen pixels; default 1024x768).", valueName: "WxH"))
    var size: String?
    @Option(help: ArgumentHelp("Append to this file when each visible change (the deal finished, whose turn, the status line, away and back) reaches the window and when a frame showing it is presented (tests).", valueName: "path"))
    var frameLog: String?

    func validate() throws {
        if let quitAfter, quitAfter <= 0 { throw ValidationError("--quit-after must be positive") }
        if let position, Self.pair(position, ",") == nil { throw ValidationError("--position must be X,Y, e.g. 0,40") }
        if let size {
            guard let (w, h) = Self.pair(size, "x"), w >= 160, h >= 120 else {
                throw ValidationError("--size must be WxH, at least 160x120, e.g. 800x600")
            }
        }
    }

    static func pair(_ text: String, _ separator: Character) -> (Int, Int)? {
        let parts = text.split(separator: separator, omittingEmptySubsequences: false)
        guard parts.count == 2, let a = Int(parts[0]), let b = Int(parts[1]) else { return nil }
        return (a, b)
    }

    var options: WindowOptions {
        var options = WindowOptions(screenshot: screenshot, quitAfter: quitAfter, muted: mute,
                                    position: position.flatMap { Self.pair($0, ",") }.map { (x: $0.0, y: $0.1) },
                                    size: size.flatMap { Self.pair($0, "x") }.map { (width: $0.0, height: $0.1) })
        options.frameLog = frameLog
        return options
    }
}

/// The name a window plays under unless told: the one saved in the settings file (the
/// Join and Single Player screens save it), else the login name, else "Player".
func savedPlayerName() -> String { Settings.load().name }

/// The window's logger.
func windowLogger(verbose: Bool = false) -> Logger { makeLogger("snap.window", verbose: verbose) }

/// Opens the window with `makeScene`, runs it on this (the main) thread, and turns SDL
/// failures into a clear error; once it closes, the games it hosted end (their players
/// hear "host quit").
@MainActor func runWindow(_ flags: WindowFlags, games: GameStarter, verbose: Bool = false,
                          _ makeScene: (App) throws -> Scene) async throws {
    do {
        try await openWindow(flags, games: games, logger: windowLogger(verbose: verbose), makeScene)
    } catch {
        // Those hosted for a window that never opened, and whatever a failed window left.
        await games.hosted.endAll()
        try windowFailure(error)
    }
}

/// The open window's process is a group of services (swift-service-lifecycle): the games it
/// hosts, and the window itself, which closes on SIGINT or SIGTERM as it would from its close
/// button. The group ends them in that order, the window first, whether the window closed or
/// the process was told to stop: its games end once it is gone, their journals closed.
/// (The group takes the signals once the window is open; SDL, which had made them a quit
/// event, sees them no more.)
@MainActor private func openWindow(_ flags: WindowFlags, games: GameStarter, logger: Logger,
                                   _ makeScene: (App) throws -> Scene) async throws {
    var failure: Error?
    let app = try App(options: flags.options, logger: logger, games: games) { app in
        do { return try makeScene(app) } catch {
            failure = error
            return app.menu()
        }
    }
    if let failure { throw failure }
    let window = OpenWindow()
    let services = ServiceGroup(configuration: .init(
        services: [.init(service: games.hosted), .init(service: window)],
        gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    // Off the main actor: this thread is the window's until it closes.
    let running = Task.detached { try await services.run() }
    let ran = Result { () throws(SDLError) in try app.run() }
    window.closed()
    await services.triggerGracefulShutdown()
    try await running.value
    try ran.get()
}

/// The window as a service: on a graceful shutdown it closes the window (an SDL quit event,
/// as its close button sends) and returns once the window is closed.
private final class OpenWindow: Service, Sendable {
    private let (isClosed, closing) = AsyncStream<Never>.makeStream()

    /// The window's loop ended.
    func closed() { closing.finish() }

    func run() async throws {
        try? await gracefulShutdown()
        WindowWake.close()
        for await _ in isClosed {}
    }
}

/// SDL and network failures as a line and an exit status (4, 3); anything else as it is.
func windowFailure(_ error: Error) throws -> Never {
    do { throw error } catch let error as SDLError {
        say("error: \(error)")
        throw ExitCode(4)
    } catch let error as NetError {
        say("error: \(error)")
        throw ExitCode(3)
    }
}

/// `snapcards` with no subcommand: the main menu.
struct Menu: WindowCommand {
    static let configuration = CommandConfiguration(commandName: "menu", abstract: "Open the main menu (what `snapcards` alone does).")

    enum StartScene: String, ExpressibleByArgument, CaseIterable { case menu, join, solo }

    @Option(help: "Open on this screen: menu, join or solo (for screenshots and tests).") var scene = StartScene.menu
    @OptionGroup var window: WindowFlags

    @MainActor func runInWindow(_ games: GameStarter) async throws {
        try await runWindow(window, games: games) { app in
            switch scene {
            case .menu: app.open(.menu)
            case .join: app.open(.join)
            case .solo: app.open(.soloSetup)
            }
        }
    }
}

struct Solo: WindowCommand {
    static let configuration = CommandConfiguration(abstract: "Play alone against computer players, straight to the table.")
    @Option(help: "Computer opponents, 1 to 3 (Ray, Lucy, Steve).") var opponents = 3
    @Option(help: "Their level: easy, normal or hard.") var level = BotLevel.normal
    @Option(help: "Your name (default: the saved one).") var name = savedPlayerName()
    @Option(help: "Multiply every delay (the computer players' too).") var speed = 1.0
    @Option(help: "Seed the deal (default: random).") var seed: UInt64?
    @OptionGroup var ruleOptions: RuleOptions
    @OptionGroup var window: WindowFlags
    @Flag(help: "Play your seat by scripted mouse clicks (tests, demos): turn when it is your turn, snap a match.")
    var autoplay = false
    @Flag(help: "Print each status line, then \"winner: NAME\", and quit (taking the --screenshot) once the first round is won.")
    var quitWhenWon = false

    func validate() throws {
        guard (1...3).contains(opponents) else { throw ValidationError("--opponents must be 1, 2 or 3") }
        _ = try validName(name, option: "--name")
        guard speed >= 0 else { throw ValidationError("--speed cannot be negative") }
    }

    @MainActor func runInWindow(_ games: GameStarter) async throws {
        try await runWindow(window, games: games) { app in
            let client = games.solo(name: name, opponents: opponents, level: level, speed: speed,
                                    seed: seed, rules: ruleOptions.rules, logger: app.logger)
            let table = TableScene(app: app, client: client)
            if autoplay || quitWhenWon {
                var player = ScriptedPlayer(autoplay: autoplay, quitWhenWon: quitWhenWon)
                app.probing.eachFrame = { app, now in player.frame(app: app, table: table, client: client, now: now) }
            }
            return table
        }
    }
}

/// Plays the local seat with real clicks pushed through SDL's event queue, as a
/// person's would arrive: the same input path, the same rules.
struct ScriptedPlayer {
    let autoplay: Bool
    let quitWhenWon: Bool
    var lastClick = -10.0
    var seenTurns: UInt32 = .max
    var snapDue: Double?
    var roundOverAt: Double?
    var reported = false
    var lastStatus = ""

    init(autoplay: Bool, quitWhenWon: Bool) {
        self.autoplay = autoplay
        self.quitWhenWon = quitWhenWon
    }

    mutating func frame(app: App, table scene: TableScene, client: GameClient, now: Double) {
        let session = client.session
        guard let seat = session.seat, let table = session.table else { return }
        // Every line the table showed, once each in order (tests read them).
        if quitWhenWon, scene.statusLine != lastStatus {
            lastStatus = scene.statusLine
            say("status: \(lastStatus)")
        }
        if quitWhenWon, case .roundOver(let winner) = table.phase {
            // What the table says once its animations caught up with the host.
            if roundOverAt == nil { roundOverAt = now }
            guard !scene.isCatchingUp || now - roundOverAt! > 6 else { return }
            guard !reported else { return }
            reported = true
            say("winner: \(session.names[winner] ?? "\(winner)")")
            say("statusline: \(scene.statusLine)")
            // What the mixer really started (none without an audio device, or muted).
            let played = Audio.Sound.allCases.compactMap { sound in app.audio.played[sound].map { "\(sound) \($0)" } }
            say("sounds: " + (played.isEmpty ? "none" : played.joined(separator: ", ")))
            app.quit()
            return
        }
        guard autoplay, table.phase == .playing, table[seat].hasCards else { return }
        // A person reacts to a new card after a moment.
        if session.seenTurns != seenTurns {
            seenTurns = session.seenTurns
            snapDue = table.matching.isEmpty ? nil : now + 0.25
        }
        if let due = snapDue, now >= due {
            snapDue = nil
            app.pushClick(at: scene.snapButtonFrame.center)
            return
        }
        if table.active == seat, !table.hasTurned, now - lastClick > 0.3 {
            lastClick = now
            app.pushClick(at: scene.pileFrame(for: seat).center)
        }
    }
}

struct Play: WindowCommand {
    static let configuration = CommandConfiguration(
        abstract: "Launch a host window and client windows on this desktop, joined over a Unix socket, ready to Start.")
    @Option(help: "Client windows to open next to the host's, 1 to 3.") var clients = 1
    @Option(help: "The host player's name (default: the saved one).") var name = savedPlayerName()
    @OptionGroup var window: WindowFlags

    func validate() throws {
        guard (1...3).contains(clients) else { throw ValidationError("--clients must be 1, 2 or 3") }
        _ = try validName(name, option: "--name")
    }

    /// The client windows' names: "Player 2", "Player 3"… (never the host's).
    static func clientNames(host: String, count: Int) -> [String] {
        var names: [String] = []
        var number = 2
        while names.count < count {
            let candidate = "Player \(number)"
            if candidate != host { names.append(candidate) }
            number += 1
        }
        return names
    }

    @MainActor func runInWindow(_ games: GameStarter) async throws {
        var children: [ChildProcess] = []
        defer { for child in children where child.isRunning { child.terminate() } }
        let client: GameClient
        do { client = try await games.host(name: name, logger: windowLogger()) } catch { try windowFailure(error) }
        try await runWindow(window, games: games) { app in
            // Tile the windows: the host's at the left, each client's beside or below it.
            let tiles = Graphics.tiles(count: clients + 1)
            if window.position == nil, window.size == nil {
                app.graphics.place(x: tiles[0].x, y: tiles[0].y, width: tiles[0].width, height: tiles[0].height)
            }
            // Each client window is its own process, as on separate desktops, under its own
            // name; the lobby opens each once the one before it has joined, so they sit in order.
            let launches = Self.clientNames(host: name, count: clients).enumerated().map { index, clientName in
                { () throws -> Void in
                    let tile = tiles[index + 1]
                    let child = try ChildProcess(
                        executable: currentExecutablePath(),
                        arguments: ["join", "--socket", client.socketPath!, "--name", clientName,
                                    "--position", "\(tile.x),\(tile.y)", "--size", "\(tile.width)x\(tile.height)"]
                            + (window.quitAfter.map { ["--quit-after", "\($0)"] } ?? [])
                            + (window.mute ? ["--mute"] : []))
                    children.append(child)
                }
            }
            return HostLobbyScene(app: app, client: client, launchInTurn: launches)
        }
    }
}
#endif

