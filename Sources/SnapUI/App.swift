#if GUI
import SnapTable
import CSDL2
import NIOConcurrencyHelpers
import Glibc
import Logging

/// Options every windowed command shares.
public struct WindowOptions: Sendable {
    /// Save a PNG of the window after `quitAfter` seconds (or at the end), then quit.
    public var screenshot: String?
    /// Quit after this many seconds (tests, screenshots).
    public var quitAfter: Double?
    /// Start with sound off.
    public var muted = false
    public var hidden = false
    /// Where the window opens (top-left corner, screen pixels); centred when nil.
    public var position: (x: Int, y: Int)?
    /// The window's size in screen pixels; 1024×768 when nil.
    public var size: (width: Int, height: Int)?
    public var renderer: RendererChoice = .automatic
    /// Append a line to this file when a visible state change reaches the window and when
    /// the first frame showing it is presented (`FrameLog`).
    public var frameLog: String?

    public init(screenshot: String? = nil, quitAfter: Double? = nil, muted: Bool = false, hidden: Bool = false,
                position: (x: Int, y: Int)? = nil, size: (width: Int, height: Int)? = nil) {
        self.screenshot = screenshot
        self.quitAfter = quitAfter
        self.muted = muted
        self.hidden = hidden
        self.position = position
        self.size = size
    }
}

/// Wakes the window loop from any thread: the network side calls `App.wake()` when a
/// message arrives (a link's delivery, a join attempt finishing, discovery results), so
/// it reaches the screen within a frame instead of when the mouse next moves.
public enum WindowWake {
    /// The registered SDL user event type (registered once, on first use).
    static let eventType: UInt32 = SDL_RegisterEvents(1)
    private static let state = Pending()

    /// When the oldest wake not yet seen by the loop was asked for (nanoseconds, monotonic).
    private final class Pending: @unchecked Sendable {  // `since` is only touched under `lock`
        let lock = NIOLock()
        var since: UInt64?
    }

    /// Thread-safe; coalesced: one event in the queue at a time.
    public static func wake() {
        let now = monotonicNanoseconds()
        state.lock.lock()
        let first = state.since == nil
        if first { state.since = now }
        state.lock.unlock()
        guard first else { return }
        var event = SDL_Event()
        event.type = eventType
        if SDL_PushEvent(&event) != 1 {
            state.lock.lock()
            state.since = nil
            state.lock.unlock()
        }
    }

    /// The loop saw the event: when was it first asked for (and allow the next one).
    static func take() -> UInt64? {
        state.lock.lock()
        defer { state.lock.unlock() }
        let since = state.since
        state.since = nil
        return since
    }
}

extension WindowWake {
    /// Closes the window as its close button would (a quit event), from any thread: the
    /// process was told to stop. Nothing happens before the window opened.
    public static func close() {
        var event = SDL_Event()
        event.type = SDL_QUIT.rawValue
        SDL_PushEvent(&event)
    }

    /// When the oldest wake not yet seen by the loop was asked for, without taking it.
    static func pending() -> UInt64? {
        state.lock.lock()
        defer { state.lock.unlock() }
        return state.since
    }
}

/// `--frame-log PATH`: "changed <ms> <pass> <what>" when a visible state change reaches
/// the window (when its message's wake was asked for, or the loop pass whose animation
/// step made it), then "presented <ms> <pass> <what>" once the first frame showing it is
/// on screen. Before a pass's first change, "woke <ms> <pass> <ms> <how>": when that pass's
/// wait ended, when the pass before it had ended (the loop began waiting), and how the wait
/// ended: `event` (an input or a wake), `timeout`, or `busy` (it did not wait: something
/// moved or was due). Milliseconds of CLOCK_MONOTONIC, the same clock in every process on
/// the machine; `pass` numbers the loop's passes. A test holds each window to presenting
/// every change in the frame of the pass that found it, and to never sleeping through a
/// wake that was waiting when the loop began to wait.
final class FrameLog {
    private let file: UnsafeMutablePointer<FILE>
    private var pending: [String] = []

    init?(path: String) {
        guard let file = fopen(path, "a") else { return nil }
        self.file = file
    }

    deinit { fclose(file) }

    private var lastWokePass = 0

    func changed(_ what: String, at nanoseconds: UInt64, pass: Int, woke: UInt64, previousPassEnded: UInt64, how: App.WaitEnd) {
        if pass != lastWokePass {
            write("woke \(Self.milliseconds(woke)) \(pass) \(Self.milliseconds(previousPassEnded)) \(how.rawValue)")
            lastWokePass = pass
        }
        write("changed \(Self.milliseconds(nanoseconds)) \(pass) \(what)")
        pending.append(what)
    }

    func presented(at nanoseconds: UInt64, pass: Int) {
        for what in pending { write("presented \(Self.milliseconds(nanoseconds)) \(pass) \(what)") }
        pending = []
    }

    private func write(_ line: String) {
        fputs(line + "\n", file)
        fflush(file)
    }

    static func milliseconds(_ nanoseconds: UInt64) -> String {
        String(printf: "%.3f", Double(nanoseconds) / 1e6)
    }
}

/// CLOCK_MONOTONIC in nanoseconds (the same clock from every thread).
public func monotonicNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

/// The process's one window and its loop, in fixed stages: poll input → scene
/// intents; the scene drains its session and updates its tweens; draw only when
/// something changed or moves, otherwise sleep until input or the next timer.
public final class App {
    public let graphics: Graphics
    public let assets: Assets
    public let audio: Audio
    public let logger: Logger
    public let options: WindowOptions
    /// How this window's screens make games (Host Game, single player, a join, a table's join
    /// again), and the process's owner of the games it hosts.
    public let games: GameStarter
    /// Where this window's settings, sockets, seat tokens and journals are: the player's,
    /// or a test's. Every screen reads and saves the settings here (`settings`, `changeSettings`).
    public let directories: UserDirectories
    public private(set) var scene: Scene
    private var needsRedraw = true
    private let start = ContinuousClock.now
    public private(set) var frames = 0
    /// Tests, benchmarks and scripted players watch and drive the loop here; nil for a player.
    public var probe: WindowProbe?
    /// The installed probe, installing one first if there is none.
    public var probing: WindowProbe {
        if let probe { return probe }
        let made = WindowProbe()
        probe = made
        return made
    }
    /// Called right after each `SDL_RenderPresent` returns, with the time (`now`'s clock):
    /// the table stamps "card shown" here.
    package var afterPresent: [(Double) -> Void] = []
    /// When the input being handled happened (its SDL timestamp, on `now`'s clock): a
    /// Snap! counts from the press, not from when the loop got round to it.
    public private(set) var inputTime = 0.0
    private let frameLog: FrameLog?
    /// The scene was animating when the last frame was drawn. The pass in which it stops
    /// (the deal's last card lands, the first player is activated) must still draw: that
    /// step changed the table, and nothing else may come to redraw it (the host's own
    /// window gets no pings) until the next input.
    private var drewAnimating = false
    /// When the wake that started this pass was asked for (nanoseconds, monotonic).
    private var passWokenAt: UInt64?
    /// When the last frame began drawing (`now`'s clock): paces a software renderer.
    private var lastFrameBegan = -1.0
    /// Loop passes so far (the frame log's pass numbers).
    private var passes = 0
    /// When this pass's wait ended, when the previous pass ended (nanoseconds, monotonic),
    /// and how the wait ended: the frame log's proof that the loop did not sleep through a change.
    private var passWaitEnded: UInt64 = 0
    private var previousPassEnded: UInt64 = 0
    private var waitEnd = WaitEnd.busy
    enum WaitEnd: String { case event, timeout, busy }

    public var now: Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }

    public init(options: WindowOptions, logger: Logger, games: GameStarter, directories: UserDirectories = UserDirectories(),
                makeScene: (App) -> Scene) throws(SDLError) {
        // NB: Xlib sets the UTF-8 window title (_NET_WM_NAME) only under a UTF-8 locale,
        // and a Swift program starts in the C locale: take the user's.
        setlocale(LC_CTYPE, "")
        // Tests set SDL_VIDEODRIVER=offscreen and SDL_AUDIODRIVER=dummy; nothing here assumes a display.
        try sdlCheck(SDL_Init(SDL_INIT_VIDEO | SDL_INIT_AUDIO | SDL_INIT_EVENTS), "SDL_Init")
        _ = IMG_Init(Int32(IMG_INIT_PNG.rawValue))
        try sdlCheck(TTF_Init(), "TTF_Init")
        guard let directory = findAssetsDirectory() else {
            throw SDLError("finding assets", message: "no Assets folder found beside the executable, above it or in its install prefix's share/snapcards: set SNAP_ASSETS to the repository's Assets directory, or install the snapcards package")
        }
        self.options = options
        self.logger = logger
        self.games = games
        self.directories = directories
        frameLog = options.frameLog.flatMap { FrameLog(path: $0) }
        graphics = try Graphics(title: "Snap!", hidden: options.hidden, position: options.position, size: options.size,
                                renderer: options.renderer, fonts: try Fonts())
        logger.info("renderer: \(graphics.rendererName)")
        assets = try Assets(graphics: graphics, directory: directory)
        audio = Audio(directory: directory)
        audio.isMuted = options.muted
        scene = EmptyScene()
        _ = WindowWake.eventType
        scene = makeScene(self)
        graphics.title = scene.title
        SDL_StartTextInput()
    }

    public func show(_ next: Scene) {
        scene = next
        graphics.title = next.title
        needsRedraw = true
    }

    /// Sets the window title (a scene whose title changes calls this).
    public func setTitle(_ title: String) { graphics.title = title }

    public func setNeedsRedraw() { needsRedraw = true }

    /// True with `--frame-log`: scenes then report their visible changes (`noteChange`).
    var logsFrames: Bool { frameLog != nil }

    /// A visible change the scene found in this pass; `fromMessage`: it came with a message
    /// from the host, so it reached this process when that message's wake was asked for.
    func noteChange(_ what: String, fromMessage: Bool) {
        guard let frameLog else { return }
        var at = monotonicNanoseconds()
        if fromMessage { at = [at, passWokenAt, WindowWake.pending()].compactMap { $0 }.min()! }
        frameLog.changed(what, at: at, pass: passes, woke: passWaitEnded, previousPassEnded: previousPassEnded, how: waitEnd)
    }

    private var quitRequested = false
    /// Ends the loop after this frame (and takes the `--screenshot`, if any).
    public func quit() { quitRequested = true }

    /// Runs until a scene quits, the window closes, or `quitAfter` passes.
    public func run() throws(SDLError) {
        var running = true
        quitRequested = false
        previousPassEnded = monotonicNanoseconds()
        while running {
            passWokenAt = nil
            passes += 1
            var event = SDL_Event()
            // Sleep until input when nothing moves: an idle window costs almost nothing.
            // The network side wakes it too (`WindowWake`); the timeout only paces blinking carets.
            let moving = scene.isAnimating || drewAnimating
            let idle = !needsRedraw && !moving && !(probe?.keepsWindowAwake ?? false)
            let hadWake = probe?.isWaitingForWake ?? false
            waitEnd = .busy
            if idle {
                if SDL_WaitEventTimeout(&event, 100) == 1 {
                    waitEnd = .event
                    running = dispatch(event) && running
                } else {
                    waitEnd = .timeout
                }
            } else if !needsRedraw, !(probe?.keepsWindowAwake ?? false), let interval = graphics.pacedFrameInterval {
                // Moving, with a renderer that does not wait for the display (software): the
                // next frame is due one refresh after the last one began. Until then the loop
                // waits for input, so a message that arrives meanwhile is drawn at once rather
                // than after a frame begun just before it (drawing back to back, the loop spent
                // a core and nearly every message came in mid-frame, to wait for two).
                while running, !needsRedraw {
                    let wait = lastFrameBegan + interval - self.now
                    guard wait >= 0.001 else { break }
                    guard SDL_WaitEventTimeout(&event, Int32(wait * 1_000)) == 1 else {
                        waitEnd = .timeout
                        break
                    }
                    waitEnd = .event
                    running = dispatch(event) && running
                }
            }
            probe?.waitEnded(hadWake: hadWake)
            passWaitEnded = monotonicNanoseconds()
            while SDL_PollEvent(&event) == 1 { running = dispatch(event) && running }
            // Read after the wait: animations a message starts begin now, not when the pass began.
            let now = self.now
            probe?.pass(self, now: now)
            if let change = scene.update(now: now, app: self) { running = apply(change) && running }
            probe?.sceneUpdated()
            let animating = scene.isAnimating
            if needsRedraw || animating || drewAnimating {
                drewAnimating = animating
                let frameStart = self.now
                lastFrameBegan = frameStart
                let drawStart = monotonicNanoseconds()
                scene.draw(graphics, app: self)
                probe?.beforePresent?(self)
                graphics.present()
                let presented = monotonicNanoseconds()
                frameLog?.presented(at: presented, pass: passes)
                let shownAt = self.now
                for hook in afterPresent { hook(shownAt) }
                frames += 1
                probe?.presented(drawStart: drawStart, presented: presented, milliseconds: (self.now - frameStart) * 1_000)
                needsRedraw = false
            }
            if let quitAfter = options.quitAfter, now >= quitAfter { running = false }
            if quitRequested { running = false }
            previousPassEnded = monotonicNanoseconds()
        }
        if let path = options.screenshot {
            scene.draw(graphics, app: self)
            try graphics.screenshot(to: path)
            graphics.present()
        }
    }

    private func dispatch(_ event: SDL_Event) -> Bool {
        if event.type == WindowWake.eventType {
            // The scene drains its link in `update`, right after this; draw what it finds.
            // (Measured once the window is up: before its first frame, a wake waits for the window to open.)
            let since = WindowWake.take()
            if let since { passWokenAt = min(passWokenAt ?? since, since) }
            if let since, frames > 0 { probe?.woken(at: since) }
            needsRedraw = true
            return true
        }
        // SDL stamps each event in milliseconds of SDL_GetTicks when it is queued.
        let age = Double(SDL_GetTicks() &- event.common.timestamp) / 1_000
        inputTime = self.now - (age < 5 ? age : 0)
        guard let input = translate(event) else {
            if event.type == SDL_QUIT.rawValue { return false }
            if event.type == SDL_RENDER_TARGETS_RESET.rawValue || event.type == SDL_RENDER_DEVICE_RESET.rawValue {
                graphics.dropBackdrops()  // their pixels are gone
                needsRedraw = true
            }
            if event.type == SDL_WINDOWEVENT.rawValue {
                let kind = UInt32(event.window.event)
                if kind == SDL_WINDOWEVENT_SIZE_CHANGED.rawValue || kind == SDL_WINDOWEVENT_RESIZED.rawValue {
                    graphics.windowSizeChanged()
                }
                needsRedraw = true
            }
            return true
        }
        needsRedraw = true
        // M (mute) belongs to the table: elsewhere an "m" may be part of a typed name.
        if input == .key(.f11) { graphics.toggleFullscreen() }
        if let change = scene.handle(input, app: self) { return apply(change) }
        return true
    }

    private func apply(_ change: SceneChange) -> Bool {
        switch change {
        case .show(let next): show(next); return true
        case .quit: return false
        }
    }

    private func translate(_ event: SDL_Event) -> Input? {
        switch event.type {
        // Already logical: with a logical size set, SDL's renderer rewrites every mouse
        // event's coordinates before the queue (converting again misplaced each click in a
        // window of any other size than 1024×768, such as snapcards play's tiles).
        case SDL_MOUSEBUTTONDOWN.rawValue:
            return .press(Point(Double(event.button.x), Double(event.button.y)))
        case SDL_MOUSEBUTTONUP.rawValue:
            return .release(Point(Double(event.button.x), Double(event.button.y)))
        case SDL_MOUSEMOTION.rawValue:
            return .move(Point(Double(event.motion.x), Double(event.motion.y)))
        case SDL_TEXTINPUT.rawValue:
            let text = withUnsafeBytes(of: event.text.text) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return .text(text)
        case SDL_KEYDOWN.rawValue:
            let modifiers = UInt32(event.key.keysym.mod)
            let control = modifiers & UInt32(KMOD_CTRL.rawValue) != 0
            let shift = modifiers & UInt32(KMOD_SHIFT.rawValue) != 0
            if control {
                switch Int(event.key.keysym.sym) {
                case Int(SDLK_a.rawValue): return .key(.selectAll)
                case Int(SDLK_c.rawValue): return .key(.copy)
                case Int(SDLK_v.rawValue):
                    guard SDL_HasClipboardText() == SDL_TRUE, let raw = SDL_GetClipboardText() else { return nil }
                    defer { SDL_free(raw) }
                    return .paste(String(cString: raw))
                default: return .key(.other)
                }
            }
            switch Int(event.key.keysym.sym) {
            case Int(SDLK_LEFT.rawValue): return .key(shift ? .shiftLeft : .left)
            case Int(SDLK_RIGHT.rawValue): return .key(shift ? .shiftRight : .right)
            case Int(SDLK_UP.rawValue): return .key(.up)
            case Int(SDLK_DOWN.rawValue): return .key(.down)
            case Int(SDLK_HOME.rawValue): return .key(.home)
            case Int(SDLK_END.rawValue): return .key(.end)
            case Int(SDLK_DELETE.rawValue): return .key(.delete)
            case Int(SDLK_SPACE.rawValue): return .key(.space)
            case Int(SDLK_s.rawValue): return .key(.s)
            case Int(SDLK_m.rawValue): return .key(.m)
            case Int(SDLK_y.rawValue): return .key(.y)
            case Int(SDLK_n.rawValue): return .key(.n)
            case Int(SDLK_ESCAPE.rawValue): return .key(.escape)
            case Int(SDLK_RETURN.rawValue), Int(SDLK_KP_ENTER.rawValue): return .key(.enter)
            case Int(SDLK_BACKSPACE.rawValue): return .key(.backspace)
            case Int(SDLK_TAB.rawValue): return .key(.tab)
            case Int(SDLK_F11.rawValue): return .key(.f11)
            default: return .key(.other)
            }
        default:
            return nil
        }
    }

    /// Pushes a real mouse click through SDL's queue, as a person's would arrive
    /// (scripted play-throughs and benchmarks).
    public func pushClick(at point: Point) {
        for type in [SDL_MOUSEBUTTONDOWN, SDL_MOUSEBUTTONUP] {
            var event = SDL_Event()
            event.type = type.rawValue
            event.button.button = UInt8(SDL_BUTTON_LEFT)
            event.button.windowID = SDL_GetWindowID(graphics.window)
            // Logical → window coordinates: the inverse of the renderer's letterbox scale.
            var windowX: Int32 = 0, windowY: Int32 = 0
            SDL_RenderLogicalToWindow(graphics.renderer, Float(point.x), Float(point.y), &windowX, &windowY)
            event.button.x = windowX
            event.button.y = windowY
            SDL_PushEvent(&event)
        }
    }

    // NB: no SDL_Quit/TTF_Quit here. The textures and fonts this object holds are released
    // after its deinit runs, and freeing them after SDL shut down crashes; the process
    // exits right after anyway.
}

final class EmptyScene: Scene {
    func handle(_ input: Input, app: App) -> SceneChange? { nil }
    func update(now: Double, app: App) -> SceneChange? { nil }
    func draw(_ graphics: Graphics, app: App) {}
    var isAnimating: Bool { false }
    var title: String { "Snap!" }
}
#endif

