#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SnapEngine
import SnapHistory
import SnapJournal
import SnapProtocol
import SnapSimulation

/// `snap-bench history`: what a long history costs. One real match (computer players in
/// virtual time, its log written by the journal writer) is copied into a directory N
/// times; then, against the same steps on an empty directory in the same run:
/// - the index built from the N journals (the first read after an upgrade),
/// - `snapcards history` as a process, the index up to date (what a player waits for), the
///   directory's last change 3 s or more before (as a player's past journals are),
/// - a host's won count (`IndexedHistory.roundsWon`: the index checked against the
///   directory, then counted), as a host start does it off the window's thread.
public struct HistoryBenchmark: Sendable {
    public struct Figure: Sendable {
        public var matches: Int
        public var journalBytes: Int
        public var copySeconds: Double
        public var indexBuildSeconds: Double
        /// Medians of `repeats` runs.
        public var historySeconds: Double
        public var wonCountSeconds: Double
        public var historyLines: Int
    }

    public var matchCounts: [Int]
    public var repeats: Int
    public var log: @Sendable (String) -> Void

    public init(matchCounts: [Int], repeats: Int = 5, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.matchCounts = matchCounts
        self.repeats = repeats
        self.log = log
    }

    public func run() async throws -> [Figure] {
        let snap = try snapExecutable()
        let root = try Self.scratchRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (bytes, _) = try Self.templateJournal(in: root)

        var figures: [Figure] = []
        for count in [0] + matchCounts {
            let directory = root + "/matches-\(count)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            log("writing \(count) journals")
            let copyStart = ContinuousClock.now
            try Self.writeCopies(of: bytes, count: count, into: directory)
            let copySeconds = seconds(since: copyStart)
            // A player's past journals were written long before: the index trusts a directory
            // whose time is settled (2 s old) to have gained no journal since it last looked.
            let settledAt = copyStart + .seconds(3) + .milliseconds(Int64(copySeconds * 1_000))
            if ContinuousClock.now < settledAt { try await Task.sleep(until: settledAt) }
            log("indexing \(count) journals")
            let buildStart = ContinuousClock.now
            let built = try await MatchIndex.using(directory: directory) { try await $0.refresh() }
            let buildSeconds = seconds(since: buildStart)
            precondition(built.indexed == count, "indexed \(built.indexed) of \(count)")

            var historyTimes: [Double] = []
            var lines = 0
            var wonTimes: [Double] = []
            for _ in 0..<repeats {
                let start = ContinuousClock.now
                lines = try runHistory(snap, directory)
                historyTimes.append(seconds(since: start))
                let wonStart = ContinuousClock.now
                let won = try await withCheckedThrowingContinuation { done in
                    IndexedHistory().roundsWon(in: directory, excluding: directory + "/none.snapjournal") { done.resume(with: $0) }
                }
                wonTimes.append(seconds(since: wonStart))
                precondition(won.values.reduce(0, +) == 3 * count, "won counts \(won) for \(count) matches")
            }
            figures.append(Figure(matches: count, journalBytes: bytes.count, copySeconds: copySeconds,
                                  indexBuildSeconds: buildSeconds, historySeconds: median(historyTimes),
                                  wonCountSeconds: median(wonTimes), historyLines: lines))
            try? FileManager.default.removeItem(atPath: directory)
        }
        return figures
    }

    /// A new directory under /tmp for a run's journals.
    static func scratchRoot() throws -> String {
        var template = Array("/tmp/snap-history-XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    /// One real match (3 computer players, 3 rounds, seed 7, in virtual time), its log written
    /// by the journal writer into `root`: the journal's bytes, and its players' names.
    static func templateJournal(in root: String) throws -> (bytes: [UInt8], players: [String]) {
        // Rounds cut at 100 turns (`--turn-limit 100`): a journal of tens of KB, as a short match's.
        var simulation = Simulation(SimulationOptions(players: 3, rounds: 3, seed: 7, rules: Rules(turnLimit: 100)), recording: true)
        _ = simulation.run()
        let source = root + "/template.snapjournal"
        let writer = try JournalWriter(creating: source, kind: MatchRecordCodec.kind, onError: { _ in })
        for record in simulation.records { writer.append(MatchRecordCodec.encode(record)) }
        writer.close()
        let players = MatchFacts.fold(simulation.records).players
        return (try [UInt8](Data(contentsOf: URL(fileURLWithPath: source))), players)
    }

    /// `count` copies of a journal in `directory`, named as a host names them (they sort by start time).
    static func writeCopies(of bytes: [UInt8], count: Int, into directory: String) throws {
        for index in 0..<count {
            let name = "2026-01-01T" + String(100_000 + index).dropFirst() + "-\(index)-Bench.snapjournal"
            let descriptor = open(directory + "/" + name, O_WRONLY | O_CREAT | O_EXCL, 0o600)
            guard descriptor >= 0 else { throw JournalError.cannotRead(name, String(cString: strerror(errno))) }
            _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
        }
    }

    /// `snapcards history --directory D` as a player runs it; returns the lines it printed.
    private func runHistory(_ snap: String, _ directory: String) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: snap)
        process.arguments = ["history", "--directory", directory]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw SnapExecutableMissing(path: "\(snap) history exited \(process.terminationStatus)") }
        return output.reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
    }

    private func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    private func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
}
