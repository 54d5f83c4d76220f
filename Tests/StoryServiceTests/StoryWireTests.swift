import SnapProtocol
import StoryEngine
import Testing
@testable import StoryService

@Suite("Story service messages and host")
struct StoryWireTests {
    let key = SeatToken(bytes: Array(1...16))!
    let otherKey = SeatToken(bytes: Array(repeating: 7, count: 16))!

    func frames(_ bytes: [UInt8]) throws -> [Frame] {
        var decoder = FrameDecoder(maxBodyLength: StoryWire.maxBodyLength)
        decoder.append(bytes)
        var frames: [Frame] = []
        while let frame = try decoder.nextFrame() { frames.append(frame) }
        return frames
    }

    @Test("every request and reply survives the wire, a full 4096-byte story included")
    func roundTrip() throws {
        let requests: [StoryRequest] = [
            .hello(version: 1, name: "Ann", key: key.bytes, joinCode: "ABCDEF"), .create(others: ["Bob", "Cy"], title: "The dragon"),
            .automatch, .list, .show(StoryMatchID(9)), .turn(StoryMatchID(3), text: "Once upon a time 🐉"),
            .quit(StoryMatchID(4)), .watch, .ping(42),
        ]
        for (index, request) in requests.enumerated() {
            let decoded = try frames(request.encode(sequence: UInt32(index)))
            #expect(decoded.count == 1 && decoded[0].sequence == UInt32(index))
            #expect(try StoryRequest.decode(decoded[0]) == request)
        }
        let names = (1...16).map { "Player \($0)" }
        let full = StoryMatch(id: StoryMatchID(5), title: String(repeating: "t", count: 60),
                              participants: names.map { StoryParticipant(name: $0, quit: $0.hasSuffix("3")) },
                              places: 16, current: 15, text: String(repeating: "é", count: 2048), createdAt: 1, lastTurnAt: 2, turnsTaken: 20)
        let replies: [StoryReply] = [
            .welcome(version: 1, name: "Ann"), .match(full), .update(full), .listed(count: 3),
            .refused(.notYourTurn, "it is not your turn"), .pong(7),
        ]
        for reply in replies {
            #expect(try StoryReply.decode(try frames(reply.encode(sequence: 0))[0]) == reply)
        }
    }

    @Test("malformed requests are errors, never traps: unknown type, truncated, oversized text, trailing bytes")
    func malformed() throws {
        #expect(throws: ProtocolError.unknownMessageType(0x01)) { try StoryRequest.decode(Frame(type: 0x01, sequence: 0)) }
        #expect(throws: ProtocolError.truncatedPayload(type: 0x85)) { try StoryRequest.decode(Frame(type: 0x85, sequence: 0, payload: [0, 0])) }
        let long: [UInt8] = [0, 0, 0, 1, 0x03, 0xE9] + Array(repeating: 0x61, count: 1001)
        #expect(throws: ProtocolError.countOutOfRange(.storyTextBytes, count: 1001, allowed: 0...1000)) {
            try StoryRequest.decode(Frame(type: 0x85, sequence: 0, payload: long))
        }
        #expect(throws: ProtocolError.trailingBytes(type: 0x82, count: 1)) { try StoryRequest.decode(Frame(type: 0x82, sequence: 0, payload: [1])) }
        #expect(throws: ProtocolError.invalidUTF8) {
            try StoryRequest.decode(Frame(type: 0x85, sequence: 0, payload: [0, 0, 0, 1, 0, 2, 0xC3, 0x28]))
        }
        // Story frames may be longer than Snap!'s 4096, but not without limit.
        var decoder = FrameDecoder(maxBodyLength: StoryWire.maxBodyLength)
        decoder.append([0, 0, 0x40, 0x01])
        #expect(throws: ProtocolError.frameTooLong(length: 16_385)) { try decoder.nextFrame() }
    }

    @Test("journal records replay to the same matches and keys")
    func replay() throws {
        var host = StoryHost()
        guard case .welcome(let register?) = host.signIn(version: 1, name: "Ann", key: key.bytes) else { Issue.record("no welcome"); return }
        host.register(register)
        var records = [register.bytes]
        for request in [StoryRequest.create(others: ["Bob"], title: "T"), .automatch, .turn(StoryMatchID(1), text: "Hello"), .quit(StoryMatchID(2))] {
            let (record, _) = try host.apply(request, by: "Ann", at: 100).get()
            records.append(record.bytes)
        }
        var copy = StoryHost()
        #expect(copy.replay(records).isEmpty)
        #expect(copy.book.matches == host.book.matches)
        #expect(copy.keys == host.keys)
        #expect(copy.book[StoryMatchID(1)]!.text == "Hello")
    }

    @Test("a name's first key is registered; another key for it is refused; a bad name is refused")
    func identity() throws {
        var host = StoryHost()
        guard case .welcome(let register?) = host.signIn(version: 1, name: "Ann", key: key.bytes) else { Issue.record("no welcome"); return }
        host.register(register)
        #expect(host.signIn(version: 1, name: "Ann", key: key.bytes) == .welcome(register: nil))
        guard case .refused(.wrongKey, let message) = host.signIn(version: 1, name: "Ann", key: otherKey.bytes) else {
            Issue.record("another key was let in"); return
        }
        #expect(message.contains("belongs to someone else"))
        guard case .refused(.signIn, _) = host.signIn(version: 1, name: "  ", key: key.bytes) else { Issue.record("a blank name was let in"); return }
        guard case .refused(.signIn, _) = host.signIn(version: 2, name: "Bob", key: key.bytes) else { Issue.record("version 2 was let in"); return }
        // Acting is always as the signed-in name: a turn by Bob in Ann's match is Bob's.
        _ = try host.apply(.create(others: ["Bob"], title: ""), by: "Ann", at: 1).get()
        guard case .failure(let error) = host.apply(.turn(StoryMatchID(1), text: "x"), by: "Bob", at: 2) else {
            Issue.record("Bob wrote in Ann's turn"); return
        }
        #expect(error.refusal == .notYourTurn)
    }
}
