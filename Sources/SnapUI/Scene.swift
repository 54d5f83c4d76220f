#if GUI
import SnapTable
import CSDL2
import Glibc
import SnapProtocol

/// Input, already in logical coordinates.
public enum Input: Equatable {
    case press(Point)
    case release(Point)
    case move(Point)
    case key(Key)
    case text(String)
    /// Ctrl+V: the clipboard's text.
    case paste(String)
}

public enum Key: Equatable {
    case space, s, m, escape, enter, backspace, tab, f11, y, n, other
    case left, right, up, down, shiftLeft, shiftRight, home, end, delete, selectAll, copy
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

#endif
