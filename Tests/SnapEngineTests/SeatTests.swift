import Testing
@testable import SnapEngine

@Suite("Seats and cards")
struct SeatTests {
    @Test("clockwise order is bottom, left, top, right")
    func clockwise() {
        #expect(Seat.bottom.clockwiseFromHere == [.bottom, .left, .top, .right])
        #expect(Seat.right.clockwiseNext == .bottom)
        #expect([Seat.bottom, .top, .right].clockwise(from: .left) == [.top, .right, .bottom])
    }

    @Test("every window puts its own player at the bottom")
    func rotation() {
        #expect(Seat.top.onScreen(of: .top) == .bottom)
        #expect(Seat.bottom.onScreen(of: .top) == .top)
        #expect(Seat.right.onScreen(of: .left) == .top)
        #expect(Seat.bottom.onScreen(of: .left) == .right)
        for viewer in Seat.allCases {
            for seat in Seat.allCases {
                #expect(Seat.atScreenPosition(seat.onScreen(of: viewer), of: viewer) == seat)
            }
            // Clockwise order is kept on every screen.
            #expect(viewer.clockwiseNext.onScreen(of: viewer) == .left)
        }
    }

    @Test("the host sits at the bottom, one opponent at the top, more at left, top, right")
    func seating() {
        #expect(Seat.seating(playerCount: 2) == [.bottom, .top])
        #expect(Seat.seating(playerCount: 3) == [.bottom, .left, .top])
        #expect(Seat.seating(playerCount: 4) == [.bottom, .left, .top, .right])
        #expect(Seat.seating(playerCount: 5).isEmpty)
    }

    @Test("card ids run 0–51 and round-trip; names read well")
    func cardIDs() {
        #expect(Set(Card.fullDeck.map(\.id)) == Set(0..<52))
        for card in Card.fullDeck { #expect(Card(id: card.id) == card) }
        #expect(Card(id: 52) == nil)
        #expect(Card(.ten, .hearts).description == "10H")
        #expect(Card(.queen, .spades).description == "QS")
    }

    @Test("the seeded generator is fixed by its seed and uniform enough")
    func seededRandom() {
        var a = SeededRandom(seed: 99), b = SeededRandom(seed: 99)
        let first = (0..<10).map { _ in a.next() }
        #expect(first == (0..<10).map { _ in b.next() })
        // A known value pins the sequence across machines and Swift versions.
        var pinned = SeededRandom(seed: 0)
        #expect(pinned.next() == 0xE220_A839_7B1D_CDAF)
        var counts = [Int](repeating: 0, count: 6)
        var r = SeededRandom(seed: 1)
        for _ in 0..<60_000 { counts[r.below(6)] += 1 }
        for count in counts { #expect((9_000...11_000).contains(count)) }
    }
}
