import Foundation
import SnapBytes
import SnapEngine
import SnapMatchFiles
import SnapNet
import SnapProtocol
import SnapSession
import Testing
import SnapTestSupport

/// A seat is not a connection: real host and bot processes, killed and started again.
@Suite("rejoining and watching, as processes", .blocksThreads, .serialized)
struct RejoinTests {
    func host(_ extra: [String], in directory: String) throws -> SnapProcess {
        let host = try SnapProcess(["host", "--headless", "--name", "Table", "--rounds", "1", "--speed", "0.05",
                                    "--turn-limit", "200", "--verbose"] + extra, runtimeDirectory: directory)
        _ = try #require(host.line(startingWith: "listening on unix:"))
        return host
    }

    func bot(_ name: String, _ extra: [String] = [], in directory: String) throws -> SnapProcess {
        try SnapProcess(["join", "--bot", "--name", name, "--speed", "0.05"] + extra, runtimeDirectory: directory)
    }

    @Test("kill -9 a bot mid-round and start it again within the grace: seat back, same hand, round finishes",
          .timeLimit(.minutes(5)))
    func rejoinAfterCrash() throws {
        let directory = makeRuntimeDirectory()
        let host = try host(["--start-when", "3", "--grace", "20"], in: directory)
        let journalPath = String(try #require(host.line(startingWith: "journal: ")).dropFirst("journal: ".count))
        var bots = try ["Ann", "Bob", "Cy"].map { try bot($0, in: directory) }
        #expect(host.line(startingWith: "never", timeout: 2) == nil)  // let the round get going
        bots[1].signal(SIGKILL)
        let away = try #require(host.line(startingWith: "seat ", timeout: 10))
        #expect(away.hasSuffix(": Bob away (grace 20 s)"), "\(away)")
        let seatNumber = UInt8(away.dropFirst("seat ".count).prefix { $0 != ":" })!
        bots[1] = try bot("Bob", in: directory)  // the same name against the same game: its kept token
        #expect(host.line(startingWith: "seat \(seatNumber): Bob back", timeout: 10) != nil)
        #expect(host.exitStatus(timeout: 90) == 0)
        #expect(host.lines.contains { $0.hasPrefix("round 1: ") })
        #expect(host.lines.contains { $0.hasPrefix("card conservation: held") })
        #expect(!host.lines.contains("seat \(seatNumber): Bob left"))
        for bot in bots { #expect(bot.exitStatus(timeout: 10) == 0, "\(bot.output)") }

        // The journal shows the seat's hand untouched while away (payments go under it),
        // but for a correct Snap! on its face-up top card, which takes the open pile as
        // from anyone (a slow machine keeps Bob away for more turns, and one may match).
        let seat = Seat(rawValue: seatNumber)!
        let records = try MatchJournal.read(path: journalPath).records
        var replay = MatchReplay()
        var before: Hand?
        var after: Hand?
        var collected: [Card] = []
        for record in records {
            try replay.apply(record)
            if case .applied(.absent(seat), _) = record.entry { before = replay.game?.hand(seat) }
            if case .applied(.returned(seat), _) = record.entry { after = replay.game?.hand(seat) }
            if before != nil, after == nil, case .applied(_, let events) = record.entry {
                for case .collected(let cards, from: seat, _) in events { collected = cards + collected }
            }
        }
        let hand = try #require(before)
        let back = try #require(after)
        #expect(back.open == hand.open || (back.open.isEmpty && collected.suffix(hand.open.count).elementsEqual(hand.open)),
                "open \(hand.open) → \(back.open); taken by a Snap! while away: \(collected)")
        #expect(Array(back.closed.suffix(hand.closed.count)) == hand.closed)
        #expect(hand.cardCount > 0)
    }

    @Test("with --no-rejoin the restarted bot signs in fresh, and is refused: the game has started",
          .timeLimit(.minutes(5)))
    func noRejoin() throws {
        let directory = makeRuntimeDirectory()
        let host = try host(["--start-when", "3", "--grace", "2"], in: directory)
        let bots = try ["Ann", "Bob", "Cy"].map { try bot($0, in: directory) }
        #expect(host.line(startingWith: "never", timeout: 2) == nil)
        bots[1].signal(SIGKILL)
        _ = host.line(startingWith: "seat ", timeout: 10)
        let fresh = try bot("Bob", ["--no-rejoin"], in: directory)
        #expect(fresh.exitStatus(timeout: 10) == 1)
        #expect(fresh.output.contains("(gameStarted)"))
        #expect(host.exitStatus(timeout: 90) == 0)
        #expect(host.lines.contains { $0.hasSuffix(": Bob left") })
    }

    @Test("a wrong token is refused with badToken, never someone else's seat", .timeLimit(.minutes(5)))
    func wrongToken() throws {
        let directory = makeRuntimeDirectory()
        let host = try host(["--start-when", "2"], in: directory)
        let bots = try ["Ann", "Bob"].map { try bot($0, in: directory) }
        #expect(host.line(startingWith: "never", timeout: 1.5) == nil)
        let path = "\(directory)/snap/Table.sock"
        let intruder = try #require(RawPlayer(unixPath: path))
        intruder.startReading(answerPings: false)
        intruder.send(.hello(Hello(name: "Ann", token: SeatToken(bytes: Array(repeating: 7, count: 16)))))
        #expect(intruder.waitUntilClosed(timeout: 5) != nil)
        #expect(intruder.closing?.0 == .badToken)
        #expect(!intruder.messages.contains { if case .welcome = $0 { true } else { false } })
        host.signal(SIGINT)
        #expect(host.exitStatus(timeout: 10) == 0)
        for bot in bots { _ = bot.exitStatus(timeout: 10) }
    }

    @Test("a watcher joining mid-round sees the table at once, never a face-down card, and cannot act",
          .timeLimit(.minutes(5)))
    func watcherMidRound() throws {
        let directory = makeRuntimeDirectory()
        let record = directory + "/watcher.bytes"
        let host = try host(["--start-when", "2"], in: directory)
        let bots = try ["Ann", "Bob"].map { try bot($0, in: directory) }
        #expect(host.line(startingWith: "never", timeout: 2) == nil)  // mid-round
        let watcher = try SnapProcess(["join", "--bot", "--watch", "--name", "Vic", "--record", record],
                                      runtimeDirectory: directory)
        // A raw watcher that tries to play is cut with a clear reason; the game goes on.
        let meddler = try #require(RawPlayer(unixPath: "\(directory)/snap/Table.sock"))
        meddler.startReading(answerPings: true)
        meddler.send(.hello(Hello(name: "Mel", role: .watcher)))
        #expect(meddler.wait(timeout: 5) { if case .snapshot = $0 { true } else { false } })
        meddler.send(.turn)
        #expect(meddler.waitUntilClosed(timeout: 5) != nil)
        #expect(meddler.closing?.0 == .protocolViolation)
        #expect(meddler.closing?.1.contains("watcher cannot play") == true)

        #expect(host.exitStatus(timeout: 90) == 0)
        for bot in bots { #expect(bot.exitStatus(timeout: 10) == 0) }
        #expect(watcher.exitStatus(timeout: 10) == 0, "\(watcher.output)")
        let messages = try hostMessages(try [UInt8](Data(contentsOf: URL(fileURLWithPath: record))))
        guard case .welcome(let welcome) = messages.first else { Issue.record("no welcome"); return }
        #expect(welcome.token == nil)
        let start = messages.compactMap { if case .gameStarted(let s) = $0 { s } else { nil } }.first
        #expect(start != nil && start?.yourSeat == nil)
        let snapshot = messages.compactMap { if case .snapshot(let s) = $0 { s } else { nil } }.first
        #expect(snapshot.map { $0.table.phase == .playing || $0.table.phase == .dealing } == true)
        #expect(messages.contains { if case .watching(let n) = $0 { n >= 1 } else { false } })
        var events: [SeatEvent] = []
        for case .events(let batch) in messages { events += batch }
        #expect(events.contains { if case .roundWon = $0 { true } else { false } })
        for event in events {
            switch event {
            case .dealt(let card, _), .paid(let card, _, _), .handedOut(let card, _, .closed, _): #expect(card == nil)
            default: break
            }
        }
        // What the watcher mirrored from the snapshot on is a consistent table: 52 cards.
        if var table = snapshot?.table {
            for event in events { table.apply(event) }
            #expect(table.cardTotal == 52)
        }
    }
}

@Suite("resuming a crashed host, as processes", .blocksThreads, .serialized)
struct ResumeTests {
    @Test("kill -9 the host mid-round, snapcards host --resume: the bots reattach, the match finishes, the journal verifies",
          .timeLimit(.minutes(5)))
    func resumeAfterCrash() throws {
        let directory = makeRuntimeDirectory()
        let first = try SnapProcess(["host", "--headless", "--name", "Table", "--start-when", "2", "--rounds", "2",
                                     "--speed", "0.05", "--turn-limit", "200"], runtimeDirectory: directory)
        let journal = String(try #require(first.line(startingWith: "journal: ")).dropFirst("journal: ".count))
        let bots = try ["Ann", "Bob"].map {
            try SnapProcess(["join", "--bot", "--name", $0, "--speed", "0.05"], runtimeDirectory: directory)
        }
        #expect(first.line(startingWith: "never", timeout: 2.5) == nil)  // mid-round
        first.signal(SIGKILL)
        _ = first.exitStatus(timeout: 5)
        let before = try MatchJournal.read(path: journal).records.count
        #expect(before > 3)

        let second = try SnapProcess(["host", "--headless", "--name", "Table", "--resume", "--speed", "0.05"],
                                     runtimeDirectory: directory)
        let resumed = try #require(second.line(startingWith: "resumed "))
        #expect(resumed.hasPrefix("resumed \(journal) at command "))
        #expect(second.line(startingWith: "seat ", timeout: 5)?.contains("away (grace 30 s)") == true)
        #expect(second.exitStatus(timeout: 120) == 0, "\(second.output)\n\(second.errors)")
        #expect(second.lines.contains { $0.hasSuffix(": Ann back") })
        #expect(second.lines.contains { $0.hasSuffix(": Bob back") })
        #expect(second.lines.contains("game over: all 2 rounds played"))
        #expect(second.lines.contains { $0.hasPrefix("card conservation: held") })
        for bot in bots {
            #expect(bot.exitStatus(timeout: 10) == 0, "\(bot.output)")
            #expect(bot.output.contains("rejoining unix:"))
        }
        let verify = try SnapProcess(["replay", journal, "--verify"], runtimeDirectory: directory)
        #expect(verify.exitStatus() == 0)
        #expect(verify.lines.last?.hasSuffix(" rounds, matches the journal") == true, "\(verify.output)")
        #expect(try MatchJournal.read(path: journal).records.count > before)
    }

    @Test("a damaged journal: replay --verify, history and --resume say so; --from-last-good-record goes on, keeping the file",
          .timeLimit(.minutes(5)))
    func damagedJournal() throws {
        let directory = makeRuntimeDirectory()
        let first = try SnapProcess(["host", "--headless", "--name", "Table", "--start-when", "2", "--rounds", "2",
                                     "--speed", "0.05", "--turn-limit", "200"], runtimeDirectory: directory)
        let journal = String(try #require(first.line(startingWith: "journal: ")).dropFirst("journal: ".count))
        let bots = try ["Ann", "Bob"].map {
            try SnapProcess(["join", "--bot", "--name", $0, "--speed", "0.05", "--no-rejoin"], runtimeDirectory: directory)
        }
        #expect(first.line(startingWith: "never", timeout: 2.5) == nil)  // mid-round
        first.signal(SIGKILL)
        _ = first.exitStatus(timeout: 5)
        for bot in bots { _ = bot.exitStatus(timeout: 10) }
        // Two bits flipped in the middle, as the issue found them.
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: journal)))
        bytes[bytes.count / 2] ^= 0x04
        bytes[bytes.count / 2 + 9] ^= 0x80
        try Data(bytes).write(to: URL(fileURLWithPath: journal))
        let fault = try #require(try MatchJournal.read(path: journal).fault)
        #expect(fault.kind == .damaged)

        let verify = try SnapProcess(["replay", journal, "--verify"], runtimeDirectory: directory)
        #expect(verify.exitStatus() == 1)
        #expect(verify.lines.first?.hasPrefix("journal: damaged at byte \(fault.offset), record \(fault.record) (") == true, "\(verify.output)")
        #expect(verify.lines.first?.hasSuffix(" bytes from there on cannot be read") == true)
        #expect(!verify.output.contains("matches the journal"))

        let history = try SnapProcess(["history"], runtimeDirectory: directory)
        #expect(history.exitStatus() == 0)
        #expect(history.lines.first?.contains("DAMAGED journal (byte \(fault.offset), record \(fault.record))") == true, "\(history.output)")

        let refused = try SnapProcess(["host", "--headless", "--name", "Table", "--resume", journal], runtimeDirectory: directory)
        #expect(refused.exitStatus() == 1)
        #expect(refused.output.contains("error: cannot resume \(journal): it is damaged at byte \(fault.offset)"), "\(refused.output)")
        #expect(refused.output.contains("--from-last-good-record"))
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: journal))) == bytes)  // untouched

        let resumed = try SnapProcess(["host", "--headless", "--name", "Table", "--resume", journal, "--from-last-good-record"],
                                      runtimeDirectory: directory)
        #expect(resumed.line(startingWith: "resumed \(journal) at command ") != nil, "\(resumed.output)\(resumed.errors)")
        resumed.signal(SIGTERM)
        _ = resumed.exitStatus(timeout: 10)
        #expect(resumed.errors.contains("the whole file is kept as \(journal).damaged"))
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: journal + ".damaged"))) == bytes)
        let after = try MatchJournal.read(path: journal)
        #expect(after.fault == nil)
        #expect(after.records.count >= fault.record - 1)
    }

    @Test("--resume with nothing to resume, or a finished match, is a clear error", .timeLimit(.minutes(5)))
    func nothingToResume() throws {
        let directory = makeRuntimeDirectory()
        let none = try SnapProcess(["host", "--headless", "--name", "Nobody", "--resume"], runtimeDirectory: directory)
        #expect(none.exitStatus() == 1)
        #expect(none.output.contains("no unfinished match hosted as Nobody"))
        let garbage = directory + "/garbage.snapjournal"
        try Data("not a journal".utf8).write(to: URL(fileURLWithPath: garbage))
        let bad = try SnapProcess(["host", "--headless", "--resume", garbage], runtimeDirectory: directory)
        #expect(bad.exitStatus() == 1)
        #expect(bad.output.contains("cannot resume \(garbage)"))
        #expect(bad.output.contains("not a Snap! journal"))
    }
}

@Suite("snap-bench rejoin", .blocksThreads)
struct RejoinBenchTests {
    @Test("prints the rejoin and sign-in figures and their ratio", .timeLimit(.minutes(5)))
    func smoke() throws {
        let bench = try SnapProcess(["rejoin", "--trials", "5"], runtimeDirectory: makeRuntimeDirectory(),
                                    binary: snapBinary(named: "snap-bench"))
        #expect(bench.exitStatus(timeout: 170) == 0, "\(bench.output)\(bench.errors)")
        let rejoin = try #require(bench.lines.first { $0.hasPrefix("rejoin (") })
        #expect(rejoin.contains(" µs, p99 "))
        #expect(bench.lines.contains { $0.hasPrefix("baseline, a watcher signing in") })
        #expect(bench.lines.contains { $0.hasPrefix("ratio p50: ") })
    }
}

@Suite("snap-bench engine and net: the journal's cost beside them", .blocksThreads)
struct JournalOverheadBenchTests {
    @Test("bench engine prints the journal line with both rates and the ratio", .timeLimit(.minutes(5)))
    func engine() throws {
        let run = try runSnapBench(["engine", "--rounds", "2", "--seconds", "0.05"])
        #expect(run.status == 0, "\(run.output)\(run.error)")
        let line = try #require(run.output.split(separator: "\n").first { $0.hasPrefix("with the match journal: ") })
        #expect(line.contains("commands/s on the game's path"))
        #expect(line.contains(" bytes per command"))
        let share = try #require(run.output.split(separator: "\n").first { $0.hasPrefix("the journal's own share: ratio ") })
        #expect(share.contains("x on the game's path against "))
        // The same in nanoseconds a command: three figures, the engine's above zero.
        let time = try #require(run.output.split(separator: "\n").first { $0.hasPrefix("the journal in time: ") })
        let figures = time.split(separator: " ").compactMap { Double($0) }
        #expect(figures.count == 3, "\(time)")
        #expect(figures.count == 3 && figures[1] > 0, "\(time)")
    }

    @Test("bench net times verdicts with the journal written, beside those without", .timeLimit(.minutes(5)))
    func net() throws {
        let run = try runSnapBench(["net", "--samples", "30", "--connections", "10"])
        #expect(run.status == 0, "\(run.output)\(run.error)")
        let lines = run.output.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("unix: with the match journal written: p50 ") && $0.contains("ratio to no journal p50 ") })
        #expect(lines.contains { $0.hasPrefix("tcp:  with the match journal written: p50 ") })
        // The same pair again with the measuring thread and the answering one on two CPUs.
        for label in ["unix:", "tcp: "] {
            let pinned = lines.first { $0.hasPrefix("\(label) pinned") }
            let measured = pinned.map { $0.contains("snap → verdict p50 ") && $0.contains("raw ping-pong p50 ") && $0.contains("ratio p50 ") }
            let skipped = pinned.map { $0.hasSuffix("not measured (fewer than two CPUs to run on)") }
            #expect(measured == true || (skipped == true && ProcessInfo.processInfo.activeProcessorCount < 2), "\(pinned ?? "no pinned line")")
        }
        // TLS against plain TCP through the same client: both figures and their ratio.
        #expect(lines.contains { $0.hasPrefix("tls:  snap → verdict at all clients p50 ") && $0.contains("plain TCP through the same client p50 ")
            && $0.contains("ratio p50 ") })
        #expect(lines.contains { $0.hasPrefix("tls:  connect → welcome (10 connections) p50 ") && $0.contains("plain TCP p50 ") })
    }

    @Test("bench story times turns over TLS against plain TCP, beside the Unix socket's", .timeLimit(.minutes(5)))
    func story() throws {
        let run = try runSnapBench(["story", "--turns", "10", "--matches", "50"])
        #expect(run.status == 0, "\(run.output)\(run.error)")
        let lines = run.output.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("turn → all 3 participants' views updated: p50 ") })
        #expect(lines.contains { $0.hasPrefix("turn p99 against the ping's p99: ") && $0.contains("x (both above through the product's StoryClient") })
        // The service alone, on plain sockets: a ping's p50 is some microseconds, never none.
        let onSockets = lines.first { $0.hasPrefix("the same on plain blocking Unix sockets") }
        #expect(onSockets?.contains("; ping p50 ") == true && onSockets?.contains("; ping p50 0 µs") == false, "\(run.output)")
        #expect(lines.contains { $0.hasPrefix("the turn's parts, ") && $0.contains("; with fsync instead (what SQLite calls on commit") })
        #expect(lines.contains { $0.hasPrefix("over TCP: turn → all 3 views updated with TLS p50 ") && $0.contains("plain TCP p50 ")
            && $0.contains("ratio p50 ") })
    }
}
