import ArgumentParser
#if GUI
import SnapUI
#endif

@main
struct Snap: AsyncParsableCommand {
    #if GUI
    static let configuration = CommandConfiguration(
        commandName: "snapcards",
        abstract: "Snap!, the card game. With no command: the main menu.",
        version: snapVersion,
        subcommands: [Menu.self, Play.self, Solo.self, Host.self, Join.self, List.self, History.self, Stats.self, Replay.self, Simulate.self, Story.self, Relay.self],
        defaultSubcommand: Menu.self
    )
    #else
    static let configuration = CommandConfiguration(
        commandName: "snapcards",
        abstract: "Snap!, the card game (built without windows).",
        version: snapVersion,
        subcommands: [Host.self, Join.self, List.self, History.self, Stats.self, Replay.self, Simulate.self, Story.self, Relay.self]
    )
    #endif

    /// One thread for windows, Swift's concurrency pool for everything that waits: a
    /// command that opens a window runs on the main thread (SDL's), and no command waits
    /// by blocking a thread. (Argument-parser's own `main` would run every command on the
    /// pool.)
    @MainActor static func main() async {
        do {
            var command = try parseAsRoot()
            #if GUI
            if let windowed = command as? any WindowCommand, windowed.opensWindow {
                // The games this process hosts, one owner for the process's life (ended with its window).
                try await windowed.runInWindow(GameStarter(hosted: HostedGames()))
                return
            }
            #endif
            if var waiting = command as? any AsyncParsableCommand {
                try await waiting.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}

#if GUI
/// A command whose work is a window: it runs on the main thread (SDL wants its events
/// there), awaiting what it needs before the window opens and after it closes.
protocol WindowCommand: ParsableCommand {
    /// False for the options that run it without a window (`snapcards host --headless`).
    var opensWindow: Bool { get }
    /// `games`: how this process starts its games, and the one owner of those it hosts.
    @MainActor func runInWindow(_ games: GameStarter) async throws
}

extension WindowCommand {
    var opensWindow: Bool { true }
}
#endif
