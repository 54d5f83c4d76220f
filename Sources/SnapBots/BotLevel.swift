import SnapEngine

/// How quick and how careful a computer player is. `normal` is the original game's
/// computer player; the others scale its delays and its deliberate mistakes.
public enum BotLevel: String, CaseIterable, Sendable, Codable {
    case easy, normal, hard

    public var timing: BotTiming {
        switch self {
        case .easy: Self.easyTiming
        case .normal: Self.normalTiming
        case .hard: Self.hardTiming
        }
    }

    // Made once: a bot reads its timing on every event it observes, and scaling a
    // Duration by a Double is not cheap.
    private static let easyTiming = BotTiming(scale: 1.6, mistakeChance: 1.0 / 25)
    private static let normalTiming = BotTiming(scale: 1.0, mistakeChance: 1.0 / 50)
    private static let hardTiming = BotTiming(scale: 0.5, mistakeChance: 1.0 / 100)
}

/// A computer player's delays: a turn 0.5 s plus 0–2 s after it becomes active, a
/// Snap! 0.5–2.5 s after a match, both times `scale`; and the chance of calling
/// Snap! on a card that makes no match.
public struct BotTiming: Hashable, Sendable {
    public var turnBase: Duration
    public var turnSpread: Duration
    public var snapBase: Duration
    public var snapSpread: Duration
    public var mistakeChance: Double

    public init(scale: Double, mistakeChance: Double) {
        turnBase = .milliseconds(500) * scale
        turnSpread = .milliseconds(2_000) * scale
        snapBase = .milliseconds(500) * scale
        snapSpread = .milliseconds(2_000) * scale
        self.mistakeChance = mistakeChance
    }
}
