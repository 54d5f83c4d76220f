// libFuzzer target for multicast DNS packets (scripts/fuzz --target dns): anyone on the
// local network can send them to port 5353. Built against the SnapLAN
// module (DNSMessage, SnapService: the NIO-free part of LAN discovery), whole.
//
// Input: one UDP payload. Properties (a trap is a finding):
//   - nothing traps, hangs or overflows; a packet over DNSMessage.maxSize is refused;
//   - decoding is deterministic (same message or same DecodingError twice);
//   - a decoded message has as many questions and records as its header says;
//   - every decoded message encodes without trapping, and one that our encoder can
//     represent (labels ≤ 63 bytes, names ≤ 255, TXT strings ≤ 255, ≤ 9000 bytes in all)
//     decodes from its encoding to exactly the same message (names lose their
//     compression and flags other than QR are dropped, so bytes are not compared);
//   - SnapService.games(in:) takes any decoded message; every game it finds is one the
//     Join list may show (a valid name, port > 0, 2–4 seats, no more taken than exist),
//     and a host announcing that game gives exactly that game back; LANGameTable and
//     asksForGames take the message too.

import SnapBytes
import SnapLAN
import SnapProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = inputBytes(data, size)
    let first = decode(input)
    if decode(input) != first { fail("DNSMessage.decode is not deterministic") }
    if input.count > DNSMessage.maxSize, case .success = first { fail("a packet of \(input.count) bytes was decoded") }
    guard case .success(let message) = first else { return 0 }

    let counts = (0..<4).map { Int(input[4 + 2 * $0]) << 8 | Int(input[5 + 2 * $0]) }
    if [message.questions.count, message.answers.count, message.authorities.count, message.additionals.count] != counts {
        fail("decoded counts differ from the header's \(counts)")
    }

    let encoded = message.encoded()
    if representable(message), encoded.count <= DNSMessage.maxSize {
        switch decode(encoded) {
        case .success(let again): if again != message { fail("\(message) round-trips to \(again)") }
        case .failure(let error): fail("\(message) encodes to bytes that do not decode: \(error)")
        }
    }

    checkGames(message)
    var table = LANGameTable()
    table.update(message, source: "192.0.2.1", now: .seconds(1))
    _ = table.games(now: .seconds(2))
    _ = SnapService.asksForGames(message, instance: "Ann on box")
    return 0
}

private func decode(_ bytes: [UInt8]) -> Result<DNSMessage, DNSMessage.DecodingError> {
    Result { () throws(DNSMessage.DecodingError) in try DNSMessage.decode(bytes) }
}

private func representable(_ name: DNSName) -> Bool {
    name.labels.allSatisfy { !$0.isEmpty && $0.utf8.count <= 63 } && name.labels.reduce(0) { $0 + $1.utf8.count + 1 } <= 255
}

private func representable(_ message: DNSMessage) -> Bool {
    message.questions.allSatisfy { representable($0.name) }
        && (message.answers + message.authorities + message.additionals).allSatisfy { record in
            guard representable(record.name) else { return false }
            switch record.data {
            case .ptr(let name), .srv(_, _, _, let name): return representable(name)
            case .txt(let strings): return !strings.isEmpty && strings.allSatisfy { $0.utf8.count <= 255 }
            case .a(let bytes): return bytes.count == 4
            case .other: return true
            }
        }
}

private func checkGames(_ message: DNSMessage) {
    for (game, ttl) in SnapService.games(in: message, source: "192.0.2.1") {
        guard PlayerName.isValid(game.hostName), game.port > 0, game.port <= 65535, (2...4).contains(game.maxPlayers),
              game.players <= game.maxPlayers, !game.address.isEmpty else { fail("an impossible game: \(game)") }
        // A game we could announce ourselves must come back unchanged.
        let parts = game.address.split(separator: ".").compactMap { UInt8($0) }
        let labels = [game.instance, game.machine]
        guard parts.count == 4, labels.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 63 }) else { continue }
        let announcement = SnapService.announcement(game, addresses: [parts], ttl: ttl)
        guard let heard = try? DNSMessage.decode(announcement.encoded()) else { fail("the announcement of \(game) does not decode") }
        let again = SnapService.games(in: heard, source: "198.51.100.1")
        if again.count != 1 || again[0].game != game || again[0].ttl != ttl { fail("\(game) announced comes back as \(again)") }
    }
}

func fuzzSeeds() -> [(String, [UInt8])] {
    let game = LANGame(instance: "Ann on box", hostName: "Ann", machine: "box", address: "192.168.1.20", port: 47123,
                       players: 2, maxPlayers: 4, started: false, needsCode: true)
    var seeds: [(String, [UInt8])] = [
        ("announcement", SnapService.announcement(game, addresses: [[192, 168, 1, 20]]).encoded()),
        ("goodbye", SnapService.announcement(game, addresses: [], ttl: 0).encoded()),
        ("query", SnapService.query.encoded()),
        ("other-types", DNSMessage(id: 9, isResponse: true,
                                   questions: [DNSQuestion(name: DNSName("box.local"), type: 28, unicastResponse: true)],
                                   answers: [DNSRecord(name: DNSName("box.local"), data: .other(type: 28, bytes: Array(repeating: 1, count: 16)), ttl: 120)],
                                   additionals: [DNSRecord(name: DNSName("x.local"), data: .txt([]), ttl: 1)]).encoded()),
    ]
    // A response as other responders send it: names compressed with pointers back to offset 12.
    var compressed: [UInt8] = [0, 0, 0x84, 0, 0, 0, 0, 2, 0, 0, 0, 0]
    compressed += [5] + Array("_snap".utf8) + [4] + Array("_tcp".utf8) + [5] + Array("local".utf8) + [0]
    compressed += [0, 12, 0, 1, 0, 0, 0, 120, 0, 6, 3] + Array("Bob".utf8) + [0xC0, 12]
    compressed += [0xC0, 40, 0, 16, 0x80, 1, 0, 0, 0, 120, 0, 9, 8] + Array("name=Bob".utf8)
    seeds.append(("compressed", compressed))
    return seeds
}
