#if GUI
import CSDL2
import Foundation
import SnapTestSupport
import Testing

/// The Story window against a real `snapcards story serve`, players' turns taken by other processes.
@Suite("Story window", .blocksThreads, .serialized)
struct StoryWindowTests {
    let root: String = {
        scratchDirectory("story-window")
    }()

    final class Running: @unchecked Sendable {  // `data` is guarded by `lock`
        let process = Process()
        let lock = NSLock()
        var data = Data()
        var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }

        func waitFor(_ line: String, timeout: Double = 30) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                // A line, or that line and the time left for the turn after ": ".
                if text.split(separator: "\n").contains(where: { $0 == line || $0.hasPrefix(line + ": ") }) { return true }
                usleep(20_000)
            }
            return false
        }
    }

    func start(_ arguments: [String]) throws -> Running {
        let binary = URL(fileURLWithPath: snapBinary())
        let running = Running()
        running.process.executableURL = binary
        running.process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SDL_VIDEODRIVER"] = "offscreen"
        environment["SDL_AUDIODRIVER"] = "dummy"
        environment["XDG_RUNTIME_DIR"] = root
        environment["XDG_STATE_HOME"] = root + "/state"
        environment["XDG_CONFIG_HOME"] = root + "/config"
        running.process.environment = environment
        let pipe = Pipe()
        running.process.standardOutput = pipe
        running.process.standardError = pipe
        pipe.fileHandleForReading.readChunks { data in running.lock.withLock { running.data.append(data) } }
        try running.process.run()
        return running
    }

    func run(_ arguments: [String]) throws -> String {
        let running = try start(arguments)
        running.process.waitUntilExit()
        usleep(50_000)
        return running.text
    }

    @Test("a match view updates in place when another player takes a turn; another match becoming yours shows a notice")
    func updatesInPlace() throws {
        let service = try start(["story", "serve"])
        defer { service.process.terminate() }
        #expect(service.waitFor("listening on unix:\(root)/snap/story.socket"), "\(service.text)")
        #expect(try run(["story", "new", "--with", "Bob,Cy", "--title", "The dragon", "--name", "Ann"]) == "match 1\n")
        #expect(try run(["story", "turn", "1", "Once there was a dragon.", "--name", "Ann"]) == "turn passed to Bob\n")
        #expect(try run(["story", "new", "--with", "Ann", "--name", "Cy"]) == "match 2\n")

        let window = try start(["story", "window", "--name", "Ann", "--open", "1", "--print-status", "--quit-after", "60"])
        #expect(window.waitFor("match 1, 1 turns: Waiting for Bob"), "\(window.text)")
        #expect(try run(["story", "turn", "1", "It slept.", "--name", "Bob"]) == "turn passed to Cy\n")
        #expect(window.waitFor("match 1, 2 turns: Waiting for Cy"), "\(window.text)")
        #expect(try run(["story", "turn", "2", "A ship sailed.", "--name", "Cy"]) == "turn passed to Ann\n")
        #expect(window.waitFor("notice: Your turn in 'A ship sailed.'"), "\(window.text)")
        // The view stays where it was: the notice does not take Ann away from match 1.
        #expect(!window.text.contains("match 2,"))
        kill(window.process.processIdentifier, SIGKILL)  // done; no need to wait out --quit-after
        window.process.waitUntilExit()
    }

    @Test("the service goes away and comes back: the window says so, signs in again by itself, and shows the turns taken meanwhile",
          .timeLimit(.minutes(5)))
    func serviceRestarts() throws {
        var service = try start(["story", "serve"])
        #expect(service.waitFor("listening on unix:\(root)/snap/story.socket"), "\(service.text)")
        #expect(try run(["story", "new", "--with", "Bob,Cy", "--title", "The ferry", "--name", "Ann"]) == "match 1\n")
        #expect(try run(["story", "turn", "1", "The ferry left at dawn.", "--name", "Ann"]) == "turn passed to Bob\n")

        let window = try start(["story", "window", "--name", "Ann", "--open", "1", "--print-status", "--quit-after", "120"])
        defer {
            kill(window.process.processIdentifier, SIGKILL)
            window.process.waitUntilExit()
        }
        #expect(window.waitFor("match 1, 1 turns: Waiting for Bob"), "\(window.text)")
        service.process.terminate()
        service.process.waitUntilExit()
        func said(_ prefix: String, within seconds: Double = 30) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if window.text.split(separator: "\n").contains(where: { $0.hasPrefix(prefix) }) { return true }
                usleep(20_000)
            }
            return false
        }
        #expect(said("connection: The story service went away ("), "\(window.text)")
        #expect(said("connection: cannot reach the story service at "), "\(window.text)")

        service = try start(["story", "serve"])
        defer { service.process.terminate() }
        #expect(service.waitFor("listening on unix:\(root)/snap/story.socket"), "\(service.text)")
        #expect(said("connection: signed in again", within: 90), "\(window.text)")
        #expect(try run(["story", "turn", "1", "Nobody was on it.", "--name", "Bob"]) == "turn passed to Cy\n")
        #expect(window.waitFor("match 1, 2 turns: Waiting for Cy"), "\(window.text)")
    }

    @Test("the window reaches a service over TCP: TLS, its join code, and the certificate remembered on first use")
    func overTCP() throws {
        let service = try start(["story", "serve", "--listen", "127.0.0.1:0", "--code", "ABCDEF"])
        defer { service.process.terminate() }
        let deadline = Date().addingTimeInterval(30)
        while !service.text.contains("listening on tcp:"), Date() < deadline { usleep(20_000) }
        let line = try #require(service.text.split(separator: "\n").first { $0.hasPrefix("listening on tcp:") }, "\(service.text)")
        let address = String(line.dropFirst("listening on tcp:".count))
        #expect(try run(["story", "new", "--with", "Bob", "--title", "The dragon", "--name", "Ann", "--connect", address, "--code", "ABCDEF"])
            .hasSuffix("match 1\n"))
        let window = try start(["story", "window", "--name", "Bob", "--connect", address, "--code", "ABCDEF", "--open", "1",
                                "--print-status", "--quit-after", "60"])
        #expect(window.waitFor("match 1, 0 turns: Waiting for Ann"), "\(window.text)")
        kill(window.process.processIdentifier, SIGKILL)
        window.process.waitUntilExit()
        let known = try String(contentsOfFile: root + "/state/snap/known_hosts", encoding: .utf8)
        #expect(known.contains(address + " SHA256:"))
    }

    /// Runs Ann's or Bob's window on `match` under a real X server, clicks the button at
    /// `button` (the 1024×768 design's coordinates) once the view is shown, and returns
    /// what `--print-status` printed until a line starting `until` (or 20 s).
    func clickUnderX(name: String, match: Int, button: Point2, until: String) throws -> String {
        let output = root + "/\(name)-click.out"
        let script = """
            export LC_ALL=C
            '\(snapBinary())' story window --name \(name) --open \(match) --print-status --position 0,0 --size 1024x768 \\
              --quit-after 40 >'\(output)' 2>&1 &
            pid=$!
            for i in $(seq 1 200); do grep -q '^match \(match), ' '\(output)' && break; sleep 0.1; done
            w=$(timeout 60 xdotool search --sync --name '^Story' | head -1)
            eval $(xdotool getwindowgeometry --shell $w)
            set -- $(awk -v w=$WIDTH -v h=$HEIGHT -v x=\(Int(button.x)) -v y=\(Int(button.y)) 'BEGIN {
              s = w / 1024; if (h / 768 < s) s = h / 768
              printf "%d %d", (w - 1024 * s) / 2 + x * s, (h - 768 * s) / 2 + y * s }')
            xdotool mousemove --window $w $1 $2 click 1
            for i in $(seq 1 200); do grep -q '^\(until)' '\(output)' && break; sleep 0.1; done
            kill $pid; wait
            cat '\(output)'
            """
        return try runUnderX(script, environment: ["XDG_RUNTIME_DIR": root, "XDG_STATE_HOME": root + "/state",
                                                   "XDG_CONFIG_HOME": root + "/config"])
    }

    struct Point2 { var x, y: Double }

    @Test("on a real X server: Decline in an invitation's view declines it; Rematch in an ended one opens the new match",
          .enabled(if: WindowTests.haveTools(["xvfb-run", "xdotool"])), .timeLimit(.minutes(5)))
    func declineAndRematchClicked() throws {
        let service = try start(["story", "serve"])
        defer { service.process.terminate() }
        #expect(service.waitFor("listening on unix:\(root)/snap/story.socket"), "\(service.text)")
        #expect(try run(["story", "new", "--with", "Bob,Cy", "--title", "Invitation", "--name", "Ann"]) == "match 1\n")
        #expect(try run(["story", "new", "--with", "Ann", "--title", "Sea voyage", "--name", "Cy"]) == "match 2\n")
        #expect(try run(["story", "turn", "2", "The ship left at dawn.", "--name", "Cy"]) == "turn passed to Ann\n")
        #expect(try run(["story", "quit", "2", "--name", "Ann"]) == "quit match 2; the match has ended\n")

        // Bob has not written in match 1: its view offers Decline where Quit would be.
        let declined = try clickUnderX(name: "Bob", match: 1, button: Point2(x: 800, y: 700), until: "match 1, 0 turns: Waiting for Ann")
        #expect(declined.contains("match 1, 0 turns: Waiting for Ann"), "\(declined)")
        #expect(try run(["story", "show", "1", "--name", "Ann"]).contains("Bob declined"))

        // Match 2 ended: Rematch starts match 3 with Ann first (Cy started match 2), and the view moves to it.
        let rematched = try clickUnderX(name: "Ann", match: 2, button: Point2(x: 760, y: 700), until: "match 3, 0 turns: Your turn")
        #expect(rematched.contains("match 2, 1 turns: This match has ended"), "\(rematched)")
        #expect(rematched.contains("match 3, 0 turns: Your turn"), "\(rematched)")
        let listed = try run(["story", "list", "--name", "Cy"])
        #expect(listed.contains("3\ttheir turn\tturn: Ann\tAnn,Cy\tSea voyage"), "\(listed)")
    }

    @Test("the list and a match view, screenshotted: the story panel, the list rows and the felt show")
    func screenshots() throws {
        let service = try start(["story", "serve"])
        defer { service.process.terminate() }
        #expect(service.waitFor("listening on unix:\(root)/snap/story.socket"), "\(service.text)")
        _ = try run(["story", "new", "--with", "Bob", "--title", "The dragon", "--name", "Ann"])
        _ = try run(["story", "turn", "1", "Once there was a dragon who slept under the hill.", "--name", "Ann"])
        _ = try run(["story", "new", "--with", "Ann", "--name", "Bob"])

        let list = root + "/story-list.png"
        let listRun = try start(["story", "--name", "Ann", "--quit-after", "3", "--screenshot", list])
        listRun.process.waitUntilExit()
        #expect(listRun.process.terminationStatus == 0, "\(listRun.text)")
        let listShot = try Screenshot(path: list)
        #expect(listShot.share(x: 0.1...0.9, y: 0.9...1, where: isFelt) > 0.3)
        // Rows are lighter bands over the felt in the upper half.
        #expect(listShot.colourVariety > 20)

        let match = root + "/story-match.png"
        let matchRun = try start(["story", "window", "--name", "Ann", "--open", "2", "--quit-after", "3", "--screenshot", match])
        matchRun.process.waitUntilExit()
        #expect(matchRun.process.terminationStatus == 0, "\(matchRun.text)")
        let matchShot = try Screenshot(path: match)
        // The cream story panel fills the middle.
        #expect(matchShot.share(x: 0.2...0.8, y: 0.3...0.6) { r, g, b in r > 225 && g > 225 && b > 210 } > 0.9)
        if let keep = ProcessInfo.processInfo.environment["SNAP_SCREENSHOTS"] {
            try? FileManager.default.removeItem(atPath: keep + "/story-list.png")
            try? FileManager.default.removeItem(atPath: keep + "/story-match.png")
            try FileManager.default.copyItem(atPath: list, toPath: keep + "/story-list.png")
            try FileManager.default.copyItem(atPath: match, toPath: keep + "/story-match.png")
        }
    }
}
#endif
