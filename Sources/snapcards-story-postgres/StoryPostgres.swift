import ArgumentParser
import SnapCommandLine
import StoryStoresPostgres

/// snapcards' `story serve` and `story import` with the PostgreSQL driver linked. snapcards
/// runs it in its own place, with the arguments it was given, when `--database` is a
/// postgres:// URL (docs/ARCHITECTURE.md, "The PostgreSQL helper"); it is not on PATH.
@main
struct StoryPostgres: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: postgresHelperName,
        abstract: "snapcards story serve and story import for a postgres:// database (snapcards runs it).",
        subcommands: [StoryCommands.self])

    struct StoryCommands: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "story", subcommands: [StoryServe.self, StoryImport.self])
    }

    static func main() async {
        linkedPostgresDriver.withLock { $0 = PostgresStoryStore.opener }
        do {
            var command = try parseAsRoot()
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
