import SnapBots

/// Single player: how many computer opponents (1–3: Ray, Lucy, Steve), how good they are,
/// the player's name, then Play (or Enter). A name that cannot be used is said in words and
/// the field takes the focus; a changed name is saved when the game starts.
public struct SoloSetupModel: Equatable, Sendable {
    public enum Intent: Equatable, Sendable {
        case edit(TextFieldModel.Edit)
        /// A click in the name field (true) or elsewhere (false).
        case focusName(Bool)
        case opponents(Int)
        case level(BotLevel)
        case play, back
        case enter, tab, escape
    }

    public static let opponentNames = Bot.names
    public static let levelNotes: [BotLevel: String] = [
        .easy: "Relaxed: slow hands, and a wrong Snap! now and then.",
        .normal: "The classic pace.",
        .hard: "Lightning fast, and they rarely get it wrong.",
    ]

    public private(set) var opponents = 3
    public private(set) var level = BotLevel.normal
    public private(set) var name: TextFieldModel
    /// Why the name cannot be used, or why the last typing was not taken.
    public private(set) var nameError: String?
    /// The name the settings file holds.
    private var savedName: String

    public init(savedName: String) {
        self.savedName = savedName
        name = .name(savedName)
    }

    public mutating func handle(_ intent: Intent, now: Double) -> [ScreenEffect] {
        switch intent {
        case .edit(let edit):
            let before = name.text
            let effects = name.handle(edit)
            if name.text != before { nameError = nil }
            if let rejected = name.rejection { nameError = rejected }
            return effects
        case .focusName(let inside):
            if inside { name.focus() } else { name.isFocused = false }
        case .opponents(let count):
            opponents = min(max(count, 1), Self.opponentNames.count)
        case .level(let chosen):
            level = chosen
        case .play, .enter:
            return play()
        case .tab:
            name.isFocused.toggle()
        case .back:
            return [.show(.menu)]
        case .escape:
            guard name.isFocused else { return [.show(.menu)] }
            name.isFocused = false
        }
        return []
    }

    private mutating func play() -> [ScreenEffect] {
        if let problem = NameRules.problem(name.text) {
            nameError = problem
            name.isFocused = true
            return []
        }
        var effects: [ScreenEffect] = []
        if name.text != savedName {
            savedName = name.text
            effects.append(.saveName(name.text))
        }
        effects.append(.startSolo(SoloGame(name: name.text, opponents: opponents, level: level)))
        return effects
    }
}
