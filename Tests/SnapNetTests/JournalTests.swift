import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Logging
import SnapEngine
import SnapJournal
import SnapHistory
import SnapMatchFiles
import SnapNet
import SnapProtocol
import SnapSession
import SnapTestSupport
import Testing

@Suite("The journal: checksummed records, torn tails cut", .blocksThreads)
struct JournalTests {
    static func journal(_ payloads: [[UInt8]]) -> [UInt8] {
        Journal.header(kind: "test") + payloads.flatMap(Journal.frame)
    }

    @Test("CRC-32 is the standard one")
    func crc() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
    }

    @Test("records come back as written")
    func roundTrip() throws {
        let payloads: [[UInt8]] = [[1], [2, 3], Array(repeating: 7, count: 70_000)]
        let contents = try Journal.read(Self.journal(payloads))
        #expect(contents.kind == "test")
        #expect(contents.records == payloads)
        #expect(contents.fault == nil)
        #expect(contents.intactLength == Self.journal(payloads).count)
    }

    @Test("a journal cut at every byte offset of its last record keeps exactly the records before it")
    func tornTailAtEveryOffset() throws {
        let payloads: [[UInt8]] = [[1, 2, 3], [4, 5, 6, 7], Array(0..<40)]
        let whole = Self.journal(payloads)
        let lastStart = Self.journal(Array(payloads.dropLast())).count
        for cut in lastStart..<whole.count {
            let contents = try Journal.read(Array(whole[0..<cut]))
            #expect(contents.records == Array(payloads.dropLast()), "cut at \(cut)")
            #expect(contents.intactLength == lastStart)
            #expect((cut == lastStart) == (contents.fault == nil), "cut at \(cut): \(contents.fault.map(String.init(describing:)) ?? "-")")
            if cut > lastStart { #expect(contents.fault?.kind == .tornTail, "cut at \(cut)") }
        }
    }

    @Test("a flipped bit anywhere in a record with records after it is damage, never misread nor taken for a torn tail")
    func corruption() throws {
        let payloads: [[UInt8]] = [[1, 2, 3], Array(0..<40), [9]]
        let whole = Self.journal(payloads)
        let secondStart = Self.journal([payloads[0]]).count
        let secondEnd = Self.journal(Array(payloads.prefix(2))).count
        for offset in secondStart..<secondEnd {
            for bit in 0..<8 {
                var damaged = whole
                damaged[offset] ^= 1 << bit
                let contents = try Journal.read(damaged)
                #expect(contents.records == [payloads[0]], "flip at \(offset)")
                let fault = try #require(contents.fault)
                #expect(fault.kind == .damaged, "flip of bit \(bit) at \(offset): \(fault)")
                #expect(fault.offset == secondStart && fault.record == 2)
                #expect(fault.unreadableBytes == whole.count - secondStart)
            }
        }
    }

    @Test("a power cut's zeros after the last record, or a flip in the last record, are a torn tail")
    func tornShapes() throws {
        let payloads: [[UInt8]] = [[1, 2, 3], Array(0..<40)]
        let whole = Self.journal(payloads)
        let zeros = try Journal.read(whole + [UInt8](repeating: 0, count: 4096))
        #expect(zeros.records == payloads)
        #expect(zeros.fault?.kind == .tornTail)
        #expect(zeros.fault?.reason == "zeros, never written")
        var flipped = whole
        flipped[whole.count - 3] ^= 0x01
        let last = try Journal.read(flipped)
        #expect(last.records == [payloads[0]])
        #expect(last.fault?.kind == .tornTail)
        #expect(last.fault?.description.hasPrefix("the last record was cut short at byte") == true)
    }

    @Test("damage reads as a person would say it, with the figures grouped")
    func damageWording() {
        let fault = JournalFault(kind: .damaged, offset: 3104, record: 44, unreadableBytes: 5210, reason: "its checksum does not match")
        #expect(fault.description
            == "damaged at byte 3104, record 44 (its checksum does not match): 43 records read before it; 5,210 bytes from there on cannot be read")
        #expect(grouped(0) == "0" && grouped(999) == "999" && grouped(1000) == "1,000" && grouped(1_234_567) == "1,234,567")
    }

    @Test("a hostile file cannot make the search for records after a bad one quadratic")
    func boundedSearch() throws {
        // A last record of 1 MiB whose checksum does not match, its payload made of windows
        // that each claim a 512 KiB record that fits: without a bound on the checksums
        // tried, telling torn from damaged would take about 2^36 bytes of CRC.
        var hostile = Journal.header(kind: "test") + Journal.frame([1])
        let length = Journal.maxRecordLength
        hostile += [0, 0x10, 0, 0, 0, 0, 0, 0]  // the length, 1 MiB, and a checksum of 0
        hostile += [UInt8](repeating: 0, count: length)
        for index in stride(from: hostile.count - length, to: hostile.count - length / 2 - 8, by: 4) {
            (hostile[index], hostile[index + 1], hostile[index + 2], hostile[index + 3]) = (0, 0x08, 0, 0)
        }
        let contents = try Journal.read(hostile)
        #expect(contents.records == [[1]])
        #expect(contents.fault?.kind == .damaged)
    }

    @Test("files that are not journals are refused with a clear error")
    func notAJournal() {
        #expect(throws: JournalError.self) { try Journal.read(Array("hello, world".utf8)) }
        var wrongVersion = Journal.header(kind: "x")
        wrongVersion[9] = 9
        #expect(throws: JournalError.notAJournal("journal", "format version 9; this snap reads version 1")) {
            try Journal.read(wrongVersion)
        }
    }

    @Test("a writer appends, and a second writer continues after a torn tail")
    func writerContinues() throws {
        let path = scratchPath("journal-\(UInt32.random(in: 0...UInt32.max)).snapjournal")
        defer { unlink(path) }
        let writer = try JournalWriter(creating: path, kind: "test", onError: { _ in })
        writer.append([1, 2])
        writer.append([3, 4, 5])
        writer.close()
        // A torn third record, as a kill -9 mid-write leaves it.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data([0, 0, 0, 9, 1, 2]))
        try handle.close()
        let torn = try Journal.read(path: path)
        #expect(torn.records == [[1, 2], [3, 4, 5]])
        #expect(torn.fault?.kind == .tornTail)
        let again = try JournalWriter(continuing: path, intactLength: torn.intactLength, onError: { _ in })
        again.append([6])
        again.close()
        let healed = try Journal.read(path: path)
        #expect(healed.records == [[1, 2], [3, 4, 5], [6]])
        #expect(healed.fault == nil)
    }

    @Test("appends from several threads, one at a time: every record written once, each thread's in its order")
    func appendsFromThreads() throws {
        let path = scratchPath("journal-\(UInt32.random(in: 0...UInt32.max)).snapjournal")
        defer { unlink(path) }
        let writer = try JournalWriter(creating: path, kind: "test", onError: { _ in })
        // A writer takes one appender at a time (as a host's event loop is); threads taking
        // turns under a lock of their own must still see each other's appends.
        let turns = NSLock()
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<5_000 {
                turns.lock()
                writer.append([UInt8(thread), UInt8(index >> 8), UInt8(index & 0xFF)])
                turns.unlock()
            }
        }
        writer.close()
        let records = try Journal.read(path: path).records
        #expect(records.count == 20_000)
        for thread in 0..<4 {
            let mine = records.filter { $0[0] == UInt8(thread) }.map { Int($0[1]) << 8 | Int($0[2]) }
            #expect(mine == Array(0..<5_000))
        }
    }

    @Test("more waiting than the writer's ring holds: the appender goes on past it, and every record is written once, in order", .timeLimit(.minutes(5)))
    func ringFull() throws {
        let path = scratchPath("journal-\(UInt32.random(in: 0...UInt32.max)).snapjournal")
        defer { unlink(path) }
        let writer = try JournalWriter(creating: path, kind: "test", onError: { _ in })
        // Small records past the ring's count of slots, then large ones past its bytes.
        var expected: [[UInt8]] = (0..<40_000).map { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        expected += (0..<96).map { Array(repeating: UInt8($0), count: 100_000) }
        for record in expected { writer.append(record) }
        writer.close()
        #expect(try Journal.read(path: path).records == expected)
    }

    @Test("a record appended after the writer went idle is written without a flush", .timeLimit(.minutes(5)))
    func writtenWhenIdle() throws {
        let path = scratchPath("journal-\(UInt32.random(in: 0...UInt32.max)).snapjournal")
        defer { unlink(path) }
        let writer = try JournalWriter(creating: path, kind: "test", onError: { _ in })
        defer { writer.close() }
        func written(_ count: Int) -> Bool {
            // The writer's queue writes on its own; poll the file, up to 10 s.
            for _ in 0..<1_000 {
                if let contents = try? Journal.read(path: path), contents.records.count == count { return true }
                usleep(10_000)
            }
            return false
        }
        for round in 0..<5 {
            for index in 0..<(round * 100 + 1) { writer.append([UInt8(round), UInt8(index & 0xFF)]) }
            #expect(written((0...round).reduce(0) { $0 + $1 * 100 + 1 }), "round \(round)")
            usleep(5_000)  // past the writer's look-again: it goes idle
        }
    }

    @Test("a writer let go while its queue is writing has written everything when the release returns")
    func letGoMidTurn() throws {
        // Bursts that keep the queue's turns going, so the last release often lands while
        // one runs: the turn must not be what holds the writer (its deinit would then run
        // later, on the queue, after this thread read the file).
        for attempt in 0..<40 {
            let path = scratchPath("journal-\(UInt32.random(in: 0...UInt32.max)).snapjournal")
            defer { unlink(path) }
            do {
                let writer = try JournalWriter(creating: path, kind: "test", onError: { _ in })
                for index in 0..<3_000 {
                    writer.append([UInt8(attempt), UInt8(index >> 8), UInt8(index & 0xFF)])
                    if index % 500 == 0 { usleep(1_500) }  // past the look-again: a timer turn is due
                }
            }
            #expect(try Journal.read(path: path).records.count == 3_000, "attempt \(attempt)")
        }
    }

    @Test("records encoded into the writer's buffer are the bytes framed one by one; a writer let go writes them all")
    func encodedInPlace() throws {
        // A deal, turns, and a Snap! from the bottom after every fifth card (right or wrong).
        var game = Game(seats: Seat.seating(playerCount: 3))
        var records: [MatchRecord] = []
        func play(_ command: Command) {
            guard let events = try? game.apply(command) else { return }
            records.append(MatchRecord(sequence: UInt64(records.count), timeMicros: UInt64(records.count) * 1_000_003,
                                       entry: .applied(command, events)))
        }
        play(.deal(seed: 5))
        play(.finishDeal)
        while records.count < 400, case .playing = game.phase, let seat = game.active {
            play(.turn(seat))
            if records.count % 5 == 0 { play(.snap(.bottom)) }
            play(.activateNext)
        }
        #expect(records.contains { if case .applied(.snap, _) = $0.entry { true } else { false } })
        let path = scratchPath("journal-\(UInt32.random(in: 0...UInt32.max)).snapjournal")
        defer { unlink(path) }
        do {
            let writer = try JournalWriter(creating: path, kind: MatchRecordCodec.kind, onError: { _ in })
            for record in records { writer.append { MatchRecordCodec.encode(record, into: $0) } }
            // No close: the writer's deinit writes what is still gathering.
        }
        let expected = Journal.header(kind: MatchRecordCodec.kind) + records.flatMap { Journal.frame(MatchRecordCodec.encode($0)) }
        #expect(try Journal.bytes(atPath: path) == expected)
        #expect(try MatchJournal.read(path: path).records == records)
    }

    @Test("an unwritable journal is one warning, not a crash")
    func unwritable() {
        #expect(throws: (any Error).self) {
            try MatchJournal.create(in: "/proc/snap-cannot-be-here", hostName: "T", onError: { _ in })
        }
    }
}

@Suite("A damaged match journal says so", .blocksThreads)
struct DamagedJournalTests {
    /// A real match's records, as a host logs them, and the file they make.
    static let records: [MatchRecord] = {
        var log = MatchLogTests.HostLog(game: Game(seats: [.bottom, .left, .top], rules: Rules(turnLimit: 40)), records: [
            MatchRecord(sequence: 0, timeMicros: 0, entry: .started(MatchStart(
                hostName: "T", seed: 3, rules: Rules(turnLimit: 40),
                players: [SeatedPlayer(seat: .bottom, name: "A"), SeatedPlayer(seat: .left, name: "B"),
                          SeatedPlayer(seat: .top, name: "C")], startedAt: 0)))])
        for command in [Command.deal(seed: 3), .finishDeal] { log.log(command) }
        var random = SeededRandom(seed: 3)
        while log.records.count < 80 {
            let seat = [Seat.bottom, .left, .top][random.below(3)]
            log.log([.turn(seat), .activateNext, .snap(seat)][random.below(3)])
        }
        return log.records
    }()

    static func file(_ records: [MatchRecord]) -> [UInt8] {
        Journal.header(kind: MatchRecordCodec.kind) + records.flatMap { Journal.frame(MatchRecordCodec.encode($0)) }
    }

    /// Reads `bytes` as a match journal from a file, as every command does.
    func read(_ bytes: [UInt8]) throws -> MatchJournal.Contents {
        let path = scratchPath("damaged-\(UInt32.random(in: 0...UInt32.max)).snapjournal")
        defer { unlink(path) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return try MatchJournal.read(path: path)
    }

    /// The one rule: read whole, cut as a torn tail at the very end, or reported as damaged.
    /// Whatever is returned is a prefix of what was written, and only a torn tail or a file
    /// cut at a record's end may return fewer records without saying "damaged".
    func expectNeverSilentlyShortened(_ contents: MatchJournal.Contents, fileLength: Int, _ label: String) {
        #expect(Array(Self.records.prefix(contents.records.count)) == contents.records, "\(label): not a prefix")
        guard let fault = contents.fault else {
            #expect(contents.intactLength == fileLength, "\(label): shortened with no fault")
            return
        }
        #expect(fault.offset == contents.intactLength && fault.offset + fault.unreadableBytes == fileLength, "\(label)")
        #expect(fault.record == contents.records.count + 1, "\(label)")
    }

    @Test("flipped bits before the last record: damage at the flipped record, at every record")
    func flips() throws {
        let whole = Self.file(Self.records)
        let offsets = (0...Self.records.count).map { Self.file(Array(Self.records.prefix($0))).count }
        var random = SeededRandom(seed: 11)
        for index in 0..<(Self.records.count - 1) {
            for _ in 0..<4 {
                var bytes = whole
                let at = offsets[index] + random.below(offsets[index + 1] - offsets[index])
                bytes[at] ^= UInt8(1 << random.below(8))
                let contents = try read(bytes)
                expectNeverSilentlyShortened(contents, fileLength: bytes.count, "flip at \(at)")
                #expect(contents.fault?.kind == .damaged && contents.fault?.record == index + 1, "flip at \(at) in record \(index)")
            }
        }
        // In the last record, a flip is indistinguishable from a torn write: cut, and said so.
        var last = whole
        last[whole.count - 2] ^= 0x40
        let contents = try read(last)
        expectNeverSilentlyShortened(contents, fileLength: last.count, "flip in the last record")
        #expect(contents.fault?.kind == .tornTail)
    }

    @Test("cut at every byte: whole at a record's end, otherwise a torn tail; never damage, never misread")
    func truncations() throws {
        let whole = Self.file(Self.records)
        let ends = Set((0...Self.records.count).map { Self.file(Array(Self.records.prefix($0))).count })
        let headerLength = Journal.header(kind: MatchRecordCodec.kind).count
        for cut in stride(from: headerLength, through: whole.count, by: 7) {
            let contents = try read(Array(whole[0..<cut]))
            expectNeverSilentlyShortened(contents, fileLength: cut, "cut at \(cut)")
            #expect((contents.fault == nil) == ends.contains(cut), "cut at \(cut)")
            #expect(contents.fault == nil || contents.fault?.kind == .tornTail, "cut at \(cut)")
        }
    }

    @Test("a record duplicated, or two swapped, anywhere: damage at the first out of sequence")
    func duplicatesAndReorders() throws {
        for index in 0..<(Self.records.count - 1) {
            var duplicated = Self.records
            duplicated.insert(Self.records[index], at: index + 1)
            let once = try read(Self.file(duplicated))
            expectNeverSilentlyShortened(once, fileLength: Self.file(duplicated).count, "duplicate of \(index)")
            #expect(once.fault?.kind == .damaged && once.fault?.record == index + 2, "duplicate of \(index)")
            #expect(once.fault?.reason == "it is numbered \(index) where \(index + 1) was due")

            var swapped = Self.records
            swapped.swapAt(index, index + 1)
            let order = try read(Self.file(swapped))
            expectNeverSilentlyShortened(order, fileLength: Self.file(swapped).count, "swap at \(index)")
            #expect(order.fault?.kind == .damaged && order.fault?.record == index + 1, "swap at \(index)")
        }
    }
}

@Suite("A journal started after the match began", .blocksThreads)
struct LateJournalTests {
    @Test("a journal attached once the game has started still holds the match from its first record")
    func lateJournal() async throws {
        var configuration = HostConfiguration(hostName: "Solo")
        configuration.bots = 3
        configuration.maxClients = 0
        configuration.speed = 0.02
        let server = HostServer(configuration, loop: MultiThreadedEventLoopGroup.singleton.next(), logger: Logger(label: "test"))
        server.startWhen(1)
        let link = server.connectLocal()
        link.send(.hello(Hello(name: "Solo")))  // the local player sits down: the game starts at once
        let deadline = ContinuousClock.now + .seconds(20)
        while await server.commandsApplied < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(await server.commandsApplied >= 2)
        let path = try await server.startJournal(in: scratchDirectory("late-journal"), onWarning: { _ in })
        try await Task.sleep(for: .milliseconds(200))
        server.submit(.quit)
        _ = try await server.finished.get()
        link.close()
        let journal = try MatchJournal.read(path: path)
        #expect(journal.fault == nil, "\(journal.fault.map { "\($0)" } ?? "")")
        guard case .started = journal.records.first?.entry else { Issue.record("no start record first"); return }
        #expect(try MatchReplay.fold(journal.records).commands > 0)
    }
}

@Suite("The matches before this one: counted off the caller's thread", .blocksThreads)
struct EarlierWinsTests {
    static func soloHost() -> HostServer {
        var configuration = HostConfiguration(hostName: "Solo")
        configuration.bots = 3
        configuration.maxClients = 0
        configuration.speed = 0.01
        configuration.rounds = 1
        configuration.rules = Rules(turnLimit: 60)
        configuration.turnTimeout = .milliseconds(20)  // the local player never turns: the host turns for it
        return HostServer(configuration, loop: MultiThreadedEventLoopGroup.singleton.next(), logger: Logger(label: "test"),
                          history: IndexedHistory())
    }

    /// Rounds won by name in the journals of `directory`, each replayed here (not by the index).
    static func replayedWins(in directory: String) throws -> [String: Int] {
        var wins: [String: Int] = [:]
        for path in MatchJournal.files(in: directory) {
            for winner in try MatchReplay.fold(MatchJournal.read(path: path).records).winners { wins[winner, default: 0] += 1 }
        }
        return wins
    }

    /// One solo match of one round, journaled in `directory`; the link's messages.
    static func play(_ server: HostServer) throws -> [HostMessage] {
        server.startWhen(1)
        let link = server.connectLocal()
        link.send(.hello(Hello(name: "Solo")))
        _ = try server.finished.wait()
        defer { link.close() }
        return link.drain()
    }

    // Both tests wait on a thread of their own (`offThePool`); what they see comes back to
    // the test's task to be checked there (an expectation on another thread would be
    // recorded against no test). The limits catch a hang, not a slow index (the body's own
    // waits end within 30 s and 60 s).
    @Test("a host writes its match's rows into the index when its round ends: nothing is left for the next read to index",
          .timeLimit(.minutes(10)))
    func hostIndexesItsRounds() async throws {
        let (expected, winners, refresh) = try await offThePool { () throws -> ([String], [String]?, MatchIndex.Refresh) in
            let directory = scratchDirectory("host-indexes")
            let server = Self.soloHost()
            let path = try server.startJournalLater(in: directory, onWarning: { _ in }).wait()
            _ = try Self.play(server)
            let expected = try MatchReplay.fold(MatchJournal.read(path: path).records).winners
            // Only what the host wrote (no refresh): it writes in a task once its journal is flushed.
            var winners: [String]?
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                winners = try? waitOffPool {
                    try await MatchIndex.using(directory: directory) { try await $0.entries().first?.match?.winners }
                }
                if winners == expected { break }
                usleep(50_000)
            }
            let refresh = try waitOffPool { try await MatchIndex.using(directory: directory) { try await $0.refresh() } }
            return (expected, winners, refresh)
        }
        #expect(expected.count == 1)
        #expect(winners == expected)
        #expect(refresh == MatchIndex.Refresh(indexed: 0, removed: 0), "the host's rows cover its whole journal")
    }

    /// What `countedInTheBackground` saw, off the pool.
    struct Background: Sendable {
        var expected: [String: Int] = [:]
        var fifoMade = false
        var startReturned = false
        var journalStarted = false
        var fifoOpened = false
        var counted: [String: Int]?
        var tableCounts: [String: Int]?
    }

    @Test("a host's journal starts without reading past matches on the caller's thread; the counts reach the table",
          .timeLimit(.minutes(10)))
    func countedInTheBackground() async throws {
        let seen = try await offThePool { () throws -> Background in
            var seen = Background()
            let directory = scratchDirectory("earlier-wins")
            let first = Self.soloHost()
            _ = try first.startJournalLater(in: directory, onWarning: { _ in }).wait()
            _ = try Self.play(first)
            seen.expected = try Self.replayedWins(in: directory)

            // A "journal" that blocks whoever opens it to read: a FIFO with no writer yet.
            let fifo = directory + "/zz-blocking.snapjournal"
            seen.fifoMade = mkfifo(fifo, 0o600) == 0
            let second = Self.soloHost()
            let returned = DispatchSemaphore(value: 0)
            let path = NIOLockedValueBox<String?>(nil)
            Thread.detachNewThread {
                path.withLockedValue { $0 = try? second.startJournalLater(in: directory, onWarning: { _ in }).wait() }
                returned.signal()
            }
            // Reading the history on this thread would wait for the FIFO's writer for ever.
            seen.startReturned = returned.wait(timeout: .now() + 30) == .success
            seen.journalStarted = path.withLockedValue { $0 } != nil
            // Now the FIFO gives its reader, once the count has reached it, a few bytes that are no
            // journal: the count goes on without it. (Opening a FIFO to write without blocking
            // succeeds only while a reader has it open, or waits in its open.)
            var writer: Int32 = -1
            let deadline = ContinuousClock.now + .seconds(60)
            while writer < 0, ContinuousClock.now < deadline {
                writer = open(fifo, O_WRONLY | O_NONBLOCK)
                if writer < 0 { usleep(10_000) }
            }
            seen.fifoOpened = writer >= 0
            guard writer >= 0 else { return seen }
            _ = write(writer, "junk", 4)
            close(writer)
            seen.counted = try second.earlierWinsCounted?.wait()

            // The table hears the earlier wins when the game starts.
            let messages = try Self.play(second)
            seen.tableCounts = messages.compactMap { message -> [String: Int]? in
                guard case .wonCounts(let counts) = message else { return nil }
                let names: [SeatedPlayer] = messages.lazy.compactMap { message -> [SeatedPlayer]? in
                    if case .gameStarted(let start) = message { return start.players }
                    return nil
                }.first ?? []
                return Dictionary(counts.compactMap { count in
                    names.first { $0.seat == count.seat }.map { ($0.name, Int(count.won)) }
                }, uniquingKeysWith: { $1 })
            }.first
            return seen
        }
        #expect(seen.expected.values.reduce(0, +) == 1, "\(seen.expected)")
        #expect(seen.fifoMade)
        #expect(seen.startReturned, "startJournal read past matches on its caller's thread")
        #expect(seen.journalStarted)
        #expect(seen.fifoOpened, "the count never opened the FIFO")
        #expect(seen.counted == seen.expected)
        #expect(seen.tableCounts?.filter { $0.value > 0 } == seen.expected, "\(String(describing: seen.tableCounts))")
    }
}

@Suite("The match log: the game is a fold of it", .blocksThreads)
struct MatchLogTests {
    @Test("every record of real games encodes and decodes to itself", arguments: [1, 2, 3] as [UInt64])
    func codecRoundTrip(seed: UInt64) throws {
        var game = Game(seats: [.bottom, .left, .top], rules: Rules(turnLimit: 40))
        var records: [MatchRecord] = [MatchRecord(sequence: 0, timeMicros: 5, entry: .started(MatchStart(
            hostName: "Zoë", seed: seed, rules: Rules(turnLimit: 40),
            players: [SeatedPlayer(seat: .bottom, name: "Ann"), SeatedPlayer(seat: .left, name: "Bo"),
                      SeatedPlayer(seat: .top, name: "Cy")], startedAt: 1_790_000_000)))]
        var random = SeededRandom(seed: seed)
        var log = HostLog(game: game, records: records)
        for command in [Command.deal(seed: seed), .finishDeal] { log.log(command) }
        for _ in 0..<2_000 {
            let seat = [Seat.bottom, .left, .top][random.below(3)]
            let command: Command = [.turn(seat), .activateNext, .snap(seat), .deal(seed: random.next()), .finishDeal][random.below(5)]
            log.log(command)
        }
        (game, records) = (log.game, log.records)
        #expect(records.contains { if case .revealed = $0.entry { true } else { false } })
        records.append(MatchRecord(sequence: UInt64(records.count), timeMicros: 1, entry: .ended(reason: "all done")))
        for record in records {
            #expect(try MatchRecordCodec.decode(MatchRecordCodec.encode(record)) == record)
        }
        let replay = try MatchReplay.fold(records)
        #expect(replay.game == game)
        #expect(replay.ended == "all done")
    }

    @Test("an applied record of every command has the journal's bytes")
    func appliedRecordBytes() throws {
        // The fixed part written byte by byte as docs/JOURNAL.md lays it out: kind 2, the
        // sequence and time (u64), the command's tag and argument, the event count (u16).
        let turned = Card(.queen, .hearts)
        let events: [Event] = [.turned(.left, turned), .snapCalled(.top),
                               .collected(cards: [turned, Card(.queen, .spades)], from: .left, to: .top), .activated(.right)]
        let eventBytes: [UInt8] = [5, 1, turned.id, 7, 2, 9, 1, 2, 2, turned.id, Card(.queen, .spades).id, 4, 3]
        let commands: [(Command, [UInt8])] = [
            (.deal(seed: 0x0102_0304_0506_0708), [1, 1, 2, 3, 4, 5, 6, 7, 8]), (.finishDeal, [2]), (.turn(.left), [3, 1]),
            (.activateNext, [4]), (.snap(.top), [5, 2]), (.leave(.right), [6, 3]), (.absent(.bottom), [7, 0]),
            (.returned(.left), [8, 1]),
        ]
        for (command, commandBytes) in commands {
            let record = MatchRecord(sequence: 0x1122_3344_5566_7788, timeMicros: 0xA0B, entry: .applied(command, events))
            var expected: [UInt8] = [2, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0, 0, 0, 0, 0, 0, 0x0A, 0x0B]
            expected += commandBytes + [0, 4] + eventBytes
            // Stored into a room just its size, as into a journal writer's ring.
            let stored = [UInt8](unsafeUninitializedCapacity: expected.count) { buffer, count in
                count = MatchRecordCodec.encode(record, into: UnsafeMutableRawBufferPointer(buffer))
            }
            #expect(stored == expected)
            #expect(MatchRecordCodec.encode(record) == expected)
            #expect(try MatchRecordCodec.decode(expected) == record)
        }
    }

    /// A match log as the host keeps it: a deal after its commitment, a round's win
    /// followed by its reveal; a refused command logs nothing.
    struct HostLog {
        var game: Game
        var records: [MatchRecord]
        var unrevealed: DealReveal?

        mutating func log(_ command: Command) {
            var trial = game
            guard let events = try? trial.apply(command) else { return }
            if case .deal(let seed) = command {
                let secret = DealReveal(round: UInt32(game.round + 1), seed: seed, salt: Array(repeating: UInt8(game.round), count: 16))
                append(.committed(secret.commitment, salt: secret.salt))
                unrevealed = secret
            }
            game = trial
            append(.applied(command, events))
            if events.contains(where: { if case .roundWon = $0 { true } else { false } }), let secret = unrevealed {
                append(.revealed(secret))
                unrevealed = nil
            }
        }

        mutating func append(_ entry: MatchRecord.Entry) {
            records.append(MatchRecord(sequence: UInt64(records.count), timeMicros: UInt64(records.count) * 1000, entry: entry))
        }
    }

    func record(_ game: inout Game, _ command: Command, _ sequence: Int) -> MatchRecord {
        MatchRecord(sequence: UInt64(sequence), timeMicros: 0, entry: .applied(command, try! game.apply(command)))
    }

    @Test("a logged event that the engine does not produce is the first difference")
    func mismatch() throws {
        var game = Game(seats: [.bottom, .top])
        let start = MatchRecord(sequence: 0, timeMicros: 0, entry: .started(MatchStart(
            hostName: "T", seed: 9, rules: .original,
            players: [SeatedPlayer(seat: .bottom, name: "A"), SeatedPlayer(seat: .top, name: "B")], startedAt: 0)))
        let secret = DealReveal(round: 1, seed: 9, salt: Array(repeating: 7, count: 16))
        let commit = MatchRecord(sequence: 1, timeMicros: 0, entry: .committed(secret.commitment, salt: secret.salt))
        let deal = record(&game, .deal(seed: 9), 2)
        let finish = record(&game, .finishDeal, 3)
        guard case .applied(let command, var events) = finish.entry else { return }
        events[0] = .playerOut(.top)
        let forged = MatchRecord(sequence: 3, timeMicros: 0, entry: .applied(command, events))
        #expect(throws: ReplayMismatch.self) { try MatchReplay.fold([start, commit, deal, forged]) }
        do { _ = try MatchReplay.fold([start, commit, deal, forged]) } catch {
            #expect(error.sequence == 3)
            #expect(error.description.contains("event 0 replays as dealFinished"))
        }
        #expect(try MatchReplay.fold([start, commit, deal, finish]).commands == 2)
        #expect(throws: ReplayMismatch.self) { try MatchReplay.fold([start, finish]) }  // a gap in the sequence
    }

    @Test("a deal whose seed is not the committed one, a deal with no commitment, and a tampered reveal are each caught")
    func forgedDeals() throws {
        let start = MatchRecord(sequence: 0, timeMicros: 0, entry: .started(MatchStart(
            hostName: "T", seed: 9, rules: .original,
            players: [SeatedPlayer(seat: .bottom, name: "A"), SeatedPlayer(seat: .top, name: "B")], startedAt: 0)))
        let secret = DealReveal(round: 1, seed: 9, salt: Array(repeating: 7, count: 16))
        let commit = MatchRecord(sequence: 1, timeMicros: 0, entry: .committed(secret.commitment, salt: secret.salt))
        // Play a whole round between two of the host's own bots' moves: the simplest is to leave.
        var game = Game(seats: [.bottom, .top])
        let deal = record(&game, .deal(seed: 9), 2)
        let leave = record(&game, .leave(.top), 3)  // the bottom holds all 52: it wins the round
        let reveal = MatchRecord(sequence: 4, timeMicros: 0, entry: .revealed(secret))
        let honest = try MatchReplay.fold([start, commit, deal, leave, reveal])
        #expect(honest.reveals == 1)
        #expect(honest.unrevealed == nil)

        var other = Game(seats: [.bottom, .top])
        let otherDeal = record(&other, .deal(seed: 10), 2)
        #expect(throws: ReplayMismatch.self) { try MatchReplay.fold([start, commit, otherDeal]) }
        var unannounced = Game(seats: [.bottom, .top])
        #expect(throws: ReplayMismatch.self) { try MatchReplay.fold([start, record(&unannounced, .deal(seed: 9), 1)]) }

        var salt = secret.salt
        salt[0] ^= 1
        let tampered = MatchRecord(sequence: 4, timeMicros: 0, entry: .revealed(DealReveal(round: 1, seed: 9, salt: salt)))
        do {
            _ = try MatchReplay.fold([start, commit, deal, leave, tampered])
            Issue.record("a tampered reveal was accepted")
        } catch {
            #expect(error.sequence == 4)
            #expect(error.description.contains("does not match its commitment"))
        }
    }
}
