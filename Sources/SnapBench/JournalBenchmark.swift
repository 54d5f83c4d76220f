#if canImport(Glibc)
import Glibc
#endif
import SnapEngine
import SnapJournal
import SnapProtocol

/// The journal's share of `snap-bench engine`: recorded commands applied by the engine
/// alone, against the same commands with what a host adds to each — its match-log
/// record, encoded, checksummed and written to a journal file (synced at the end). The
/// record is encoded on the game's path, into the writer's ring; the writer's queue
/// checksums and writes.
public struct JournalBenchmark {
    public struct Result: Sendable {
        public var commands: Int
        /// Seconds per pass: the engine alone; the engine with the journal's appends (the
        /// game's hot path: what delays the next command); and until the journal is
        /// written and synced (the writer's work on its own thread included).
        public var engineSeconds: Double
        /// The engine with the host's clock read for each command, as a host reads it for
        /// each input whether or not it journals (the judge, the timers and the record's
        /// time all take that one reading).
        public var clockedEngineSeconds: Double
        public var hotPathSeconds: Double
        public var journaledSeconds: Double
        /// Journal bytes for one pass over the commands.
        public var bytes: Int

        public var engineCommandsPerSecond: Double { Double(commands) / engineSeconds }
        public var journaledCommandsPerSecond: Double { Double(commands) / journaledSeconds }
        /// Time with the journal over time without (1.0: it costs nothing).
        public var hotPathRatio: Double { hotPathSeconds / engineSeconds }
        /// The journal's own share: the game's path against the engine with the clock read.
        public var journalShareRatio: Double { hotPathSeconds / clockedEngineSeconds }
        public var clockedEngineCommandsPerSecond: Double { Double(commands) / clockedEngineSeconds }
        /// The same shares in seconds a command: the engine's, the clock read's, and what the
        /// journal adds on the game's path beside both (a ratio's meaning moves with the engine).
        public var engineSecondsPerCommand: Double { engineSeconds / Double(commands) }
        public var clockSecondsPerCommand: Double { (clockedEngineSeconds - engineSeconds) / Double(commands) }
        public var journalSecondsPerCommand: Double { (hotPathSeconds - clockedEngineSeconds) / Double(commands) }
        public var ratio: Double { journaledSeconds / engineSeconds }
    }

    public var commands: [Command]
    public var seats: [Seat]
    public var minimumSeconds: Double

    /// Each `deal` among `commands` carries its seed, so the commands alone replay the game.
    public init(commands: [Command], seats: [Seat], minimumSeconds: Double) {
        self.commands = commands
        self.seats = seats
        self.minimumSeconds = minimumSeconds
    }

    public func run() throws -> Result {
        var template = Array("/tmp/snapj-XXXXXX".utf8CString)
        let directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        defer { rmdir(directory) }
        let path = directory + "/bench.snapjournal"

        let engine = measure {
            var game = Game(seats: seats)
            for command in commands { _ = try? game.apply(command) }
        }
        var clockSum: UInt64 = 0
        let clockedEngine = measure {
            var game = Game(seats: seats)
            for command in commands {
                guard (try? game.apply(command)) != nil else { continue }
                clockSum &+= Self.monotonicMicros()
            }
        }
        withExtendedLifetime(clockSum) {}
        var bytes = 0
        var failure: (any Error)?
        var hotPath = Duration.zero
        var passes = 0
        let journaled = measure {
            unlink(path)
            let writer: JournalWriter
            do { writer = try JournalWriter(creating: path, kind: MatchRecordCodec.kind) { _ in } } catch {
                failure = error
                return
            }
            var game = Game(seats: seats)
            let clock = ContinuousClock()
            let start = clock.now
            let startMicros = Self.monotonicMicros()
            for (sequence, command) in commands.enumerated() {
                guard let events = try? game.apply(command) else { continue }
                // The host's clock, read for each command as a host reads it for each input.
                let record = MatchRecord(sequence: UInt64(sequence), timeMicros: Self.monotonicMicros() &- startMicros,
                                         entry: .applied(command, events))
                writer.append { MatchRecordCodec.encode(record, into: $0) }
            }
            hotPath += clock.now - start
            passes += 1
            writer.close()
            var status = stat()
            if stat(path, &status) == 0 { bytes = Int(status.st_size) }
        }
        unlink(path)
        if let failure { throw failure }
        return Result(commands: commands.count, engineSeconds: engine, clockedEngineSeconds: clockedEngine,
                      hotPathSeconds: hotPath / .seconds(1) / Double(max(passes, 1)), journaledSeconds: journaled, bytes: bytes)
    }

    /// CLOCK_MONOTONIC in microseconds. NB: not `ContinuousClock.now` and
    /// `Duration.components`: its 128-bit division cost more than the record's encoding.
    private static func monotonicMicros() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000 &+ UInt64(now.tv_nsec / 1_000)
    }

    /// Seconds one run of `body` takes, averaged over runs filling `minimumSeconds`.
    private func measure(_ body: () -> Void) -> Double {
        let clock = ContinuousClock()
        var runs = 0
        let start = clock.now
        repeat {
            body()
            runs += 1
        } while clock.now - start < .seconds(minimumSeconds)
        return (clock.now - start) / .seconds(1) / Double(runs)
    }
}
