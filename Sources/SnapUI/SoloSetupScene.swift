#if GUI
import SnapBots
import SnapEngine

/// Placeholder until the scene is built: shows its name.
public final class SoloSetupScene: Scene {
    public init(app: App) {}
    public func handle(_ input: Input, app: App) -> SceneChange? { input == .key(.escape) ? .quit : nil }
    public func update(now: Double, app: App) -> SceneChange? { nil }
    public func draw(_ graphics: Graphics, app: App) {
        graphics.tile(app.assets.felt, tileSize: Size(256, 256))
        graphics.text("SoloSetupScene (not built yet)", at: Point(512, 360), size: 28, bold: true)
    }
    public var isAnimating: Bool { false }
    public var title: String { "Snap!" }
}
#endif
