import SnapBytes

/// A one-line text field's state and editing rules, without drawing: a caret that moves
/// (←, →, Home, End), a selection (Shift+←/→, Ctrl+A; typing replaces it), Backspace and
/// Delete, Ctrl+C and Ctrl+V, a limit said in words instead of a silent cut, and, for names,
/// a sentence about a character a name may not hold. SnapUI's `TextField` draws it and maps
/// keys to `Edit`s; Ctrl+C comes back as an effect, so the model never touches a clipboard.
public struct TextFieldModel: Equatable, Sendable {
    /// What a key or a paste does to the field.
    public enum Edit: Equatable, Sendable {
        case type(String)
        /// Ctrl+V: the clipboard's text (its first line is taken).
        case paste(String)
        case backspace, delete
        case left, right, home, end
        /// Shift+← and Shift+→: grow or shrink the selection.
        case selectLeft, selectRight
        case selectAll
        case copy
    }

    /// Which characters a field takes.
    public enum Characters: Equatable, Sendable {
        /// Anything on one line.
        case any
        /// Anything but control characters (a story's turn).
        case printable
        /// What a player's name may hold: letters, digits, spaces and - _ . '
        case name
    }

    public private(set) var text: String
    public var isFocused = false
    /// The most Unicode scalars it holds (a player name counts scalars).
    public let maxLength: Int
    public let characters: Characters
    /// Show "n/max" beside the text.
    public let showsCount: Bool
    /// The caret, in characters from the start; the selection runs from `anchor` to it.
    public private(set) var caret: Int
    public private(set) var anchor: Int?
    /// Why the last typing or paste was not taken whole, in words (nil when it was).
    public private(set) var rejection: String?

    public init(text: String = "", maxLength: Int = 20, characters: Characters = .any, showsCount: Bool = false) {
        self.text = text
        self.maxLength = maxLength
        self.characters = characters
        self.showsCount = showsCount
        caret = text.count
    }

    /// A field for a player's name: 20 scalars at most, its count shown.
    public static func name(_ text: String) -> TextFieldModel {
        TextFieldModel(text: text, maxLength: PlayerName.maxScalars, characters: .name, showsCount: true)
    }

    /// Replaces the whole text (caret at the end, nothing selected).
    public mutating func set(_ newText: String) {
        text = newText
        caret = newText.count
        anchor = nil
        rejection = nil
    }

    /// How many scalars it holds (what `maxLength` counts).
    public var count: Int { text.unicodeScalars.count }

    /// The selected characters' offsets, when something is selected.
    public var selection: Range<Int>? {
        guard let anchor, anchor != caret else { return nil }
        return min(anchor, caret)..<max(anchor, caret)
    }

    public var selectedText: String? {
        selection.map { String(text.dropFirst($0.lowerBound).prefix($0.count)) }
    }

    /// Applies an edit when the field has the focus (an unfocused field takes none). The text
    /// may change (compare it), and Ctrl+C of a selection asks for the clipboard.
    @discardableResult
    public mutating func handle(_ edit: Edit) -> [ScreenEffect] {
        guard isFocused else { return [] }
        switch edit {
        case .type(let typed), .paste(let typed):
            insert(typed)
        case .backspace:
            rejection = nil
            if deleteSelection() { break }
            guard caret > 0 else { break }
            text.remove(at: index(caret - 1))
            caret -= 1
        case .delete:
            rejection = nil
            if deleteSelection() { break }
            guard caret < text.count else { break }
            text.remove(at: index(caret))
        case .left, .right, .home, .end:
            if let range = selection {
                caret = edit == .left ? range.lowerBound : edit == .right ? range.upperBound : caret
                anchor = nil
                if edit == .left || edit == .right { break }
            }
            anchor = nil
            switch edit {
            case .left: caret = max(0, caret - 1)
            case .right: caret = min(text.count, caret + 1)
            case .home: caret = 0
            default: caret = text.count
            }
        case .selectLeft, .selectRight:
            if anchor == nil { anchor = caret }
            caret = edit == .selectLeft ? max(0, caret - 1) : min(text.count, caret + 1)
        case .selectAll:
            anchor = 0
            caret = text.count
        case .copy:
            if let selectedText { return [.copyToClipboard(selectedText)] }
        }
        return []
    }

    /// Takes the focus; a click in the field also drops the selection.
    public mutating func focus() {
        isFocused = true
        anchor = nil
    }

    private func index(_ offset: Int) -> String.Index { text.index(text.startIndex, offsetBy: offset) }

    private mutating func deleteSelection() -> Bool {
        guard let range = selection else {
            anchor = nil
            return false
        }
        text.removeSubrange(index(range.lowerBound)..<index(range.upperBound))
        caret = range.lowerBound
        anchor = nil
        return true
    }

    /// Why this field does not take `character`, in words; nil when it does.
    private func refusal(_ character: Character) -> String? {
        switch characters {
        case .any:
            return nil
        case .printable:
            let control = character.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
            return control ? "The text cannot hold an invisible control character." : nil
        case .name:
            return character.unicodeScalars.first { !NameRules.mayHold($0) }.map(NameRules.forbiddenCharacterSentence)
        }
    }

    /// Inserts typed or pasted text at the caret, over the selection.
    private mutating func insert(_ typed: String) {
        rejection = nil
        _ = deleteSelection()
        var room = maxLength - count
        var accepted = ""
        for character in typed {
            if character == "\n" || character == "\r" { break }  // a paste takes its first line
            if let refusal = refusal(character) {
                rejection = refusal
                continue
            }
            let width = character.unicodeScalars.count
            guard width <= room else {
                rejection = "At most \(maxLength) characters."
                break
            }
            room -= width
            accepted.append(character)
        }
        if !accepted.isEmpty {
            text.insert(contentsOf: accepted, at: index(caret))
            caret += accepted.count
        }
    }
}
