import Foundation
import SnapEngine
import SnapJournal
import SnapMatchFiles
import SnapNet
import SnapProtocol
import Testing
import SnapTestSupport

/// The journal a real host writes, read back by `snapcards replay --verify` and `snapcards history`.
@Suite("journals, replay --verify and history, as processes", .blocksThreads, .serialized)
struct JournalCommandTests {
    func playedMatch(in directory: String, rounds: Int = 1) throws -> String {
        let host = try SnapProcess(["host", "--headless", "--name", "Table", "--start-when", "2", "--rounds", "\(rounds)",
                                    "--speed", "0.01", "--turn-limit", "150"], runtimeDirectory: directory)
        let journal = try #require(host.line(startingWith: "journal: "))
        let path = String(journal.dropFirst("journal: ".count))
        #expect(path.hasPrefix(directory + "/state/snap/matches/"))
        let bots = try ["Ann", "Bob"].map {
            try SnapProcess(["join", "--bot", "--name", $0, "--speed", "0.01"], runtimeDirectory: directory)
        }
        #expect(host.exitStatus() == 0)
        for bot in bots { #expect(bot.exitStatus() == 0) }
        return path
    }

    @Test("a finished match's journal replays exactly; snapcards history lists it", .timeLimit(.minutes(5)))
    func verifyAndHistory() throws {
        let directory = makeRuntimeDirectory()
        let path = try playedMatch(in: directory, rounds: 2)
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let verify = try SnapProcess(["replay", path, "--verify"], runtimeDirectory: directory)
        #expect(verify.exitStatus() == 0)
        let line = try #require(verify.lines.first)
        #expect(line.hasPrefix("replay: ") && line.hasSuffix(" commands, 2 rounds, matches the journal"), "\(line)")
        let history = try SnapProcess(["history"], runtimeDirectory: directory)
        #expect(history.exitStatus() == 0)
        #expect(history.lines.count == 2)
        #expect(history.lines.first?.contains("\tTable\t") == true)
        #expect(history.lines.first?.hasSuffix("all 2 rounds played") == true)
        #expect(history.lines.last?.hasPrefix("rounds won: ") == true)
    }

    @Test("a journal whose events were changed is caught at the first differing record (exit 1)", .timeLimit(.minutes(5)))
    func tamperedJournal() throws {
        let directory = makeRuntimeDirectory()
        let path = try playedMatch(in: directory)
        var records = try MatchJournal.read(path: path).records
        // Rewrite one turned card as another, with a valid checksum: only the engine can tell.
        let index = try #require(records.firstIndex {
            if case .applied(.turn, let events) = $0.entry { events.count == 1 } else { false }
        })
        guard case .applied(let command, let events) = records[index].entry,
              case .turned(let seat, let card) = events[0] else { return }
        let other = Card(id: (card.id + 1) % 52)!
        records[index].entry = .applied(command, [.turned(seat, other)])
        let forged = directory + "/forged.snapjournal"
        let writer = try JournalWriter(creating: forged, kind: MatchRecordCodec.kind, onError: { _ in })
        for record in records { writer.append(MatchRecordCodec.encode(record)) }
        writer.close()
        let verify = try SnapProcess(["replay", forged, "--verify"], runtimeDirectory: directory)
        #expect(verify.exitStatus() == 1)
        #expect(verify.output.contains("replay: differs from the journal at record \(records[index].sequence):"), "\(verify.output)")
    }

    @Test("kill -9 mid-round: the journal up to the kill replays; a torn last record is reported and left out",
          .timeLimit(.minutes(5)))
    func killedHost() throws {
        let directory = makeRuntimeDirectory()
        let host = try SnapProcess(["host", "--headless", "--name", "Table", "--start-when", "2", "--rounds", "5",
                                    "--speed", "0.05"], runtimeDirectory: directory)
        let path = String(try #require(host.line(startingWith: "journal: ")).dropFirst("journal: ".count))
        let bots = try ["Ann", "Bob"].map {
            try SnapProcess(["join", "--bot", "--name", $0, "--speed", "0.05"], runtimeDirectory: directory)
        }
        // Mid-round: once the journal on disk holds more than 5 records (a minute bounds a hang).
        #expect(eventually(60) { ((try? MatchJournal.read(path: path))?.records.count ?? 0) > 5 }, "the journal stayed short")
        host.signal(SIGKILL)
        _ = host.exitStatus(timeout: 60)
        for bot in bots { _ = bot.exitStatus(timeout: 60) }
        let intact = try MatchJournal.read(path: path)
        #expect(intact.fault == nil)
        #expect(intact.records.count > 5)
        // Tear the last record at every byte offset: each time the records before it verify.
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let lastLength = MatchRecordCodec.encode(intact.records.last!).count + 8
        for cut in stride(from: bytes.count - lastLength + 1, to: bytes.count, by: max(1, lastLength / 6)) {
            let torn = directory + "/torn.snapjournal"
            try Data(bytes[0..<cut]).write(to: URL(fileURLWithPath: torn))
            let verify = try SnapProcess(["replay", torn, "--verify"], runtimeDirectory: directory)
            #expect(verify.exitStatus() == 0, "cut at \(cut): \(verify.output)")
            #expect(verify.lines.first?.hasPrefix("journal: the last record was cut short at byte") == true, "\(verify.output)")
            // The torn record was the match's end: what is left is said to stop early.
            #expect(verify.lines.contains { $0.hasPrefix("journal: it stops before the match's end, after ") }, "\(verify.output)")
            #expect(verify.lines.last?.hasSuffix("matches the journal") == true)
        }
    }

    @Test("an unwritable journal directory is a warning; the game goes on", .timeLimit(.minutes(5)))
    func unwritableJournal() throws {
        let directory = makeRuntimeDirectory()
        let host = try SnapProcess(["host", "--headless", "--name", "Table", "--start-when", "2", "--speed", "0.01",
                                    "--turn-limit", "100", "--journal-directory", "/proc/no-journal-here"],
                                   runtimeDirectory: directory)
        _ = host.line(startingWith: "listening on unix:")
        let bots = try ["Ann", "Bob"].map {
            try SnapProcess(["join", "--bot", "--name", $0, "--speed", "0.01"], runtimeDirectory: directory)
        }
        #expect(host.exitStatus() == 0)
        #expect(host.errors.contains("warning: this match is not journaled"))
        #expect(!host.lines.contains { $0.hasPrefix("journal: ") })
        #expect(host.lines.contains { $0.hasPrefix("round 1: ") })
        for bot in bots { #expect(bot.exitStatus() == 0) }
    }
}
