#if GUI
import ArgumentParser
import Foundation
import SnapBench
import SnapSimulation

/// When this process started, for "start to first frame".
let processStart = ContinuousClock.now

struct UIBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ui",
        abstract: "Frame time with 52 cards animating against bare SDL; idle CPU; first frame; memory — software and accelerated renderers.")

    @Option(help: "Frames to measure each way.") var frames = 600
    @Option(help: "Seconds a table plays for the message → screen figures, each way.") var tableSeconds = 8.0
    @Option(help: "Messages the table alone plays on for (up to 8 × --table-seconds), for a p99 and p99.9 worth reading.")
    var tableMessages = 1_000
    @Option(help: "Measure only this renderer: software or accelerated (default: each in its own process).")
    var renderer: BenchRenderer?
    @Option(help: "Past matches (journals) on the machine for the Host Game rows, measured against none (0: no Host Game rows).")
    var pastMatches = 5_000

    enum BenchRenderer: String, ExpressibleByArgument, CaseIterable { case software, accelerated }

    func validate() throws {
        guard frames >= 20 else { throw ValidationError("--frames must be at least 20") }
        guard tableSeconds >= 1, tableSeconds <= 600 else { throw ValidationError("--table-seconds must be 1 to 600") }
        guard tableMessages >= 0 else { throw ValidationError("--table-messages must not be negative") }
        guard (0...200_000).contains(pastMatches) else { throw ValidationError("--past-matches must be 0 to 200000") }
    }

    func run() throws {
        _ = processStart
        #if DEBUG
        say("warning: a debug build; measure with `swift build -c release`")
        #endif
        guard let renderer else {
            // A fresh process each: start-up time and peak memory belong to one renderer.
            say("snap bench ui: \(frames) frames each way, 52 cards moving and turning")
            var failed = false
            for choice in BenchRenderer.allCases {
                let child = Process()
                child.executableURL = URL(fileURLWithPath: "/proc/self/exe")
                child.arguments = ["ui", "--frames", "\(frames)", "--table-seconds", "\(tableSeconds)",
                                   "--table-messages", "\(tableMessages)", "--renderer", choice.rawValue,
                                   "--past-matches", "\(pastMatches)"]
                let pipe = Pipe()
                child.standardOutput = pipe
                try child.run()
                let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                child.waitUntilExit()
                for line in output.split(separator: "\n") where !line.hasPrefix("warning: a debug build") { say(String(line)) }
                if child.terminationStatus != 0 { failed = true }
            }
            if failed { throw ExitCode(4) }
            return
        }
        let result: UIBenchmark.Result
        do {
            result = try UIBenchmark(frames: frames, renderer: renderer == .software ? .software : .accelerated,
                                     tableSeconds: tableSeconds, tableMessages: tableMessages)
                .run(logger: makeLogger("snap.bench", verbose: false), processStart: processStart)
        } catch {
            say("\(renderer.rawValue): error: \(error)")
            throw ExitCode(4)
        }
        func p(_ values: [Double], _ q: Int) -> String { twoDecimals(percentile(values.sorted(), q)) }
        if renderer == .accelerated, result.renderer == "software" {
            say("accelerated renderer: none on this machine (SDL gave the software renderer); figures below are software's")
        }
        say("\(renderer.rawValue) renderer (SDL \"\(result.renderer)\"):")
        say("  ours (Graphics, as the table draws): p50 \(p(result.ours, 50)) ms, p99 \(p(result.ours, 99)) ms a frame")
        say("  baseline (bare SDL_RenderCopyExF, same sprites): p50 \(p(result.bare, 50)) ms, p99 \(p(result.bare, 99)) ms a frame")
        let ratio = percentile(result.ours.sorted(), 50) / max(0.001, percentile(result.bare.sorted(), 50))
        say("  ratio p50: \(twoDecimals(ratio))x")
        say("  start to first frame: \(twoDecimals(result.firstFrameMs)) ms")
        say("  idle window: \(twoDecimals(result.idleCPUPercent)) % of one core")
        say("  memory: \(twoDecimals(result.maxResidentMB)) MB peak resident")
        say("  OpenGL libraries loaded: \(result.openGLLoaded ? "yes" : "no")")
        // A message from the host → the first presented frame after it (one frame at 60 Hz: 16.67 ms).
        func wakes(_ label: String, _ values: [Double]) {
            guard !values.isEmpty else { return say("  message to screen, \(label): no messages") }
            let sorted = values.sorted()
            say("  message to screen, \(label): p50 \(p(values, 50)) ms, p99 \(p(values, 99)) ms, "
                + "max \(twoDecimals(sorted.last!)) ms (\(values.count) messages)")
        }
        wakes("baseline (bare SDL: event pushed → present)", result.wakeBare)
        wakes("table in play", result.wakeTable)
        wakes("table in play, \(result.busyThreads) cores kept busy", result.wakeLoaded)
        // The tail, where a p99 alone says little: nearest-rank p99.9.
        func tail(_ label: String, _ values: [Double]) {
            guard !values.isEmpty else { return }
            let sorted = values.sorted()
            let rank = max(1, min(sorted.count, (999 * sorted.count + 999) / 1_000))
            say("  message to screen tail, \(label): p99.9 \(twoDecimals(sorted[rank - 1])) ms, "
                + "max \(twoDecimals(sorted.last!)) ms over \(values.count) messages")
        }
        tail("baseline", result.wakeBare)
        tail("table in play", result.wakeTable)
        tail("table in play, cores kept busy", result.wakeLoaded)
        let parts = result.wakeTableParts
        if !parts.toLoop.isEmpty {
            func part(_ values: [Double]) -> String { "p50 \(p(values, 50)), p99 \(p(values, 99))" }
            say("  message to screen, table in play, in parts (ms): wake → loop sees it \(part(parts.toLoop)); "
                + "drain and update \(part(parts.drain)); → draw starts \(part(parts.toDraw)); "
                + "draw and present \(part(parts.draw)); \(parts.waited) of \(parts.toLoop.count) found the loop waiting, "
                + "\(parts.midFrame) came during a frame")
        }
        if !result.wakeTable.isEmpty, !result.wakeBare.isEmpty {
            let ratio = percentile(result.wakeTable.sorted(), 99) / max(0.001, percentile(result.wakeBare.sorted(), 99))
            say("  message to screen ratio p99 (table / baseline): \(twoDecimals(ratio))x")
        }
        guard pastMatches > 0 else { return }
        // The window's thread while Host Game starts a TCP game, with a life of play behind it.
        let host: HostGameBenchmark.Result
        do {
            host = try HostGameBenchmark(pastMatches: pastMatches, renderer: renderer == .software ? .software : .accelerated)
                .run(logger: makeLogger("snap.bench", verbose: false))
        } catch {
            say("  Host Game: error: \(error)")
            throw ExitCode(4)
        }
        func hostWakes(_ values: [Double]) -> String {
            values.isEmpty ? "no wakes" : "p50 \(p(values, 50)) ms, p99 \(p(values, 99)) ms, max \(twoDecimals(values.max()!)) ms (\(values.count) wakes)"
        }
        say("  Host Game on TCP, no past matches: lobby in \(twoDecimals(host.lobbyNoneMs)) ms; "
            + "message to screen meanwhile \(hostWakes(host.wakesNone))")
        say("  Host Game on TCP, \(host.pastMatches) past matches: lobby in \(twoDecimals(host.lobbyPastMs)) ms, "
            + "counted in \(twoDecimals(host.countedPastMs)) ms; message to screen meanwhile \(hostWakes(host.wakesPast))")
        if !host.wakesNone.isEmpty, !host.wakesPast.isEmpty {
            let ratio = percentile(host.wakesPast.sorted(), 99) / max(0.001, percentile(host.wakesNone.sorted(), 99))
            say("  Host Game message to screen ratio p99 (\(host.pastMatches) past / none): \(twoDecimals(ratio))x")
        }
        func frameTimes(_ values: [Double]) -> String {
            values.isEmpty ? "no frames" : "p50 \(p(values, 50)) ms, p99 \(p(values, 99)) ms, max \(twoDecimals(values.max()!)) ms (\(values.count) frames)"
        }
        say("  Host Game frame time meanwhile (draw + present), no past matches: \(frameTimes(host.framesNone)); "
            + "\(host.pastMatches) past matches: \(frameTimes(host.framesPast))")
    }
}
#endif
