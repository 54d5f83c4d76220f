/// How the host paces a game: the delays it waits before its own follow-up commands.
public struct Pacing: Hashable, Sendable {
    /// From the deal to `.finishDeal`: the deal animation (cards start 0.1 s apart and fly 0.2 s).
    public var deal: Duration
    /// From a turned card to `.activateNext`, so everyone sees the card land.
    public var nextPlayer: Duration

    public init(deal: Duration = .milliseconds(100) * 51 + .milliseconds(200), nextPlayer: Duration = .milliseconds(500)) {
        self.deal = deal
        self.nextPlayer = nextPlayer
    }

    public static let original = Pacing()
}
