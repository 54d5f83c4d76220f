#if GUI
import SnapTable
import CSDL2
import Glibc
import Logging
import SnapEngine
import SnapUI

/// `snap-bench ui`: what drawing costs, against a baseline measured in the same run.
public struct UIBenchmark {
    public struct Result {
        public var frames: Int
        public var ours: [Double]        // ms per frame: our Graphics drawing the animating table
        public var bare: [Double]        // ms per frame: bare SDL calls drawing the same sprites
        public var firstFrameMs: Double
        public var idleCPUPercent: Double
        public var maxResidentMB: Double
        /// SDL's name for the renderer that drew ("software", "opengl", …).
        public var renderer: String
        /// Whether an OpenGL or EGL library got mapped into the process (the software
        /// renderer must not need one).
        public var openGLLoaded: Bool
        /// Message → presented frame (ms): bare SDL, a table in play, and the same with
        /// `busyThreads` threads spinning.
        public var wakeBare: [Double]
        public var wakeTable: [Double]
        public var wakeLoaded: [Double]
        public var busyThreads: Int
        /// The table-in-play figures split into parts.
        public var wakeTableParts: WakeParts
    }

    public var frames: Int
    public var renderer: RendererChoice
    /// How long the table plays for the message → screen figures, each way.
    public var tableSeconds: Double
    /// The table alone plays on until this many messages were measured (up to 4 × `tableSeconds`).
    public var tableMessages: Int

    public init(frames: Int = 600, renderer: RendererChoice = .software, tableSeconds: Double = 8,
                tableMessages: Int = 1_000) {
        self.frames = frames
        self.renderer = renderer
        self.tableSeconds = tableSeconds
        self.tableMessages = tableMessages
    }

    public func run(logger: Logger, processStart: ContinuousClock.Instant) throws(SDLError) -> Result {
        var firstFrame: Double = 0
        let scene = MovingCardsScene()
        var options = WindowOptions(quitAfter: nil, muted: true)
        options.renderer = renderer
        // The table's single-player games (`WakeBenchmark`) are this process's, ended with it.
        let app = try App(options: options, logger: logger, games: GameStarter(hosted: HostedGames())) { _ in scene }
        app.probing.recordsFrameTimes = true
        var remaining = frames
        app.probing.eachFrame = { app, _ in
            if app.frames == 1, firstFrame == 0 {
                firstFrame = milliseconds(ContinuousClock.now - processStart)
            }
            remaining -= 1
            if remaining < 0 { scene.done = true }
        }
        try app.run()
        let ours = Array(app.probing.frameTimes.dropFirst(10))

        // The baseline: the same textures, positions and angles, straight through SDL.
        var bare: [Double] = []
        let renderer = app.graphics.renderer
        let textures = (0..<52).map { app.assets.face(Card(id: UInt8($0))!).pointer }
        let felt = app.assets.felt.pointer
        for frame in 0..<frames {
            let start = ContinuousClock.now
            SDL_RenderClear(renderer)
            var y: Float = 0
            while y < 768 {
                var x: Float = 0
                while x < 1024 {
                    var tile = SDL_FRect(x: x, y: y, w: 256, h: 256)
                    SDL_RenderCopyF(renderer, felt, nil, &tile)
                    x += 256
                }
                y += 256
            }
            for (index, texture) in textures.enumerated() {
                let sprite = MovingCardsScene.sprite(index, time: Double(frame) / 60)
                var rect = SDL_FRect(x: Float(sprite.rect.x), y: Float(sprite.rect.y),
                                     w: Float(sprite.rect.width), h: Float(sprite.rect.height))
                SDL_RenderCopyExF(renderer, texture, nil, &rect, sprite.degrees, nil, SDL_FLIP_NONE)
            }
            SDL_RenderPresent(renderer)
            if frame >= 10 { bare.append(milliseconds(ContinuousClock.now - start)) }
        }

        // An idle window: the settled menu, no input for two seconds.
        let idle = IdleScene()
        app.show(idle)
        app.probing.eachFrame = nil
        let cpuBefore = cpuSeconds()
        let wallBefore = ContinuousClock.now
        let idleApp = app
        idle.until = idleApp.now + 2
        try app.run()
        let idleCPU = (cpuSeconds() - cpuBefore) / (milliseconds(ContinuousClock.now - wallBefore) / 1_000) * 100

        // Peak memory of drawing alone: the game played next adds a host and three computer players.
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let wakes = try WakeBenchmark(seconds: tableSeconds, messages: tableMessages).run(app: app)
        return Result(frames: frames, ours: ours, bare: bare, firstFrameMs: firstFrame, idleCPUPercent: idleCPU,
                      maxResidentMB: Double(usage.ru_maxrss) / 1_024, renderer: app.graphics.rendererName,
                      openGLLoaded: Self.openGLMapped(), wakeBare: wakes.bare, wakeTable: wakes.table,
                      wakeLoaded: wakes.loaded, busyThreads: wakes.busyThreads,
                      wakeTableParts: wakes.tableParts)
    }
}

extension UIBenchmark {
    static func openGLMapped() -> Bool {
        guard let maps = fopen("/proc/self/maps", "r") else { return false }
        defer { fclose(maps) }
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), maps) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.contains("/libGL") || text.contains("/libEGL") { return true }
        }
        return false
    }
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) * 1e-15
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

/// All 52 cards flying and turning at once, drawn through `Graphics` like the table.
final class MovingCardsScene: Scene {
    var done = false
    private var frame = 0

    static func sprite(_ index: Int, time: Double) -> (rect: Rect, degrees: Double) {
        let phase = Double(index) / 52 * 2 * .pi
        let x = 512 + 380 * cos(phase + time * 1.3)
        let y = 384 + 280 * sin(phase * 2 + time)
        return (Rect(center: Point(x, y), size: cardSize), (time * 90 + Double(index) * 7).truncatingRemainder(dividingBy: 360))
    }

    func handle(_ input: Input, app: App) -> SceneChange? { nil }
    func update(now: Double, app: App) -> SceneChange? { done ? .quit : nil }
    func draw(_ graphics: Graphics, app: App) {
        graphics.tile(app.assets.felt, tileSize: Size(256, 256))
        let time = Double(frame) / 60
        for index in 0..<52 {
            let sprite = Self.sprite(index, time: time)
            graphics.draw(app.assets.face(Card(id: UInt8(index))!), in: sprite.rect, degrees: sprite.degrees)
        }
        frame += 1
    }
    var isAnimating: Bool { true }
    var title: String { "Snap! — bench" }
}

final class IdleScene: Scene {
    var until = 0.0
    func handle(_ input: Input, app: App) -> SceneChange? { nil }
    func update(now: Double, app: App) -> SceneChange? { now >= until ? .quit : nil }
    func draw(_ graphics: Graphics, app: App) { graphics.tile(app.assets.felt, tileSize: Size(256, 256)) }
    var isAnimating: Bool { false }
    var title: String { "Snap!" }
}
#endif
