import SnapBytes
import SnapEngine
import Testing

@testable import SnapProtocol

@Suite("Sequence numbers")
struct SequenceTests {
    @Test("0, 1, 2, … pass")
    func inOrder() throws {
        var checker = SequenceChecker()
        for sequence: UInt32 in 0..<1000 { try checker.check(sequence) }
        #expect(checker.expected == 1000)
    }

    @Test("the first frame must be 0")
    func firstIsZero() {
        var checker = SequenceChecker()
        #expect(throws: ProtocolError.sequenceGap(expected: 0, got: 1)) { try checker.check(1) }
    }

    @Test("a gap")
    func gap() throws {
        var checker = SequenceChecker()
        try checker.check(0)
        try checker.check(1)
        #expect(throws: ProtocolError.sequenceGap(expected: 2, got: 3)) { try checker.check(3) }
    }

    @Test("a duplicate, and a replay from the start")
    func duplicate() throws {
        var checker = SequenceChecker()
        try checker.check(0)
        try checker.check(1)
        #expect(throws: ProtocolError.sequenceGap(expected: 2, got: 1)) { try checker.check(1) }
        #expect(throws: ProtocolError.sequenceGap(expected: 2, got: 0)) { try checker.check(0) }
    }

    @Test("the counter numbers frames the way the checker expects them")
    func counterMatchesChecker() throws {
        var counter = SequenceCounter()
        var checker = SequenceChecker()
        for _ in 0..<100 { try checker.check(counter.next()) }
        #expect(counter.upcoming == 100)
    }
}

@Suite("Event batches")
struct EventBatchTests {
    @Test("no events, no batches; a few events, one batch")
    func small() {
        #expect(WireCodec.eventBatches([]).isEmpty)
        let events: [SeatEvent] = [.dealFinished, .activated(.top)]
        #expect(WireCodec.eventBatches(events) == [events])
    }

    @Test("at most 512 events a batch, order kept, every batch encodable")
    func manySmallEvents() throws {
        let events = (0..<1300).map { SeatEvent.activated(Seat(rawValue: UInt8($0 % 4))!) }
        let batches = WireCodec.eventBatches(events)
        #expect(batches.map(\.count) == [512, 512, 276])
        #expect(Array(batches.joined()) == events)
        for batch in batches {
            let frame = WireCodec.frame(for: .events(batch), sequence: 0)
            #expect(try WireCodec.decodeHostMessage(frame) == .events(batch))
        }
    }

    @Test("big events are cut by bytes before the frame would overflow")
    func bigEvents() throws {
        let collected = SeatEvent.collected(cards: Card.fullDeck, from: .left, to: .top)  // 56 bytes
        let events = Array(repeating: collected, count: 200)
        let batches = WireCodec.eventBatches(events)
        #expect(Array(batches.joined()) == events)
        #expect(batches.count == 3)
        for batch in batches {
            let bytes = WireCodec.encode(.events(batch), sequence: 0)
            #expect(bytes.count <= 4 + Frame.maxBodyLength)
        }
        #expect(batches[0].count == (Frame.maxPayloadLength - 2) / 56)
    }
}

@Suite("Encoding refuses what decoding would refuse")
struct EncodingPreconditionTests {
    @Test("a bad name traps in what the host sends; a hello carries any name, for the host to refuse")
    func badName() async throws {
        await #expect(processExitsWith: .failure) {
            _ = WireCodec.encode(HostMessage.lobby([LobbyPlayer(id: 1, name: " bad", ready: false)]), sequence: 0)
        }
        let bytes = WireCodec.encode(ClientMessage.hello(Hello(name: " bad")), sequence: 0)
        var decoder = FrameDecoder()
        decoder.append(bytes)
        #expect(try WireCodec.decodeClientMessage(#require(try decoder.nextFrame())) == .hello(Hello(name: " bad")))
    }

    @Test("an info with a bad name, a table size outside 2–4 or more players than that traps")
    func badInfo() async {
        await #expect(processExitsWith: .failure) {
            let info = HostInfo(hostName: "", players: 1, maxPlayers: 4, started: false)
            _ = WireCodec.encode(HostMessage.info(info), sequence: 0)
        }
        await #expect(processExitsWith: .failure) {
            let info = HostInfo(hostName: "Ana", players: 1, maxPlayers: 5, started: false)
            _ = WireCodec.encode(HostMessage.info(info), sequence: 0)
        }
        await #expect(processExitsWith: .failure) {
            let info = HostInfo(hostName: "Ana", players: 3, maxPlayers: 2, started: true)
            _ = WireCodec.encode(HostMessage.info(info), sequence: 0)
        }
    }

    @Test("a batch too big for one frame traps")
    func oversizedBatch() async {
        await #expect(processExitsWith: .failure) {
            let collected = SeatEvent.collected(cards: Card.fullDeck, from: .left, to: .top)
            _ = WireCodec.encode(HostMessage.events(Array(repeating: collected, count: 100)), sequence: 0)
        }
    }
}
