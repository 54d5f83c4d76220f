import Foundation
import SnapDBus
import SnapTestSupport
import StoryEngine
import Testing

/// docs/STORY.md quotes what `snap story …` prints; these lines are built in the `snap`
/// executable, so the real binary prints them here and the document must quote their fixed
/// part (the variable part — an id, a name, a path — written as the document writes it).
/// Runs of white space compare as one space, as in StoryQuotesTests.
@Suite("STORY.md quotes what snap story prints", .serialized, .timeLimit(.minutes(5)))
struct StoryOutputDocumentationTests: StoryProcessTests {
    let directory = makeRuntimeDirectory()

    static func oneLine(_ text: String) -> String { Documents.oneLine(text) }

    static func document() throws -> String { try Documents.text("STORY.md") }

    func expectQuoted(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try Self.document().contains(Self.oneLine(text)), "STORY.md lacks: \(text)", sourceLocation: sourceLocation)
    }

    /// `line` with `value` (which must occur in it) written as `placeholder`.
    func general(_ line: String, _ value: String, _ placeholder: String, sourceLocation: SourceLocation = #_sourceLocation) -> String {
        #expect(line.contains(value), "\"\(line)\" lacks \"\(value)\"", sourceLocation: sourceLocation)
        return line.replacingOccurrences(of: value, with: placeholder)
    }



    @Test("the player commands' lines: match ID, turn passed to NAME, story finished, declined match ID;, show's and list's lines")
    func playerCommands() throws {
        let service = try serve()
        defer { service.signal(SIGTERM) }
        let made = try story(["new", "--with", "Bob,Cy", "--title", "The dragon", "--deadline", "5h", "--name", "Ann"])
        let match = try #require(made.lines.first, "\(made)")
        try expectQuoted("`new` and `automatch` print `\(general(match, "1", "ID"))`;")

        let declined = try story(["decline", "1", "--name", "Bob"])
        let declinedLine = try #require(declined.lines.first, "\(declined)")
        let (declinedPart, whoseTurn) = try #require(declinedLine.firstIndex(of: ";").map {
            (String(declinedLine[...$0]), String(declinedLine[declinedLine.index($0, offsetBy: 2)...]))
        }, "\(declinedLine)")
        try expectQuoted("`decline` prints `\(general(declinedPart, "1", "ID"))` and whose turn it is now")
        #expect(whoseTurn == "turn: Ann", "\(declinedLine)")

        let passed = try #require(try story(["turn", "1", "Once upon a time", "--name", "Ann"]).lines.first)
        let turnPassed = general(passed, "Cy", "NAME")

        let shown = try story(["show", "1", "--name", "Cy"])
        #expect(shown.status == 0 && shown.lines.first == "Once upon a time", "\(shown)")
        let declinedNote = try #require(shown.lines.first { $0.hasPrefix("Bob ") }, "\(shown)")
        try expectQuoted("a line for each participant who declined (\"\(declinedNote)\")")
        // Read within a minute of the start: 5 h, or 4 h 59 min on a slow machine.
        let fiveHours = StoryDuration.describe(5 * 3600), almost = StoryDuration.describe(5 * 3600 - 60)
        let hasLeft = try #require(shown.lines.first { $0.hasPrefix("Cy has ") }, "\(shown)")
        let asDocumented = general(hasLeft.replacingOccurrences(of: almost, with: fiveHours), "Cy", "Bob")
        try expectQuoted("\"\(asDocumented)\" while there is a deadline")
        let lastLine = try #require(shown.lines.last)
        let turnLine = general(lastLine, "Cy", "NAME")

        let listed = try story(["list", "--name", "Cy"])
        let columns = try #require(listed.lines.first, "\(listed)").components(separatedBy: "\t")
        try #require(columns.count == 6, "\(listed)")
        try expectQuoted("`list` adds a sixth column, the time left (\"\(columns[5].replacingOccurrences(of: fiveHours, with: almost))\", or empty)")
        let theirs = try #require(try story(["list", "--name", "Ann"]).lines.first).components(separatedBy: "\t")

        // Ann lets a 2 s turn run out: Ann missed a turn.
        #expect(try story(["new", "--with", "Bob", "--deadline", "2s", "--name", "Ann"]).lines == ["match 2"])
        var missed: [String] = []
        for _ in 0..<50 {
            missed = try story(["show", "2", "--name", "Bob"]).lines
            if missed.last == "turn: Bob" { break }
            Thread.sleep(forTimeInterval: 0.2)
        }
        let missedNote = try #require(missed.first { $0.hasPrefix("Ann missed ") }, "\(missed)")
        try expectQuoted("or missed turns (\"\(general(missedNote, "Ann", "Cy"))\")")

        // Cy and Ann write until the story is finished; near the end show tells the letters left.
        let words = String(repeating: "abcd ", count: StoryRules.maxTurnScalars / 5 - 1) + "abcd."
        var writer = "Cy", last = "", lettersLeft: String?
        for _ in 0..<(StoryRules.finishBytes / words.utf8.count + 2) {
            let turn = try story(["turn", "1", words, "--name", writer])
            last = try #require(turn.lines.first, "\(turn)")
            if !last.hasPrefix("turn passed to ") { break }
            if lettersLeft == nil {
                lettersLeft = try story(["show", "1", "--name", "Ann"]).lines.first { $0.hasPrefix("about ") }
            }
            writer = writer == "Cy" ? "Ann" : "Cy"
        }
        let letters = try #require(lettersLeft)
        let count = try #require(letters.split(separator: " ").first { $0.allSatisfy(\.isNumber) }.map(String.init), "\(letters)")
        try expectQuoted("\"\(general(letters, count, "N"))\" once it applies")
        try expectQuoted("`turn` prints `\(turnPassed)` or `\(last)`;")
        let ended = try #require(try story(["show", "1", "--name", "Ann"]).lines.last)
        try expectQuoted("then `\(turnLine)` or `\(ended)` (always the last line)")

        // The example in Playing, as written there: Ann declines match 3, Cy quits it, Bob asks
        // for a rematch (Cy, who did not decline, is in it and writes first). Each quote runs
        // up to the next command, so that the whole printed line is compared.
        #expect(try story(["new", "--with", "Ann,Cy", "--deadline", "30m", "--name", "Bob"]).lines == ["match 3"])
        let declinedThree = try #require(try story(["decline", "3", "--name", "Ann"]).lines.first)
        try expectQuoted("--name Ann # → \(declinedThree) .build/debug/snap story quit 3")
        let quitThree = try #require(try story(["quit", "3", "--name", "Cy"]).lines.first)
        try expectQuoted("--name Cy # → \(quitThree) .build/debug/snap story rematch 3")
        let example = try story(["rematch", "3", "--name", "Bob"])
        #expect(example.status == 0 && example.lines.count == 2, "\(example)")
        try expectQuoted("--name Bob # → \(example.lines.joined(separator: ", then ")) .build/debug/snap story notify")

        let rematch = try story(["rematch", "1", "--name", "Cy"])
        #expect(rematch.status == 0 && rematch.lines.count == 2 && rematch.lines.last?.hasPrefix("turn: ") == true, "\(rematch)")
        let id = String(rematch.lines[0].dropFirst("match ".count))
        try expectQuoted("`rematch` prints `\(general(rematch.lines[0], id, "ID"))` and whose turn it is")
        let rematchNote = try #require(try story(["show", "1", "--name", "Ann"]).lines.first { $0.hasPrefix("rematch: ") })
        try expectQuoted("\"\(general(rematchNote, id, "N"))\" once there is one")
        let endedRow = try #require(try story(["list", "--name", "Ann"]).lines.first { $0.hasPrefix("1\t") }).components(separatedBy: "\t")
        try expectQuoted("one line per match: ID, \(columns[1]) / \(theirs[1]) / \(endedRow[1]), …")
    }

    @Test("the service's first lines: store: sqlite PATH, restored N matches, listening on unix:PATH, certificate: SHA256:…")
    func serviceLines() throws {
        let service = try SnapProcess(["story", "serve", "--listen", "127.0.0.1:0", "--code", "ABCDEF"], runtimeDirectory: directory)
        defer { service.signal(SIGTERM) }
        _ = try #require(service.line(startingWith: "listening on tcp:", timeout: 30), "\(service.errors)")
        let lines = service.lines
        let database = directory + "/state/snap/story/story.sqlite"
        let socket = directory + "/snap/story.socket"
        #expect(lines.first?.hasPrefix("store: ") == true, "\(lines)")
        let store = general(try #require(lines.first), database, "PATH")
        let restored = try #require(lines.first { $0.hasPrefix("restored ") })
        let restoredPart = try #require(restored.range(of: ", ").map { String(restored[..<$0.upperBound]) }, "\(restored)")
        let listening = try #require(lines.first { $0.hasPrefix("listening on unix:") })
        try expectQuoted("The service prints `\(store)` first, then `\(general(restoredPart, "0", "N"))…` "
                         + "(how many the database holds; none is read until a request needs it), then `\(general(listening, socket, "PATH"))`.")
        let certificate = try #require(lines.first { $0.hasPrefix("certificate: ") })
        let fixed = try #require(certificate.range(of: ":", options: .backwards).map { String(certificate[...$0.lowerBound]) })
        try expectQuoted("the service prints `\(fixed)…`")
    }

    @Test("an old journal's import: imported N matches from PATH")
    func importLine() throws {
        for path in [directory + "/state", directory + "/state/snap", directory + "/state/snap/story"] { mkdir(path, 0o700) }
        let journalPath = directory + "/state/snap/story/story.journal"
        #expect(FileManager.default.createFile(atPath: journalPath, contents: Data(StoryTests().oldJournal(matches: 2))))
        let service = try serve()
        defer { service.signal(SIGTERM) }
        let imported = try #require(service.lines.first { $0.hasPrefix("imported ") }, "\(service.lines)")
        try expectQuoted("It prints `\(general(general(imported, journalPath, "PATH"), "2", "N"))`, records the import")
    }

    @Test("snap story notify's lines: watching N matches for NAME, notice: …, error: no session bus: …, warning: could not show \"…\": …")
    func notifyLines() throws {
        let bus = try SessionBus()
        defer { bus.stop() }
        let service = try serve()
        defer { service.signal(SIGTERM) }
        for title in ["The dragon", "Two", "Three"] {
            #expect(try story(["new", "--with", "Bob", "--title", title, "--name", "Ann"]).status == 0)
        }
        #expect(try story(["turn", "1", "Once upon a time.", "--name", "Ann"]).status == 0)

        let noBus = try SnapProcess(["story", "notify", "--name", "Bob"], runtimeDirectory: directory,
                                    environment: ["DBUS_SESSION_BUS_ADDRESS": ""])
        #expect(noBus.exitStatus(timeout: 30) == 1)
        let noBusLine = try #require(noBus.errorLines.first { $0.hasPrefix("error: ") }, "\(noBus.errors)")
        let noBusPart = try #require(noBusLine.range(of: ": ", options: .backwards).map { String(noBusLine[..<$0.upperBound]) })
        try expectQuoted("it stops at once with `\(noBusPart)…` (exit 1)")

        // No notification service on the bus: a warning per notice, and it goes on.
        let warned = try SnapProcess(["story", "notify", "--name", "Bob"], runtimeDirectory: directory,
                                     environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        defer { if warned.process.isRunning { warned.signal(SIGKILL) } }
        var warning: String?
        for _ in 0..<150 where warning == nil {
            warning = warned.errorLines.first { $0.hasPrefix("warning: ") }
            if warning == nil { Thread.sleep(forTimeInterval: 0.2) }
        }
        let warningLine = try #require(warning, "\(warned.errors)")
        let warningPart = try #require(warningLine.range(of: " (").map { String(warningLine[..<$0.lowerBound]) }, "\(warningLine)")
        try expectQuoted("each notice gives `\(general(warningPart, "\"Your turn in 'The dragon'\"", "\"…\""))` and it goes on")
        #expect(warned.process.isRunning)
        warned.signal(SIGINT)
        #expect(warned.exitStatus(timeout: 10) == 0)

        let desktop = try NotificationsThread(address: bus.address)
        defer { desktop.stop() }
        let notify = try SnapProcess(["story", "notify", "--name", "Bob"], runtimeDirectory: directory,
                                     environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        defer { if notify.process.isRunning { notify.signal(SIGKILL) } }
        let watching = try #require(notify.line(startingWith: "watching ", timeout: 30), "\(notify.errors)")
        try expectQuoted("# \"\(general(watching, "Bob", "Ann"))\", \"notice: …\"")
        #expect(try story(["turn", "1", "It dreamed.", "--name", "Bob"]).status == 0)
        #expect(try story(["turn", "1", "Then it woke.", "--name", "Ann"]).status == 0)
        let notice = try #require(notify.line(startingWith: "notice: Your turn in 'The dragon' — Ann", timeout: 20), "\(notify.lines)")
        try expectQuoted("also printed, `\(general(notice, "Then it woke.", "…"))`.")
        let call = try #require(desktop.calls.last)
        try expectQuoted("a match becomes their turn: \"\(call.summary)\" — \"\(general(call.body, "Then it woke.", "…"))\" with the end")
        notify.signal(SIGTERM)
        #expect(notify.exitStatus(timeout: 10) == 0)
    }
}
