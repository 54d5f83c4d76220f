import Benchmark
import SnapBytes
import SnapEngine
import SnapProtocol
import SnapSimulation

// The wire codec and the frame decoder: the messages a game sends most, encoded to a
// whole frame's bytes (length prefix included) and decoded back from them (a fresh
// `FrameDecoder` splitting the frame, then `WireCodec`), and a stream of 1,000 frames cut
// into frames. Each benchmark does its work 1,000 times an iteration (scalingFactor
// .kilo), so the figures are per message or per frame.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(2))

    // A player's Snap! call: the one message whose latency decides a round.
    let snap = ClientMessage.snap(SnapCall(seenTurns: 41, reactionMicros: 312_000))
    let snapBytes = WireCodec.encode(snap, sequence: 7)

    Benchmark("WireCodec.encode: ClientMessage.snap") { benchmark in
        for sequence in benchmark.scaledIterations {
            blackHole(WireCodec.encode(snap, sequence: UInt32(sequence)))
        }
    }

    Benchmark("WireCodec.decode: ClientMessage.snap, from its bytes") { benchmark in
        for _ in benchmark.scaledIterations {
            var decoder = FrameDecoder()
            decoder.append(snapBytes)
            blackHole(try! WireCodec.decodeClientMessage(decoder.nextFrame()!))
        }
    }

    // What every seat hears after a turn and after a correct Snap!: the events the engine
    // gave for the first of each in a simulated round (4 players, seed 1), as a seat sees
    // them, one `events` message each.
    var simulation = Simulation(SimulationOptions(players: 4, rounds: 1, seed: 1), recording: true)
    _ = simulation.run()
    var game = Game(seats: Seat.seating(playerCount: 4))
    var turnEvents: HostMessage?
    var snapEvents: HostMessage?
    for command in simulation.recordedRounds[0] {
        let events = try! game.apply(command)
        switch command {
        case .turn where turnEvents == nil:
            turnEvents = .events(events.map(\.seen))
        case .snap where snapEvents == nil && events.contains(where: { if case .snapCorrect = $0 { true } else { false } }):
            snapEvents = .events(events.map(\.seen))
        default: break
        }
    }
    for (name, message) in [("a turn", turnEvents!), ("a correct Snap!", snapEvents!)] {
        let bytes = WireCodec.encode(message, sequence: 7)
        Benchmark("WireCodec.encode: HostMessage.events, \(name) (\(bytes.count) bytes)") { benchmark in
            for sequence in benchmark.scaledIterations {
                blackHole(WireCodec.encode(message, sequence: UInt32(sequence)))
            }
        }
        Benchmark("WireCodec.decode: HostMessage.events, \(name), from its bytes") { benchmark in
            for _ in benchmark.scaledIterations {
                var decoder = FrameDecoder()
                decoder.append(bytes)
                blackHole(try! WireCodec.decodeHostMessage(decoder.nextFrame()!))
            }
        }
    }

    // The frame layer alone: 1,000 turn frames back to back, read 1,500 bytes at a time
    // (a packet's worth), split into frames without decoding their messages.
    var stream: [UInt8] = []
    for sequence in 0..<1_000 { stream += WireCodec.encode(turnEvents!, sequence: UInt32(sequence)) }
    let reads = stride(from: 0, to: stream.count, by: 1_500).map { Array(stream[$0..<min($0 + 1_500, stream.count)]) }
    Benchmark("FrameDecoder: 1,000 frames in 1,500-byte reads (per frame)") { benchmark in
        var decoder = FrameDecoder()
        var frames = 0
        for read in reads {
            decoder.append(read)
            while let frame = try! decoder.nextFrame() {
                blackHole(frame)
                frames += 1
            }
        }
        precondition(frames == benchmark.scaledIterations.count)
    }
}
