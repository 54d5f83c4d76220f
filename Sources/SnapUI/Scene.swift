#if GUI
import CSDL2
import Glibc

/// Input, already in logical coordinates.
public enum Input: Equatable {
    case press(Point)
    case release(Point)
    case move(Point)
    case key(Key)
    case text(String)
}

public enum Key: Equatable {
    case space, s, m, escape, enter, backspace, tab, f11, y, n, other
}

/// What a scene asks the app to do next.
public enum SceneChange {
    case show(Scene)
    case quit
}

/// One screen. The app calls, every frame and in this order: `handle` for each input,
/// `update` with the time, then `draw` (only when `needsRedraw` or `isAnimating`).
/// Scenes never decide a rule: they draw the session's model and send intents.
public protocol Scene: AnyObject {
    func handle(_ input: Input, app: App) -> SceneChange?
    func update(now: Double, app: App) -> SceneChange?
    func draw(_ graphics: Graphics, app: App)
    /// True while something moves: the app keeps drawing every frame.
    var isAnimating: Bool { get }
    /// The window title for this scene.
    var title: String { get }
}

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

/// A modal box over the scene: a message and one or two buttons. Scenes keep an
/// optional `Dialog` and give it input first while it is shown.
public struct Dialog {
    public enum Choice: Equatable { case yes, no }

    public var title: String
    public var message: String
    public var yes: Button
    public var no: Button?

    /// A question with Yes / No (keys Y, Enter / N, Esc).
    public static func confirm(_ title: String, _ message: String, yes: String = "Yes", no: String = "No") -> Dialog {
        Dialog(title: title, message: message, yes: Button(yes, center: Point(422, 430), width: 150),
               no: Button(no, center: Point(602, 430), width: 150))
    }

    /// A message with OK (Enter or Esc).
    public static func alert(_ title: String, _ message: String) -> Dialog {
        Dialog(title: title, message: message, yes: Button("OK", center: Point(512, 430), width: 150), no: nil)
    }

    public var frame: Rect { Rect(center: Point(512, 384), size: Size(520, 220)) }

    /// The choice this input makes, if any.
    public mutating func handle(_ input: Input) -> Choice? {
        switch input {
        case .press(let point):
            yes.isPressed = yes.contains(point)
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
        graphics.fill(frame, Color(250, 246, 236))
        graphics.outline(frame, Color(60, 40, 20), thickness: 3)
        graphics.text(title, at: Point(512, frame.y + 24), size: 26, bold: true, color: .ink, shadow: false)
        graphics.text(message, at: Point(512, frame.y + 72), size: 17, color: .ink, shadow: false)
        yes.draw(graphics, assets: assets)
        no?.draw(graphics, assets: assets)
    }
}

/// A one-line text field for names and addresses.
public struct TextField {
    public var text: String
    public var frame: Rect
    public var isFocused = false
    public var maxLength: Int

    public init(text: String, frame: Rect, maxLength: Int = 20) {
        self.text = text
        self.frame = frame
        self.maxLength = maxLength
    }

    /// Applies typing; returns true when the text changed.
    public mutating func handle(_ input: Input) -> Bool {
        switch input {
        case .press(let point):
            isFocused = frame.contains(point)
        case .text(let typed) where isFocused:
            let room = maxLength - text.count
            guard room > 0 else { return false }
            text += String(typed.prefix(room))
            return true
        case .key(.backspace) where isFocused:
            guard !text.isEmpty else { return false }
            text.removeLast()
            return true
        default:
            break
        }
        return false
    }

    public func draw(_ graphics: Graphics, now: Double) {
        graphics.fill(frame, Color(255, 255, 255, isFocused ? 240 : 200))
        graphics.outline(frame, isFocused ? .gold : Color(0, 0, 0, 120))
        let caret = isFocused && Int(now * 2) % 2 == 0 ? "|" : ""
        graphics.text(text + caret, at: Point(frame.x + 10, frame.y + (frame.height - 22) / 2), size: 18,
                      color: .ink, align: .left, shadow: false)
    }
}
#endif
