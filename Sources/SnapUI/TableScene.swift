#if GUI
import SnapEngine

/// Placeholder until the table is built.
public final class TableScene: Scene {
    let client: GameClient
    public init(app: App, client: GameClient) { self.client = client }
    public func handle(_ input: Input, app: App) -> SceneChange? { input == .key(.escape) ? .quit : nil }
    public func update(now: Double, app: App) -> SceneChange? { _ = client.poll(now: now); return nil }
    public func draw(_ graphics: Graphics, app: App) {
        graphics.tile(app.assets.felt, tileSize: Size(256, 256))
        graphics.text("TableScene (not built yet)", at: Point(512, 360), size: 28, bold: true)
    }
    public var isAnimating: Bool { true }
    public func pileFrame(for seat: Seat) -> Rect { Rect(center: Point(452, 640), size: cardSize) }
    public var snapButtonFrame: Rect { Rect(center: Point(920, 660), size: Size(120, 120)) }
    public var statusLine: String { "" }
    public var mySeat: Seat? { client.session.seat }
    public var title: String { "Snap! — \(client.name)" + (client.isHost ? " (host)" : "") }
}
#endif
