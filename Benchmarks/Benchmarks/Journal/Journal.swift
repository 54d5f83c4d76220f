#if canImport(Glibc)
import Glibc
#endif
import Benchmark
import SnapEngine
import SnapJournal
import SnapProtocol
import SnapSimulation

// The match log's cost: one simulated round's commands through the engine alone, and
// with what a host adds to each (its match-log record queued on a `JournalWriter`, then
// encoded, checksummed and written on the journal's queue). `snap-bench engine` prints
// the same ratio from one run; here the harness adds allocation counts and baselines.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        maxDuration: .seconds(2))

    var simulation = Simulation(SimulationOptions(players: 4, rounds: 1, seed: 1), recording: true)
    _ = simulation.run()
    let seats = Seat.seating(playerCount: 4)
    let round = simulation.recordedRounds[0]

    // One file per benchmark process, removed after every iteration.
    let path = "/tmp/snap-bench-\(getpid()).snapjournal"

    /// The round with each command's record appended: what the host's game path does.
    /// Returns the writer, still open.
    @Sendable func journaledRound() -> JournalWriter {
        let writer = try! JournalWriter(creating: path, kind: MatchRecordCodec.kind) { _ in }
        var game = Game(seats: seats)
        for (sequence, command) in round.enumerated() {
            guard let events = try? game.apply(command) else { continue }
            let record = MatchRecord(sequence: UInt64(sequence), timeMicros: UInt64(sequence) * 1_000,
                                     entry: .applied(command, events))
            writer.append { MatchRecordCodec.encode(record, into: $0) }  // as HostServer appends
        }
        return writer
    }

    Benchmark("Journal: a round (\(round.count) commands), engine alone") { benchmark in
        var game = Game(seats: seats)
        for command in round { blackHole(try? game.apply(command)) }
    }

    // Until the last append returned: what delays the game's next command. The writer's
    // queue may still be encoding and writing on the other core (its allocations count).
    Benchmark("Journal: a round, engine + records appended (the game's path)") { benchmark in
        benchmark.startMeasurement()
        let writer = journaledRound()
        benchmark.stopMeasurement()
        writer.close()
        unlink(path)
    }

    // Until every record is encoded, checksummed, written and the file synced.
    Benchmark("Journal: a round, engine + records written and synced") { benchmark in
        let writer = journaledRound()
        writer.close()
        unlink(path)
    }

    // One record encoded into an array, then framed with its length and CRC-32 (as
    // `Journal.frame` makes a record: tools and tests). A turn's record, 1,000 an iteration.
    var game = Game(seats: seats)
    let firstTurn = round.firstIndex { if case .turn = $0 { true } else { false } }!
    for command in round[..<firstTurn] { _ = try? game.apply(command) }
    let turnRecord = MatchRecord(sequence: 60, timeMicros: 1_000_000,
                                 entry: .applied(round[firstTurn], try! game.apply(round[firstTurn])))
    Benchmark("MatchRecordCodec.encode + Journal.frame: a turn's record",
              configuration: .init(scalingFactor: .kilo)) { benchmark in
        var bytes: [UInt8] = []
        for _ in benchmark.scaledIterations {
            bytes.removeAll(keepingCapacity: true)
            Journal.frame(MatchRecordCodec.encode(turnRecord), into: &bytes)
            blackHole(bytes)
        }
    }

    // The same record as a host's journal stores it: straight into the ring's room (here a
    // buffer of the writer's room size), no array; the queue frames and checksums later.
    Benchmark("MatchRecordCodec.encode(_:into:): a turn's record stored into a buffer",
              configuration: .init(scalingFactor: .kilo)) { benchmark in
        let room = UnsafeMutableRawBufferPointer.allocate(byteCount: Journal.maxRecordLength, alignment: 8)
        defer { room.deallocate() }
        for _ in benchmark.scaledIterations {
            blackHole(MatchRecordCodec.encode(turnRecord, into: room))
        }
    }
}
