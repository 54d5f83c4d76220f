import Testing
@testable import SnapNet
@testable import SnapLAN
@testable import SnapPlatform
import SnapProtocol

/// A hostile local network, without sockets: what `LANGameTable` and
/// `SnapService.games(in:source:)` keep of thousands of fake announcements (docs/LAN.md,
/// "Trust and limits").
@Suite("LAN game table under hostile announcements")
struct LANTableTests {
    static let real = LANGame(instance: "Zoë on kitchen", hostName: "Zoë", machine: "kitchen", address: "192.168.1.20",
                              port: 7777, players: 1, maxPlayers: 4, started: false, needsCode: true)
    static let realSource = "192.168.1.20"

    static func fake(_ index: Int, ttl: UInt32 = SnapService.ttl) -> DNSMessage {
        let game = LANGame(instance: "Fake\(index) on box", hostName: "Fake\(index)", machine: "box", address: "10.0.0.9",
                           port: 9000 + index % 1000, players: 0, maxPlayers: 4, started: false, needsCode: false)
        return SnapService.announcement(game, addresses: [[10, 0, 0, 9]], ttl: ttl)
    }

    static var realAnnouncement: DNSMessage { SnapService.announcement(real, addresses: [[192, 168, 1, 20]]) }

    @Test("10,000 one-off fakes from spoofed senders: never more than the cap, and a real game that keeps announcing stays listed, first")
    func floodFromManySenders() {
        var table = LANGameTable()
        table.update(Self.realAnnouncement, source: Self.realSource, now: .zero)
        table.update(Self.realAnnouncement, source: Self.realSource, now: .seconds(1))
        var most = 0
        // 10,000 fakes over 2 s, each from its own (spoofed) address; the real host repeats every second.
        for index in 0..<10_000 {
            let now = Duration.seconds(1) + .microseconds(index * 200)
            table.update(Self.fake(index), source: "10.\(index / 65536).\(index / 256 % 256).\(index % 256)", now: now)
            if index % 5000 == 4999 {
                table.update(Self.realAnnouncement, source: Self.realSource, now: now)
            }
            most = max(most, table.count)
            if index % 1000 == 999 {
                let games = table.games(now: now)
                #expect(games.first == Self.real, "at fake \(index)")
            }
        }
        #expect(most == LANGameTable.maxGames)
        let games = table.games(now: .seconds(3))
        #expect(games.count == LANGameTable.maxGames)
        #expect(games.first == Self.real)
        // The flood stops: the fakes expire with their TTL, the real game (still announcing) stays.
        table.update(Self.realAnnouncement, source: Self.realSource, now: .seconds(4))
        #expect(table.games(now: .seconds(6.5)) == [Self.real])
    }

    @Test("a flood from one sender keeps at most 8 games of it, so a real game first heard during the flood gets in")
    func floodFromOneSender() {
        var table = LANGameTable()
        for index in 0..<10_000 {
            let now = Duration.microseconds(index * 100)
            table.update(Self.fake(index), source: "10.0.0.66", now: now)
            if index == 5000 { table.update(Self.realAnnouncement, source: Self.realSource, now: now) }
        }
        let games = table.games(now: .seconds(1))
        #expect(games.count == LANGameTable.maxGamesPerSource + 1)
        #expect(games.contains(Self.real))
    }

    @Test("a flood from 32 senders fills the table, yet a real game first heard during it gets in and stays")
    func floodFromSomeSenders() {
        var table = LANGameTable()
        for index in 0..<10_000 {
            let now = Duration.microseconds(index * 100)
            table.update(Self.fake(index), source: "10.0.0.\(index % 32)", now: now)
            if index % 2000 == 1000 { table.update(Self.realAnnouncement, source: Self.realSource, now: now) }
            #expect(table.count <= LANGameTable.maxGames)
        }
        let games = table.games(now: .seconds(1))
        #expect(games.count == LANGameTable.maxGames)
        #expect(games.first == Self.real)
    }

    @Test("once every kept game is confirmed, newcomers are dropped rather than pushing one out")
    func confirmedAreKept() {
        var table = LANGameTable()
        for round in 0..<2 {
            for index in 0..<LANGameTable.maxGames {
                table.update(Self.fake(index), source: "10.0.\(index).1", now: .seconds(round))
            }
        }
        table.update(Self.realAnnouncement, source: Self.realSource, now: .seconds(1.5))
        let games = table.games(now: .seconds(1.5))
        #expect(games.count == LANGameTable.maxGames)
        #expect(!games.contains(Self.real))
        // One of them expires: now there is room.
        for index in 1..<LANGameTable.maxGames { table.update(Self.fake(index), source: "10.0.\(index).1", now: .seconds(3.5)) }
        table.update(Self.realAnnouncement, source: Self.realSource, now: .seconds(4.5))
        #expect(table.games(now: .seconds(4.5)).contains(Self.real))
    }

    @Test("a TTL of 0xFFFFFFFF is kept at most maxTTL (10 s)")
    func hugeTTL() {
        var table = LANGameTable()
        table.update(Self.fake(1, ttl: .max), source: "10.0.0.66", now: .zero)
        #expect(table.games(now: .seconds(9.9)).count == 1)
        #expect(table.games(now: .seconds(Int64(LANGameTable.maxTTL))).isEmpty)
    }

    @Test("another sender can neither change a listed game nor say goodbye for it")
    func onlyItsSender() {
        var table = LANGameTable()
        table.update(Self.realAnnouncement, source: Self.realSource, now: .zero)
        var moved = Self.real
        moved.address = "10.6.6.6"
        moved.players = 3
        table.update(SnapService.announcement(moved, addresses: [[10, 6, 6, 6]]), source: "10.6.6.6", now: .seconds(0.5))
        table.update(SnapService.announcement(Self.real, addresses: [[192, 168, 1, 20]], ttl: 0), source: "10.6.6.6",
                     now: .seconds(0.6))
        #expect(table.games(now: .seconds(1)) == [Self.real])
        // A record that changes with every packet, from its own sender: one entry, the latest.
        for players in 0..<1000 {
            var changed = Self.real
            changed.players = UInt8(players % 5)
            changed.port = 1000 + players
            table.update(SnapService.announcement(changed, addresses: [[192, 168, 1, 20]]), source: Self.realSource,
                         now: .seconds(1) + .milliseconds(players))
        }
        let games = table.games(now: .seconds(2))
        #expect(games.count == 1)
        #expect(games.first?.port == 1999)
    }

    @Test("bad names, seats, addresses and ports are ignored; a machine name is made printable and short")
    func badFields() throws {
        func read(_ game: LANGame, address: [UInt8] = [192, 168, 1, 20], source: String? = "192.168.1.20") -> [LANGame] {
            SnapService.games(in: SnapService.announcement(game, addresses: [address]), source: source).map(\.game)
        }
        for name in ["Ann\u{7}", "Ann\nlan\tEvil", "\u{202E}nnA", String(repeating: "A", count: 255), "", "A\u{0}B"] {
            var game = Self.real
            game.hostName = name
            #expect(read(game).isEmpty, "\(name.debugDescription)")
        }
        for (players, most) in [(200, 200), (5, 4), (1, 5), (0, 1)] as [(UInt8, UInt8)] {
            var game = Self.real
            game.players = players
            game.maxPlayers = most
            #expect(read(game).isEmpty, "seats=\(players) max=\(most)")
        }
        var noPort = Self.real
        noPort.port = 0
        #expect(read(noPort).isEmpty)
        for address in [[0, 0, 0, 0], [224, 0, 0, 251], [255, 255, 255, 255], [240, 1, 2, 3]] as [[UInt8]] {
            #expect(read(Self.real, address: address).isEmpty, "\(address)")
        }
        // 127.0.0.1 only from this machine: a neighbour cannot point players at their own loopback.
        #expect(read(Self.real, address: [127, 0, 0, 1], source: "192.168.1.7").isEmpty)
        #expect(read(Self.real, address: [127, 0, 0, 1], source: "127.0.0.1").first?.address == "127.0.0.1")

        var hostile = Self.real
        hostile.machine = "a\tb\nc\u{1B}[2J\u{202E}d" + String(repeating: "m", count: 40)
        let shown = try #require(read(hostile).first).machine
        #expect(shown == "a?b?c??2J?d" + String(repeating: "m", count: 8) + "…")
        #expect(shown.count == SnapService.maxMachineCharacters)
        #expect(SnapService.printableMachine("kitchen-2") == "kitchen-2")
        #expect(SnapService.printableMachine("") == "?")
    }

    @Test("invalid UTF-8 in the machine's label shows as ?")
    func invalidUTF8() throws {
        var game = Self.real
        game.machine = "XXXX"
        var bytes = SnapService.announcement(game, addresses: [[192, 168, 1, 20]]).encoded()
        // Every "XXXX" label (the SRV target and the A record's name) becomes 0xFF 0xFE 0x80 0x41.
        for index in 0..<(bytes.count - 4) where bytes[index..<index + 4].elementsEqual("XXXX".utf8) {
            bytes.replaceSubrange(index..<index + 4, with: [0xFF, 0xFE, 0x80, 0x41])
        }
        let message = try DNSMessage.decode(bytes)
        let found = SnapService.games(in: message, source: Self.realSource)
        #expect(found.first?.game.machine == "???A")
    }

    @Test("one packet of 300 games yields at most maxGamesPerPacket")
    func perPacket() throws {
        var answers: [DNSRecord] = []
        for index in 0..<300 {
            let instance = DNSName(["G\(index) on box"] + SnapService.serviceType.labels)
            answers.append(DNSRecord(name: SnapService.serviceType, data: .ptr(instance), ttl: 3))
            answers.append(DNSRecord(name: instance, data: .srv(priority: 0, weight: 0, port: 7000, target: DNSName("box.local")), ttl: 3))
            answers.append(DNSRecord(name: instance, data: .txt(["name=G\(index)", "seats=0", "max=4"]), ttl: 3))
        }
        let message = DNSMessage(isResponse: true, answers: answers)
        #expect(SnapService.games(in: message, source: "10.0.0.1").count == SnapService.maxGamesPerPacket)
        var table = LANGameTable()
        table.update(message, source: "10.0.0.1", now: .zero)
        #expect(table.count == SnapService.maxGamesPerPacket)
    }
}

/// What an mDNS socket reads at all: a flood from a few addresses costs a bounded amount
/// of decoding, and a real host announcing once a second is always read.
@Suite("Sender budgets before decoding")
struct SenderBudgetTests {
    @Test("a flooding sender is cut to its budget; a host announcing once a second is never cut, during the flood too")
    func floodAndRealHost() {
        var budgets = SenderBudgets()
        var read = 0
        var realRead = 0
        // 10,000 packets a second from each of 32 senders for 2 s, and the real host once a second.
        for tick in 0..<20_000 {
            let now = Duration.microseconds(Int64(tick) * 100)
            for sender in 0..<32 where budgets.allow("10.0.0.\(sender)", at: now) { read += 1 }
            if tick % 10_000 == 0, budgets.allow("192.168.1.20", at: now) { realRead += 1 }
        }
        // Each flooder: its burst, then perSecond for 2 s (a token or so of rounding).
        let most = 32 * (SenderBudgets.burst + Int(SenderBudgets.perSecond * 2) + 1)
        #expect(read <= most, "\(read) packets read of 640,000")
        #expect(read >= 32 * SenderBudgets.burst)
        #expect(realRead == 2)
    }

    @Test("at most maxSenders are tracked: silent ones make room, and spoofed newcomers share one bucket")
    func boundedSenders() {
        var budgets = SenderBudgets()
        let first = budgets.allow("192.168.1.20", at: .zero)
        #expect(first)
        // Every packet from a new spoofed address, 10,000 of them within one second.
        var spoofedRead = 0
        for index in 0..<10_000 where budgets.allow("10.\(index / 65_536).\(index / 256 % 256).\(index % 256)",
                                                    at: .microseconds(Int64(index) * 100)) {
            spoofedRead += 1
        }
        #expect(budgets.count <= SenderBudgets.maxSenders)
        // The first senders got buckets of their own; then the rest shared one (a burst and about a second's refill).
        #expect(spoofedRead <= SenderBudgets.maxSenders + SenderBudgets.burst + Int(SenderBudgets.perSecond) + 1,
                "\(spoofedRead) spoofed packets read")
        // The real host, still announcing, keeps its own bucket through the spoofing.
        let realAgain = budgets.allow("192.168.1.20", at: .milliseconds(1_001))
        #expect(realAgain)
        // Senders silent for idleAfter give their places to newcomers with buckets of their own.
        let later = Duration.milliseconds(1_000) + SenderBudgets.idleAfter
        for index in 0..<(SenderBudgets.burst + 1) {
            let read = budgets.allow("172.16.0.1", at: later)
            #expect(read == (index < SenderBudgets.burst))
        }
        for index in 0..<SenderBudgets.burst {
            let read = budgets.allow("172.16.0.2", at: later)
            #expect(read, "\(index)")
        }
        #expect(budgets.count <= SenderBudgets.maxSenders)
    }
}
