/// One seat's cards and record. Piles are stored bottom first: the last element is the top.
public struct Hand: Hashable, Sendable {
    public internal(set) var closed: [Card] = []
    public internal(set) var open: [Card] = []
    public internal(set) var wins = 0
    /// False once the player has left the game.
    public internal(set) var isPresent = true
    /// The player's connection dropped and their seat waits for them: skipped, cards kept.
    public internal(set) var isAbsent = false

    public var cardCount: Int { closed.count + open.count }
    public var hasCards: Bool { !closed.isEmpty || !open.isEmpty }

    /// Turn the open pile face down under the closed pile; the card at the bottom of
    /// the open pile becomes the top of the closed one.
    mutating func recycle() {
        closed.insert(contentsOf: open.reversed(), at: 0)
        open.removeAll(keepingCapacity: true)
    }
}
