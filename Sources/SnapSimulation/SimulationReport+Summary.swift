import SnapEngine

extension SimulationReport {
    /// The printed summary: plain lines, the same bytes for the same options.
    public var summary: String {
        let players = seats.map { names[$0]! }.joined(separator: ", ")
        let rules = options.rules.turnLimit.map { "turn limit \($0)" } ?? "original rules"
        var lines = [
            "Snap! simulation: \(seats.count) players (\(players)), level \(options.level.rawValue), "
                + "seed \(options.seed), \(rules)",
            "rounds played: \(roundsPlayed) of \(options.rounds) (unfinished: \(unfinishedRounds)"
                + (options.rules.turnLimit == nil ? ")" : ", ended by the turn limit: \(roundsEndedByTurnLimit))"),
            "wins: " + seats.map { "\(names[$0]!) \(wins[$0] ?? 0)" }.joined(separator: ", "),
        ]
        if turnsPerRound.isEmpty {
            lines.append("turns per round: none finished")
        } else {
            let sorted = turnsPerRound.sorted()
            let mean = Double(sorted.reduce(0, +)) / Double(sorted.count)
            lines.append("turns per round: p50 \(percentile(sorted, 50)), p99 \(percentile(sorted, 99)), "
                + "max \(sorted.last!), mean \(oneDecimal(mean))")
            let times = virtualTimePerRound.sorted()
            lines.append("virtual time per round: p50 \(clock(percentile(times, 50))), p99 \(clock(percentile(times, 99))), "
                + "max \(clock(times.last!)); \(clock(times.reduce(Duration.zero, +))) in all")
        }
        lines.append("snaps: correct \(snapsCorrect), wrong \(snapsWrong), too late \(snapsTooLate)")
        lines.append("refused intents: \(refusedIntents) (a computer player acting on a table that had just changed)")
        if !options.checks {
            lines.append("card conservation: " + (violation.map { "FAILED \($0)" } ?? "held")
                + " in the host's check after each of \(commandsApplied) commands (the simulation's own checks were off)")
        } else if let violation {
            lines.append("card conservation: FAILED after \(eventsChecked) events: \(violation)")
        } else {
            lines.append("card conservation: held after every one of \(eventsChecked) events (\(commandsApplied) commands)")
        }
        if unfinishedRounds > 0 {
            lines.append("stopped: a round passed \(options.abandonAfterTurns) turns without a winner")
        }
        return lines.joined(separator: "\n")
    }
}

/// Nearest-rank percentile of sorted values.
public func percentile<T>(_ sorted: [T], _ p: Int) -> T {
    let rank = (p * sorted.count + 99) / 100
    return sorted[max(0, min(sorted.count - 1, rank - 1))]
}

func oneDecimal(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
}

/// "1h02m03s", "4m05s", "6.7s"
func clock(_ duration: Duration) -> String {
    let milliseconds = Int(duration.components.seconds) * 1_000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
    let seconds = milliseconds / 1_000
    func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    if seconds >= 3_600 { return "\(seconds / 3_600)h\(two(seconds / 60 % 60))m\(two(seconds % 60))s" }
    if seconds >= 60 { return "\(seconds / 60)m\(two(seconds % 60))s" }
    return "\(seconds).\(milliseconds % 1_000 / 100)s"
}
