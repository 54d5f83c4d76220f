import Crypto
import SnapEngine
import SnapProtocol
import Testing
@testable import SnapSession

@Suite("The provably fair deal: commit before the deal, reveal after the round")
struct FairDealTests {
    /// Three rounds between Eve (who records every message) and two of the host's computers.
    static func honestMatch(secret: Bool = true, seed: UInt64 = 3) -> VirtualNetwork {
        var config = configuration(rounds: 3, speed: 0.1, bots: 2, seed: seed)
        config.secretDeals = secret
        var net = VirtualNetwork(config)
        net.join(.recorder(ClientSession()), name: "Eve")
        net.run(until: .seconds(1))
        net.start()
        net.run(until: .seconds(36_000))
        return net
    }

    static func verdicts(_ messages: [HostMessage]) -> [DealVerdict] {
        var client = ClientSession()
        for message in messages { _ = client.receive(message, now: .zero) }
        return client.dealVerdicts
    }

    @Test("SHA-256 (swift-crypto's): the FIPS 180-2 example, and the digest in PROTOCOL.md's example")
    func sha256() {
        #expect(Array(SHA256.hash(data: Array("abc".utf8))) == Self.bytes("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
        let example = DealReveal(round: 1, seed: 0x0123_4567_89AB_CDEF, salt: Array(0..<16))
        #expect(example.commitment.digest == Self.bytes("81cfa61124de41e648cdb01e76138c3fdd6e47bde90f480c500da135ab5e736b"))
    }

    /// Written down from the OpenSSL build before SHA-256 moved to swift-crypto: a change of
    /// hash implementation must not change a byte a host publishes.
    @Test("today's commitments: a seeded host's three rounds, byte for byte")
    func heldCommitments() {
        let commitments = Self.honestMatch(secret: false, seed: 5).messages(of: 0).compactMap { message -> String? in
            guard case .dealCommitted(let commitment) = message else { return nil }
            return "\(commitment.round) " + commitment.digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        }
        #expect(commitments == [
            "1 dd68a3ebd50afbee517b212d25a3ad7a7cff7cd269fb2bb09225ee64ef8961b9",
            "2 7ff720c2b979bb969a081f43e183a4caa5783c997bccc76273d8e8b6a22b488c",
            "3 3cd104fefeb318fbf97e0a4bec6322cb63c048f3e083c74f9bcec38c28e57e7e",
        ])
    }

    @Test("an honest host: every round is committed before its deal, revealed after its win, and verified")
    func honest() throws {
        let net = Self.honestMatch()
        let messages = net.messages(of: 0)
        #expect(net.wins.count == 3)
        let verdicts = Self.verdicts(messages)
        #expect(verdicts == [.verified(round: 1), .verified(round: 2), .verified(round: 3)])
        #expect(verdicts.map(\.line) == ["round 1: deal verified", "round 2: deal verified", "round 3: deal verified"])
        // Each commitment comes before its round's first event, each reveal after its win.
        var order: [String] = []
        for message in messages {
            switch message {
            case .dealCommitted: order.append("commit")
            case .dealRevealed: order.append("reveal")
            case .events(let events):
                if case .roundStarted? = events.first { order.append("deal") }
                if events.contains(where: { if case .roundWon = $0 { true } else { false } }) { order.append("won") }
            default: break
            }
        }
        #expect(order == Array(repeating: ["commit", "deal", "won", "reveal"], count: 3).flatMap { $0 })
        // The journal holds the same commitments and reveals, and replays.
        let replay = try MatchReplay.fold(net.host.log)
        #expect(replay.reveals == 3)
    }

    @Test("hidden information: before its reveal, no byte sent to a player holds the round's seed or salt")
    func commitmentRevealsNothing() throws {
        let net = Self.honestMatch()
        var revealed: [DealReveal] = []
        for case .dealRevealed(let reveal) in net.messages(of: 0) { revealed.append(reveal) }
        #expect(revealed.count == 3)
        let frames = net.clients[0].received
        for reveal in revealed {
            let seed = Array(reveal.committedBytes.prefix(8))
            let revealAt = try #require(frames.firstIndex {
                if case .dealRevealed(let r) = try? WireCodec.decodeHostMessage(VirtualNetwork.decode($0)) { r == reveal } else { false }
            })
            for frame in frames[..<revealAt] {
                #expect(!Self.contains(frame, seed), "round \(reveal.round)'s seed went out before its reveal")
                #expect(!Self.contains(frame, reveal.salt), "round \(reveal.round)'s salt went out before its reveal")
            }
        }
    }

    @Test("a host that commits to one seed and deals from another is caught")
    func commitsToOneDealsAnother() {
        let honest = Self.honestMatch().messages(of: 0)
        // The forger commits to (and reveals) a seed of its choosing, but dealt round 2 from another.
        var round = 0
        let claimed = DealReveal(round: 2, seed: 0xBAD5_EED, salt: Array(repeating: 0x42, count: 16))
        let forged = honest.map { message -> HostMessage in
            switch message {
            case .dealCommitted(let commitment):
                round = Int(commitment.round)
                return round == 2 ? .dealCommitted(claimed.commitment) : message
            case .dealRevealed(let reveal) where reveal.round == 2: return .dealRevealed(claimed)
            default: return message
            }
        }
        let verdicts = Self.verdicts(forged)
        #expect(verdicts.count == 3)
        #expect(verdicts[0] == .verified(round: 1))
        #expect(verdicts[1].isMismatch)
        #expect(verdicts[1].line.hasPrefix("round 2: WARNING: the host's deal does not match its commitment"))
        #expect(verdicts[2] == .verified(round: 3))
    }

    @Test("a reveal that does not open the commitment, one for an uncommitted round, and a round never revealed are caught")
    func badReveals() {
        let honest = Self.honestMatch().messages(of: 0)
        let saltChanged = honest.map { message -> HostMessage in
            guard case .dealRevealed(var reveal) = message, reveal.round == 1 else { return message }
            reveal.salt[15] ^= 0x01
            return .dealRevealed(reveal)
        }
        let first = Self.verdicts(saltChanged)[0]
        #expect(first == .mismatch(round: 1, reason: "SHA-256 of the revealed seed and salt is not the commitment"))

        let uncommitted = honest.filter { if case .dealCommitted(let c) = $0 { c.round != 2 } else { true } }
        #expect(Self.verdicts(uncommitted).filter(\.isMismatch).map(\.round).contains(2))

        let unrevealed = honest.filter { if case .dealRevealed(let r) = $0 { r.round != 1 } else { true } }
        let verdicts = Self.verdicts(unrevealed)
        #expect(verdicts.first == .mismatch(round: 1, reason: "the deal was never revealed"))
    }

    @Test("a client that missed the deal (a snapshot mid-round) checks only the commitment")
    func midRound() {
        let honest = Self.honestMatch().messages(of: 0)
        // A snapshot right after round 1's deal, as a rejoin would bring.
        var messages: [HostMessage] = []
        var inserted = false
        for message in honest {
            messages.append(message)
            if !inserted, case .events(let events) = message, case .roundStarted? = events.first {
                messages.append(.snapshot(TableSnapshot(table: TableView(seats: [.bottom, .left, .top]), turnsThisRound: 0)))
                inserted = true
            }
        }
        let verdicts = Self.verdicts(messages)
        #expect(verdicts.first == .commitmentOnly(round: 1))
        #expect(verdicts.dropFirst().allSatisfy { if case .verified = $0 { true } else { false } })
    }

    @Test("secret deals differ from match to match; a seeded host deals the same again (and its deals are not secret)")
    func secretOrSeeded() {
        func commitments(_ net: VirtualNetwork) -> [DealCommitment] {
            net.messages(of: 0).compactMap { if case .dealCommitted(let c) = $0 { c } else { nil } }
        }
        let secretA = commitments(Self.honestMatch(secret: true, seed: 5))
        let secretB = commitments(Self.honestMatch(secret: true, seed: 5))
        #expect(secretA.count == 3 && secretB.count == 3)
        #expect(Set(secretA.map(\.digest)).isDisjoint(with: secretB.map(\.digest)))
        let seededA = commitments(Self.honestMatch(secret: false, seed: 5))
        let seededB = commitments(Self.honestMatch(secret: false, seed: 5))
        #expect(seededA == seededB)
        #expect(seededA.count == 3)
    }

    @Test("a host resumed mid-round reveals the round it committed to before the crash")
    func resumedHostReveals() throws {
        var config = configuration(rounds: 2, speed: 0.1, bots: 2, seed: 8)
        config.grace = .zero
        var net = VirtualNetwork(config)
        net.join(.recorder(ClientSession()), name: "Eve")
        net.run(until: .seconds(1))
        net.start()
        // Run until round 1 is dealt and under way, then "crash".
        var now = Duration.seconds(1)
        while net.host.game?.turnsThisRound ?? 0 < 3 {
            now += .milliseconds(100)
            net.run(until: now)
        }
        let log = net.host.log
        var resumed = try HostSession(resuming: log, config, now: now)
        #expect(resumed.dealSecret != nil)
        _ = resumed.resume(now: now)
        var t = now
        while resumed.phase != .over, t < now + .seconds(36_000) {
            t = resumed.nextDeadline ?? t + .seconds(1)
            _ = resumed.handle(.tick, now: t)
        }
        let replay = try MatchReplay.fold(resumed.log)
        #expect(replay.rounds == 2)
        #expect(replay.reveals == 2)
    }

    static func bytes(_ hex: String) -> [UInt8] {
        stride(from: 0, to: hex.count, by: 2).map { offset in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
        }
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<$0 + needle.count]) == needle }
    }
}

@Suite("Won counts across matches")
struct WonCountTests {
    @Test("right after gameStarted every client learns each seat's rounds won in earlier matches; a new name has 0")
    func sentAfterGameStarted() {
        var config = configuration(rounds: 1, speed: 0.1, bots: 1, seed: 4)
        config.earlierWins = ["Eve": 7, "Ann": 2]
        var net = VirtualNetwork(config)
        net.join(.recorder(ClientSession()), name: "Eve")
        net.join(.recorder(ClientSession()), name: "Ann")
        net.run(until: .seconds(1))
        net.start()
        net.run(until: .seconds(2))
        for index in 0..<2 {
            let messages = net.messages(of: index)
            guard let started = messages.firstIndex(where: { if case .gameStarted = $0 { true } else { false } }),
                  case .gameStarted(let start) = messages[started] else {
                Issue.record("no gameStarted"); return
            }
            let names = Dictionary(uniqueKeysWithValues: start.players.map { ($0.seat, $0.name) })
            guard case .wonCounts(let counts) = messages[started + 1] else {
                Issue.record("no wonCounts right after gameStarted: \(messages[started + 1])"); return
            }
            let byName = Dictionary(uniqueKeysWithValues: counts.map { (names[$0.seat]!, Int($0.won)) })
            #expect(byName == ["Eve": 7, "Ann": 2, start.players.last!.name: 0])
            var client = ClientSession()
            for message in messages { _ = client.receive(message, now: .zero) }
            #expect(client.earlierWins.count == 3)
        }
    }

    @Test("counted only after the game started, the counts go to every player and watcher again; counted the same, nothing more")
    func countedAfterTheStart() {
        var net = VirtualNetwork(configuration(rounds: 1, speed: 0.1, bots: 1, seed: 4))
        net.join(.recorder(ClientSession()), name: "Pyth")
        net.join(.recorder(ClientSession()), name: "Newt")
        net.run(until: .seconds(1))
        #expect(net.host.setEarlierWins(["Pyth": 1]).isEmpty, "in the lobby: told with gameStarted, not before")
        net.start()
        net.run(until: .seconds(2))
        let sent = net.host.setEarlierWins(["Pyth": 3])
        #expect(sent.count == 2, "\(sent)")
        net.perform(sent)
        net.run(until: .seconds(3))
        for index in 0..<2 {
            var client = ClientSession()
            for message in net.messages(of: index) { _ = client.receive(message, now: .zero) }
            let pyth = client.names.first { $0.value == "Pyth" }?.key
            #expect(pyth.flatMap { client.earlierWins[$0] } == 3, "\(client.earlierWins)")
            #expect(net.messages(of: index).count { if case .wonCounts = $0 { true } else { false } } == 2)
        }
        #expect(net.host.setEarlierWins(["Pyth": 3, "Nobody": 9]).isEmpty, "the same counts for the seated: nothing sent")
    }
}
