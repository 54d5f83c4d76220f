#if canImport(Glibc)
import Glibc
#endif
import SnapEngine
import SnapHistory
import SnapJournal
import SnapMatchFiles
import SnapNet
import SnapProtocol
import SnapSession
import SnapSimulation
import SnapTestSupport
import Synchronization
import Testing

/// Real matches: a host's computer players in virtual time (`Simulation`, a real
/// HostSession), their match logs written by the journal writer as a host writes them.
enum Matches {
    static func log(players: Int, rounds: Int, seed: UInt64) -> [MatchRecord] {
        var simulation = Simulation(SimulationOptions(players: players, rounds: rounds, seed: seed), recording: true)
        let report = simulation.run()
        precondition(report.violation == nil, "\(report.violation!)")
        return simulation.records
    }

    static func write(_ records: [MatchRecord], to path: String) throws {
        let writer = try JournalWriter(creating: path, kind: MatchRecordCodec.kind, onError: { _ in })
        for record in records { writer.append(MatchRecordCodec.encode(record)) }
        writer.close()
    }

    /// Three matches in a new directory, named so they sort in the order played.
    static func directory(_ prefix: String) throws -> (String, [[MatchRecord]]) {
        let directory = scratchDirectory(prefix)
        let logs = [log(players: 2, rounds: 2, seed: 11), log(players: 3, rounds: 3, seed: 12), log(players: 4, rounds: 2, seed: 13)]
        for (index, records) in logs.enumerated() { try write(records, to: directory + "/2026-01-0\(index + 1)T000000-Simulation.snapjournal") }
        return (directory, logs)
    }

    /// Rounds won by name, from the journals' folds (not the index).
    static func wins(_ logs: [[MatchRecord]]) throws -> [String: Int] {
        var wins: [String: Int] = [:]
        for log in logs { for winner in try MatchReplay.fold(log).winners { wins[winner, default: 0] += 1 } }
        return wins
    }
}

@Suite("The match index: built from the journals, kept up with them", .blocksThreads)
struct MatchIndexTests {
    @Test("every journal is indexed on the first read: the winners, the won counts and the calls of every round")
    func indexesEveryJournal() async throws {
        let (directory, logs) = try Matches.directory("index")
        let (refresh, entries, won, rounds) = try await MatchIndex.using(directory: directory) { index in
            (try await index.refresh(), try await index.entries(), try await index.roundsWon(), try await index.rounds())
        }
        #expect(refresh == MatchIndex.Refresh(indexed: 3, removed: 0))
        #expect(entries.count == 3)
        for (entry, log) in zip(entries, logs) {
            let replay = try MatchReplay.fold(log)
            #expect(entry.match?.winners == replay.winners)
            #expect(entry.match?.players == replay.start?.players.map(\.name))
            #expect(entry.match?.ended == replay.ended)
            #expect(entry.match?.damage == nil && entry.match?.broken == nil)
        }
        #expect(won == (try Matches.wins(logs)))
        #expect(won.values.reduce(0, +) == 7)

        // The calls, counted here from each log's events: right, wrong and too late by name,
        // and every correct call's reaction from the record of the card it answered.
        var expected: [String: (right: Int, wrong: Int, late: Int, reactions: [UInt64])] = [:]
        for log in logs {
            guard case .started(let start) = log.first?.entry else { Issue.record("no start"); return }
            let name = Dictionary(uniqueKeysWithValues: start.players.map { ($0.seat, $0.name) })
            var shownAt: UInt64?
            for record in log {
                guard case .applied(_, let events) = record.entry else { continue }
                for event in events {
                    switch event {
                    case .roundStarted: shownAt = nil
                    case .dealFinished, .turned: shownAt = record.timeMicros
                    case .snapCorrect(let seat, _):
                        expected[name[seat]!, default: (0, 0, 0, [])].right += 1
                        expected[name[seat]!, default: (0, 0, 0, [])].reactions.append(record.timeMicros - shownAt!)
                    case .snapWrong(let seat): expected[name[seat]!, default: (0, 0, 0, [])].wrong += 1
                    case .snapTooLate(let seat): expected[name[seat]!, default: (0, 0, 0, [])].late += 1
                    default: break
                    }
                }
            }
        }
        #expect(!expected.isEmpty && expected.values.contains { !$0.reactions.isEmpty })
        for (player, figures) in expected {
            let calls = rounds.flatMap(\.calls).filter { $0.player == player }
            #expect(calls.map(\.right).reduce(0, +) == figures.right, "\(player)")
            #expect(calls.map(\.wrong).reduce(0, +) == figures.wrong, "\(player)")
            #expect(calls.map(\.tooLate).reduce(0, +) == figures.late, "\(player)")
            #expect(calls.flatMap(\.reactions) == figures.reactions, "\(player)")
        }
        #expect(rounds.count == 7 && rounds.allSatisfy { $0.winner != nil })
    }

    @Test("a journal copied in is indexed on the next read, a removed one forgotten, a grown one read again")
    func keepsUp() async throws {
        let (directory, logs) = try Matches.directory("keeps-up")
        _ = try await MatchIndex.using(directory: directory) { try await $0.refresh() }
        let again = try await MatchIndex.using(directory: directory) { try await $0.refresh() }
        #expect(again == MatchIndex.Refresh(indexed: 0, removed: 0), "a second read reads no journal again")

        // Copied in: a fourth match, the same as the first.
        let copy = directory + "/2026-01-04T000000-Simulation.snapjournal"
        try Matches.write(logs[0], to: copy)
        let (copied, won) = try await MatchIndex.using(directory: directory) { (try await $0.refresh(), try await $0.roundsWon()) }
        #expect(copied == MatchIndex.Refresh(indexed: 1, removed: 0))
        #expect(won == (try Matches.wins(logs + [logs[0]])))

        // Grown: the copy held only the first half of its match, then all of it.
        unlink(copy)
        try Matches.write(Array(logs[1].prefix(logs[1].count / 2)), to: copy)
        let half = try await MatchIndex.using(directory: directory) { index in
            _ = try await index.refresh()
            return try await index.entries().last
        }
        #expect(half?.match?.ended == nil)
        unlink(copy)
        try Matches.write(logs[1], to: copy)
        let (grown, whole) = try await MatchIndex.using(directory: directory) { (try await $0.refresh(), try await $0.entries().last) }
        #expect(grown.indexed == 1)
        #expect(whole?.match?.winners == (try MatchReplay.fold(logs[1]).winners))

        unlink(copy)
        let (removed, afterRemoval) = try await MatchIndex.using(directory: directory) { (try await $0.refresh(), try await $0.roundsWon()) }
        #expect(removed == MatchIndex.Refresh(indexed: 0, removed: 1))
        #expect(afterRemoval == (try Matches.wins(logs)))
    }

    @Test("a directory unchanged since the last look: only unfinished journals are looked at, and one that grew is read again")
    func unchangedDirectory() async throws {
        let (directory, logs) = try Matches.directory("unchanged")
        // An unfinished match: the first half of one, as a host writing it leaves the file.
        let growing = directory + "/2026-01-04T000000-Simulation.snapjournal"
        let half = logs[1].count / 2
        try Matches.write(Array(logs[1].prefix(half)), to: growing)
        let first = try await MatchIndex.using(directory: directory) { try await $0.refresh() }
        #expect(first.indexed == 4)
        // The directory last changed an hour ago: the index may trust that nothing was added.
        var times = [timespec(tv_sec: time(nil) - 3_600, tv_nsec: 0), timespec(tv_sec: time(nil) - 3_600, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, directory, &times, 0) == 0)
        let quiet = try await MatchIndex.using(directory: directory) { try await $0.refresh() }
        #expect(quiet == MatchIndex.Refresh(indexed: 0, removed: 0))
        // Proof that it trusts it: a journal slipped in with the directory's time put back is
        // not looked for; `rebuild` (snapcards history --reindex) finds it.
        try Matches.write(logs[0], to: directory + "/2026-01-05T000000-Simulation.snapjournal")
        #expect(utimensat(AT_FDCWD, directory, &times, 0) == 0)
        // The host appends the rest of its match in place: the directory does not change.
        let length = try MatchJournal.read(path: growing).intactLength
        let writer = try JournalWriter(continuing: growing, intactLength: length, onError: { _ in })
        for record in logs[1].dropFirst(half) { writer.append(MatchRecordCodec.encode(record)) }
        writer.close()
        #expect(utimensat(AT_FDCWD, directory, &times, 0) == 0)
        let (grown, entries) = try await MatchIndex.using(directory: directory) { (try await $0.refresh(), try await $0.entries()) }
        #expect(grown == MatchIndex.Refresh(indexed: 1, removed: 0))
        #expect(entries.last?.match?.winners == (try MatchReplay.fold(logs[1]).winners))
        #expect(entries.last?.match?.ended != nil)
        #expect(entries.count == 4)
        let rebuilt = try await MatchIndex.using(directory: directory) { try await $0.rebuild() }
        #expect(rebuilt == MatchIndex.Refresh(indexed: 5, removed: 0))
    }

    @Test("an index file that is no database is built again from the journals, with a warning")
    func damagedIndex() async throws {
        let (directory, logs) = try Matches.directory("damaged-index")
        _ = try await MatchIndex.using(directory: directory) { try await $0.refresh() }
        let file = MatchIndex.path(in: directory)
        let descriptor = open(file, O_WRONLY | O_TRUNC)
        #expect(descriptor >= 0)
        let junk = Array(repeating: UInt8(ascii: "x"), count: 8_192)
        #expect(write(descriptor, junk, junk.count) == junk.count)
        close(descriptor)
        for suffix in ["-wal", "-shm"] { unlink(file + suffix) }
        let warnings = LockedLines()
        let won = try await MatchIndex.using(directory: directory, onWarning: { warnings.append($0) }) { index in
            _ = try await index.refresh()
            return try await index.roundsWon()
        }
        #expect(won == (try Matches.wins(logs)))
        #expect(warnings.lines.contains { $0.contains("is damaged") }, "\(warnings.lines)")
    }

    @Test("a damaged journal is indexed as damaged, with what was read before the damage; a non-journal as unreadable")
    func damagedJournal() async throws {
        let (directory, _) = try Matches.directory("damaged-journal")
        let path = directory + "/2026-01-02T000000-Simulation.snapjournal"
        var bytes = try readBytes(path)
        let middle = bytes.count / 2
        bytes[middle] ^= 0xFF
        try writeBytes(bytes, to: path)
        try writeBytes(Array("not a journal".utf8), to: directory + "/2026-01-05T000000-Junk.snapjournal")
        let entries = try await MatchIndex.using(directory: directory) { index in
            try await index.rebuild()
            return try await index.entries()
        }
        #expect(entries.count == 4)
        let fault = try #require(try MatchJournal.read(path: path).fault)
        #expect(entries[1].match?.damage == MatchFacts.Damage(offset: fault.offset, record: fault.record))
        #expect(entries[3].match == nil)
    }
}

/// Warnings heard from another thread.
final class LockedLines: Sendable {
    private let stored = Mutex<[String]>([])
    func append(_ line: String) { stored.withLock { $0.append(line) } }
    var lines: [String] { stored.withLock { $0 } }
}

func readBytes(_ path: String) throws -> [UInt8] {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { throw JournalError.cannotRead(path, "open") }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = read(descriptor, &buffer, buffer.count)
        if count <= 0 { break }
        bytes += buffer[0..<count]
    }
    return bytes
}

func writeBytes(_ bytes: [UInt8], to path: String) throws {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard descriptor >= 0 else { throw JournalError.cannotRead(path, "create") }
    defer { close(descriptor) }
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
}
