#if GUI
import Foundation
import SnapTestSupport
import Testing

/// A window is a seat's connection, not the seat: one that crashed and is opened again
/// with the same name against the same game takes the seat back.
@Suite("Windows take their seat back", .blocksThreads, .serialized)
struct WindowRejoinTests {
    final class Running: @unchecked Sendable {
        let process = Process()
        private let lock = NSLock()
        private var data = Data()
        init(_ arguments: [String], environment: [String: String]) throws {
            let binary = URL(fileURLWithPath: snapBinary())
            process.executableURL = binary
            process.arguments = arguments
            process.environment = environment
            // Both streams in one: a --verbose host logs the game's start on stderr.
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            pipe.fileHandleForReading.readChunks { [weak self] chunk in self?.lock.withLock { self?.data.append(chunk) } }
            try process.run()
        }
        var output: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
        func waitFor(_ text: String, timeout: Double) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if output.contains(text) { return true }
                usleep(50_000)
            }
            return false
        }
        deinit { process.killAndWait() }
    }

    @Test("kill -9 a window mid-game, open it again: its seat is back", .timeLimit(.minutes(5)))
    func crashedWindowRejoins() throws {
        let base = scratchPath("snap-rejoin")
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["SDL_VIDEODRIVER"] = "offscreen"
        environment["SDL_AUDIODRIVER"] = "dummy"
        environment["XDG_RUNTIME_DIR"] = base
        environment["XDG_STATE_HOME"] = base + "/state"
        environment["XDG_CONFIG_HOME"] = base + "/config"
        let host = try Running(["host", "--headless", "--name", "Table", "--start-when", "2", "--grace", "60",
                                "--speed", "0.5", "--verbose"], environment: environment)
        #expect(host.waitFor("listening on unix:", timeout: 30))
        let bob = try Running(["join", "--bot", "--name", "Bob", "--speed", "0.5"], environment: environment)
        let first = try Running(["join", "--name", "Ann", "--mute"], environment: environment)
        #expect(host.waitFor("journal: ", timeout: 30))
        // The game is on: the host logs it once both are seated and the round is dealt.
        try #require(host.waitFor("game started: ", timeout: 60), "\(host.output)")
        kill(first.process.processIdentifier, SIGKILL)
        #expect(host.waitFor(": Ann away (grace 60 s)", timeout: 30))
        let again = try Running(["join", "--name", "Ann", "--mute", "--quit-after", "3"], environment: environment)
        #expect(host.waitFor(": Ann back", timeout: 60), "\(host.output)")
        again.process.waitUntilExit()
        _ = bob
    }
}
#endif
