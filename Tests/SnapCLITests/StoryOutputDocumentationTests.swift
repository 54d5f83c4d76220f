import Foundation
import SnapDBus
import SnapTestSupport
import StoryEngine
import StoryLink
import StoryService
import Testing

/// docs/STORY.md quotes what `snapcards story …` prints; these lines are built in the `snapcards`
/// executable, so the real binary prints them here and the document must quote their fixed
/// part (the variable part — an id, a name, a path — written as the document writes it).
/// Runs of white space compare as one space, as in StoryQuotesTests.
@Suite("STORY.md quotes what snapcards story prints", .blocksThreads, .serialized, .timeLimit(.minutes(5)))
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
        // In the rules, the time left of a 5 h turn a minute in.
        try expectQuoted("Time left reads in its two largest units (\"\(asDocumented.replacingOccurrences(of: fiveHours, with: almost))\")")
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
        let finished = try story(["show", "1", "--name", "Ann"]).lines
        let finishedNote = try #require(finished.first { $0.hasPrefix("The story ") }, "\(finished)")
        try expectQuoted("everyone sees \"\(finishedNote)\" and the whole text")
        let ended = try #require(finished.last)
        try expectQuoted("then `\(turnLine)` or `\(ended)` (always the last line)")

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
        try expectQuoted("(the default, `\(general(database, directory + "/state", "$XDG_STATE_HOME"))`)")
        let restored = try #require(lines.first { $0.hasPrefix("restored ") })
        let restoredPart = try #require(restored.range(of: ", ").map { String(restored[..<$0.upperBound]) }, "\(restored)")
        let listening = try #require(lines.first { $0.hasPrefix("listening on unix:") })
        try expectQuoted("The service prints `\(store)` first, then `\(general(restoredPart, "0", "N"))…` "
                         + "(how many the database holds; none is read until a request needs it), then `\(general(listening, socket, "PATH"))`.")
        let certificate = try #require(lines.first { $0.hasPrefix("certificate: ") })
        let fixed = try #require(certificate.range(of: ":", options: .backwards).map { String(certificate[...$0.lowerBound]) })
        try expectQuoted("the service prints `\(fixed)…`")
        // The systemd example's line, with systemd's runtime directory for user 1000.
        try expectQuoted("status snap-story.service # \"\(general(listening, directory, "/run/user/1000"))\"")
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

    @Test("snapcards story notify's lines: watching N matches for NAME, notice: …, error: no session bus: …, warning: could not show \"…\": …")
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
        let noBusExit = noBus.exitStatus(timeout: 30)
        let noBusLine = try #require(noBus.errorLines.first { $0.hasPrefix("error: ") }, "\(noBus.errors)")
        let noBusPart = try #require(noBusLine.range(of: ": ", options: .backwards).map { String(noBusLine[..<$0.upperBound]) })
        let noBusStatus = try #require(try Documents.numbers("STORY.md", "it stops at once with `\(noBusPart)…` (exit {N})"),
                                       "STORY.md lacks: it stops at once with `\(noBusPart)…` (exit N)")
        #expect(noBusExit == Int32(noBusStatus[0]))

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
        let stopped = try #require(try Documents.numbers("STORY.md", "Ctrl-C or SIGTERM end it (exit {N})."), "STORY.md lacks its exit on SIGTERM")
        notify.signal(SIGTERM)
        #expect(notify.exitStatus(timeout: 10) == Int32(stopped[0]))
    }

    @Test("the exit statuses STORY.md gives: a refusal (error: …), a service out of reach, a usage error; the service's own")
    func exitStatuses() throws {
        let written = "A refusal — not your turn, too long, match over, unknown match, you quit, not a participant, declining after "
            + "writing, a rematch of a running match, wrong key — prints `error: …` on standard error and exits {N}; a service that "
            + "cannot be reached exits {N}; a usage error (a deadline like `72` without its unit) exits {N}."
        let statuses = try #require(try Documents.numbers("STORY.md", written), "STORY.md lacks: \(written)").map(Int32.init)
        let service = try serve()
        defer { service.signal(SIGTERM) }
        #expect(try story(["new", "--with", "Bob,Cy", "--name", "Ann"]).lines == ["match 1"])
        #expect(try story(["new", "--with", "Bob", "--name", "Ann"]).lines == ["match 2"])
        func refused(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
            let result = try story(arguments)
            #expect(result.status == statuses[0] && result.lines.isEmpty, "\(arguments): \(result)", sourceLocation: sourceLocation)
            #expect(result.errors.hasPrefix("error: "), "\(arguments): \(result.errors)", sourceLocation: sourceLocation)
        }
        // Each refusal the sentence lists, in its order.
        try refused(["turn", "1", "Hello", "--name", "Bob"])                                          // not your turn
        try refused(["turn", "1", String(repeating: "a", count: StoryRules.maxTurnScalars + 1), "--name", "Ann"])  // too long
        #expect(try story(["quit", "2", "--name", "Bob"]).status == 0)                              // match 2 is over
        try refused(["turn", "2", "x", "--name", "Ann"])                                              // match over
        try refused(["show", "7", "--name", "Ann"])                                                   // unknown match
        #expect(try story(["turn", "1", "Once.", "--name", "Ann"]).status == 0)
        #expect(try story(["quit", "1", "--name", "Cy"]).status == 0)
        try refused(["turn", "1", "x", "--name", "Cy"])                                               // you quit
        try refused(["turn", "1", "x", "--name", "Dora"])                                             // not a participant
        try refused(["decline", "1", "--name", "Ann"])                                                // declining after writing
        try refused(["rematch", "1", "--name", "Ann"])                                                // a rematch of a running match
        let stranger = try SnapProcess(["story", "list", "--name", "Ann"], runtimeDirectory: directory,
                                       environment: ["XDG_STATE_HOME": directory + "/stranger"])
        #expect(stranger.exitStatus() == statuses[0] && stranger.errors.hasPrefix("error: "), "\(stranger.errors)")  // wrong key
        let unreachable = try story(["list", "--name", "Ann", "--socket", directory + "/nothing.socket"])
        #expect(unreachable.status == statuses[1], "\(unreachable)")
        let usage = try story(["new", "--with", "Bob", "--deadline", "72", "--name", "Ann"])
        #expect(usage.status == statuses[2] && usage.errors.contains("--deadline"), "\(usage)")

        // The service: a database it cannot open is an error: line and an exit status.
        let atStart = try #require(try Documents.numbers("STORY.md", "upgrade snap to use it\") is an `error:` line and exit {N}."),
                                   "STORY.md lacks the service's exit at start")
        let notADatabase = directory + "/not.sqlite"
        #expect(FileManager.default.createFile(atPath: notADatabase, contents: Data(repeating: 0x41, count: 4096)))
        let damaged = try SnapProcess(["story", "serve", "--database", notADatabase], runtimeDirectory: directory)
        #expect(damaged.exitStatus(timeout: 30) == Int32(atStart[0]))
        #expect(damaged.errorLines.contains { $0.hasPrefix("error: ") } && damaged.errorLines.count == 1, "\(damaged.errors)")
        let away = try #require(try Documents.numbers("STORY.md", "`snapcards story serve` says why in one line and exits with status {N}."),
                                "STORY.md lacks the service's exit without its database")
        let postgres = try SnapProcess(["story", "serve", "--database", "postgres://snap@localhost/story"], runtimeDirectory: directory)
        #expect(postgres.exitStatus(timeout: 30) == Int32(away[0]))
        #expect(postgres.errorLines.count == 1, "\(postgres.errors)")
    }

    @Test("a second key signing in with a taken name: \"the name Ann belongs to someone else here\"")
    func takenName() throws {
        let service = try serve()
        defer { service.signal(SIGTERM) }
        #expect(try story(["list", "--name", "Ann"]).status == 0)  // Ann's key registered
        // Her key as Identity says it is kept: the directory's mode, the file's name and mode.
        let modes = try #require(try Documents.numbers("STORY.md", "(else `~/.local/state/snap/story/keys/`; directory {N}, one file "
                                                       + "per name ending `.ed25519`, {N})"), "STORY.md lacks the key files' modes")
        let keys = StoryKeyStore(directory: directory + "/state/snap/story/keys")
        var status = stat()
        #expect(stat(keys.directory, &status) == 0 && Int(status.st_mode & 0o777) == Int(String(modes[0]), radix: 8), "\(keys.directory)")
        #expect(keys.keyPath(for: "Ann").hasSuffix(".ed25519"))
        #expect(stat(keys.keyPath(for: "Ann"), &status) == 0 && Int(status.st_mode & 0o777) == Int(String(modes[1]), radix: 8))
        let stranger = try SnapProcess(["story", "list", "--name", "Ann"], runtimeDirectory: directory,
                                       environment: ["XDG_STATE_HOME": directory + "/stranger"])
        _ = stranger.exitStatus()
        let line = try #require(stranger.errorLines.first, "\(stranger.errors)")
        // What the document quotes: the refusal's words up to its aside in brackets.
        let words = try #require(line.range(of: " (").map { String(line.dropFirst("error: ".count).prefix(upTo: $0.lowerBound)) }, "\(line)")
        #expect(line.hasPrefix("error: "), "\(line)")
        try expectQuoted("From then on the service refuses any other key for the name (\"\(words)\")")
    }

    @Test("a stored match that does not read back: \"the story database is damaged: match 7 in PATH does not read back\"")
    func damagedMatch() throws {
        var service = try serve()
        for _ in 1...7 { #expect(try story(["new", "--with", "Bob", "--name", "Ann"]).status == 0) }
        #expect(try story(["turn", "7", "Seventh tale", "--name", "Ann"]).lines == ["turn passed to Bob"])
        service.signal(SIGTERM)
        #expect(service.exitStatus(timeout: 20) == 0)
        // Damage the file where the story's text is kept: its first byte is no longer UTF-8.
        let database = directory + "/state/snap/story/story.sqlite"
        let wal = (try? Data(contentsOf: URL(fileURLWithPath: database + "-wal"))) ?? Data()
        #expect(wal.range(of: Data("Seventh tale".utf8)) == nil, "the text is still in the WAL")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: database))
        var damaged = 0
        while let found = bytes.range(of: Data("Seventh tale".utf8)) {
            bytes[found.lowerBound] = 0xFF
            damaged += 1
        }
        #expect(damaged > 0)
        try bytes.write(to: URL(fileURLWithPath: database))
        service = try serve()
        defer { service.signal(SIGTERM) }
        // The player is refused as when the database cannot be reached; the service names the match.
        let shown = try story(["show", "7", "--name", "Ann"])
        #expect(shown.status != 0 && shown.errors.hasPrefix("error: \(StoryServer.unavailableWords)"), "\(shown)")
        try expectQuoted("is refused with \"\(StoryServer.unavailableWords)\"")
        var named: String?
        for _ in 0..<50 where named == nil {
            named = service.errorLines.first { $0.contains("the story database is damaged: ") }
            if named == nil { Thread.sleep(forTimeInterval: 0.1) }
        }
        let line = try #require(named, "\(service.errors)")
        let start = try #require(line.range(of: "the story database is damaged: ")).lowerBound
        let end = try #require(line.range(of: " (", options: .backwards)).lowerBound
        let words = general(String(line[start..<end]), database, "PATH")
        try expectQuoted("A stored match that does not read back is named in the service's output (\"\(words)\"); a request that "
                         + "needs it is refused as above, and the other matches are served.")
        #expect(try story(["show", "6", "--name", "Ann"]).status == 0)
    }

    @Test("Playing's example, run as the document writes it: each command's comment is what it prints")
    func playingExample() throws {
        let document = try Documents.original("STORY.md")
        let section = try #require(document.range(of: "## Playing\n"), "STORY.md has no Playing section")
        let fence = try #require(document.range(of: "```sh\n", range: section.upperBound..<document.endIndex))
        let end = try #require(document.range(of: "```", range: fence.upperBound..<document.endIndex))
        let service = try serve()
        defer { service.signal(SIGTERM) }
        var run = 0, lastTurnText: String?
        for line in document[fence.upperBound..<end.lowerBound].split(separator: "\n").map(String.init) {
            guard line.hasPrefix(".build/debug/snapcards story") else { continue }
            let comment = line.range(of: #"\s+# "#, options: .regularExpression).map { String(line[$0.upperBound...]) }
            let command = line.range(of: #"\s+# "#, options: .regularExpression).map { String(line[..<$0.lowerBound]) } ?? line
            let words = Array(Self.shellWords(command).dropFirst(2))
            // The service, the window and notify are run in their own tests.
            if words.isEmpty || words.last == "&" { continue }
            let result = try story(words)
            run += 1
            #expect(result.status == 0, "\(line): \(result)")
            if words.first == "turn" { lastTurnText = words[2] }
            guard let comment else { continue }
            if comment.hasPrefix("→ ") {
                #expect(result.lines.joined(separator: ", then ") == String(comment.dropFirst(2)), "\(line): \(result.lines)")
            } else if let quoted = comment.firstMatch(of: /^the story, then "([^"]+)" \(or "ended"\)$/) {
                #expect(result.lines.first == lastTurnText && result.lines.last == String(quoted.1), "\(line): \(result.lines)")
            } else if let columns = comment.firstMatch(of: /^one line per match: ID, (.+) \/ (.+) \/ (.+), …$/) {
                let kinds = [String(columns.1), String(columns.2), String(columns.3)]
                #expect(!result.lines.isEmpty, "\(line)")
                for row in result.lines {
                    let fields = row.components(separatedBy: "\t")
                    #expect(fields.count > 1 && UInt32(fields[0]) != nil && kinds.contains(fields[1]), "\(line): \(row)")
                }
            } else if let minutes = comment.firstMatch(of: /^each turn: ([0-9]+) minutes$/) {
                let given = try #require(words.firstIndex(of: "--deadline").map { words[$0 + 1] })
                #expect(try StoryDuration.parse(given).get() == UInt64(minutes.1)! * 60, "\(line)")
                let id = try #require(result.lines.first?.dropFirst("match ".count), "\(result)")
                let who = try #require(words.firstIndex(of: "--name").map { words[$0 + 1] })
                let shown = try story(["show", String(id), "--name", who]).lines
                let left = [UInt64(minutes.1)! * 60, UInt64(minutes.1)! * 60 - 60].map { "\(who) has \(StoryDuration.describe($0)) left" }
                #expect(shown.contains { left.contains($0) }, "\(line): \(shown)")
            } else {
                Issue.record("an example's comment this test does not check: \(line)")
            }
        }
        #expect(run >= 10, "ran \(run) of the example's commands")
    }

    /// `command` split as a shell splits it (spaces, and "…" quoting).
    static func shellWords(_ command: String) -> [String] {
        var words: [String] = [], word = "", quoted = false, started = false
        for character in command {
            if character == "\"" { quoted.toggle(); started = true } else if character == " " && !quoted {
                if started { words.append(word) }
                word = ""
                started = false
            } else {
                word.append(character)
                started = true
            }
        }
        if started { words.append(word) }
        return words
    }
}
