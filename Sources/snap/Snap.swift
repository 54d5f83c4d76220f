import ArgumentParser

@main
struct Snap: ParsableCommand {
    #if GUI
    static let configuration = CommandConfiguration(
        commandName: "snap",
        abstract: "Snap!, the card game. With no command: the main menu.",
        subcommands: [Menu.self, Play.self, Solo.self, Host.self, Join.self, List.self, History.self, Stats.self, Replay.self, Simulate.self, Story.self],
        defaultSubcommand: Menu.self
    )
    #else
    static let configuration = CommandConfiguration(
        commandName: "snap",
        abstract: "Snap!, the card game (built without windows).",
        subcommands: [Host.self, Join.self, List.self, History.self, Stats.self, Replay.self, Simulate.self, Story.self]
    )
    #endif
}
