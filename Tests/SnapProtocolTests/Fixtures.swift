import Foundation
import SnapBytes
import SnapEngine
import Testing

@testable import SnapProtocol

/// A message in either direction.
enum AnyMessage: Hashable, Sendable {
    case client(ClientMessage)
    case host(HostMessage)

    func encoded(sequence: UInt32) -> [UInt8] {
        switch self {
        case .client(let message): WireCodec.encode(message, sequence: sequence)
        case .host(let message): WireCodec.encode(message, sequence: sequence)
        }
    }

    /// Decodes `frame` in this message's direction.
    func decodeSameDirection(_ frame: Frame) throws(ProtocolError) -> AnyMessage {
        switch self {
        case .client: .client(try WireCodec.decodeClientMessage(frame))
        case .host: .host(try WireCodec.decodeHostMessage(frame))
        }
    }
}

/// One golden frame: `Fixtures/<name>.hex` holds exactly the bytes of `message` sent
/// with `sequence`, length prefix included.
struct Fixture: Sendable, CustomTestStringConvertible {
    var name: String
    var sequence: UInt32
    var message: AnyMessage

    var testDescription: String { name }

    static func client(_ name: String, _ sequence: UInt32, _ message: ClientMessage) -> Fixture {
        Fixture(name: "client-" + name, sequence: sequence, message: .client(message))
    }

    static func host(_ name: String, _ sequence: UInt32, _ message: HostMessage) -> Fixture {
        Fixture(name: "host-" + name, sequence: sequence, message: .host(message))
    }

    /// A one-event `events` message.
    static func event(_ name: String, _ event: SeatEvent) -> Fixture {
        Fixture(name: "event-" + name, sequence: 7, message: .host(.events([event])))
    }

    /// The bytes of the committed fixture file.
    var bytes: [UInt8] {
        get throws {
            let url = try #require(
                Bundle.module.url(forResource: name, withExtension: "hex", subdirectory: "Fixtures"),
                "no fixture file \(name).hex")
            return try parseHex(String(contentsOf: url, encoding: .utf8))
        }
    }
}

/// "AS", "10H", "QD" → a card.
func card(_ name: String) -> Card {
    let suit = Suit.allCases.first { $0.letter == name.last! }!
    let rank = Rank.allCases.first { $0.label == String(name.dropLast()) }!
    return Card(rank, suit)
}

/// Lowercase hex digits; spaces and newlines are ignored, anything else is an error.
func parseHex(_ text: String) throws -> [UInt8] {
    struct BadHex: Error, CustomStringConvertible {
        var description: String
    }
    var digits: [UInt8] = []
    for character in text.unicodeScalars {
        switch character {
        case "0"..."9": digits.append(UInt8(character.value - 48))
        case "a"..."f": digits.append(UInt8(character.value - 97 + 10))
        case " ", "\n", "\r", "\t": continue
        default: throw BadHex(description: "not a lowercase hex digit: \(character)")
        }
    }
    guard digits.count.isMultiple(of: 2) else { throw BadHex(description: "odd number of hex digits") }
    return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
}

func hex(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { byte in
        let digits = Array("0123456789abcdef")
        return String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
    }.joined()
}

/// How a fixture file is laid out: the 13 header bytes grouped as length, magic, type,
/// sequence on the first line; then the payload, 16 bytes a line.
func fixtureText(_ frame: [UInt8]) -> String {
    var lines = [
        [hex(frame[0..<4]), hex(frame[4..<8]), hex(frame[8..<9]), hex(frame[9..<13])].joined(separator: " ")
    ]
    let payload = Array(frame[13...])
    for start in stride(from: 0, to: payload.count, by: 16) {
        lines.append(payload[start..<min(start + 16, payload.count)].map { hex([$0]) }.joined(separator: " "))
    }
    return lines.joined(separator: "\n") + "\n"
}

enum Fixtures {
    static let all: [Fixture] = clientMessages + hostMessages + events

    static let token = SeatToken(bytes: Array(0x10...0x1F))!

    /// Round 2 under way between Ana (bottom, away, 24 closed, 5♣ 7♥ showing) and Bo (top,
    /// 1 win, 25 closed, K♠ showing): Bo to turn, 12 cards turned this round.
    /// The fair deal's example: round 1's seed 0x0123456789ABCDEF and salt 00 01 … 0F,
    /// and SHA-256 of the two (SnapSessionTests checks the digest).
    static let exampleReveal = DealReveal(round: 1, seed: 0x0123_4567_89AB_CDEF, salt: Array(0..<16))
    static let exampleDigest: [UInt8] = hexBytes("81cfa61124de41e648cdb01e76138c3fdd6e47bde90f480c500da135ab5e736b")

    static func hexBytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    static let snapshot: TableSnapshot = {
        var table = TableView(seats: [.bottom, .top])
        table.phase = .playing
        table.round = 2
        table.deckCount = 0
        table.active = .top
        table[.bottom] = TableView.Place(closedCount: 24, open: [card("5C"), card("7H")], isAbsent: true)
        table[.top] = TableView.Place(closedCount: 25, open: [card("KS")], wins: 1)
        return TableSnapshot(table: table, turnsThisRound: 12)
    }()

    static let clientMessages: [Fixture] = [
        .client("hello", 0, .hello(Hello(versions: 1...3, name: "Zoë O'Neil"))),
        .client("hello-rejoin", 0, .hello(Hello(versions: 3...3, name: "Ann", token: Fixtures.token))),
        .client("hello-watch", 0, .hello(Hello(versions: 3...3, name: "Bo", role: .watcher))),
        .client("hello-code", 0, .hello(Hello(versions: 3...3, name: "Ann", joinCode: "K7QX4M"))),
        .client("ready", 1, .ready),
        .client("turn", 2, .turn),
        .client("snap", 3, .snap(SnapCall(seenTurns: 7, reactionMicros: 245_000))),
        .client("leave", 4, .leave),
        .client("pong", 0x0102_0304, .pong(nonce: 0x0123_4567_89AB_CDEF)),
        .client("query", 0, .query),
    ]

    static let hostMessages: [Fixture] = [
        .host("welcome", 0, .welcome(Welcome(version: 3, hostName: "Host", playerID: 2, token: Fixtures.token))),
        .host("welcome-watcher", 0, .welcome(Welcome(version: 3, hostName: "Host", playerID: 255))),
        .host(
            "lobby", 1,
            .lobby([
                LobbyPlayer(id: 0, name: "Ana", ready: true),
                LobbyPlayer(id: 1, name: "Bo-Jin", ready: false),
                LobbyPlayer(id: 2, name: "Zoë", ready: true),
            ])),
        .host("lobby-empty", 2, .lobby([])),
        .host(
            "gameStarted", 3,
            .gameStarted(
                GameStart(
                    yourSeat: .top,
                    players: [
                        SeatedPlayer(seat: .bottom, name: "Ana"),
                        SeatedPlayer(seat: .left, name: "Bo"),
                        SeatedPlayer(seat: .top, name: "Cy"),
                    ],
                    turnLimit: 500, turnTimeoutMillis: 15_000, graceMillis: 30_000))),
        .host(
            "gameStarted-watcher", 5,
            .gameStarted(
                GameStart(
                    yourSeat: nil,
                    players: [SeatedPlayer(seat: .bottom, name: "Ana"), SeatedPlayer(seat: .top, name: "Bo")],
                    turnLimit: nil, graceMillis: 30_000))),
        .host(
            "gameStarted-no-limit", 4,
            .gameStarted(
                GameStart(
                    yourSeat: .bottom,
                    players: [SeatedPlayer(seat: .bottom, name: "Ana"), SeatedPlayer(seat: .top, name: "Bo")],
                    turnLimit: nil))),
        .host(
            "events", 5,
            .events([
                .roundStarted(round: 1, startingSeat: .left),
                .dealt(nil, to: .left),
                .dealt(nil, to: .top),
                .dealFinished,
                .activated(.left),
                .turned(.left, card("QD")),
            ])),
        .host("ping", 0x0102_0304, .ping(nonce: 0xFEDC_BA98_7654_3210)),
        .host("seatLeft", 6, .seatLeft(.right, .dropped)),
        .host("seatLeft-quit", 7, .seatLeft(.left, .quit)),
        .host("seatAway", 10, .seatAway(.top, away: true)),
        .host("watching", 11, .watching(2)),
        .host("snapshot", 12, .snapshot(Fixtures.snapshot)),
        .host("dealCommitted", 13, .dealCommitted(DealCommitment(round: 1, digest: Fixtures.exampleDigest))),
        .host("dealRevealed", 14, .dealRevealed(Fixtures.exampleReveal)),
        .host("wonCounts", 15, .wonCounts([SeatWonCount(seat: .bottom, won: 12), SeatWonCount(seat: .left, won: 0),
                                            SeatWonCount(seat: .top, won: 3)])),
        .host("closing", 8, .closing(.protocolViolation, message: "sequence number 5 where 4 was expected")),
        .host("closing-empty", 9, .closing(.hostQuit, message: "")),
        .host("closing-wrongCode", 0, .closing(.wrongCode, message: "wrong join code")),
        .host("info", 0, .info(HostInfo(hostName: "Zoë", players: 3, maxPlayers: 4, started: true))),
        .host("info-needsCode", 0, .info(HostInfo(hostName: "Zoë", players: 0, maxPlayers: 4, started: false, needsCode: true))),
    ]

    static let events: [Fixture] = [
        .event("roundStarted", .roundStarted(round: 3, startingSeat: .left)),
        .event("dealt-hidden", .dealt(nil, to: .top)),
        .event("dealt-shown", .dealt(card("AS"), to: .top)),
        .event("dealFinished", .dealFinished),
        .event("activated", .activated(.right)),
        .event("turned", .turned(.bottom, card("10H"))),
        .event("recycled", .recycled(.left, count: 17)),
        .event("snapCalled", .snapCalled(.top)),
        .event("snapCorrect", .snapCorrect(caller: .top, matching: [.bottom, .top])),
        .event("collected", .collected(cards: [card("AC"), card("5D"), card("KS")], from: .bottom, to: .top)),
        .event("snapWrong", .snapWrong(caller: .left)),
        .event("paid-hidden", .paid(nil, from: .left, to: .right)),
        .event("paid-shown", .paid(card("7C"), from: .left, to: .right)),
        .event("snapTooLate", .snapTooLate(.right)),
        .event("playerOut", .playerOut(.left)),
        .event("playerLeft", .playerLeft(.right)),
        .event("handedOut-closed-hidden", .handedOut(nil, from: .right, pile: .closed, to: .bottom)),
        .event("handedOut-open-shown", .handedOut(card("JH"), from: .right, pile: .open, to: .top)),
        .event("turnLimitReached", .turnLimitReached),
        .event("roundWon", .roundWon(.top, wins: 2)),
        .event("absent", .absent(.left)),
        .event("returned", .returned(.left)),
        .event("waiting", .waiting),
    ]
}
