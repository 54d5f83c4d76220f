#if GUI
import Foundation
import SnapJournal
import SnapMatchFiles
import SnapNet
import SnapProtocol
import SnapSession
import SnapTestSupport
import Testing

/// A match between the host's computer players in virtual time, written by the journal
/// writer every host uses: a real journal file, with the host's clock in it.
func writeJournal(rounds: Int, seed: UInt64, in directory: String) throws -> String {
    var configuration = HostConfiguration(hostName: "Replayed")
    configuration.bots = 3
    configuration.seed = seed
    configuration.nonceSeed = seed
    // The same seed deals the same match (not secret: a test's journal).
    configuration.secretDeals = false
    configuration.rounds = rounds
    configuration.autoNextRound = .seconds(2)
    configuration.turnTimeout = nil
    var host = HostSession(configuration)
    let writer = try MatchJournal.create(in: directory, hostName: "Replayed") { Issue.record("journal: \($0)") }
    var now = Duration.zero
    var actions = host.handle(.start, now: now)
    while true {
        for case .record(let record) in actions { writer.append(MatchRecordCodec.encode(record)) }
        guard host.phase != .over, let next = host.nextDeadline else { break }
        now = max(now, next)
        actions = host.handle(.tick, now: now)
    }
    writer.close()
    return writer.path
}

@Suite("snapcards replay's window", .blocksThreads, .serialized)
struct ReplayWindowTests {
    @Test("a real journal plays back in a window: 20 s in, every seat's cards face up on the felt")
    func playsBack() throws {
        let directory = scratchPath("snap-replay")
        let journal = try writeJournal(rounds: 2, seed: 3, in: directory)
        let verify = try runWindowed(["replay", journal, "--verify"])
        #expect(verify.status == 0, "\(verify.output)")
        #expect(verify.output.contains("2 rounds, matches the journal"))

        let path = screenshotPath("replay")
        // 20 s into the match, paused: the same table however slowly this machine draws.
        let run = try runWindowed(["replay", journal, "--start-at", "20", "--paused", "--quit-after", "2",
                                   "--screenshot", path, "--mute"], timeout: 90)
        #expect(run.status == 0, "\(run.output)")
        let shot = try Screenshot(path: path)
        #expect(shot.share(where: isFelt) > 0.35)
        // Three seats (bottom, left, top): their closed piles show a face, not a back.
        #expect(shot.share(x: 0.25...0.75, y: 0.65...0.9, where: isCardWhite) > 0.01, "bottom")
        #expect(shot.share(x: 0.35...0.65, y: 0.1...0.35, where: isCardWhite) > 0.01, "top")
        #expect(shot.share(x: 0.0...0.3, y: 0.35...0.65, where: isCardWhite) > 0.01, "left")
        #expect(shot.share(x: 0.25...0.75, y: 0.1...0.9, where: isCardBack) < shot.share(x: 0.25...0.75, y: 0.1...0.9, where: isCardWhite))
    }

    @Test("a missing file and a file that is not a journal are refused in words, exit 1, no window")
    func badFiles() throws {
        let missing = try runWindowed(["replay", "/nonexistent/match.snapjournal"])
        #expect(missing.status == 1)
        #expect(missing.output.contains("cannot read the journal /nonexistent/match.snapjournal"), "\(missing.output)")
        let text = scratchPath("snap-replay-notes.txt")
        try "shopping list\n".write(toFile: text, atomically: true, encoding: .utf8)
        let notJournal = try runWindowed(["replay", text])
        #expect(notJournal.status == 1)
        #expect(notJournal.output.contains("is not a Snap! journal"), "\(notJournal.output)")
        // A journal with no match in it (a host that never started): nothing to play.
        let empty = scratchPath("snap-replay-empty.snapjournal")
        try Data(Journal.header(kind: MatchRecordCodec.kind)).write(to: URL(fileURLWithPath: empty))
        let nothing = try runWindowed(["replay", empty])
        #expect(nothing.status == 1)
        #expect(nothing.output.contains("no match in it"), "\(nothing.output)")
        let negative = try runWindowed(["replay", empty, "--start-at=-3"])
        #expect(negative.status == 64)
        #expect(negative.output.contains("--start-at must be 0 or more seconds"), "\(negative.output)")
    }
}
#endif
