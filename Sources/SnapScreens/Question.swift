/// A box over a screen, as a value: a message with OK, a question with two answers, or a
/// choice among a few answers above a way out. SnapUI's `Dialog` draws one and turns clicks
/// and keys into its answer: the index of the answer chosen (Yes is 0), or nil for No or the way out.
public struct Question: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// OK (Enter or Esc).
        case alert
        /// Yes / No.
        case confirm(yes: String, no: String)
        /// A column of answers above a way out.
        case choose(options: [String], no: String)
    }

    public var title: String
    public var message: String
    public var kind: Kind

    public init(title: String, message: String, kind: Kind) {
        self.title = title
        self.message = message
        self.kind = kind
    }

    public static func alert(_ alert: Alert) -> Question {
        Question(title: alert.title, message: alert.message, kind: .alert)
    }

    public static func confirm(_ title: String, _ message: String, yes: String = "Yes", no: String = "No") -> Question {
        Question(title: title, message: message, kind: .confirm(yes: yes, no: no))
    }

    public static func choose(_ title: String, _ message: String, options: [String], no: String) -> Question {
        Question(title: title, message: message, kind: .choose(options: options, no: no))
    }
}
