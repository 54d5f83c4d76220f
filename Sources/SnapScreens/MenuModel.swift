/// The main menu: the title cards S, N, A, P and the Joker fly in and settle (a flick as
/// each lands), then Host Game, Join Game, Single Player, Story, Statistics and Quit can be
/// chosen. Any click or key during the title skips it; Esc quits. Host Game makes its game
/// off the window's thread: the menu says "Starting your game…" until it is made or refused.
public struct MenuModel: Equatable, Sendable {
    public enum Action: Hashable, CaseIterable, Sendable { case host, join, solo, story, statistics, quit }

    public enum Intent: Equatable, Sendable {
        /// A click or a key while the title flies.
        case skipTitle
        case choose(Action)
        case escape
        /// The alert's OK.
        case dismissAlert
        /// Host Game's game was made: the scene opens its lobby.
        case hosted
        /// Host Game's game could not be made, and why.
        case hostingFailed(Alert)
    }

    /// The title animation, in seconds from the menu's start.
    public enum Title {
        public static let cardCount = 5
        public static let firstCardAt = 0.1
        public static let cardInterval = 0.2
        public static let flight = 0.55
        public static let buttonsFadeIn = (start: 1.2, end: 1.55)
        public static var end: Double { buttonsFadeIn.end + 0.05 }

        /// When card `index` lands (a flick sounds): 80 % into its flight.
        static func landing(_ index: Int) -> Double { firstCardAt + Double(index) * cardInterval + flight * 0.8 }
    }

    public let playerName: String
    public private(set) var now: Double
    private let start: Double
    private var skipped: Bool
    /// Title cards landed so far (each played its flick).
    public private(set) var landed: Int
    /// Host Game's game is being made.
    public private(set) var isHosting = false
    /// A message over the menu (why the player landed here, or why Host Game failed).
    public private(set) var alert: Alert?

    /// `notice`: why the player landed here (their game ended); shown at once, over a settled menu.
    public init(playerName: String, now: Double, notice: Alert? = nil) {
        self.playerName = playerName
        self.now = now
        start = now
        alert = notice
        skipped = notice != nil
        landed = notice != nil ? Title.cardCount : 0
    }

    /// Seconds into the title (past its end once skipped).
    public var elapsed: Double { skipped ? .infinity : now - start }

    /// True once the buttons can be chosen.
    public var isSettled: Bool { elapsed >= Title.buttonsFadeIn.start }

    /// The title flies, or the dots of "Starting your game…" turn.
    public var isAnimating: Bool { (!skipped && now - start < Title.end) || isHosting }

    /// The line under the buttons.
    public var footer: String { isHosting ? "Starting your game" : "Playing as \(playerName)" }

    public mutating func handle(_ intent: Intent, now: Double) -> [ScreenEffect] {
        self.now = now
        switch intent {
        case .dismissAlert:
            alert = nil
        case .hosted:
            isHosting = false
        case .hostingFailed(let why):
            isHosting = false
            alert = why
        case _ where alert != nil:
            break  // the alert takes input first
        case .escape:
            return [.quit]
        case .skipTitle:
            guard !isSettled else { break }
            skipped = true
            landed = Title.cardCount
        case .choose(let action):
            guard isSettled, !isHosting else { break }
            return choose(action)
        }
        return []
    }

    private mutating func choose(_ action: Action) -> [ScreenEffect] {
        switch action {
        case .host:
            isHosting = true
            return [.startHosting(name: playerName)]
        case .join: return [.show(.join)]
        case .solo: return [.show(.soloSetup)]
        case .story: return [.show(.story(name: playerName))]
        case .statistics: return [.show(.statistics)]
        case .quit: return [.quit]
        }
    }

    /// The title's time passes: a flick for each card that landed since.
    public mutating func update(now: Double) -> [ScreenEffect] {
        self.now = now
        var effects: [ScreenEffect] = []
        while landed < Title.cardCount, elapsed >= Title.landing(landed) {
            landed += 1
            effects.append(.play(.flick))
        }
        return effects
    }
}
