import Foundation
import SnapEngine
import SnapNet
import SnapProtocol
import SnapSession
import Testing

/// `snap history` from the match index, on journals real hosts wrote.
@Suite("snap history from the index, as processes", .serialized)
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

    @Test("snap history reads the index: a deleted or damaged index is rebuilt, --reindex lists the same lines",
          .timeLimit(.minutes(5)))
    func historyFromTheIndex() throws {
        let directory = makeRuntimeDirectory()
        let path = try playedMatch(in: directory, rounds: 1)
        let first = try SnapProcess(["history"], runtimeDirectory: directory)
        #expect(first.exitStatus() == 0)
        #expect(first.lines.count == 2 && first.lines[0].contains("\tTable\tAnn, Bob\twon: "), "\(first.output)")
        let matches = String(path[..<path.lastIndex(of: "/")!])
        let index = matches + "/index.sqlite"
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
