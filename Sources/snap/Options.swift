import ArgumentParser
import SnapBots
import SnapEngine

extension BotLevel: ExpressibleByArgument {}

/// Rule options shared by every command that plays.
struct RuleOptions: ParsableArguments {
    @Option(name: .customLong("turn-limit"),
            help: "End a round after this many turned cards; the player with most cards wins it (default: the original rule, play on until one player holds all 52).")
    var turnLimit: Int?

    func validate() throws {
        if let turnLimit, turnLimit < 1 { throw ValidationError("--turn-limit must be at least 1") }
    }

    var rules: Rules { Rules(turnLimit: turnLimit) }
}
