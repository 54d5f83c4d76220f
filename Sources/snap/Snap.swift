import ArgumentParser

@main
struct Snap: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snap",
        abstract: "Snap!, the card game.",
        subcommands: [Host.self, Join.self, List.self, Simulate.self, Bench.self]
    )
}
