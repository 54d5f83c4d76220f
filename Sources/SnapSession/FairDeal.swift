import Crypto
import SnapEngine
import SnapProtocol

extension DealReveal {
    /// The commitment this reveal opens: SHA-256 of the seed and salt.
    public var commitment: DealCommitment {
        DealCommitment(round: round, digest: Array(SHA256.hash(data: committedBytes)))
    }

    /// Whether this is what `commitment` committed to.
    public func opens(_ commitment: DealCommitment) -> Bool {
        commitment.round == round && Array(SHA256.hash(data: committedBytes)) == commitment.digest
    }

    /// A round's secret: the seed and salt from the system's secure generator, so nobody
    /// can predict a deal from the ones revealed before it.
    static func secret(round: UInt32, using random: inout some RandomNumberGenerator) -> DealReveal {
        DealReveal(round: round, seed: random.next(), salt: (0..<saltLength).map { _ in UInt8.random(in: 0...255, using: &random) })
    }

    /// A seeded host's secret: reproducible from the match seed, and so not secret at all
    /// (`snapcards host --seed` is for tests and simulations).
    static func derived(match: UInt64, round: UInt32) -> DealReveal {
        var salts = SeededRandom(seed: DealSeeds.seed(match: match ^ 0x5A17, round: Int(round)))
        return DealReveal(round: round, seed: DealSeeds.seed(match: match, round: Int(round)),
                          salt: (0..<saltLength).map { _ in UInt8(truncatingIfNeeded: salts.next()) })
    }
}

/// What a client concluded when a round's deal was revealed.
public enum DealVerdict: Hashable, Sendable {
    /// The reveal opens the commitment, and every card this client saw is what a deal
    /// from that seed and the round's moves give.
    case verified(round: UInt32)
    /// The reveal opens the commitment, but this client did not see the whole round
    /// (it joined or came back mid-round), so the cards could not be checked.
    case commitmentOnly(round: UInt32)
    /// The host cheated, or its messages were tampered with.
    case mismatch(round: UInt32, reason: String)

    public var round: UInt32 {
        switch self {
        case .verified(let round), .commitmentOnly(let round), .mismatch(let round, _): round
        }
    }

    public var isMismatch: Bool { if case .mismatch = self { true } else { false } }

    /// The line `snapcards join --bot` prints, and the window's words.
    public var line: String {
        switch self {
        case .verified(let round): "round \(round): deal verified"
        case .commitmentOnly(let round): "round \(round): commitment verified (joined mid-round: the deal was not seen)"
        case .mismatch(let round, let reason):
            "round \(round): WARNING: the host's deal does not match its commitment: \(reason)"
        }
    }
}

/// A client's record of one round, from the host's commitment to its reveal: what the
/// table looked like before the deal and every event seen since.
struct DealWitness: Sendable {
    /// A round's events are bounded by the rules' turn limit, or by patience; past this
    /// many a client stops recording (and then checks only the commitment), so a host
    /// cannot make it hoard memory.
    static let maxEvents = 200_000

    var commitment: DealCommitment
    /// The seats present before the deal, clockwise.
    var players: [Seat]
    var events: [SeatEvent] = []
    /// False once something of the round was missed (a snapshot replaced the table, or
    /// the record overflowed): only the commitment can then be checked.
    var complete = true

    mutating func record(_ batch: [SeatEvent]) {
        guard complete else { return }
        guard events.count + batch.count <= Self.maxEvents else {
            complete = false
            events = []
            return
        }
        events += batch
    }

    /// Checks the reveal against the commitment, then the round as seen against a deal
    /// from the revealed seed: every face-up card must be the one that deal puts there.
    func verdict(_ reveal: DealReveal) -> DealVerdict {
        let round = reveal.round
        guard commitment.round == round else {
            return .mismatch(round: round, reason: "it revealed round \(round) but had committed to round \(commitment.round)")
        }
        guard reveal.opens(commitment) else {
            return .mismatch(round: round, reason: "SHA-256 of the revealed seed and salt is not the commitment")
        }
        guard complete, case .roundStarted(let number, let start)? = events.first else { return .commitmentOnly(round: round) }
        func wrong(_ reason: String) -> DealVerdict { .mismatch(round: round, reason: reason) }
        guard number == Int(round) else { return wrong("the commitment was for round \(round) but round \(number) was dealt") }
        guard players.count >= 2, players.contains(start) else { return wrong("\(start) started a round it does not play") }
        let deal = Game.dealing(seed: reveal.seed, players: players, start: number == 1 ? nil : start)
        guard deal.start == start else { return wrong("the seed starts the round at \(deal.start), the host started it at \(start)") }

        var closed: [Seat: [Card]] = [:]
        var open: [Seat: [Card]] = [:]
        var dealt = 0
        for event in events.dropFirst() {
            switch event {
            case .dealt(let card, let seat):
                guard dealt < deal.cards.count else { return wrong("more than 52 cards were dealt") }
                let (expected, to) = deal.cards[dealt]
                guard to == seat, card == nil || card == expected else {
                    return wrong("card \(dealt + 1) of the deal went to \(seat), the seed deals it to \(to)")
                }
                closed[seat, default: []].append(expected)
                dealt += 1
            case .turned(let seat, let card):
                guard let expected = closed[seat]?.popLast() else { return wrong("\(seat) turned \(card) from an empty pile") }
                guard expected == card else { return wrong("\(seat) turned \(card) where the revealed deal has \(expected)") }
                open[seat, default: []].append(card)
            case .recycled(let seat, _):
                closed[seat, default: []].insert(contentsOf: (open[seat] ?? []).reversed(), at: 0)
                open[seat] = []
            case .collected(let cards, let from, let to):
                guard open[from] ?? [] == cards else { return wrong("\(to) collected cards that were not \(from)'s open pile") }
                open[from] = []
                closed[to, default: []].insert(contentsOf: cards.reversed(), at: 0)
            case .paid(let card, let from, let to):
                guard let moved = closed[from]?.popLast(), card == nil || card == moved else {
                    return wrong("\(from) paid a card it does not hold in the revealed deal")
                }
                closed[to, default: []].insert(moved, at: 0)
            case .handedOut(let card, let from, let pile, let to):
                let moved = pile == .closed ? closed[from]?.popLast() : open[from]?.popLast()
                guard let moved, card == nil || card == moved else {
                    return wrong("\(from) handed out a card it does not hold in the revealed deal")
                }
                closed[to, default: []].insert(moved, at: 0)
            case .roundStarted:
                return wrong("a second deal came before the reveal")
            case .dealFinished, .activated, .snapCalled, .snapCorrect, .snapWrong, .snapTooLate, .playerOut,
                 .playerLeft, .turnLimitReached, .roundWon, .absent, .returned, .waiting:
                break
            }
        }
        guard dealt == deal.cards.count else { return wrong("\(dealt) cards were dealt, the seed deals \(deal.cards.count)") }
        return .verified(round: round)
    }
}
