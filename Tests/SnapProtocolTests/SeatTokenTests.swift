import SnapBytes
import SnapEngine
import SnapProtocol
import Testing

@Suite("Seat tokens as text")
struct SeatTokenTests {
    @Test("32 hex digits, either case, read as the token they spell")
    func hexRoundTrip() throws {
        let token = try #require(SeatToken(bytes: Array(200...215)))
        #expect(SeatToken(hex: token.hex) == token)
        #expect(SeatToken(hex: token.hex.uppercased()) == token)
    }

    // Found by scripts/fuzz --target secret (Fuzz/seeds/secret/sign-in-hex): UInt8(_:radix:)
    // takes a sign, so "+0" and "-0" passed for hex digit pairs.
    @Test("a sign, a blank or any other non-digit is no token", arguments: [
        "0000+000000000000000000000000001", "-0000000000000000000000000000001",
        "000000000000000000000000000000 1", "0x000000000000000000000000000001", "g0000000000000000000000000000001",
    ])
    func onlyHexDigits(text: String) {
        #expect(text.utf8.count == 32)
        #expect(SeatToken(hex: text) == nil)
    }
}

@Suite("Match records from a journal")
struct MatchRecordFindingsTests {
    // Found by scripts/fuzz --target journal (Fuzz/seeds/journal/seat-twice): a started
    // record listing a seat twice decoded, re-encoded differently, and would have trapped
    // Game(seats:) when `snapcards replay` folded it.
    @Test("a started record with a seat twice is refused")
    func seatTwice() throws {
        let start = MatchStart(hostName: "Zoë", seed: 1, rules: Rules(),
                               players: [SeatedPlayer(seat: .bottom, name: "Ann"), SeatedPlayer(seat: .left, name: "Bo")],
                               startedAt: 1)
        var bytes = MatchRecordCodec.encode(MatchRecord(sequence: 0, timeMicros: 0, entry: .started(start)))
        #expect(try MatchRecordCodec.decode(bytes) == MatchRecord(sequence: 0, timeMicros: 0, entry: .started(start)))
        // The second player's seat byte: after kind, sequence, time, host name, seed, turn
        // limit, started at, rounds, bot level, count, the first seat, name and token.
        let second = 1 + 8 + 8 + (1 + 4) + 8 + 4 + 8 + 4 + 1 + 1 + (1 + 1 + 3 + 16)
        #expect(bytes[second] == Seat.left.rawValue)
        bytes[second] = Seat.bottom.rawValue
        #expect(throws: ProtocolError.duplicateSeat(.bottom)) { try MatchRecordCodec.decode(bytes) }
    }
}
