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
