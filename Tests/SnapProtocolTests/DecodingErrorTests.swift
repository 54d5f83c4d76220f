import SnapBytes
import SnapEngine
import Testing

@testable import SnapProtocol

private func client(_ type: UInt8, _ payload: [UInt8]) throws(ProtocolError) -> ClientMessage {
    try WireCodec.decodeClientMessage(Frame(type: type, sequence: 0, payload: payload))
}

private func host(_ type: UInt8, _ payload: [UInt8]) throws(ProtocolError) -> HostMessage {
    try WireCodec.decodeHostMessage(Frame(type: type, sequence: 0, payload: payload))
}

/// An `events` message holding one event with these bytes.
private func event(_ bytes: [UInt8]) throws(ProtocolError) -> HostMessage {
    try host(0x84, [0, 1] + bytes)
}

/// u8 length + bytes.
private func string(_ bytes: [UInt8]) -> [UInt8] { [UInt8(bytes.count)] + bytes }
private func string(_ text: String) -> [UInt8] { string(Array(text.utf8)) }

/// Each way a payload can be wrong gives its own typed error, never a trap.
@Suite("Decoding errors")
struct DecodingErrorTests {
    @Test("every proper prefix of a payload is truncated; one byte more is trailing", arguments: Fixtures.all)
    func truncatedAndTrailing(fixture: Fixture) throws {
        let frame = WireCodec.frame(for: fixture.message, sequence: fixture.sequence)
        for cut in 0..<frame.payload.count {
            let short = Frame(type: frame.type, sequence: frame.sequence, payload: Array(frame.payload[..<cut]))
            #expect(throws: ProtocolError.truncatedPayload(type: frame.type), "cut at \(cut)") {
                try fixture.message.decodeSameDirection(short)
            }
        }
        for extra in 1...3 {
            let long = Frame(
                type: frame.type, sequence: frame.sequence, payload: frame.payload + Array(repeating: 0, count: extra))
            #expect(throws: ProtocolError.trailingBytes(type: frame.type, count: extra)) {
                try fixture.message.decodeSameDirection(long)
            }
        }
    }

    @Test("unknown message types, including the other direction's")
    func unknownTypes() {
        for type: UInt8 in [0x00, 0x08, 0x80, 0x81, 0x88, 0xFF] {
            #expect(throws: ProtocolError.unknownMessageType(type)) { try client(type, []) }
        }
        for type: UInt8 in [0x00, 0x01, 0x07, 0x80, 0x8F, 0xFF] {
            #expect(throws: ProtocolError.unknownMessageType(type)) { try host(type, []) }
        }
    }

    @Test("seats other than 0–3")
    func badSeats() {
        for seat: UInt8 in [4, 5, 0x80, 0xFF] {
            #expect(throws: ProtocolError.badSeat(seat)) { try host(0x86, [seat, 1]) }
            #expect(throws: ProtocolError.badSeat(seat)) { try event([4, seat]) }
            #expect(throws: ProtocolError.badSeat(seat)) { try event([1, 0, 0, 0, 1, seat]) }
            #expect(throws: ProtocolError.badSeat(seat)) { try event([2, 0xFF, seat]) }
            #expect(throws: ProtocolError.badSeat(seat)) { try event([8, 0, 2, 0, seat]) }
            #expect(throws: ProtocolError.badSeat(seat)) { try event([9, 0, seat, 1, 5]) }
            #expect(throws: ProtocolError.badSeat(seat)) { try event([15, 0xFF, 1, 0, seat]) }
            // yourSeat 0xFF is a watcher's: only 4–254 are errors there.
            if seat != 0xFF {
                #expect(throws: ProtocolError.badSeat(seat)) {
                    try host(0x83, [seat, 2, 0] + string("A") + [2] + string("B") + [UInt8](repeating: 0, count: 12))
                }
            }
            #expect(throws: ProtocolError.badSeat(seat)) {
                try host(0x83, [0, 2, 0] + string("A") + [seat] + string("B") + [UInt8](repeating: 0, count: 12))
            }
        }
    }

    @Test("cards 52…254 anywhere; 255 where the card is always face up")
    func badCards() throws {
        for value: UInt8 in 52...0xFE {
            #expect(throws: ProtocolError.badCard(value)) { try event([2, value, 0]) }
            #expect(throws: ProtocolError.badCard(value)) { try event([5, 0, value]) }
            #expect(throws: ProtocolError.badCard(value)) { try event([9, 0, 1, 2, 3, value]) }
            #expect(throws: ProtocolError.badCard(value)) { try event([11, value, 0, 1]) }
            #expect(throws: ProtocolError.badCard(value)) { try event([15, value, 0, 1, 2]) }
        }
        #expect(throws: ProtocolError.hiddenCardNotAllowed(eventTag: 5)) { try event([5, 0, 0xFF]) }
        #expect(throws: ProtocolError.hiddenCardNotAllowed(eventTag: 9)) { try event([9, 0, 1, 2, 3, 0xFF]) }
        // …and where it may be face down, 0xFF is nil and 0–51 are cards.
        #expect(try event([2, 0xFF, 3]) == .events([.dealt(nil, to: .right)]))
        #expect(try event([11, 0x33, 3, 0]) == .events([.paid(card("KS"), from: .right, to: .bottom)]))
        #expect(try event([15, 0xFF, 1, 0, 2]) == .events([.handedOut(nil, from: .left, pile: .closed, to: .top)]))
    }

    @Test("a snapshot's seats in any order but ascending are refused (a fuzz finding: they decoded, then re-encoded sorted)")
    func snapshotSeatOrder() throws {
        let head: [UInt8] = [0, 0, 0, 2, 2, 0xFF, 2, 0, 0, 0, 0, 0, 12, 2]
        let top: [UInt8] = [2, 1, 0, 0, 25, 0, 0, 0, 1, 1, 51]
        let bottom: [UInt8] = [0, 1, 1, 0, 24, 0, 0, 0, 0, 2, 4, 32]
        let sorted = try host(0x8B, head + bottom + top)
        #expect(WireCodec.frame(for: sorted, sequence: 0).payload == head + bottom + top)
        #expect(throws: ProtocolError.seatsOutOfOrder(.bottom, after: .top)) { try host(0x8B, head + top + bottom) }
    }

    @Test("unknown enum values: leave and close reasons, piles, flags, event tags")
    func badEnums() {
        for raw: UInt8 in [0, 3, 0xFF] {
            #expect(throws: ProtocolError.badLeaveReason(raw)) { try host(0x86, [0, raw]) }
        }
        for raw: UInt8 in [0, 12, 0xFF] {
            #expect(throws: ProtocolError.badCloseReason(raw)) { try host(0x87, [raw, 0]) }
        }
        for raw in CloseReason.allCases.map(\.rawValue) {
            #expect(throws: Never.self) { try host(0x87, [raw, 0]) }
        }
        for raw: UInt8 in [2, 0xFF] {
            #expect(throws: ProtocolError.badPile(raw)) { try event([15, 0xFF, 0, raw, 1]) }
            #expect(throws: ProtocolError.badBool(raw)) { try host(0x82, [1, 0] + string("Ana") + [raw]) }
            #expect(throws: ProtocolError.badBool(raw)) { try host(0x88, string("Ana") + [1, 4, raw, 0]) }
            #expect(throws: ProtocolError.badBool(raw)) { try host(0x88, string("Ana") + [1, 4, 0, raw]) }
        }
        for tag: UInt8 in [0, 21, 0x80, 0xFF] {
            #expect(throws: ProtocolError.unknownEventTag(tag)) { try event([tag]) }
        }
    }

    @Test("counts out of range")
    func counts() {
        #expect(throws: ProtocolError.countOutOfRange(.lobbyPlayers, count: 5, allowed: 0...4)) {
            try host(0x82, [5])
        }
        for count: UInt8 in [0, 1, 5, 0xFF] {
            #expect(throws: ProtocolError.countOutOfRange(.seatedPlayers, count: Int(count), allowed: 2...4)) {
                try host(0x83, [0, count])
            }
        }
        for count: UInt16 in [0, 513, 0xFFFF] {
            #expect(throws: ProtocolError.countOutOfRange(.events, count: Int(count), allowed: 1...512)) {
                try host(0x84, [UInt8(count >> 8), UInt8(count & 0xFF)] + Array(repeating: 3, count: 600))
            }
        }
        for count: UInt8 in [0, 53, 0xFF] {
            #expect(throws: ProtocolError.countOutOfRange(.recycledCards, count: Int(count), allowed: 1...52)) {
                try event([6, 0, count])
            }
            #expect(throws: ProtocolError.countOutOfRange(.collectedCards, count: Int(count), allowed: 1...52)) {
                try event([9, 0, 1, count] + Array(0..<52))
            }
        }
        for count: UInt8 in [0, 1, 5] {
            #expect(throws: ProtocolError.countOutOfRange(.matchingSeats, count: Int(count), allowed: 2...4)) {
                try event([8, 0, count, 0, 1, 2, 3, 0])
            }
        }
        // The bounds themselves are fine.
        #expect(throws: Never.self) { try host(0x84, [2, 0] + Array(repeating: 3, count: 512)) }
        #expect(throws: Never.self) { try event([9, 0, 1, 52] + Array(0..<52)) }
        #expect(throws: Never.self) { try event([8, 0, 4, 0, 1, 2, 3]) }
        #expect(throws: Never.self) { try event([6, 0, 52]) }
        #expect(throws: Never.self) { try host(0x82, [0]) }
    }

    @Test("a claimed count longer than the payload is truncation, not an allocation")
    func countBeyondPayload() {
        #expect(throws: ProtocolError.truncatedPayload(type: 0x84)) { try host(0x84, [2, 0, 3]) }
        #expect(throws: ProtocolError.truncatedPayload(type: 0x84)) { try event([9, 0, 1, 52, 1, 2]) }
        #expect(throws: ProtocolError.truncatedPayload(type: 0x81)) { try host(0x81, [0, 1, 0xFF, 0x41]) }
        #expect(throws: ProtocolError.truncatedPayload(type: 0x88)) { try host(0x88, [3, 0x41, 0x6E]) }
    }

    @Test("info: the table size is 2–4, the players at most that, the started flag 0 or 1")
    func info() throws {
        let name = string("Ana")
        // Every valid combination decodes, and re-encodes to the same payload.
        for maxPlayers: UInt8 in 2...4 {
            for players: UInt8 in 0...maxPlayers {
                for started: UInt8 in 0...1 {
                    for needsCode: UInt8 in 0...1 {
                        let payload = name + [players, maxPlayers, started, needsCode]
                        let expected = HostInfo(
                            hostName: "Ana", players: players, maxPlayers: maxPlayers, started: started == 1,
                            needsCode: needsCode == 1)
                        #expect(try host(0x88, payload) == .info(expected))
                        #expect(WireCodec.frame(for: .info(expected), sequence: 0).payload == payload)
                    }
                }
            }
        }
        for maxPlayers: UInt8 in [0, 1, 5, 0xFF] {
            let error = ProtocolError.countOutOfRange(.maxPlayers, count: Int(maxPlayers), allowed: 2...4)
            #expect(throws: error) { try host(0x88, name + [0, maxPlayers, 0, 0]) }
            // The table size is checked as soon as it is read: before the players
            // (here more than it), before the flag after it, and before truncation.
            #expect(throws: error) { try host(0x88, name + [9, maxPlayers, 7]) }
            #expect(throws: error) { try host(0x88, name + [1, maxPlayers]) }
        }
        for (players, maxPlayers): (UInt8, UInt8) in [(3, 2), (4, 3), (5, 4), (0xFF, 4), (0xFF, 2)] {
            #expect(throws: ProtocolError.tooManyPlayers(players: players, maxPlayers: maxPlayers)) {
                try host(0x88, name + [players, maxPlayers, 1, 0])
            }
        }
        // …but only once the whole message is read: a bad flag or a cut comes first.
        #expect(throws: ProtocolError.badBool(2)) { try host(0x88, name + [5, 4, 2, 0]) }
        #expect(throws: ProtocolError.truncatedPayload(type: 0x88)) { try host(0x88, name + [5, 4, 1]) }
        // Each cut and each excess byte, spelled out.
        let payload = name + [1, 4, 0, 1]
        for cut in 0..<payload.count {
            #expect(throws: ProtocolError.truncatedPayload(type: 0x88), "cut at \(cut)") {
                try host(0x88, Array(payload[..<cut]))
            }
        }
        #expect(throws: ProtocolError.trailingBytes(type: 0x88, count: 1)) { try host(0x88, payload + [0]) }
        #expect(throws: ProtocolError.trailingBytes(type: 0x88, count: 2)) { try host(0x88, payload + [1, 4]) }
    }

    @Test("hello's join code (version 3): 0–16 bytes of UTF-8, checked before its bytes are read")
    func joinCodeField() throws {
        let head: [UInt8] = [0, 3, 0, 3] + string("Ann")
        let rest = [UInt8](repeating: 0, count: 17)  // then role 0 and no token
        #expect(try client(0x01, head + string("K7QX4M") + rest) == .hello(Hello(versions: 3...3, name: "Ann", joinCode: "K7QX4M")))
        #expect(try client(0x01, head + [0] + rest) == .hello(Hello(versions: 3...3, name: "Ann")))
        let sixteen = String(repeating: "x", count: 16)
        #expect(try client(0x01, head + string(sixteen) + rest) == .hello(Hello(versions: 3...3, name: "Ann", joinCode: sixteen)))
        // 17 bytes, or a length far beyond the payload: refused on the length alone.
        #expect(throws: ProtocolError.countOutOfRange(.joinCodeBytes, count: 17, allowed: 0...16)) {
            try client(0x01, head + string(String(repeating: "x", count: 17)))
        }
        #expect(throws: ProtocolError.countOutOfRange(.joinCodeBytes, count: 200, allowed: 0...16)) {
            try client(0x01, head + [200])
        }
        // An offer reaching version 3 must have the field; one that stops before 3 has
        // none (so the host can still answer versionUnsupported); a code must be UTF-8.
        #expect(throws: ProtocolError.truncatedPayload(type: 0x01)) { try client(0x01, head) }
        #expect(try client(0x01, [0, 1, 0, 2] + string("Ann")) == .hello(Hello(versions: 1...2, name: "Ann")))
        #expect(throws: ProtocolError.trailingBytes(type: 0x01, count: 1)) { try client(0x01, [0, 2, 0, 2] + string("Ann") + [0]) }
        #expect(try client(0x01, [0, 2, 0, 9] + string("Ann") + [0] + rest) == .hello(Hello(versions: 2...9, name: "Ann")))
        #expect(throws: ProtocolError.invalidUTF8) { try client(0x01, head + [2, 0xC3, 0x41]) }
        #expect(throws: ProtocolError.trailingBytes(type: 0x01, count: 1)) { try client(0x01, head + [0] + rest + [0]) }
        #expect(throws: ProtocolError.badRole(2)) { try client(0x01, head + [0, 2] + [UInt8](repeating: 0, count: 16)) }
    }

    @Test("query: an empty payload, nothing else")
    func query() throws {
        #expect(try client(0x07, []) == .query)
        for extra: [UInt8] in [[0], [0x07], [0, 0, 0, 0, 0, 0, 0, 0], Array(string("Ana"))] {
            #expect(throws: ProtocolError.trailingBytes(type: 0x07, count: extra.count)) { try client(0x07, extra) }
        }
        // A hello's payload behind a query's type is still a query with trailing bytes.
        #expect(throws: ProtocolError.trailingBytes(type: 0x07, count: 8)) {
            try client(0x07, [0, 1, 0, 1] + string("Ana"))
        }
    }

    @Test("duplicates and contradictions")
    func duplicates() {
        #expect(throws: ProtocolError.duplicateSeat(.top)) { try event([8, 0, 2, 2, 2]) }
        #expect(throws: ProtocolError.duplicateCard(card("AS"))) { try event([9, 0, 1, 3, 39, 1, 39]) }
        #expect(throws: ProtocolError.duplicatePlayerID(3)) {
            try host(0x82, [2, 3] + string("Ana") + [0, 3] + string("Bo") + [0])
        }
        #expect(throws: ProtocolError.duplicateSeat(.bottom)) {
            try host(0x83, [0, 2, 0] + string("A") + [0] + string("B") + [UInt8](repeating: 0, count: 12))
        }
        #expect(throws: ProtocolError.yourSeatNotPlaying(.left)) {
            try host(0x83, [1, 2, 0] + string("A") + [2] + string("B") + [UInt8](repeating: 0, count: 12))
        }
        #expect(throws: ProtocolError.badVersionRange(min: 3, max: 2)) {
            try client(0x01, [0, 3, 0, 2] + string("Ana"))
        }
    }

    static let invalidUTF8: [[UInt8]] = [
        [0xC3],  // a lead byte with nothing after it
        [0x41, 0xFF],  // never valid
        [0x80],  // a continuation byte alone
        [0xC0, 0x80],  // overlong NUL
        [0xE0, 0x80, 0x80],  // overlong
        [0xED, 0xA0, 0x80],  // a UTF-16 surrogate
        [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
        [0x41, 0xE2, 0x82],  // cut in the middle of a scalar
    ]

    @Test("invalid UTF-8 in every string field", arguments: invalidUTF8)
    func badUTF8(bytes: [UInt8]) {
        #expect(throws: ProtocolError.invalidUTF8) { try client(0x01, [0, 1, 0, 1] + string(bytes)) }
        #expect(throws: ProtocolError.invalidUTF8) { try host(0x81, [0, 1] + string(bytes) + [1]) }
        #expect(throws: ProtocolError.invalidUTF8) { try host(0x82, [1, 0] + string(bytes) + [1]) }
        #expect(throws: ProtocolError.invalidUTF8) {
            try host(0x83, [0, 2, 0] + string(bytes) + [2] + string("B") + [UInt8](repeating: 0, count: 12))
        }
        #expect(throws: ProtocolError.invalidUTF8) { try host(0x87, [6] + string(bytes)) }
        #expect(throws: ProtocolError.invalidUTF8) { try host(0x88, string(bytes) + [1, 4, 0, 0]) }
    }

    @Test("bad names are refused in every host name field; a hello's name is left to the host to judge")
    func badNamesOnTheWire() throws {
        let name = string("  two")
        let error = ProtocolError.badName(.leadingOrTrailingWhitespace)
        // The host answers a bad hello name with closing(badName), so it must decode.
        #expect(try client(0x01, [0, 1, 0, 1] + name) == .hello(Hello(versions: 1...1, name: "  two")))
        #expect(try client(0x01, [0, 1, 0, 1, 0]) == .hello(Hello(versions: 1...1, name: "")))
        #expect(throws: error) { try host(0x81, [0, 1] + name + [1] + [UInt8](repeating: 0, count: 16)) }
        #expect(throws: error) { try host(0x82, [1, 0] + name + [1]) }
        #expect(throws: error) { try host(0x83, [0, 2, 0] + name + [2] + string("B") + [UInt8](repeating: 0, count: 12)) }
        #expect(throws: error) { try host(0x88, name + [1, 4, 0, 0]) }
        #expect(throws: ProtocolError.badName(.empty)) { try host(0x88, [0, 1, 4, 0, 0]) }
        #expect(throws: ProtocolError.badName(.forbiddenCharacter("🎉"))) {
            try host(0x88, string("A🎉") + [1, 4, 0, 0])
        }
        #expect(throws: ProtocolError.badName(.tooManyCharacters(21))) {
            try host(0x88, string(String(repeating: "a", count: 21)) + [1, 4, 0, 0])
        }
    }

    @Test("closing messages: up to 200 bytes, no control characters")
    func closingMessages() throws {
        let longest = String(repeating: "é", count: 100)
        #expect(try host(0x87, [6] + string(longest)) == .closing(.protocolViolation, message: longest))
        #expect(throws: ProtocolError.badCloseMessage(.tooLong(bytes: 201))) {
            try host(0x87, [6] + string(longest + "!"))
        }
        for control in ["\n", "\t", "\u{0}", "\u{1B}", "\u{7F}", "\u{85}"] {
            #expect(throws: ProtocolError.badCloseMessage(.controlCharacter(control.unicodeScalars.first!))) {
                try host(0x87, [6] + string("bye" + control))
            }
        }
        let text = "Zoë 🎉 left"
        #expect(try host(0x87, [6] + string(text)) == .closing(.protocolViolation, message: text))
    }

    @Test("every error has a printable description that fits in a closing message")
    func descriptions() {
        let errors: [ProtocolError] = [
            .frameTooLong(length: 0xFFFF_FFFF), .frameTooShort(length: 0), .badMagic,
            .sequenceGap(expected: 4, got: 9), .unknownMessageType(0xAB), .truncatedPayload(type: 0x81),
            .trailingBytes(type: 2, count: 1), .unknownEventTag(99),
            .countOutOfRange(.collectedCards, count: 0, allowed: 1...52), .badSeat(9), .badCard(52),
            .hiddenCardNotAllowed(eventTag: 5), .badPile(2), .badBool(3), .badLeaveReason(0),
            .badCloseReason(0), .badVersionRange(min: 2, max: 1), .duplicateSeat(.top),
            .duplicateCard(card("AS")), .duplicatePlayerID(1), .yourSeatNotPlaying(.left),
            .tooManyPlayers(players: 255, maxPlayers: 4), .countOutOfRange(.maxPlayers, count: 255, allowed: 2...4),
            .invalidUTF8,
            .badName(.empty), .badName(.tooManyCharacters(21)), .badName(.tooManyBytes(65)),
            .badName(.leadingOrTrailingWhitespace), .badName(.consecutiveSpaces),
            .badName(.forbiddenCharacter("\u{7}")), .badName(.forbiddenCharacter("🎉")),
            .badCloseMessage(.tooLong(bytes: 300)), .badCloseMessage(.controlCharacter("\n")),
        ]
        for error in errors {
            #expect(throws: Never.self, "\(error)") { try CloseMessage.validate(error.description) }
            #expect(!error.description.isEmpty)
        }
        #expect(ProtocolError.unknownMessageType(0xAB).description == "unknown message type 0xab")
        #expect(ProtocolError.badName(.forbiddenCharacter("\u{7}")).description.contains("U+0007"))
        #expect(
            ProtocolError.tooManyPlayers(players: 5, maxPlayers: 4).description
                == "5 players at a table for at most 4")
        #expect(
            ProtocolError.countOutOfRange(.maxPlayers, count: 5, allowed: 2...4).description
                == "table size 5 is outside 2–4")
    }
}
