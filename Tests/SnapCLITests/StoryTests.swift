import Foundation
import SnapBytes
import SnapJournal
import SnapNet
import SnapPlatform
import SnapProtocol
import SnapTestSupport
import StoryEngine
import StoryLink
import StoryProtocol
import StoryService
import StoryStores
import Testing

/// `snapcards story` with real processes: the service, and one process per player command.
@Suite("Story over real processes", .blocksThreads, .serialized)
struct StoryTests: StoryProcessTests {
    let directory = makeRuntimeDirectory()



    var journalPath: String { directory + "/state/snap/story/story.journal" }
    var databasePath: String { directory + "/state/snap/story/story.sqlite" }

    @Test("over TCP the story service speaks TLS: first use remembers its certificate, a sign-in's proof is bound to it, a changed one is refused")
    func overTLS() throws {
        let service = try SnapProcess(["story", "serve", "--listen", "127.0.0.1:0", "--code", "ABCDEF"], runtimeDirectory: directory)
        defer { service.signal(SIGTERM) }
        let certificate = try #require(service.line(startingWith: "certificate: SHA256:", timeout: 30), "\(service.errors)")
        let listening = try #require(service.line(startingWith: "listening on tcp:"), "\(service.errors)")
        let address = String(listening.dropFirst("listening on tcp:".count))
        let fingerprint = String(certificate.dropFirst("certificate: ".count))
        let made = try story(["new", "--with", "Bob", "--name", "Ann", "--connect", address, "--code", "ABCDEF"])
        #expect(made.status == 0 && made.lines == ["match 1"], "\(made)")
        #expect(made.errors.contains("certificate of \(address) is new: \(fingerprint)"), "\(made.errors)")
        let known = try String(contentsOfFile: directory + "/state/snap/known_hosts", encoding: .utf8)
        // PROTOCOL.md §2 gives known_hosts' mode.
        let mode = try #require(try Documents.numbers("PROTOCOL.md", "(`$XDG_STATE_HOME/snap/known_hosts`, mode {N})"), "PROTOCOL.md lacks known_hosts' mode")
        var status = stat()
        #expect(stat(directory + "/state/snap/known_hosts", &status) == 0 && Int(status.st_mode & 0o777) == Int(String(mode[0]), radix: 8))
        #expect(known.contains("\(address) \(fingerprint)"))
        // Signed in again over TLS: the proof bound to the certificate holds.
        let listed = try story(["list", "--name", "Bob", "--connect", address, "--code", "ABCDEF"])
        #expect(listed.status == 0 && listed.lines.count == 1, "\(listed)")
        // Another certificate remembered for the address: refused, nothing sent, exit 3.
        let other = "SHA256:" + String(repeating: "A", count: 43)
        try "\(address) \(other)\n".write(toFile: directory + "/state/snap/known_hosts", atomically: true, encoding: .utf8)
        let refused = try story(["list", "--name", "Bob", "--connect", address, "--code", "ABCDEF"])
        #expect(refused.status == 3, "\(refused)")
        #expect(refused.errors.contains("has changed") && refused.errors.contains(fingerprint) && refused.errors.contains(other),
                "\(refused.errors)")
        // The player accepts it by its fingerprint once the service's owner confirms it.
        let accepted = try story(["list", "--name", "Bob", "--connect", address, "--code", "ABCDEF", "--accept-certificate", fingerprint])
        #expect(accepted.status == 0, "\(accepted)")
    }

    @Test("three players take 40 turns in two matches while the service is killed with -9 and restarted; nothing is lost, the order is right")
    func fortyTurnsThroughCrashes() throws {
        var service = try serve()
        // The store is named before the service listens.
        let storeLine = service.lines.firstIndex(of: "store: sqlite \(databasePath)")
        let listening = service.lines.firstIndex { $0.hasPrefix("listening on unix:") }
        #expect(storeLine != nil && listening != nil && storeLine! < listening!, "\(service.lines)")
        let first = try story(["new", "--with", "Bob,Cy", "--title", "The dragon", "--name", "Ann"])
        #expect(first.status == 0 && first.lines == ["match 1"], "\(first)")
        let second = try story(["new", "--with", "Cy,Ann", "--name", "Bob"])
        #expect(second.status == 0 && second.lines == ["match 2"], "\(second)")
        let orders = [["Ann", "Bob", "Cy"], ["Bob", "Cy", "Ann"]]
        var texts: [[String]] = [[], []]
        for turn in 0..<40 {
            let match = turn % 2
            let writer = orders[match][(turn / 2) % 3]
            let next = orders[match][(turn / 2 + 1) % 3]
            let text = "\(writer) wrote turn \(turn) in match \(match + 1) ü."
            let result = try story(["turn", String(match + 1), text, "--name", writer])
            #expect(result.status == 0 && result.lines == ["turn passed to \(next)"], "turn \(turn): \(result)")
            texts[match].append(text)
            if turn % 10 == 9 {
                // A crash right after an answered turn: it was committed before the answer.
                service.signal(SIGKILL)
                _ = service.exitStatus(timeout: 10)
                service = try serve()
                let restored = service.lines.first { $0.hasPrefix("restored ") } ?? ""
                #expect(restored.hasPrefix("restored 2 matches"), "\(service.lines)")
            }
        }
        for match in 0..<2 {
            let shown = try story(["show", String(match + 1), "--name", "Cy"])
            #expect(shown.status == 0)
            // The story, how long the writer has left (the service's 72 h by default), whose turn.
            let current = orders[match][20 % 3]
            #expect(shown.lines.count == 3 && shown.lines.first == texts[match].joined(separator: " "), "\(shown)")
            #expect(shown.lines.dropFirst().first.map { $0.hasPrefix("\(current) has ") && $0.hasSuffix(" left") } == true, "\(shown)")
            #expect(shown.lines.last == "turn: \(current)", "\(shown)")
        }
        let list = try story(["list", "--name", "Ann"])
        #expect(list.lines.count == 2, "\(list)")
        #expect(list.lines.contains { $0.hasPrefix("1\t") && $0.contains("The dragon") })
        service.signal(SIGTERM)
        #expect(service.exitStatus(timeout: 20) == 0)
    }

    /// A journal of the service before the database: Ann's and Bob's keys, `matches`
    /// matches between them with a turn each.
    func oldJournal(matches: Int, oldKeys: [String: SeatToken] = [:]) -> [UInt8] {
        var journal = Journal.header(kind: StoryRecord.journalKind)
        for name in oldKeys.keys.sorted() { Journal.frame(StoryRecord.oldKey(name: name, key: oldKeys[name]!).bytes, into: &journal) }
        for index in 0..<matches {
            Journal.frame(StoryRecord.command(.create(starter: "Ann", others: ["Bob"], title: "Old \(index + 1)", at: 1_700_000_000)).bytes,
                          into: &journal)
            Journal.frame(StoryRecord.command(.turn(StoryMatchID(UInt32(index + 1)), name: "Ann", text: "Once \(index + 1).",
                                                    at: 1_700_000_001)).bytes, into: &journal)
        }
        return journal
    }

    func makeStateDirectory() {
        for path in [directory + "/state", directory + "/state/snap", directory + "/state/snap/story"] { mkdir(path, 0o700) }
    }

    @Test("an old story.journal is imported on the first start (counts printed, the file left as it was), never twice; snapcards story import does the same")
    func importsOldJournal() throws {
        makeStateDirectory()
        let journal = oldJournal(matches: 3)
        #expect(FileManager.default.createFile(atPath: journalPath, contents: Data(journal)))
        var service = try serve()
        #expect(service.lines.contains("imported 3 matches from \(journalPath)"), "\(service.lines)")
        #expect(service.lines.contains { $0.hasPrefix("restored 3 matches") }, "\(service.lines)")
        let shown = try story(["show", "2", "--name", "Bob"])
        // The story, Bob's time left (the service's 72 h from the import on), whose turn.
        #expect(shown.status == 0 && shown.lines.first == "Once 2." && shown.lines.last == "turn: Bob", "\(shown)")
        #expect(shown.lines.count == 3 && shown.lines[1].hasPrefix("Bob has "), "\(shown)")
        // Live matches get the service's deadline from the import on.
        #expect(try story(["turn", "2", "Twice.", "--name", "Bob"]).lines == ["turn passed to Ann"])
        service.signal(SIGTERM)
        #expect(service.exitStatus(timeout: 20) == 0)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: journalPath))) == journal, "the journal was changed")
        service = try serve()
        #expect(!service.lines.contains { $0.hasPrefix("imported") }, "imported twice: \(service.lines)")
        #expect(service.lines.contains { $0.hasPrefix("restored 3 matches") }, "\(service.lines)")
        let reshown = try story(["show", "2", "--name", "Bob"]).lines
        #expect(reshown.first == "Once 2. Twice." && reshown.last == "turn: Ann", "\(reshown)")
        service.signal(SIGTERM)
        #expect(service.exitStatus(timeout: 20) == 0)

        // By hand, into another database; a second time it is refused and changes nothing.
        let other = directory + "/other.sqlite"
        let imported = try story(["import", journalPath, "--database", other])
        #expect(imported.status == 0 && imported.lines == ["imported 3 matches from \(journalPath)"], "\(imported)")
        let again = try story(["import", journalPath, "--database", other])
        #expect(again.status == 1 && again.errors.contains("already holds 3 matches"), "\(again)")
        let missing = try story(["import", directory + "/nothing.journal", "--database", other])
        #expect(missing.status == 64 && missing.errors.contains("cannot read"), "\(missing)")
    }

    @Test("a database that cannot be opened stops the service with exit 3 in plain words; --turn-deadline is checked")
    func badDatabase() throws {
        let notADatabase = directory + "/not.sqlite"
        #expect(FileManager.default.createFile(atPath: notADatabase, contents: Data(repeating: 0x41, count: 4096)))
        let service = try SnapProcess(["story", "serve", "--database", notADatabase], runtimeDirectory: directory)
        #expect(service.exitStatus(timeout: 30) == 3)
        #expect(service.errors.contains("error: the story database is damaged: \(notADatabase) is not an SQLite database"), "\(service.errors)")
        #expect(!service.lines.contains { $0.hasPrefix("listening") })
        // snapcards links no PostgreSQL driver: snapcards-story-postgres, beside it, takes its
        // place with the same arguments, and its driver's words are these (not "links no driver").
        let postgres = try SnapProcess(["story", "serve", "--database", "postgres://snap@localhost/story"], runtimeDirectory: directory)
        #expect(postgres.exitStatus(timeout: 30) == 3)
        #expect(postgres.errors.contains("error: the story service cannot reach its database (postgres localhost/story"), "\(postgres.errors)")
        #expect(!postgres.errors.contains("no PostgreSQL driver"), "\(postgres.errors)")
        let journal = directory + "/empty.journal"
        #expect(FileManager.default.createFile(atPath: journal, contents: Data()))
        let importing = try SnapProcess(["story", "import", journal, "--database", "postgres://snap@localhost/story"], runtimeDirectory: directory)
        #expect(importing.exitStatus(timeout: 30) == 3)
        #expect(importing.errors.contains("error: the story service cannot reach its database (postgres localhost/story"), "\(importing.errors)")
        #expect(!importing.errors.contains("no PostgreSQL driver"), "\(importing.errors)")
        let deadline = try SnapProcess(["story", "serve", "--turn-deadline", "soon"], runtimeDirectory: directory)
        #expect(deadline.exitStatus(timeout: 30) == 64)
        #expect(deadline.errors.contains("--turn-deadline"), "\(deadline.errors)")
    }

    @Test("--connection-limit 1: a second connection is told the service is busy; 0 is refused")
    func connectionLimit() throws {
        let service = try serve(["--connection-limit", "1"])
        defer { service.signal(SIGTERM) }
        let listening = try #require(service.line(startingWith: "listening on unix:"))
        let socket = String(listening.dropFirst("listening on unix:".count))
        // Counted from its accept, signed in or not.
        let held = try #require(RawSocket(unixPath: socket))
        let second = try #require(RawSocket(unixPath: socket))
        let (bytes, closed) = second.readUntilClosed()
        #expect(closed)
        #expect(String(decoding: bytes, as: UTF8.self).contains("the story service is busy (1 connections)"), "\(bytes)")
        #expect(try story(["list", "--name", "Bob"]).status != 0)
        withExtendedLifetime(held) {}
        let zero = try SnapProcess(["story", "serve", "--connection-limit", "0"], runtimeDirectory: directory)
        #expect(zero.exitStatus(timeout: 30) == 64)
        #expect(zero.errors.contains("--connection-limit must be at least 1"), "\(zero.errors)")
    }

    @Test("with --turn-deadline 4s a turn not taken passes to the next player")
    func turnDeadline() throws {
        let service = try serve(["--turn-deadline", "4s"])
        #expect(try story(["new", "--with", "Bob", "--name", "Ann"]).lines == ["match 1"])
        // Bob's own 4 s start when Ann's end: his turn is taken as soon as it is seen.
        var shown = try story(["show", "1", "--name", "Bob"])
        for _ in 0..<60 where shown.lines.last != "turn: Bob" {
            Thread.sleep(forTimeInterval: 0.2)
            shown = try story(["show", "1", "--name", "Bob"])
        }
        #expect(shown.lines.last == "turn: Bob" && shown.lines.contains("Ann missed 1 turn in a row"), "\(shown)")
        #expect(try story(["turn", "1", "Mine now.", "--name", "Bob"]).lines == ["turn passed to Ann"])
        service.signal(SIGTERM)
        #expect(service.exitStatus(timeout: 20) == 0)
    }

    @Test("refusals exit non-zero with a clear message: not your turn, too long, match over, unknown match, quit participant, wrong key")
    func refusals() throws {
        let service = try serve()
        #expect(try story(["new", "--with", "Bob,Cy", "--name", "Ann"]).lines == ["match 1"])
        func refused(_ arguments: [String], _ words: String, status: Int32 = 1) throws {
            let result = try story(arguments)
            #expect(result.status == status, "\(arguments): \(result)")
            #expect(result.errors.contains(words), "\(arguments): \(result.errors)")
            #expect(result.lines.isEmpty, "\(arguments): \(result.lines)")
        }
        try refused(["turn", "1", "Hello", "--name", "Bob"], "it is not your turn in match 1: it is Ann's")
        try refused(["turn", "1", String(repeating: "ü", count: 251), "--name", "Ann"], "too long: 251 characters, at most 250")
        try refused(["show", "7", "--name", "Ann"], "there is no match 7")
        try refused(["turn", "7", "x", "--name", "Ann"], "there is no match 7")
        try refused(["turn", "1", "x", "--name", "Dora"], "Dora does not take part in match 1")
        #expect(try story(["turn", "1", String(repeating: "ü", count: 250), "--name", "Ann"]).lines == ["turn passed to Bob"])
        #expect(try story(["quit", "1", "--name", "Cy"]).status == 0)  // out of turn: Bob keeps it
        try refused(["turn", "1", "x", "--name", "Cy"], "Cy has quit match 1")
        #expect(try story(["show", "1", "--name", "Ann"]).lines.last == "turn: Bob")
        #expect(try story(["quit", "1", "--name", "Bob"]).status == 0)  // fewer than two left: over
        try refused(["turn", "1", "x", "--name", "Ann"], "match 1 is over")
        #expect(try story(["show", "1", "--name", "Ann"]).lines.last == "ended")
        // Another person's key for Ann: their state directory holds a different key.
        let stranger = try SnapProcess(["story", "list", "--name", "Ann"], runtimeDirectory: directory,
                                       environment: ["XDG_STATE_HOME": directory + "/stranger"])
        #expect(stranger.exitStatus() == 1)
        #expect(stranger.errors.contains("the name Ann belongs to someone else"), "\(stranger.errors)")
        try refused(["turn", "x1", "x", "--name", "Ann"], "a match ID is a number", status: 64)
        try refused(["list", "--name", "Ann", "--socket", directory + "/nothing.socket"], "cannot reach the story service", status: 3)
        // A peer sending garbage is cut; the service goes on.
        let raw = RawSocket(unixPath: directory + "/snap/story.socket")
        raw?.send([0, 0, 0, 9, 0x53, 0x4E, 0x41, 0x50, 0x01, 0, 0, 0, 0])
        #expect(raw?.readUntilClosed().closed == true)
        #expect(try story(["show", "1", "--name", "Bob"]).status == 0)
        #expect(service.process.isRunning)
    }
}

extension StoryTests {
    @Test("a player of an older snap keeps their name: the import keeps no old key, the first sign-in moves the name to a key pair and removes the old key file")
    func olderSnapsPlayer() throws {
        let oldKey = SeatToken(bytes: Array(0xA1...0xB0))!
        let state = directory + "/state/snap/story"
        makeStateDirectory()
        var journal = Journal.header(kind: StoryRecord.journalKind)
        for record in [StoryRecord.oldKey(name: "Ann", key: oldKey), .oldKey(name: "Bob", key: SeatToken(bytes: Array(1...16))!),
                       .command(.create(starter: "Ann", others: ["Bob"], title: "Old times", at: 1_700_000_000))] {
            Journal.frame(record.bytes, into: &journal)
        }
        #expect(FileManager.default.createFile(atPath: journalPath, contents: Data(journal)))
        // Version 1's key file, as the older snap left it.
        let keys = StoryKeyStore(directory: state + "/keys")
        try SecretFile.store(oldKey, at: keys.oldKeyPath(for: "Ann"), exclusive: true)
        let stranger = directory + "/stranger"
        try SecretFile.store(oldKey, at: StoryKeyStore(directory: stranger + "/snap/story/keys").oldKeyPath(for: "Ann"), exclusive: true)

        let service = try serve()
        #expect(service.lines.contains("imported 1 matches from \(journalPath)"), "\(service.lines)")
        let database = try [databasePath, databasePath + "-wal"].flatMap { path in
            access(path, F_OK) == 0 ? try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) : []
        }
        #expect(!database.indices.dropLast(15).contains { database[$0..<($0 + 16)].elementsEqual(oldKey.bytes) }, "the old key is in the database")

        let shown = try story(["show", "1", "--name", "Ann"])
        #expect(shown.status == 0 && shown.lines.last == "turn: Ann" && shown.lines.count == 2, "\(shown)")
        #expect(access(keys.oldKeyPath(for: "Ann"), F_OK) != 0, "the old key file is still there")
        var status = stat()
        #expect(stat(keys.keyPath(for: "Ann"), &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(try story(["turn", "1", "Still mine.", "--name", "Ann"]).lines == ["turn passed to Bob"])
        // Someone holding a copy of the old key file cannot have the name any more.
        let thief = try SnapProcess(["story", "list", "--name", "Ann"], runtimeDirectory: directory, environment: ["XDG_STATE_HOME": stranger])
        #expect(thief.exitStatus() == 1)
        #expect(thief.errors.contains("the name Ann belongs to someone else"), "\(thief.errors)")
        // Bob has no old key file here: his name stays his until he signs in where it is.
        let bob = try story(["list", "--name", "Bob"])
        #expect(bob.status == 1 && bob.errors.contains("registered by an older snap"), "\(bob)")
        service.signal(SIGTERM)
        #expect(service.exitStatus(timeout: 20) == 0)
    }
}

/// A suite that runs `snapcards story serve` and player commands in its own runtime directory.
protocol StoryProcessTests {
    var directory: String { get }
}

extension StoryProcessTests {
    /// Starts the service (extra `options`); throws when it does not start listening.
    func serve(_ options: [String] = []) throws -> SnapProcess {
        let service = try SnapProcess(["story", "serve"] + options, runtimeDirectory: directory)
        guard service.line(startingWith: "listening on unix:", timeout: 30) != nil else {
            throw StoryTestFailure("the service did not start: \(service.errors)")
        }
        return service
    }

    /// Runs one player command to the end: its status, standard output lines and errors.
    func story(_ arguments: [String]) throws -> (status: Int32?, lines: [String], errors: String) {
        let process = try SnapProcess(["story"] + arguments, runtimeDirectory: directory)
        let status = process.exitStatus(timeout: 60)
        return (status, process.lines, process.errors)
    }
}

struct StoryTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
