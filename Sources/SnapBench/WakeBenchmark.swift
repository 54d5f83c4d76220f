#if GUI
import CSDL2
import Foundation
import SnapTable
import SnapUI
import Synchronization

/// Where message → screen went, each wake split into parts (milliseconds).
public struct WakeParts: Sendable {
    /// The network thread asked for the wake → the loop dispatched its SDL event.
    public var toLoop: [Double] = []
    /// → the scene drained its session and updated (animations started).
    public var drain: [Double] = []
    /// → the frame's drawing started.
    public var toDraw: [Double] = []
    /// → drawn and presented.
    public var draw: [Double] = []
    /// Wakes that found the loop blocked waiting for events, and wakes that came while a frame
    /// was being drawn or presented (they wait for it, then for their own).
    public var waited = 0
    public var midFrame = 0

    init(_ traces: [WindowProbe.WakeTrace]) {
        func ms(_ from: UInt64, _ to: UInt64) -> Double { to >= from ? Double(to - from) / 1e6 : 0 }
        for trace in traces {
            toLoop.append(ms(trace.asked, trace.seen))
            drain.append(ms(trace.seen, trace.updated))
            toDraw.append(ms(trace.updated, trace.drawStart))
            draw.append(ms(trace.drawStart, trace.presented))
            if trace.waited { waited += 1 }
            if trace.midFrame { midFrame += 1 }
        }
    }
}

/// `snap-bench ui`'s message → screen figures: how long a message from the host waits
/// before a presented frame shows it, on a real table (a single-player game with three
/// computer players at 0.03 of the normal pace so messages come often, the
/// window's own turns clicked), once alone and once with every
/// core kept busy; the baseline is bare SDL in the same run: another thread pushes an
/// event, the loop wakes, draws the felt and presents.
struct WakeBenchmark {
    struct Result {
        var bare: [Double]
        var table: [Double]
        var loaded: [Double]
        var busyThreads: Int
        var tableParts: WakeParts
    }

    var seconds: Double
    /// The table alone plays until this many messages were measured (at most `8 × seconds`
    /// long), and bare SDL takes as many events (at most `4 × seconds`): enough for a p99
    /// and a p99.9 to mean something.
    var messages = 1_000

    func run(app: App) throws(SDLError) -> Result {
        let bare = bareSDL(app: app)
        app.probing.recordsWakeTraces = true
        let table = try onTable(app: app, busyThreads: 0, messages: messages)
        let parts = WakeParts(app.probing.takeWakeTraces())
        app.probing.recordsWakeTraces = false
        let busy = ProcessInfo.processInfo.activeProcessorCount
        let loaded = try onTable(app: app, busyThreads: busy)
        return Result(bare: bare, table: table, loaded: loaded, busyThreads: busy, tableParts: parts)
    }

    /// The floor: SDL's own event queue and a present, nothing of ours.
    private func bareSDL(app: App) -> [Double] {
        let eventType = SDL_RegisterEvents(1)
        let pushedAt = Atomic<UInt64>(0)
        let stop = Atomic<Bool>(false)
        let pusher = Thread {
            // Uneven gaps, so pushes do not lock step with the loop.
            var gap: UInt32 = 17_000
            while !stop.load(ordering: .acquiring) {
                usleep(gap)
                gap = gap >= 29_000 ? 17_000 : gap + 3_000
                pushedAt.store(monotonicNanoseconds(), ordering: .releasing)
                var event = SDL_Event()
                event.type = eventType
                SDL_PushEvent(&event)
            }
        }
        pusher.start()
        var latencies: [Double] = []
        let start = app.now
        let end = start + seconds / 2
        var event = SDL_Event()
        // As many as the table's, for a p99 as steady (at most `4 × seconds`).
        while app.now < end || (latencies.count < messages && app.now < start + 4 * seconds) {
            guard SDL_WaitEventTimeout(&event, 100) == 1, event.type == eventType else { continue }
            let pushed = pushedAt.load(ordering: .acquiring)
            bareTiles(app)
            app.graphics.present()
            latencies.append(Double(monotonicNanoseconds() &- pushed) / 1e6)
        }
        stop.store(true, ordering: .releasing)
        while SDL_PollEvent(&event) == 1 {}
        return latencies
    }

    /// The felt's tiles straight through SDL, as the table drew them before any of our
    /// caching: the floor stays bare SDL whatever `Graphics` learns.
    private func bareTiles(_ app: App) {
        let felt = app.assets.felt
        var y: Float = 0
        while y < 768 {
            var x: Float = 0
            while x < 1024 {
                var destination = SDL_FRect(x: x, y: y, w: 257, h: 257)
                SDL_RenderCopyExF(app.graphics.renderer, felt.pointer, nil, &destination, 0, nil, SDL_FLIP_NONE)
                x += 256
            }
            y += 256
        }
    }

    /// A game in play: every message that wakes the window, to the frame that shows it.
    private func onTable(app: App, busyThreads: Int, messages: Int = 0) throws(SDLError) -> [Double] {
        let client = app.games.solo(name: "Bench", opponents: 3, level: .normal, speed: 0.03, seed: 11, logger: app.logger)
        let table = TableScene(app: app, client: client)
        app.show(table)
        let stop = Atomic<Bool>(false)
        let spinners = (0..<busyThreads).map { _ in
            Thread {
                var x: UInt64 = 1
                while !stop.load(ordering: .relaxed) { x = x &* 6_364_136_223_846_793_005 &+ 1 }
                if x == 0 { print("") }  // keeps the loop from being optimised away
            }
        }
        spinners.forEach { $0.start() }
        _ = app.probing.takeWakeLatencies()
        let start = app.now
        let end = start + seconds
        var lastClick = -1.0
        var lastNextRound = -1.0
        app.probing.eachPass = { app, now in
            // My turn: click my pile, as a player would.
            if let view = client.session.table, let mine = client.session.seat, view.phase == .playing,
               view.active == mine, !view.hasTurned, now - lastClick > 0.3 {
                lastClick = now
                app.pushClick(at: table.pileFrame(for: mine).center)
            }
            // A round won: the next one, as the host player would, until enough messages came.
            if table.showsNextRound, now - lastNextRound > 0.5 {
                lastNextRound = now
                client.nextRound()
            }
            if now >= end, app.probing.wakeLatencies.count >= messages || now >= start + 8 * seconds { app.quit() }
        }
        defer {
            app.probing.eachPass = nil
            stop.store(true, ordering: .relaxed)
            client.leave()
        }
        try app.run()
        return app.probing.takeWakeLatencies()
    }
}
#endif
