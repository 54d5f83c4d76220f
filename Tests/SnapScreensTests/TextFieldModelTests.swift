import SnapBytes
import SnapScreens
import Testing

@Suite("A text field's model")
struct TextFieldModelTests {
    static func focused(_ field: TextFieldModel) -> TextFieldModel {
        var field = field
        field.focus()
        return field
    }

    @Test("a name field counts to 20 and says so instead of cutting silently")
    func lengthLimit() {
        var field = Self.focused(.name(""))
        field.handle(.type("Abcdefghijklmnopqrst"))
        field.handle(.type("u"))
        #expect(field.text == "Abcdefghijklmnopqrst")
        #expect(field.count == 20)
        #expect(field.rejection == "At most 20 characters.")
        field.handle(.backspace)
        #expect(field.rejection == nil)
        #expect(field.count == 19)
    }

    @Test("a character a name may not hold is named in words, never as a code point")
    func forbiddenCharacters() throws {
        var field = Self.focused(.name("Ann"))
        field.handle(.type("\u{7}"))
        #expect(field.text == "Ann")
        let bell = try #require(field.rejection)
        #expect(!bell.contains("U+") && bell.contains("control character"), "\(bell)")
        field.handle(.type("#"))
        #expect(field.rejection == "A name cannot hold \u{201C}#\u{201D}: use letters, digits, spaces and - _ . '")
        #expect(field.text == "Ann")
        #expect(NameRules.problem("Ann\u{7}")?.contains("U+") == false)
        // A field for anything takes what a name may not.
        var any = Self.focused(TextFieldModel(text: "", maxLength: 10))
        any.handle(.type("a#b"))
        #expect(any.text == "a#b" && any.rejection == nil)
    }

    @Test("caret, selection, Ctrl+A and paste")
    func editing() {
        var field = Self.focused(.name("Ann"))
        for edit: TextFieldModel.Edit in [.home, .type("J"), .end, .type("a")] { field.handle(edit) }
        #expect(field.text == "JAnna")
        for edit: TextFieldModel.Edit in [.left, .selectLeft, .selectLeft] { field.handle(edit) }
        #expect(field.selectedText == "nn")
        field.handle(.type("l"))
        #expect(field.text == "JAla")
        field.handle(.selectAll)
        field.handle(.paste("Zoë Smith\nsecond line"))
        #expect(field.text == "Zoë Smith")
        field.handle(.home)
        field.handle(.delete)
        #expect(field.text == "oë Smith")
        #expect(field.caret == 0)
        // ← and → over a selection land at its ends and drop it.
        field.handle(.selectRight)
        field.handle(.selectRight)
        field.handle(.right)
        #expect(field.caret == 2 && field.selection == nil)
        field.handle(.selectLeft)
        field.handle(.left)
        #expect(field.caret == 1 && field.selection == nil)
    }

    @Test("Ctrl+C asks for the clipboard with the selection, and with nothing when nothing is selected")
    func copy() {
        var field = Self.focused(.name("Ann Lee"))
        #expect(field.handle(.copy).isEmpty)
        field.handle(.selectAll)
        #expect(field.handle(.copy) == [.copyToClipboard("Ann Lee")])
        #expect(field.text == "Ann Lee")
    }

    @Test("a field without the focus takes no edit; a click in it drops the selection")
    func focus() {
        var field = TextFieldModel.name("Ann")
        field.handle(.type("x"))
        field.handle(.backspace)
        #expect(field.text == "Ann")
        field.focus()
        field.handle(.selectAll)
        field.focus()
        #expect(field.selection == nil)
    }

    @Test("the next variant of a taken name, cut to fit")
    func nextVariant() {
        #expect(NameRules.nextVariant(of: "Ann") == "Ann 2")
        #expect(NameRules.nextVariant(of: "Ann 2") == "Ann 3")
        #expect(NameRules.nextVariant(of: "Player 9") == "Player 10")
        let long = String(repeating: "x", count: 20)
        #expect(NameRules.nextVariant(of: long) == String(repeating: "x", count: 18) + " 2")
        #expect(PlayerName.isValid(NameRules.nextVariant(of: long)))
    }

    @Test("why a name cannot be used, in words")
    func problems() {
        #expect(NameRules.problem("Ann") == nil)
        #expect(NameRules.problem("") == "Please type a name.")
        #expect(NameRules.problem(" Ann") == "A name cannot start or end with a space.")
        #expect(NameRules.problem("A  nn") == "A name cannot have two spaces in a row.")
        #expect(NameRules.problem(String(repeating: "a", count: 21)) == "A name holds at most 20 characters.")
    }
}
