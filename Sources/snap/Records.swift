import ArgumentParser
import SnapCommandLine
import SnapEngine
import SnapHistory
import SnapJournal
import SnapMatchFiles
import SnapNet
import SnapProtocol
import SnapSession
#if GUI
import SnapTable
import SnapUI
#endif

#if canImport(Glibc)
import Glibc
#endif

struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play a journaled match back in a window, or check it against the engine.",
        discussion: """
            Without --verify, opens a window that plays the match back as it happened, every \
            card face up: Space pauses, Left/Right skip to the previous/next round, Up/Down \
            change the speed (½×, 1×, 2×, 4×), Esc closes. With --verify (headless), re-runs the \
            engine from the journal's commands (each deal with its seed), checks every round's \
            revealed seed and salt against the commitment announced before its deal, and prints \
            "replay: N commands, R rounds, matches the journal" (exit 0), or the first record \
            where it differs (exit 1). A torn tail (the last record cut short by a host killed \
            mid-write) is reported and left out; a damaged journal (a bad record with more after \
            it) is reported with where it is and what was readable, and exits 1. Journals are in $XDG_STATE_HOME/snap/matches/ (see snapcards history).
            """)

    @Argument(help: "A journal file (.snapjournal).") var file: String
    @Flag(help: "Headless: re-run the engine and compare every event.") var verify = false
    @Option(help: "Start this many seconds into the match (the window).") var startAt: Double?
    @Flag(help: "Open the window paused (Space plays).") var paused = false
    #if GUI
    @OptionGroup var window: WindowFlags
    #endif

    func validate() throws {
        if let startAt, !(startAt >= 0) { throw ValidationError("--start-at must be 0 or more seconds") }
        if verify, startAt != nil || paused { throw ValidationError("--start-at and --paused are for the window, not --verify") }
    }

    func run() throws {
        #if GUI
        precondition(verify, "the window's replay runs in runInWindow")
        #endif
        _ = try readJournal()
    }

    /// Reads the journal and reports its faults; with --verify, checks it and returns nil.
    func readJournal() throws -> [MatchRecord]? {
        let journal: MatchJournal.Contents
        do { journal = try MatchJournal.read(path: file) } catch {
            say("error: \(error)")
            throw ExitCode(1)
        }
        if let fault = journal.fault {
            // The commands the readable part holds, whether or not it replays.
            let commands = journal.records.reduce(0) { count, record in
                if case .applied = record.entry { count + 1 } else { count }
            }
            switch fault.kind {
            case .tornTail:
                say("journal: the last record was cut short at byte \(fault.offset) (\(fault.reason)), as a crash leaves it; "
                    + "\(verify ? "verifying" : "replaying") the \(journal.records.count) records before it")
            case .damaged:
                say("journal: damaged at byte \(fault.offset), record \(fault.record) (\(fault.reason)): \(commands) commands "
                    + "in the \(fault.record - 1) records read before it; \(grouped(fault.unreadableBytes)) bytes from there on cannot be read")
            }
        }
        guard verify else {
            #if GUI
            return journal.records
            #else
            say("error: this snap was built without windows; use snapcards replay FILE --verify")
            throw ExitCode(64)
            #endif
        }
        let damaged = journal.fault?.isDamage == true
        do {
            let replay = try MatchReplay.fold(journal.records)
            guard replay.start != nil else {
                say("replay: 0 commands, 0 rounds: the match never started")
                if damaged { throw ExitCode(1) }
                return nil
            }
            if damaged {
                // Never "matches the journal": part of it could not be read.
                say("replay: the \(replay.commands) commands before the damage match the engine; the rest of the journal is lost")
                throw ExitCode(1)
            }
            if replay.ended == nil {
                // What is there verifies, but it is not the whole match: say so, and where it stops.
                say("journal: it stops before the match's end, after \(replay.rounds) rounds and \(replay.commands) commands: "
                    + "no record of the end (its host is still writing it, or stopped writing: a full disk, a crash)")
            }
            say("replay: \(replay.commands) commands, \(replay.rounds) rounds, matches the journal")
        } catch let error as ReplayMismatch {
            say("replay: differs from the journal at \(error)")
            throw ExitCode(1)
        }
        return nil
    }
}

#if GUI
extension Replay: WindowCommand {
    var opensWindow: Bool { !verify }

    @MainActor func runInWindow(_ games: GameStarter) async throws {
        guard let records = try readJournal() else { return }
        let driver: ReplayDriver
        do { driver = try ReplayDriver(records: records) } catch {
            say("error: \(file): \(error)")
            throw ExitCode(1)
        }
        if let startAt { driver.seek(to: startAt) }
        driver.isPaused = paused
        try await runWindow(window, games: games) { app in ReplayScene(app: app, driver: driver) }
    }
}
#endif

struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the matches hosted on this machine, newest last, and each player's rounds won.",
        discussion: """
            One line a match: date (UTC), table, players, round winners, and how it ended. Read from \
            the match index beside the journals (index/index.sqlite), which first reads any journal it \
            lacks or that changed; --reindex builds it again from every journal.
            """)

    @Option(help: "Read journals from this directory instead of $XDG_STATE_HOME/snap/matches.") var directory: String?
    @Flag(help: "Build the match index again from every journal first.") var reindex = false

    func run() async throws {
        let folder = directory ?? MatchJournal.directory()
        let entries = try await indexedEntries(in: folder, reindex: reindex)
        var wins: [String: Int] = [:]
        var shown = 0
        // Lines gathered and written 64 KiB at a time: one `write` a line cost ~2 µs a match.
        var output = ""
        func say(_ line: String) {
            output += line
            output += "\n"
            if output.utf8.count >= 65_536 { flush() }
        }
        func flush() {
            output.withUTF8 { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = write(1, bytes.baseAddress! + offset, bytes.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
            output = ""
        }
        defer { flush() }
        for entry in entries {
            guard let match = entry.match else {
                say("\(folder)/\(entry.name): not a readable journal")
                continue
            }
            guard let startedAt = match.startedAt else { continue }
            for winner in match.winners { wins[winner, default: 0] += 1 }
            let players = match.players.joined(separator: ", ")
            let winners = match.winners.isEmpty ? "no round won" : "won: " + match.winners.joined(separator: ", ")
            var ending = match.broken.map { "journal differs: \($0)" } ?? match.ended ?? "unfinished"
            if let damage = match.damage {
                ending = "DAMAGED journal (byte \(damage.offset), record \(damage.record)); read up to there: " + ending
            }
            say("\(date(startedAt))\t\(match.hostName)\t\(players)\t\(winners)\t\(ending)")
            shown += 1
        }
        if shown == 0 {
            say("no matches in \(folder)")
            return
        }
        let totals = wins.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        say("rounds won: " + (totals.isEmpty ? "none" : totals.map { "\($0.key) \($0.value)" }.joined(separator: ", ")))
    }

    private func date(_ seconds: UInt64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min))"
    }
}

/// The journals of `folder` as its match index has them, after it read any it lacked (or
/// all of them again, `reindex`). No directory: no matches, and no index made.
func indexedEntries(in folder: String, reindex: Bool) async throws -> [MatchIndex.Entry] {
    guard access(folder, F_OK) == 0 else { return [] }
    do {
        return try await MatchIndex.using(directory: folder, onWarning: { printError("warning: \($0)") }) { index in
            let refresh = try await (reindex ? index.rebuild() : index.refresh())
            if reindex { printError("reindexed \(refresh.indexed) journals in \(folder)") }
            return try await index.entries()
        }
    } catch {
        printError("error: the match index of \(folder) could not be read: \(error)")
        throw ExitCode(1)
    }
}
