import Testing
@testable import SnapEngine

/// Thousands of random command sequences, legal and illegal, from many seeds.
@Suite("Properties over random play")
struct PropertyTests {
    /// A command chosen mostly to move the game on, sometimes at random (often illegal).
    static func randomCommand(for game: Game, _ random: inout SeededRandom, leaving: Bool = true) -> Command {
        let seat = Seat(rawValue: UInt8(random.below(4)))!
        switch random.below(100) {
        case 0..<2: return leaving ? .leave(seat) : .snap(seat)
        case 2..<4: return .deal(seed: random.next())
        case 4..<6: return .finishDeal
        case 6..<10: return .turn(seat)
        case 10..<25: return .snap(seat)
        case 25..<30: return .activateNext
        // Connections drop and come back (more often back, so that games finish).
        case 30..<32: return .absent(seat)
        case 32..<38: return .returned(seat)
        default:
            switch game.phase {
            case .lobby, .roundOver: return .deal(seed: random.next())
            case .dealing: return .finishDeal
            case .playing:
                if let active = game.active, !game.hasTurned { return .turn(active) }
                return game.matching.isEmpty || random.below(3) == 0 ? .activateNext : .snap(seat)
            }
        }
    }

    @Test("52 distinct cards, each in one pile, always; refused commands change nothing; the seen view mirrors the game",
          arguments: 0..<40)
    func randomPlay(seedBlock: Int) throws {
        for seed in UInt64(seedBlock * 50)..<UInt64(seedBlock * 50 + 50) {
            var random = SeededRandom(seed: seed &* 7919)
            let playerCount = 2 + random.below(3)
            var game = Game(seats: Seat.seating(playerCount: playerCount))
            var mirror = TableView(seats: game.seats)
            var refused = 0
            for step in 0..<400 {
                let command = Self.randomCommand(for: game, &random)
                let before = game
                do {
                    let events = try game.apply(command)
                    for event in events {
                        mirror.apply(event.seen)
                        #expect(mirror.cardTotal == 52, "seed \(seed) step \(step): \(event)")
                    }
                } catch {
                    refused += 1
                    #expect(game == before, "seed \(seed) step \(step): refused \(command) changed the game")
                }
                if let violation = game.invariantViolation() {
                    Issue.record("seed \(seed) step \(step) after \(command): \(violation)")
                    return
                }
                #expect(mirror == game.table, "seed \(seed) step \(step): mirror drifted after \(command)")
            }
            #expect(refused > 0)
        }
    }

    @Test("same seed and same commands give the same events and states")
    func deterministic() {
        func play(_ seed: UInt64) -> ([Event], Game) {
            var random = SeededRandom(seed: seed)
            var game = Game(seats: Seat.allCases)
            var all: [Event] = []
            for _ in 0..<2_000 {
                if let events = try? game.apply(Self.randomCommand(for: game, &random, leaving: false)) {
                    all += events
                }
            }
            return (all, game)
        }
        let (eventsA, gameA) = play(1234)
        let (eventsB, gameB) = play(1234)
        #expect(eventsA == eventsB)
        #expect(gameA == gameB)
        #expect(eventsA.count > 2_000)
        #expect(play(1235).0 != eventsA)
    }

    @Test("no face-down card is ever seen: dealt and paid cards, and closed cards handed out, are hidden")
    func hiddenCards() {
        var random = SeededRandom(seed: 5)
        var game = Game(seats: Seat.allCases)
        var shownUnturned = 0
        for _ in 0..<3_000 {
            guard let events = try? game.apply(Self.randomCommand(for: game, &random)) else { continue }
            for event in events {
                switch event.seen {
                case .dealt(let card, _), .paid(let card, _, _), .handedOut(let card, _, .closed, _):
                    if card != nil { shownUnturned += 1 }
                default: break
                }
            }
        }
        #expect(shownUnturned == 0)
    }
}
