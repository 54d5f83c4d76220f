import Foundation
import SnapEngine
import SnapMatchFiles
import SnapNet
import SnapProtocol
import SnapSession
import Testing
import SnapTestSupport

/// `snapcards stats` and `snapcards history --reindex` on journals real hosts wrote, their figures
/// checked against what this test reads from the journals itself.
@Suite("snapcards stats and history --reindex, as processes", .blocksThreads, .serialized)
struct StatsCommandTests {
    /// A headless host's match between two computer players that joined (Ann and Bob).
    func playedMatch(in directory: String, rounds: Int) throws -> String {
        let host = try SnapProcess(["host", "--headless", "--name", "Table", "--start-when", "2", "--rounds", "\(rounds)",
                                    "--speed", "0.01", "--turn-limit", "150"], runtimeDirectory: directory)
        let journal = try #require(host.line(startingWith: "journal: "))
        let bots = try ["Ann", "Bob"].map {
            try SnapProcess(["join", "--bot", "--name", $0, "--speed", "0.01"], runtimeDirectory: directory)
        }
        #expect(host.exitStatus() == 0)
        for bot in bots { #expect(bot.exitStatus() == 0) }
        return String(journal.dropFirst("journal: ".count))
    }

    struct Expected {
        var roundsWon = 0, roundsPlayed = 0, matchesWon = 0, right = 0, wrong = 0, late = 0
        var reactions: [UInt64] = []
    }

    /// Each player's figures, read here from the journals (not through the index).
    func expected(_ paths: [String]) throws -> [String: Expected] {
        var figures: [String: Expected] = [:]
        for path in paths {
            let records = try MatchJournal.read(path: path).records
            let replay = try MatchReplay.fold(records)
            let start = try #require(replay.start)
            let name = Dictionary(uniqueKeysWithValues: start.players.map { ($0.seat, $0.name) })
            var rounds = 0
            var shownAt: UInt64 = 0
            for record in records {
                guard case .applied(_, let events) = record.entry else { continue }
                for event in events {
                    switch event {
                    case .roundStarted: rounds += 1
                    case .dealFinished, .turned: shownAt = record.timeMicros
                    case .snapCorrect(let seat, _):
                        figures[name[seat]!, default: Expected()].right += 1
                        figures[name[seat]!, default: Expected()].reactions.append(record.timeMicros - shownAt)
                    case .snapWrong(let seat): figures[name[seat]!, default: Expected()].wrong += 1
                    case .snapTooLate(let seat): figures[name[seat]!, default: Expected()].late += 1
                    default: break
                    }
                }
            }
            var won: [String: Int] = [:]
            for winner in replay.winners { won[winner, default: 0] += 1 }
            for player in start.players.map(\.name) {
                figures[player, default: Expected()].roundsPlayed += rounds
                figures[player, default: Expected()].roundsWon += won[player] ?? 0
                let others = won.filter { $0.key != player }.values.max() ?? 0
                if (won[player] ?? 0) > others { figures[player, default: Expected()].matchesWon += 1 }
            }
        }
        return figures
    }

    @Test("snapcards stats --json gives each player's wins, calls and reaction times as the journals have them",
          .timeLimit(.minutes(5)))
    func statsMatchTheJournals() throws {
        let directory = makeRuntimeDirectory()
        let paths = [try playedMatch(in: directory, rounds: 2), try playedMatch(in: directory, rounds: 1)]
        let expected = try expected(paths)
        #expect(Set(expected.keys) == ["Ann", "Bob"])

        let stats = try SnapProcess(["stats", "--json"], runtimeDirectory: directory)
        #expect(stats.exitStatus() == 0, "\(stats.errors)")
        let document = try JSONSerialization.jsonObject(with: Data(stats.output.utf8)) as? [String: Any]
        let players = try #require(document?["players"] as? [[String: Any]])
        #expect(players.count == 2, "the host played no seat: only Ann and Bob")
        for player in players {
            let name = try #require(player["player"] as? String)
            let want = try #require(expected[name], "\(name)")
            #expect(player["matchesPlayed"] as? Int == 2)
            #expect(player["matchesWon"] as? Int == want.matchesWon, "\(name)")
            #expect(player["roundsPlayed"] as? Int == want.roundsPlayed, "\(name)")
            #expect(player["roundsWon"] as? Int == want.roundsWon, "\(name)")
            #expect(player["snapsRight"] as? Int == want.right, "\(name)")
            #expect(player["snapsWrong"] as? Int == want.wrong, "\(name)")
            #expect(player["snapsTooLate"] as? Int == want.late, "\(name)")
            let reaction = try #require(player["reaction"] as? [String: Any])
            let sorted = want.reactions.sorted()
            #expect(reaction["calls"] as? Int == sorted.count, "\(name)")
            if !sorted.isEmpty {
                let middle = sorted.count / 2
                let median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
                #expect((reaction["medianMicros"] as? NSNumber)?.uint64Value == median, "\(name)")
                #expect((reaction["bestMicros"] as? NSNumber)?.uint64Value == sorted[0], "\(name)")
                let buckets = try #require(reaction["histogram"] as? [[String: Any]])
                #expect(buckets.compactMap { $0["calls"] as? Int }.reduce(0, +) == sorted.count)
                let under250 = sorted.filter { $0 < 250_000 }.count
                #expect(buckets.first?["calls"] as? Int == under250)
            }
            let trend = try #require(player["trend"] as? [[String: Any]])
            #expect(trend.count == 2)
            let opponents = try #require(player["opponents"] as? [[String: Any]])
            #expect(opponents.count == 1 && opponents.first?["matches"] as? Int == 2)
        }
        let wins = players.compactMap { $0["roundsWon"] as? Int }.reduce(0, +)
        #expect(wins == 3, "two matches of 2 and 1 rounds")

        // The text form names the same figures; one player alone; an unknown one is an error.
        let ann = try SnapProcess(["stats", "--player", "Ann"], runtimeDirectory: directory)
        #expect(ann.exitStatus() == 0)
        #expect(ann.lines.first == "Ann: 2 matches, \(expected["Ann"]!.matchesWon) won; "
                + "\(expected["Ann"]!.roundsPlayed) rounds, \(expected["Ann"]!.roundsWon) won", "\(ann.output)")
        #expect(ann.lines.contains("  Snap! calls: \(expected["Ann"]!.right) right, \(expected["Ann"]!.wrong) wrong, \(expected["Ann"]!.late) too late"))
        #expect(ann.lines.contains { $0.hasPrefix("  against Bob: matches ") })
        let nobody = try SnapProcess(["stats", "--player", "Nobody"], runtimeDirectory: directory)
        #expect(nobody.exitStatus() == 1)
        #expect(nobody.errors.contains("error: no player named Nobody in ") && nobody.errors.contains("Ann, Bob"), "\(nobody.errors)")
    }

    @Test("snapcards history reads the index: a deleted or damaged index is rebuilt, --reindex lists the same lines",
          .timeLimit(.minutes(5)))
    func historyFromTheIndex() throws {
        let directory = makeRuntimeDirectory()
        let path = try playedMatch(in: directory, rounds: 1)
        let first = try SnapProcess(["history"], runtimeDirectory: directory)
        #expect(first.exitStatus() == 0)
        #expect(first.lines.count == 2 && first.lines[0].contains("\tTable\t") && first.lines[0].contains("Ann")
                && first.lines[0].contains("Bob") && first.lines[0].hasSuffix("all 1 rounds played"), "\(first.output)")
        let matches = String(path[..<path.lastIndex(of: "/")!])
        let index = matches + "/index/index.sqlite"
        #expect(FileManager.default.fileExists(atPath: index))

        // A copy of the journal, and an index file overwritten with junk.
        try FileManager.default.copyItem(atPath: path, toPath: matches + "/9999-copy.snapjournal")
        try Data(repeating: 0x41, count: 4_096).write(to: URL(fileURLWithPath: index))
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: index + suffix) }
        let rebuilt = try SnapProcess(["history"], runtimeDirectory: directory)
        #expect(rebuilt.exitStatus() == 0)
        #expect(rebuilt.lines.count == 3 && rebuilt.lines[0] == first.lines[0] && rebuilt.lines[1] == first.lines[0], "\(rebuilt.output)")
        #expect(rebuilt.errors.contains("is damaged"), "\(rebuilt.errors)")

        let reindexed = try SnapProcess(["history", "--reindex"], runtimeDirectory: directory)
        #expect(reindexed.exitStatus() == 0)
        #expect(reindexed.lines == rebuilt.lines)
        #expect(reindexed.errors.contains("reindexed 2 journals"), "\(reindexed.errors)")
    }
}

@Suite("snap-bench history", .blocksThreads)
struct HistoryBenchTests {
    @Test("run small: every copied journal is listed by snapcards history and counted, against none", .timeLimit(.minutes(5)))
    func historyBench() throws {
        let bench = try SnapProcess(["history", "--matches", "3,5", "--repeats", "1"], runtimeDirectory: makeRuntimeDirectory(),
                                    binary: snapBinary(named: "snap-bench"))
        #expect(bench.exitStatus(timeout: 240) == 0, "\(bench.errors)")
        let lines = bench.lines.filter { $0.contains(" past matches: snapcards history ") }
        #expect(lines.count == 3, "\(bench.output)")
        #expect(lines.first?.hasPrefix("0 past matches: snapcards history ") == true && lines.first?.contains("(1 lines;") == true)
        #expect(lines.dropFirst().first?.hasPrefix("3 past matches: ") == true && lines.dropFirst().first?.contains("(4 lines;") == true)
        #expect(lines.last?.hasPrefix("5 past matches: ") == true && lines.last?.contains("(6 lines;") == true)
        #expect(lines.allSatisfy { $0.contains("won count ") && $0.contains("index built from the journals in ") })
    }
}
