/// Rule options. The default is the original game exactly.
public struct Rules: Hashable, Sendable, Codable {
    /// Ends a round after this many turned cards: the player holding the most cards
    /// wins it (ties go to the first such player clockwise from the round's starting
    /// player). `nil`, the original rule, plays on until one player holds all 52.
    public var turnLimit: Int?

    public init(turnLimit: Int? = nil) {
        self.turnLimit = turnLimit
    }

    public static let original = Rules()
}
