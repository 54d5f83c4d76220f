#if GUI
import SnapBytes
import SnapTable
import CSDL2
import Glibc
import SnapProtocol
import SnapScreens

// The one widget set every screen draws with: Button, ButtonSet, Dialog, TextField.

/// A push button drawn from the generated button images, label at run time.
public struct Button {
    public var label: String
    public var frame: Rect
    public var isEnabled = true
    public var isPressed = false

    public init(_ label: String, center: Point, width: Double = 180) {
        self.label = label
        frame = Rect(center: center, size: Size(width, 44))
    }

    public func contains(_ point: Point) -> Bool { frame.contains(point) }

    public func draw(_ graphics: Graphics, assets: Assets) {
        let image = !isEnabled ? assets.buttonDisabled : (isPressed ? assets.buttonPressed : assets.button)
        graphics.draw(image, in: frame)
        // The pressed image moves its face 3 px down onto the lip; the label follows.
        let offset = isPressed ? 3.0 : 0
        graphics.text(label, at: Point(frame.center.x, frame.y + 9 + offset), size: 18, bold: true,
                      color: isEnabled ? .white : Color(200, 200, 200))
    }
}

/// A modal box over the scene, the one dialog every screen uses: a title, a message
/// wrapped to at most four lines, and one or two buttons — or, to choose among a few
/// answers, a column of them above a way out. Scenes keep an optional `Dialog` and give
/// it input first while it is shown.
public struct Dialog {
    /// `option(i)`: the `i`th of `options` (a `choose` dialog's answers; `yes` is then `option(0)`'s button).
    public enum Choice: Equatable {
        case yes, no, option(Int)

        /// Which of a list of answers this picks: the first for yes, none for no.
        public var answerIndex: Int? {
            switch self {
            case .yes: 0
            case .option(let index): index
            case .no: nil
            }
        }
    }

    public var title: String
    public var message: String
    public var yes: Button
    public var no: Button?
    /// A `choose` dialog's answers, top to bottom; empty for the others.
    public var options: [Button] = []
    var frame = Self.standard

    static let standard = Rect(center: Point(512, 384), size: Size(540, 264))
    private static let buttonsY = standard.y + standard.height - 46
    private static let optionStep = 54.0
    /// The message's lines in a `choose` dialog (four in the others).
    private static let chooseLines = 3

    /// A question with Yes / No (keys Y, Enter / N, Esc).
    public static func confirm(_ title: String, _ message: String, yes: String = "Yes", no: String = "No") -> Dialog {
        Dialog(title: title, message: message, yes: Button(yes, center: Point(412, buttonsY), width: 180),
               no: Button(no, center: Point(612, buttonsY), width: 180))
    }

    /// A message with OK (Enter or Esc).
    public static func alert(_ title: String, _ message: String) -> Dialog {
        Dialog(title: title, message: message, yes: Button("OK", center: Point(512, buttonsY), width: 150), no: nil)
    }

    /// A question with a few answers, one button each in a column, and a way out (`no`)
    /// below them: Y or Enter picks the first, N or Esc the way out. The message gets three lines.
    public static func choose(_ title: String, _ message: String, options: [String], no: String) -> Dialog {
        precondition(!options.isEmpty, "a choice among no answers")
        // The title and message, the column of answers, a gap, the way out and the margin.
        let firstTop = 66 + Double(chooseLines) * 23 + 14
        let height = firstTop + optionStep * Double(options.count - 1) + 44 + 22 + 44 + 24
        let frame = Rect(center: standard.center, size: Size(standard.width, height))
        let buttons = options.enumerated().map { index, label in
            Button(label, center: Point(frame.center.x, frame.y + firstTop + 22 + optionStep * Double(index)), width: 320)
        }
        var dialog = Dialog(title: title, message: message, yes: buttons[0],
                            no: Button(no, center: Point(frame.center.x, frame.y + frame.height - 24 - 22), width: 180))
        dialog.options = buttons
        dialog.frame = frame
        return dialog
    }

    /// The choice this input makes, if any.
    public mutating func handle(_ input: Input) -> Choice? {
        if !options.isEmpty {
            switch input {
            case .press(let point):
                for index in options.indices { options[index].isPressed = options[index].contains(point) }
            case .release(let point):
                defer { for index in options.indices { options[index].isPressed = false } }
                if let index = options.indices.first(where: { options[$0].isPressed && options[$0].contains(point) }) {
                    return .option(index)
                }
            case .key(.y), .key(.enter): return .option(0)
            default: break
            }
        }
        switch input {
        case .press(let point):
            yes.isPressed = options.isEmpty && yes.contains(point)
            let onNo = no?.contains(point) ?? false
            no?.isPressed = onNo
        case .release(let point):
            defer { yes.isPressed = false; no?.isPressed = false }
            if yes.isPressed, yes.contains(point) { return .yes }
            if no?.isPressed == true, no?.contains(point) == true { return .no }
        case .key(.y), .key(.enter): return .yes
        case .key(.n): return no == nil ? nil : .no
        case .key(.escape): return no == nil ? .yes : .no
        default: break
        }
        return nil
    }

    public func draw(_ graphics: Graphics, assets: Assets) {
        graphics.fill(Rect(x: 0, y: 0, width: logicalSize.width, height: logicalSize.height), Color.dim)
        MenuKit.panel(graphics, Rect(x: frame.x, y: frame.y + 6, width: frame.width, height: frame.height), Color(0, 0, 0, 70), radius: 18)
        MenuKit.panel(graphics, frame, Color(250, 247, 240), radius: 16)
        graphics.text(title, at: Point(frame.center.x, frame.y + 26), size: 26, bold: true, color: .ink, shadow: false)
        let width = frame.width - 70
        let maxLines = options.isEmpty ? 4 : Self.chooseLines
        let lines = min(maxLines, MenuKit.wrap(graphics, message, width: width, size: 17).count)
        // Centre the message between the title and the buttons.
        let top = frame.y + 66 + (Double(maxLines) - Double(lines)) * 23 / 2
        MenuKit.paragraph(graphics, message, at: Point(frame.center.x, top), width: width, size: 17, color: .ink,
                          maxLines: maxLines, shadow: false)
        if options.isEmpty { yes.draw(graphics, assets: assets) }
        for option in options { option.draw(graphics, assets: assets) }
        no?.draw(graphics, assets: assets)
    }
}

extension Dialog {
    /// A screen model's question, drawn.
    public init(_ question: Question) {
        switch question.kind {
        case .alert: self = .alert(question.title, question.message)
        case .confirm(let yes, let no): self = .confirm(question.title, question.message, yes: yes, no: no)
        case .choose(let options, let no): self = .choose(question.title, question.message, options: options, no: no)
        }
    }
}

/// Buttons keyed by what they do: press on `.press`, act on `.release` inside (like `Dialog`).
struct ButtonSet<ID: Hashable> {
    private(set) var order: [ID] = []
    private var buttons: [ID: Button] = [:]
    var hidden: Set<ID> = []

    mutating func add(_ id: ID, _ button: Button) {
        if buttons[id] == nil { order.append(id) }
        buttons[id] = button
    }

    subscript(id: ID) -> Button {
        get { buttons[id]! }
        set { buttons[id] = newValue }
    }

    /// Presses the button under `point`; true if one was pressed.
    @discardableResult
    mutating func press(_ point: Point) -> Bool {
        var any = false
        for id in order {
            let hit = !hidden.contains(id) && buttons[id]!.isEnabled && buttons[id]!.contains(point)
            buttons[id]!.isPressed = hit
            any = any || hit
        }
        return any
    }

    /// The button pressed and released inside, if any; every button pops back up.
    mutating func release(_ point: Point) -> ID? {
        var chosen: ID?
        for id in order {
            if buttons[id]!.isPressed, buttons[id]!.contains(point), chosen == nil { chosen = id }
            buttons[id]!.isPressed = false
        }
        return chosen
    }

    var isAnyPressed: Bool { order.contains { buttons[$0]!.isPressed } }

    func draw(_ graphics: Graphics, _ assets: Assets) {
        for id in order where !hidden.contains(id) { buttons[id]!.draw(graphics, assets: assets) }
    }
}

/// A one-line text field on screen: its `TextFieldModel` (the text, caret, selection and
/// rules, SnapScreens') drawn in a frame, with keys mapped to the model's edits.
public struct TextField {
    public var model: TextFieldModel
    public var frame: Rect

    public init(text: String, frame: Rect, maxLength: Int = 20, characters: TextFieldModel.Characters = .any) {
        model = TextFieldModel(text: text, maxLength: maxLength, characters: characters)
        self.frame = frame
    }

    /// A field for a player's name: letters, digits, spaces and - _ . ' only, 20 at most.
    public static func name(_ text: String, frame: Rect) -> TextField {
        TextField(model: .name(text), frame: frame)
    }

    public init(model: TextFieldModel, frame: Rect) {
        self.model = model
        self.frame = frame
    }

    public var text: String { model.text }
    public var count: Int { model.count }
    public var caret: Int { model.caret }
    public var rejection: String? { model.rejection }
    public var isFocused: Bool {
        get { model.isFocused }
        set { model.isFocused = newValue }
    }

    /// Replaces the whole text (caret at the end, nothing selected).
    public mutating func set(_ newText: String) { model.set(newText) }

    /// The model's edit for a key, typing or a paste; nil for what a field does not take.
    public static func edit(for input: Input) -> TextFieldModel.Edit? {
        switch input {
        case .text(let typed): .type(typed)
        case .paste(let pasted): .paste(pasted)
        case .key(.backspace): .backspace
        case .key(.delete): .delete
        case .key(.left): .left
        case .key(.right): .right
        case .key(.home): .home
        case .key(.end): .end
        case .key(.shiftLeft): .selectLeft
        case .key(.shiftRight): .selectRight
        case .key(.selectAll): .selectAll
        case .key(.copy): .copy
        default: nil
        }
    }

    /// A click takes or drops the focus; typing edits a focused field (its effects, a copy,
    /// performed by `app`). Returns true when the text changed.
    public mutating func handle(_ input: Input, app: App) -> Bool {
        if case .press(let point) = input {
            if frame.contains(point) { model.focus() } else { model.isFocused = false }
            return false
        }
        guard let edit = Self.edit(for: input) else { return false }
        let before = model.text
        _ = app.perform(model.handle(edit))  // a copy: no scene change
        return model.text != before
    }

    public func draw(_ graphics: Graphics, now: Double) {
        graphics.fill(frame, Color(255, 255, 255, isFocused ? 240 : 200))
        graphics.outline(frame, isFocused ? .gold : Color(0, 0, 0, 120))
        let origin = Point(frame.x + 10, frame.y + (frame.height - 22) / 2)
        // Text longer than the field (a pasted invitation) shows from where the caret is in
        // view, cut with "…" at the field's end.
        let (text, caret, showsCount) = (model.text, model.caret, model.showsCount)
        let room = frame.width - 20 - (showsCount ? 48 : 0)
        var first = 0
        if graphics.textWidth(text, size: 18) > room {
            while first < caret, graphics.textWidth(String(text.dropFirst(first).prefix(caret - first)), size: 18) > room - 4 {
                first += 1
            }
        }
        func width(_ prefix: Int) -> Double {
            prefix <= first ? 0 : graphics.textWidth(String(text.dropFirst(first).prefix(prefix - first)), size: 18)
        }
        if isFocused, let range = model.selection {
            let x0 = width(range.lowerBound), x1 = min(width(range.upperBound), room)
            graphics.fill(Rect(x: origin.x + x0, y: origin.y - 1, width: x1 - x0, height: 25), Color(120, 170, 255, 150))
        }
        let shown = first == 0 ? text : String(text.dropFirst(first))
        graphics.text(graphics.fitted(shown, width: room, size: 18), at: origin, size: 18, color: .ink, align: .left,
                      shadow: false)
        if isFocused, Int(now * 2) % 2 == 0 {
            graphics.fill(Rect(x: origin.x + width(caret), y: origin.y, width: 2, height: 23), .ink)
        }
        if showsCount {
            let full = count >= model.maxLength
            graphics.text("\(count)/\(model.maxLength)", at: Point(frame.x + frame.width - 8, frame.y + (frame.height - 16) / 2),
                          size: 13, color: full ? Color(200, 60, 40) : Color(110, 110, 110), align: .right, shadow: false)
        }
    }
}
#endif
