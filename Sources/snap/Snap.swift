import ArgumentParser

@main
struct Snap: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snap",
        abstract: "Snap!, the card game.",
        subcommands: [Simulate.self, Bench.self]
    )
}
