import Foundation
import SnapBytes
import SnapEngine
import SnapJournal
import SnapMatchFiles
import SnapNet
import SnapProtocol
import SnapSession
import SnapTestSupport
import Testing

/// The fair deal between real processes: honest bots say so, a cheating host is caught,
/// and `snapcards replay --verify` checks every reveal.
@Suite("the provably fair deal, as processes", .blocksThreads, .serialized)
struct FairDealProcessTests {
    @Test("bots against an honest host print \"round N: deal verified\" for every round; replay checks the reveals",
          .timeLimit(.minutes(5)))
    func honestHost() throws {
        let directory = makeRuntimeDirectory()
        let host = try SnapProcess(["host", "--headless", "--name", "Table", "--start-when", "2", "--rounds", "2",
                                    "--speed", "0.01", "--turn-limit", "150"], runtimeDirectory: directory)
        let path = String(try #require(host.line(startingWith: "journal: ")).dropFirst("journal: ".count))
        let bots = try ["Ann", "Bob"].map {
            try SnapProcess(["join", "--bot", "--name", $0, "--speed", "0.01"], runtimeDirectory: directory)
        }
        #expect(host.exitStatus() == 0)
        for bot in bots {
            #expect(bot.exitStatus() == 0)
            #expect(bot.lines.filter { $0.hasSuffix(": deal verified") } == ["round 1: deal verified", "round 2: deal verified"],
                    "\(bot.output)")
            #expect(!bot.errors.contains("WARNING"))
        }
        let verify = try SnapProcess(["replay", path, "--verify"], runtimeDirectory: directory)
        #expect(verify.exitStatus() == 0)
        #expect(verify.lines.last?.hasSuffix(" commands, 2 rounds, matches the journal") == true, "\(verify.output)")
        #expect(try MatchReplay.fold(MatchJournal.read(path: path).records).reveals == 2)
    }

    @Test("a journal whose reveal was changed fails --verify at that record (exit 1)", .timeLimit(.minutes(5)))
    func tamperedReveal() throws {
        let directory = makeRuntimeDirectory()
        let host = try SnapProcess(["host", "--headless", "--name", "Table", "--start-when", "2", "--rounds", "1",
                                    "--speed", "0.01", "--turn-limit", "150"], runtimeDirectory: directory)
        let path = String(try #require(host.line(startingWith: "journal: ")).dropFirst("journal: ".count))
        let bots = try ["Ann", "Bob"].map {
            try SnapProcess(["join", "--bot", "--name", $0, "--speed", "0.01"], runtimeDirectory: directory)
        }
        #expect(host.exitStatus() == 0)
        for bot in bots { _ = bot.exitStatus() }
        var records = try MatchJournal.read(path: path).records
        let index = try #require(records.firstIndex { if case .revealed = $0.entry { true } else { false } })
        guard case .revealed(var reveal) = records[index].entry else { return }
        reveal.seed &+= 1
        records[index].entry = .revealed(reveal)
        let forged = directory + "/forged.snapjournal"
        let writer = try JournalWriter(creating: forged, kind: MatchRecordCodec.kind, onError: { _ in })
        for record in records { writer.append(MatchRecordCodec.encode(record)) }
        writer.close()
        let verify = try SnapProcess(["replay", forged, "--verify"], runtimeDirectory: directory)
        #expect(verify.exitStatus() == 1)
        #expect(verify.output.contains("replay: differs from the journal at record \(records[index].sequence): "
            + "the reveal of round 1 does not match its commitment"), "\(verify.output)")
    }

    @Test("a host that commits to one seed and deals from another: snapcards join --bot warns loudly", .timeLimit(.minutes(5)))
    func cheatingHost() throws {
        let directory = makeRuntimeDirectory()
        let socketPath = directory + "/cheat.sock"
        let cheat = try #require(CheatingHost(path: socketPath))
        // Dealt from one seed; committed to (and revealed) another, with a valid digest.
        let claimed = DealReveal(round: 1, seed: 0xC1A1_3ED, salt: Array(repeating: 0x5A, count: 16))
        cheat.serve(Self.stream(dealtFrom: 0xDEA1, claiming: claimed))
        let bot = try SnapProcess(["join", "--bot", "--name", "Ann", "--socket", socketPath, "--no-rejoin"],
                                  runtimeDirectory: directory)
        #expect(bot.exitStatus(timeout: 30) == 0, "\(bot.output)\(bot.errors)")
        let warning = "round 1: WARNING: the host's deal does not match its commitment"
        #expect(bot.lines.contains { $0.hasPrefix(warning) }, "\(bot.output)")
        #expect(bot.errorLines.contains { $0.hasPrefix("warning: " + warning) }, "\(bot.errors)")
        #expect(!bot.output.contains("deal verified"))

        // Control: the same stream with the true seed committed and revealed is verified.
        let honestPath = directory + "/honest.sock"
        let honest = try #require(CheatingHost(path: honestPath))
        let truth = DealReveal(round: 1, seed: 0xDEA1, salt: Array(repeating: 0x5A, count: 16))
        honest.serve(Self.stream(dealtFrom: 0xDEA1, claiming: truth))
        let control = try SnapProcess(["join", "--bot", "--name", "Ann", "--socket", honestPath, "--no-rejoin"],
                                      runtimeDirectory: directory)
        #expect(control.exitStatus(timeout: 30) == 0)
        #expect(control.lines.contains("round 1: deal verified"), "\(control.output)")
        _ = (cheat, honest)
    }

    /// A whole one-round match as a host would send it to the bottom seat, dealt from
    /// `seed` with a turn limit of 12, committing to and revealing `claimed`.
    static func stream(dealtFrom seed: UInt64, claiming claimed: DealReveal) -> [HostMessage] {
        var game = Game(seats: [.bottom, .top], rules: Rules(turnLimit: 12))
        var messages: [HostMessage] = [
            .welcome(Welcome(version: ProtocolVersion.current, hostName: "Cheat", playerID: 1,
                             token: SeatToken(bytes: Array(repeating: 7, count: 16)))),
            .gameStarted(GameStart(yourSeat: .bottom, players: [SeatedPlayer(seat: .bottom, name: "Ann"),
                                                                 SeatedPlayer(seat: .top, name: "Zed")],
                                   turnLimit: 12, turnTimeoutMillis: nil, graceMillis: 0)),
            .dealCommitted(claimed.commitment),
        ]
        func play(_ command: Command) { messages.append(.events(try! game.apply(command).map(\.seen))) }
        play(.deal(seed: seed))
        play(.finishDeal)
        while case .playing = game.phase {
            play(.turn(game.active!))
            play(.activateNext)
        }
        messages.append(.dealRevealed(claimed))
        messages.append(.closing(.gameFinished, message: "all 1 rounds played"))
        return messages
    }
}

/// A fake host on a Unix socket: accepts one connection, reads its hello, sends a script,
/// and hangs up once the client has hung up (it has read what it wanted).
final class CheatingHost: @unchecked Sendable {
    private let listener: Int32
    private let path: String

    init?(path: String) {
        self.path = path
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { return nil }
        let bound = withUnixAddress(path) { bind(listener, $0, $1) }
        guard bound == 0, Glibc.listen(listener, 4) == 0 else { close(listener); return nil }
        self.listener = listener  // kept only now: the deinit runs after a failed init too
    }

    func serve(_ messages: [HostMessage]) {
        let listener = self.listener
        Thread {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            var buffer = [UInt8](repeating: 0, count: 4096)
            _ = read(connection, &buffer, buffer.count)  // the hello
            for (sequence, message) in messages.enumerated() {
                let bytes = WireCodec.encode(message, sequence: UInt32(sequence))
                _ = bytes.withUnsafeBufferPointer { write(connection, $0.baseAddress, $0.count) }
            }
            // Hang up only once the client has: it closes its end when it has read the script's
            // closing (what it sends meanwhile is read and dropped). Closing first would race its
            // reading: its writes would fail, and a Unix socket closed with unread data resets
            // its peer. Two minutes bound a client that never hangs up (the test's own waits end
            // sooner, and fail).
            let deadline = Date().addingTimeInterval(120)
            while Date() < deadline {
                var poller = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
                let ready = poll(&poller, 1, 100)
                if ready < 0, errno != EINTR { break }
                if ready <= 0 { continue }
                if read(connection, &buffer, buffer.count) <= 0 { break }
            }
            close(connection)
        }.start()
    }

    deinit {
        close(listener)
        unlink(path)
    }
}

@Suite("won counts across matches, as processes", .blocksThreads, .serialized)
struct WonCountProcessTests {
    @Test("two matches in a row with the same names: the second one's clients receive the first one's wins",
          .timeLimit(.minutes(5)))
    func secondMatchKnowsTheFirst() throws {
        let directory = makeRuntimeDirectory()
        func match(recording: String? = nil) throws -> [String: Int] {
            let host = try SnapProcess(["host", "--headless", "--name", "Table", "--start-when", "2", "--rounds", "2",
                                        "--speed", "0.01", "--turn-limit", "150", "--verbose"], runtimeDirectory: directory)
            _ = host.line(startingWith: "journal: ")
            // The players come once the host has counted the earlier matches: a game that starts
            // before then shows this match's wins only (HostServer.countEarlierWins), and on a
            // loaded machine two bots can be seated first.
            #expect(eventually(60) { host.errors.contains("earlier matches counted: ") }, "\(host.errors)")
            let bots = try ["Ann", "Bob"].map { name in
                try SnapProcess(["join", "--bot", "--name", name, "--speed", "0.01"]
                                    + (name == "Ann" ? recording.map { ["--record", $0] } ?? [] : []),
                                runtimeDirectory: directory)
            }
            #expect(host.exitStatus() == 0)
            for bot in bots { #expect(bot.exitStatus() == 0) }
            var wins: [String: Int] = [:]
            for line in host.lines where line.hasPrefix("round ") && line.hasSuffix(" wins") {
                wins[String(line.split(separator: " ")[2]), default: 0] += 1
            }
            #expect(wins.values.reduce(0, +) == 2, "\(host.output)")
            return wins
        }
        let first = try match()
        let record = directory + "/second.bytes"
        _ = try match(recording: record)
        let messages = try hostMessages(Array(try Data(contentsOf: URL(fileURLWithPath: record))))
        guard let startIndex = messages.firstIndex(where: { if case .gameStarted = $0 { true } else { false } }),
              case .gameStarted(let start) = messages[startIndex] else {
            Issue.record("no gameStarted"); return
        }
        let names = Dictionary(uniqueKeysWithValues: start.players.map { ($0.seat, $0.name) })
        let counts = try #require(messages.lazy.compactMap { if case .wonCounts(let c) = $0 { c } else { nil } }.first)
        let received = Dictionary(uniqueKeysWithValues: counts.map { (names[$0.seat]!, Int($0.won)) })
        #expect(received == ["Ann": first["Ann"] ?? 0, "Bob": first["Bob"] ?? 0])
    }
}
