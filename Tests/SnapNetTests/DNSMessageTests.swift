import SnapBytes
import Testing
@testable import SnapNet
@testable import SnapLAN
@testable import SnapPlatform
import SnapProtocol

/// The multicast DNS messages of LAN discovery, without any socket.
@Suite("DNS-SD messages for _snap._tcp")
struct DNSMessageTests {
    static let game = LANGame(instance: "Zoë on kitchen", hostName: "Zoë", machine: "kitchen", address: "192.168.1.20",
                              port: 7777, players: 2, maxPlayers: 4, started: false, needsCode: true)

    @Test("an announcement round-trips, and reads back as the game it announces")
    func announcementRoundTrip() throws {
        let message = SnapService.announcement(Self.game, addresses: [[192, 168, 1, 20]])
        let bytes = message.encoded()
        let decoded = try DNSMessage.decode(bytes)
        #expect(decoded == message)
        let games = SnapService.games(in: decoded, source: "10.0.0.9")
        #expect(games.count == 1)
        #expect(games.first?.game == Self.game)
        #expect(games.first?.ttl == SnapService.ttl)
        // The TXT record says what the Join list shows, and that a code is needed, never the code.
        let txt = message.answers.compactMap { if case .txt(let strings) = $0.data { strings } else { nil } }.first
        #expect(txt == ["v=3", "name=Zoë", "seats=2", "max=4", "state=open", "code=1"])
        #expect(bytes.count < 400)  // 316 bytes: one a second, about 344 B/s with UDP/IP headers
    }

    @Test("a TLS game's announcement carries its certificate's fingerprint, and a bad one reads as none")
    func fingerprint() throws {
        var game = Self.game
        let fingerprint = CertificateFingerprint(certificateDER: [1, 2, 3])
        game.fingerprint = fingerprint
        let message = SnapService.announcement(game, addresses: [[192, 168, 1, 20]])
        let txt = message.answers.compactMap { if case .txt(let strings) = $0.data { strings } else { nil } }.first
        #expect(txt?.last == "fp=\(fingerprint)")
        let games = SnapService.games(in: try DNSMessage.decode(message.encoded()), source: "10.0.0.9")
        #expect(games.first?.game.fingerprint == fingerprint)
        // A mangled fingerprint is no fingerprint (the game is still listed, and trusted on first use).
        var mangled = message
        mangled.answers = mangled.answers.map { record in
            guard case .txt(var strings) = record.data else { return record }
            strings[strings.count - 1] = "fp=SHA256:nonsense"
            var changed = record
            changed.data = .txt(strings)
            return changed
        }
        #expect(SnapService.games(in: mangled, source: "10.0.0.9").first?.game.fingerprint == nil)
    }

    @Test("the header and question of a query, byte for byte")
    func queryBytes() throws {
        let bytes = SnapService.query.encoded()
        #expect(bytes == [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0,
                          5] + Array("_snap".utf8) + [4] + Array("_tcp".utf8) + [5] + Array("local".utf8) + [0, 0, 12, 0, 1])
        let decoded = try DNSMessage.decode(bytes)
        #expect(SnapService.asksForGames(decoded, instance: "x"))
        #expect(!SnapService.asksForGames(DNSMessage(isResponse: false, questions: [
            DNSQuestion(name: DNSName("_http._tcp.local"), type: 12)]), instance: "x"))
    }

    @Test("compressed names (as Avahi sends them) decode; pointer loops, forward pointers and lies are refused")
    func compression() throws {
        // Header, one answer: PTR _snap._tcp.local → "a" + pointer to offset 12.
        var bytes: [UInt8] = [0, 0, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 0]
        bytes += [5] + Array("_snap".utf8) + [4] + Array("_tcp".utf8) + [5] + Array("local".utf8) + [0]
        bytes += [0, 12, 0, 1, 0, 0, 0, 3, 0, 4, 1, 0x61, 0xC0, 12]
        let message = try DNSMessage.decode(bytes)
        #expect(message.answers.first?.data == .ptr(DNSName("a._snap._tcp.local")))
        // A pointer to itself, a pointer forward, a count far beyond the packet, a cut.
        var loop: [UInt8] = [0, 0, 0x84, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xC0, 12, 0, 12, 0, 1]
        #expect(throws: DNSMessage.DecodingError.self) { try DNSMessage.decode(loop) }
        loop[13] = 40
        #expect(throws: DNSMessage.DecodingError.self) { try DNSMessage.decode(loop) }
        #expect(throws: DNSMessage.DecodingError.self) { try DNSMessage.decode([0, 0, 0x84, 0, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0]) }
        #expect(throws: DNSMessage.DecodingError.self) { try DNSMessage.decode(Array(bytes.dropLast(3))) }
    }

    @Test("random bytes never trap the decoder", arguments: 0..<4)
    func fuzz(seed: Int) {
        var generator = SystemRandomNumberGenerator()
        let base = SnapService.announcement(Self.game, addresses: [[10, 0, 0, 1]]).encoded()
        for _ in 0..<2_000 {
            var bytes = base
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if Bool.random(using: &generator) { bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator))) }
            _ = try? DNSMessage.decode(bytes)
            if let message = try? DNSMessage.decode(bytes) { _ = SnapService.games(in: message, source: nil) }
        }
    }

    @Test("the table keeps a game until its TTL passes; a goodbye (TTL 0) removes it at once; updates replace")
    func table() {
        var table = LANGameTable()
        let hello = SnapService.announcement(Self.game, addresses: [[192, 168, 1, 20]])
        table.update(hello, source: nil, now: .zero)
        #expect(table.games(now: .seconds(2)) == [Self.game])
        #expect(table.games(now: .seconds(3)).isEmpty)  // TTL 3 s and no refresh: a crashed host
        table.update(hello, source: nil, now: .seconds(10))
        var fuller = Self.game
        fuller.players = 3
        table.update(SnapService.announcement(fuller, addresses: [[192, 168, 1, 20]]), source: nil, now: .seconds(11))
        #expect(table.games(now: .seconds(11)) == [fuller])
        table.update(SnapService.announcement(fuller, addresses: [[192, 168, 1, 20]], ttl: 0), source: nil, now: .seconds(11.5))
        #expect(table.games(now: .seconds(11.5)).isEmpty)
    }

    @Test("a game without an A record is reached at the packet's source; bad TXT values are ignored")
    func sourceAndBadFields() throws {
        let noAddress = SnapService.announcement(Self.game, addresses: [])
        #expect(SnapService.games(in: noAddress, source: "10.1.2.3").first?.game.address == "10.1.2.3")
        var bad = Self.game
        bad.hostName = " bad name"
        #expect(SnapService.games(in: SnapService.announcement(bad, addresses: [[1, 2, 3, 4]]), source: nil).isEmpty)
    }

    @Test("instance labels fit 63 bytes, cut at a character")
    func instanceLabel() {
        let long = SnapService.instance(hostName: String(repeating: "ë", count: 20), machine: String(repeating: "m", count: 63))
        #expect(long.utf8.count <= 63)
        #expect(long.hasPrefix("ëëë"))
    }
}
