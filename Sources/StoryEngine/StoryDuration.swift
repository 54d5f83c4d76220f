/// A turn's deadline as players type it and read it: a whole number with `s`, `m`, `h`
/// or `d` ("2s", "30m", "72h", "3d").
public enum StoryDuration {
    /// The service's deadline when none is given: three days.
    public static let defaultTurnSeconds: UInt64 = 72 * 3600
    /// The longest deadline: a year (longer would be none at all, which is not offered).
    public static let maxSeconds: UInt64 = 366 * 86_400

    /// Seconds in `text`, or why it is not a duration.
    public static func parse(_ text: String) -> Result<UInt64, DurationError> {
        guard let unit = text.last, let multiplier = multipliers[unit] else { return .failure(.init(text)) }
        let digits = text.dropLast()
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy(\.isASCII), let count = UInt64(digits), count > 0
        else { return .failure(.init(text)) }
        let seconds = count * multiplier
        guard seconds <= maxSeconds else { return .failure(.init(text, tooLong: true)) }
        return .success(seconds)
    }

    private static let multipliers: [Character: UInt64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]

    /// A time left in its two largest units, rounded down: "2 d 23 h", "4 h 59 min",
    /// "12 min", "30 s" (a 5 h deadline just begun never reads "4 h").
    public static func describe(_ seconds: UInt64) -> String {
        func two(_ big: UInt64, _ bigUnit: String, _ small: UInt64, _ smallUnit: String) -> String {
            small == 0 ? "\(big) \(bigUnit)" : "\(big) \(bigUnit) \(small) \(smallUnit)"
        }
        switch seconds {
        case 86_400...: return two(seconds / 86_400, "d", seconds % 86_400 / 3600, "h")
        case 3600...: return two(seconds / 3600, "h", seconds % 3600 / 60, "min")
        case 60...: return "\(seconds / 60) min"
        default: return "\(seconds) s"
        }
    }

    public struct DurationError: Error, Equatable, CustomStringConvertible {
        public let text: String
        public let tooLong: Bool
        init(_ text: String, tooLong: Bool = false) {
            self.text = text
            self.tooLong = tooLong
        }
        public var description: String {
            tooLong ? "\"\(text)\" is longer than a year (366d)"
                : "\"\(text)\" is not a duration: a whole number above 0 with s, m, h or d, like 2s, 30m, 72h or 3d"
        }
    }
}
