#if GUI
/// What tests, benchmarks and scripted players do and measure in the window's loop: the
/// one hook the loop calls, installed from outside (`app.probe`, or `app.probing` to make
/// one). A player's window runs with none, and then records nothing.
public final class WindowProbe {
    /// Called each pass, after input and before the scene updates (inject input, quit).
    /// While it is set the window draws every pass: a script that clicks sees each frame.
    public var eachFrame: ((App, Double) -> Void)?
    /// Like `eachFrame`, but the window still sleeps while nothing moves: called on each
    /// pass, at least every 100 ms (a benchmark that clicks must not keep the window awake).
    public var eachPass: ((App, Double) -> Void)?
    /// Called after drawing, before presenting: the frame's pixels can be read.
    public var beforePresent: ((App) -> Void)?

    /// Milliseconds each drawn frame took (draw + present) while `recordsFrameTimes`.
    public var recordsFrameTimes = false
    public private(set) var frameTimes: [Double] = []
    /// Network wake-up → the first presented frame after it, in milliseconds (each wake once).
    public private(set) var wakeLatencies: [Double] = []
    /// Where each measured wake's time went (`snap-bench ui`), while `recordsWakeTraces`:
    /// one entry per `wakeLatencies` entry.
    package var recordsWakeTraces = false
    package private(set) var wakeTraces: [WakeTrace] = []

    package struct WakeTrace {
        package var asked: UInt64        // the network thread asked for the wake
        package var seen: UInt64         // the loop dispatched the SDL event
        package var updated: UInt64      // the scene drained its session and updated
        package var drawStart: UInt64
        package var presented: UInt64
        package var waited: Bool         // the loop was blocked waiting for events when it came
        package var midFrame: Bool       // it came while a frame was being drawn or presented
    }

    // The wake being measured, and where the loop was when it came.
    private var wokenAt: UInt64?
    private var seen: UInt64 = 0
    private var updated: UInt64 = 0
    private var waited = false
    private var lastDrawStart: UInt64 = 0
    private var lastPresented: UInt64 = 0

    public init() {}

    /// The latencies measured so far, and a fresh start.
    package func takeWakeLatencies() -> [Double] {
        defer { wakeLatencies = [] }
        return wakeLatencies
    }

    package func takeWakeTraces() -> [WakeTrace] {
        defer { wakeTraces = [] }
        return wakeTraces
    }

    // MARK: - The loop's side

    var keepsWindowAwake: Bool { eachFrame != nil }
    var isWaitingForWake: Bool { wokenAt != nil }

    /// A network wake the loop dispatched, asked for at `since` (monotonic nanoseconds).
    func woken(at since: UInt64) {
        if recordsWakeTraces, wokenAt == nil { seen = monotonicNanoseconds() }
        wokenAt = min(wokenAt ?? since, since)
    }

    /// The loop's wait ended; `hadWake`: a wake was already pending before it.
    func waitEnded(hadWake: Bool) {
        if recordsWakeTraces, !hadWake, wokenAt != nil { waited = true }
    }

    func pass(_ app: App, now: Double) {
        eachFrame?(app, now)
        eachPass?(app, now)
    }

    func sceneUpdated() {
        if recordsWakeTraces { updated = monotonicNanoseconds() }
    }

    func presented(drawStart: UInt64, presented: UInt64, milliseconds: Double) {
        if let woken = wokenAt {
            wakeLatencies.append(Double(presented &- woken) / 1e6)
            if recordsWakeTraces {
                wakeTraces.append(WakeTrace(asked: woken, seen: seen, updated: updated, drawStart: drawStart,
                                            presented: presented, waited: waited,
                                            midFrame: woken >= lastDrawStart && woken < lastPresented))
            }
            wokenAt = nil
            waited = false
        }
        if recordsWakeTraces { lastDrawStart = drawStart; lastPresented = presented }
        if recordsFrameTimes { frameTimes.append(milliseconds) }
    }
}
#endif
