#if GUI
import ArgumentParser
import Foundation
import SnapBots
import SnapNet
import SnapUI

/// Options of every command that opens a window.
struct WindowFlags: ParsableArguments {
    @Option(help: "Save a PNG of the window when quitting (with --quit-after, for tests and docs).") var screenshot: String?
    @Option(help: "Quit after this many seconds.") var quitAfter: Double?
    @Flag(help: "Start with the sound off (M toggles it).") var mute = false

    func validate() throws {
        if let quitAfter, quitAfter <= 0 { throw ValidationError("--quit-after must be positive") }
    }

    var options: WindowOptions { WindowOptions(screenshot: screenshot, quitAfter: quitAfter, muted: mute) }
}

/// Opens the window with `makeScene`, runs it, and turns SDL failures into a clear error.
func runWindow(_ flags: WindowFlags, verbose: Bool = false, _ makeScene: @escaping (App) throws -> Scene) throws {
    let logger = makeLogger("snap.window", verbose: verbose)
    do {
        var failure: Error?
        let app = try App(options: flags.options, logger: logger) { app in
            do { return try makeScene(app) } catch {
                failure = error
                return MenuScene(app: app)
            }
        }
        if let failure { throw failure }
        try app.run()
    } catch let error as SDLError {
        say("error: \(error)")
        throw ExitCode(4)
    } catch let error as NetError {
        say("error: \(error)")
        throw ExitCode(3)
    }
}

/// `snap` with no subcommand: the main menu.
struct Menu: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "menu", abstract: "Open the main menu (what `snap` alone does).")
    @OptionGroup var window: WindowFlags

    func run() throws {
        try runWindow(window) { app in MenuScene(app: app) }
    }
}

struct Solo: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Play alone against computer players, straight to the table.")
    @Option(help: "Computer opponents, 1 to 3 (Ray, Lucy, Steve).") var opponents = 3
    @Option(help: "Their level: easy, normal or hard.") var level = BotLevel.normal
    @Option(help: "Your name.") var name = defaultPlayerName()
    @Option(help: "Multiply every delay (the computer players' too).") var speed = 1.0
    @Option(help: "Seed the deal (default: random).") var seed: UInt64?
    @OptionGroup var ruleOptions: RuleOptions
    @OptionGroup var window: WindowFlags

    func validate() throws {
        guard (1...3).contains(opponents) else { throw ValidationError("--opponents must be 1, 2 or 3") }
        _ = try validName(name, option: "--name")
        guard speed >= 0 else { throw ValidationError("--speed cannot be negative") }
    }

    func run() throws {
        try runWindow(window) { app in
            TableScene(app: app, client: GameClient.solo(name: name, opponents: opponents, level: level, speed: speed,
                                                          seed: seed, rules: ruleOptions.rules, logger: app.logger))
        }
    }
}

struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Launch a host window and client windows on this desktop, joined over a Unix socket, ready to Start.")
    @Option(help: "Client windows to open next to the host's, 1 to 3.") var clients = 1
    @Option(help: "The host player's name.") var name = defaultPlayerName()
    @OptionGroup var window: WindowFlags

    func validate() throws {
        guard (1...3).contains(clients) else { throw ValidationError("--clients must be 1, 2 or 3") }
        _ = try validName(name, option: "--name")
    }

    func run() throws {
        var children: [Process] = []
        defer { for child in children where child.isRunning { child.terminate() } }
        try runWindow(window) { app in
            let client = try GameClient.host(name: name, logger: app.logger)
            // Each client window is its own process, as on separate desktops.
            for index in 1...clients {
                let child = Process()
                child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
                child.arguments = ["join", "--socket", client.socketPath!, "--name", "Player \(index + 1)"]
                    + (window.quitAfter.map { ["--quit-after", "\($0)"] } ?? [])
                try child.run()
                children.append(child)
            }
            return HostLobbyScene(app: app, client: client)
        }
    }
}
#endif
