import SnapEngine
import SnapJournal
import SnapMatchFiles
import SnapProtocol
import SnapSession

/// What the index keeps of one journal file: the match as far as it replays, round by
/// round, with each player's calls as the host judged them. Read from the file alone, so
/// the index can always be rebuilt from the journals.
public struct MatchFacts: Sendable, Equatable {
    /// The file's name in its directory, and its size and modification time when read
    /// (a file that changed since is read again).
    public var name: String
    public var size: Int
    public var modified: Int
    /// nil: the file is not a readable match journal.
    public var match: Match?

    public struct Match: Sendable, Equatable {
        /// nil: the journal holds no start (the match never began).
        public var startedAt: UInt64?
        public var hostName: String
        public var players: [String]
        /// The journal's `ended` record, if it has one.
        public var ended: String?
        /// Why the fold stopped early (the journal differs from the engine), if it did.
        public var broken: String?
        /// Where the file is damaged (a bad record with more after it), if it is.
        public var damage: Damage?
        public var rounds: [Round]

        /// Every won round's winner, in order.
        public var winners: [String] { rounds.compactMap(\.winner) }
    }

    public struct Damage: Sendable, Equatable {
        public var offset: Int
        public var record: Int

        public init(offset: Int, record: Int) {
            (self.offset, self.record) = (offset, record)
        }
    }

    public struct Round: Sendable, Equatable {
        /// 1, 2, … in the match.
        public var number: Int
        public var winner: String?
        /// One per player at the table, in seat order.
        public var calls: [Calls]
    }

    /// One player's Snap! calls in one round, as the engine judged them.
    public struct Calls: Sendable, Equatable {
        public var player: String
        public var right = 0
        public var wrong = 0
        public var tooLate = 0
        /// Each correct call's reaction, in microseconds: from the journal's record of the
        /// card that made the pair (the deal's end or a turn) to the record of the call's
        /// verdict, both on the host's clock. The host's judged estimate is not journaled, so
        /// this includes the link's delay and any judging window; it never includes time
        /// before the card went out.
        public var reactions: [UInt64] = []

        public init(player: String, right: Int = 0, wrong: Int = 0, tooLate: Int = 0, reactions: [UInt64] = []) {
            (self.player, self.right, self.wrong, self.tooLate, self.reactions) = (player, right, wrong, tooLate, reactions)
        }
    }

    /// Reads and folds the journal at `path` (`name` in its directory).
    public static func read(path: String, name: String, size: Int, modified: Int) -> MatchFacts {
        guard let journal = try? MatchJournal.read(path: path) else {
            return MatchFacts(name: name, size: size, modified: modified, match: nil)
        }
        var match = fold(journal.records)
        if let fault = journal.fault, fault.isDamage { match.damage = Damage(offset: fault.offset, record: fault.record) }
        return MatchFacts(name: name, size: size, modified: modified, match: match)
    }

    /// A match log folded as far as the engine agrees with it.
    public static func fold(_ records: [MatchRecord]) -> Match {
        var replay = MatchReplay()
        var match = Match(startedAt: nil, hostName: "", players: [], ended: nil, broken: nil, damage: nil, rounds: [])
        var names: [Seat: String] = [:]
        // When the card a correct call is measured from was recorded (nil: none this round).
        var reference: UInt64?
        for record in records {
            do { try replay.apply(record) } catch {
                match.broken = "\(error)"
                break
            }
            switch record.entry {
            case .started(let start):
                match.startedAt = start.startedAt
                match.hostName = start.hostName
                match.players = start.players.map(\.name)
                for player in start.players { names[player.seat] = player.name }
            case .ended(let reason):
                match.ended = reason
            case .applied(_, let events):
                for event in events {
                    switch event {
                    case .roundStarted:
                        match.rounds.append(Round(number: match.rounds.count + 1, winner: nil,
                                                  calls: match.players.map { Calls(player: $0) }))
                        reference = nil
                    case .dealFinished, .turned:
                        reference = record.timeMicros
                    case .snapCorrect(let caller, _):
                        update(&match, names[caller]) { calls in
                            calls.right += 1
                            // A resumed host's clock starts again at zero: no reaction across it.
                            if let reference, record.timeMicros >= reference { calls.reactions.append(record.timeMicros - reference) }
                        }
                    case .snapWrong(let caller):
                        update(&match, names[caller]) { $0.wrong += 1 }
                    case .snapTooLate(let seat):
                        update(&match, names[seat]) { $0.tooLate += 1 }
                    case .roundWon(let seat, _):
                        if !match.rounds.isEmpty { match.rounds[match.rounds.count - 1].winner = names[seat] ?? "\(seat)" }
                    default:
                        break
                    }
                }
            case .committed, .revealed:
                break
            }
        }
        return match
    }

    private static func update(_ match: inout Match, _ name: String?, _ body: (inout Calls) -> Void) {
        guard let name, !match.rounds.isEmpty,
              let index = match.rounds[match.rounds.count - 1].calls.firstIndex(where: { $0.player == name }) else { return }
        body(&match.rounds[match.rounds.count - 1].calls[index])
    }
}
