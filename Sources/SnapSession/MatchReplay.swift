import SnapEngine
import SnapProtocol

/// A match log folded back into a game: the same engine, the same commands (each deal
/// with its seed) must give exactly the events that were logged, and every deal must
/// follow a commitment to its seed that the round's reveal opens. `snapcards replay --verify`,
/// resuming a host, and the tests all read a match this way.
public struct MatchReplay: Sendable {
    public private(set) var start: MatchStart?
    public private(set) var game: Game?
    /// Commands re-applied, rounds begun, and whether the log says the match ended.
    public private(set) var commands = 0
    public private(set) var rounds = 0
    public private(set) var ended: String?
    /// Every round's winner by name, in order.
    public private(set) var winners: [String] = []
    /// Reveals checked against their commitments and deals.
    public private(set) var reveals = 0
    /// The current round's seed and salt, committed (and dealt) but not yet revealed:
    /// what a resumed host reveals when the round ends.
    public private(set) var unrevealed: DealReveal?
    /// The latest commitment and its salt, until its deal.
    private var committed: (commitment: DealCommitment, salt: [UInt8])?
    private var expectedSequence: UInt64 = 0

    public init() {}

    /// Folds one record in; throws at the first that does not follow from the ones before.
    public mutating func apply(_ record: MatchRecord) throws(ReplayMismatch) {
        guard record.sequence == expectedSequence else {
            throw ReplayMismatch(sequence: record.sequence, "record \(record.sequence) where \(expectedSequence) was expected")
        }
        expectedSequence += 1
        switch record.entry {
        case .started(let start):
            guard self.start == nil else { throw ReplayMismatch(sequence: record.sequence, "a second start") }
            self.start = start
            game = Game(seats: start.players.map(\.seat), rules: start.rules)
        case .applied(let command, let logged):
            guard let round = game?.round else { throw ReplayMismatch(sequence: record.sequence, "a command before the start") }
            if case .deal(let seed) = command {
                guard let (commitment, salt) = committed else {
                    throw ReplayMismatch(sequence: record.sequence, "a deal with no commitment before it")
                }
                let secret = DealReveal(round: commitment.round, seed: seed, salt: salt)
                guard secret.opens(commitment), Int(commitment.round) == round + 1 else {
                    throw ReplayMismatch(sequence: record.sequence,
                                         "the deal of round \(round + 1) does not match the commitment to round \(commitment.round)")
                }
                committed = nil
                unrevealed = secret
            }
            // Applied in place: a copy held across `apply` would copy every pile it moves. A
            // refused command leaves the game as it was; after a mismatch (the fold stops
            // there) `game` is what the engine made of the command.
            let events: [Event]
            do { events = try game!.apply(command) } catch {
                throw ReplayMismatch(sequence: record.sequence, "\(command) was refused on replay: \(error)")
            }
            guard events == logged else {
                let index = (0..<min(events.count, logged.count)).first { events[$0] != logged[$0] } ?? min(events.count, logged.count)
                let replayed = index < events.count ? "\(events[index])" : "nothing"
                let journaled = index < logged.count ? "\(logged[index])" : "nothing"
                throw ReplayMismatch(sequence: record.sequence,
                                     "\(command): event \(index) replays as \(replayed), the journal has \(journaled)")
            }
            commands += 1
            for event in events {
                switch event {
                case .roundStarted: rounds += 1
                case .roundWon(let seat, _):
                    winners.append(start?.players.first { $0.seat == seat }?.name ?? "\(seat)")
                default: break
                }
            }
        case .ended(let reason):
            ended = reason
        case .committed(let commitment, let salt):
            guard game != nil else { throw ReplayMismatch(sequence: record.sequence, "a commitment before the start") }
            guard unrevealed == nil else {
                throw ReplayMismatch(sequence: record.sequence, "a commitment before round \(game?.round ?? 0) was revealed")
            }
            // A commitment with no deal after it (the host crashed between them) is superseded.
            committed = (commitment, salt)
        case .revealed(let reveal):
            guard let secret = unrevealed else {
                throw ReplayMismatch(sequence: record.sequence, "a reveal of round \(reveal.round) with no deal to reveal")
            }
            guard reveal == secret, reveal.opens(secret.commitment) else {
                throw ReplayMismatch(sequence: record.sequence,
                                     "the reveal of round \(reveal.round) does not match its commitment and deal")
            }
            unrevealed = nil
            reveals += 1
        }
    }

    /// Folds a whole log.
    public static func fold(_ records: [MatchRecord]) throws(ReplayMismatch) -> MatchReplay {
        var replay = MatchReplay()
        for record in records { try replay.apply(record) }
        return replay
    }
}

public struct ReplayMismatch: Error, Equatable, CustomStringConvertible {
    /// The first record that does not match.
    public var sequence: UInt64
    public var reason: String

    init(sequence: UInt64, _ reason: String) {
        self.sequence = sequence
        self.reason = reason
    }

    public var description: String { "record \(sequence): \(reason)" }
}
