import Foundation
import SnapEngine
import SnapProtocol
import SnapTestSupport
import Testing

/// Hosts and computer players as separate `snapcards` processes over real sockets.
@Suite("snapcards host and snapcards join, as processes", .blocksThreads, .serialized)
struct NetworkCommandTests {
    static let fast = ["--speed", "0.01"]

    func host(_ extra: [String], in directory: String, name: String = "Table") throws -> SnapProcess {
        try SnapProcess(["host", "--headless", "--name", name, "--turn-limit", "150", "--verbose"] + Self.fast + extra,
                        runtimeDirectory: directory)
    }

    func bot(_ name: String, _ extra: [String], in directory: String) throws -> SnapProcess {
        try SnapProcess(["join", "--bot", "--name", name] + Self.fast + extra, runtimeDirectory: directory)
    }

    /// Waits until the game is under way: the host (run with --verbose) logs "game started: "
    /// on stderr once the players are seated and the first round is dealt. A minute bounds a hang.
    func expectGameStarted(_ host: SnapProcess, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(eventually(60) { host.errors.contains("game started: ") }, "the game never started: \(host.errors)",
                sourceLocation: sourceLocation)
    }

    @Test("a host and three bots play two rounds over a Unix socket", .timeLimit(.minutes(5)))
    func unixSocket() throws {
        let directory = makeRuntimeDirectory()
        let host = try host(["--rounds", "2", "--start-when", "3"], in: directory)
        let listening = try #require(host.line(startingWith: "listening on unix:"))
        #expect(listening == "listening on unix:\(directory)/snap/Table.sock")
        let bots = try ["Ann", "Bob", "Cy"].enumerated().map { try bot($1, ["--seed", "\($0)"], in: directory) }
        #expect(host.exitStatus() == 0)
        let rounds = host.lines.filter { $0.hasPrefix("round ") }
        #expect(rounds.count == 2)
        #expect(rounds.allSatisfy { line in ["Ann", "Bob", "Cy"].contains { line.hasSuffix(": \($0) wins") } })
        #expect(host.lines.contains("card conservation: held after every one of " +
                                    (host.lines.last { $0.hasPrefix("card conservation") }?.split(separator: " ")[7] ?? "?") + " commands"))
        for bot in bots {
            #expect(bot.exitStatus() == 0)
            #expect(bot.output.contains("game ended (gameFinished)"))
        }
        // The host removed its socket file when it was done.
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/snap/Table.sock"))
    }

    @Test("a warning is one line with one prefix: a socket directory open to others falls back, and says so once",
          .timeLimit(.minutes(5)))
    func warningPrefixedOnce() throws {
        let directory = makeRuntimeDirectory()
        mkdir(directory + "/snap", 0o755)
        chmod(directory + "/snap", 0o755)  // not private: the host must fall back under the home directory
        let host = try SnapProcess(["host", "--headless", "--name", "Table"], runtimeDirectory: directory,
                                   environment: ["HOME": directory + "/home"])
        let listening = try #require(host.line(startingWith: "listening on unix:"))
        #expect(listening.hasPrefix("listening on unix:\(directory)/home/.local/state/snap/sockets/"))
        host.signal(SIGTERM)
        _ = host.exitStatus()
        let warnings = host.errorLines.filter { $0.contains("socket directory") }
        #expect(warnings.count == 1, "\(host.errors)")
        #expect(warnings.first?.hasPrefix("warning: socket directory \(directory)/snap ") == true, "\(host.errors)")
        #expect(!host.errorLines.contains { $0.hasPrefix("warning: warning:") }, "\(host.errors)")
    }

    @Test("the same over TCP on 127.0.0.1, port chosen by the system", .timeLimit(.minutes(5)))
    func tcp() throws {
        let directory = makeRuntimeDirectory()
        let host = try host(["--rounds", "1", "--start-when", "3", "--listen", "127.0.0.1:0", "--open"], in: directory)
        let listening = try #require(host.line(startingWith: "listening on tcp:"))
        let address = String(listening.dropFirst("listening on tcp:".count))
        let bots = try ["Ann", "Bob", "Cy"].map { try bot($0, ["--connect", address], in: directory) }
        #expect(host.exitStatus() == 0)
        #expect(host.lines.filter { $0.hasPrefix("round 1: ") }.count == 1)
        for bot in bots { #expect(bot.exitStatus() == 0) }
    }

    @Test("kill -9 a bot mid-round: its seat waits out the grace period, then its cards are handed out and the round finishes",
          .timeLimit(.minutes(5)))
    func killBot() throws {
        let directory = makeRuntimeDirectory()
        let host = try host(["--rounds", "1", "--start-when", "3", "--grace", "1"], in: directory)
        _ = host.line(startingWith: "listening on unix:")
        let bots = try ["Ann", "Bob", "Cy"].map { try bot($0, [], in: directory) }
        expectGameStarted(host)
        bots[1].signal(SIGKILL)
        #expect(host.exitStatus() == 0)
        #expect(host.errors.contains("Bob left (connection dropped)"))
        let away = try #require(host.lines.first { $0.hasSuffix(": Bob away (grace 1 s)") })
        let seat = away.dropFirst("seat ".count).prefix { $0 != ":" }
        #expect(host.lines.contains("seat \(seat): Bob left"))
        #expect(host.lines.contains { $0.hasPrefix("card conservation: held") })
        #expect(bots[0].exitStatus() == 0)
        #expect(bots[2].exitStatus() == 0)
    }

    @Test("kill -9 the host: every client says connection dropped (time printed)", .timeLimit(.minutes(5)))
    func killHost() throws {
        let directory = makeRuntimeDirectory()
        let host = try host(["--rounds", "5", "--start-when", "2"], in: directory)
        _ = host.line(startingWith: "listening on unix:")
        let bots = try ["Ann", "Bob"].map { try bot($0, ["--no-rejoin"], in: directory) }
        expectGameStarted(host)
        host.signal(SIGKILL)
        let killedAt = Date()
        // The time is printed, not limited (a busy machine's say); the timeouts bound a hang.
        for bot in bots {
            #expect(bot.exitStatus(timeout: 60) == 2)
            #expect(bot.output.contains("connection dropped"))
        }
        print("kill -9 the host: both clients had said connection dropped and exited \(Int(Date().timeIntervalSince(killedAt) * 1000)) ms after")
    }

    @Test("Ctrl-C on the host ends the game on purpose: clients hear host quit and exit 0; the socket goes",
          .timeLimit(.minutes(5)))
    func interruptedHost() throws {
        let directory = makeRuntimeDirectory()
        let host = try host(["--rounds", "5", "--start-when", "2"], in: directory)
        _ = host.line(startingWith: "listening on unix:")
        let bots = try ["Ann", "Bob"].map { try bot($0, [], in: directory) }
        expectGameStarted(host)
        host.signal(SIGINT)
        #expect(host.exitStatus(timeout: 60) == 0)
        #expect(host.lines.contains("game over: the host ended the game"))
        for bot in bots {
            #expect(bot.exitStatus(timeout: 60) == 0)
            #expect(bot.output.contains("game ended (hostQuit)"))
        }
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/snap/Table.sock"))
    }

    @Test("a host that hangs (SIGSTOP): clients give up, having heard nothing (time printed beside the 5 s keepalive bound)",
          .timeLimit(.minutes(5)))
    func hungHost() throws {
        let directory = makeRuntimeDirectory()
        let host = try host(["--rounds", "5", "--start-when", "2"], in: directory)
        _ = host.line(startingWith: "listening on unix:")
        let bots = try ["Ann", "Bob"].map { try bot($0, ["--no-rejoin"], in: directory) }
        expectGameStarted(host)
        host.signal(SIGSTOP)
        defer { host.signal(SIGKILL) }
        let stoppedAt = Date()
        // The time is printed, not limited (a busy machine's say); the timeouts bound a hang.
        for bot in bots {
            #expect(bot.exitStatus(timeout: 60) == 2)
            #expect(bot.output.contains("nothing heard from the host"))
        }
        let waited = Date().timeIntervalSince(stoppedAt)
        print("SIGSTOP the host: both clients had given up (nothing heard) \(Int(waited * 1000)) ms after; the keepalive bound is 5 s")
    }

    @Test("garbage, an oversized frame, turns out of turn and a snap flood: each raw connection is cut, the game plays on",
          .timeLimit(.minutes(5)))
    func hostileClients() throws {
        let directory = makeRuntimeDirectory()
        let host = try host(["--rounds", "1", "--start-when", "3"], in: directory)
        let path = String(try #require(host.line(startingWith: "listening on unix:")).dropFirst("listening on unix:".count))

        let garbage = try #require(RawSocket(unixPath: path))
        garbage.send(Array("GET / HTTP/1.1\r\n\r\n".utf8))
        let garbageReply = garbage.readUntilClosed()
        #expect(garbageReply.closed)
        guard case .closing(.protocolViolation, _) = try hostMessages(garbageReply.bytes).last else {
            Issue.record("no closing(protocolViolation) for garbage"); return
        }

        let oversized = try #require(RawSocket(unixPath: path))
        oversized.send([0xFF, 0xFF, 0xFF, 0xFF])
        let oversizedReply = oversized.readUntilClosed()
        #expect(oversizedReply.closed)
        guard case .closing(.protocolViolation, let why) = try hostMessages(oversizedReply.bytes).last else {
            Issue.record("no closing for an oversized frame"); return
        }
        #expect(why.contains("4096") || why.lowercased().contains("large") || why.lowercased().contains("long"))

        // A raw player: signs in, then turns out of turn (ignored) and floods snaps (cut).
        let raw = try #require(RawSocket(unixPath: path))
        raw.send(WireCodec.encode(ClientMessage.hello(Hello(name: "Mallory")), sequence: 0))
        raw.send(WireCodec.encode(ClientMessage.ready, sequence: 1))
        let bots = try ["Ann", "Bob"].map { try bot($0, [], in: directory) }
        expectGameStarted(host)
        var sequence: UInt32 = 2
        for _ in 0..<3 { raw.send(WireCodec.encode(ClientMessage.turn, sequence: sequence)); sequence += 1 }
        for _ in 0..<30 {
            raw.send(WireCodec.encode(ClientMessage.snap(SnapCall(seenTurns: 0, reactionMicros: 0)), sequence: sequence))
            sequence += 1
        }
        let rawReply = raw.readUntilClosed()
        #expect(rawReply.closed)
        guard case .closing(.protocolViolation, let flood) = try hostMessages(rawReply.bytes).last else {
            Issue.record("no closing for the snap flood"); return
        }
        #expect(flood == MessageBudget.overBudgetText(.snap))

        #expect(host.exitStatus() == 0)
        #expect(host.lines.contains { $0.hasPrefix("round 1: ") })
        #expect(host.errors.contains("Mallory left (connection dropped)"))
        for bot in bots { #expect(bot.exitStatus() == 0) }
    }

    @Test("hidden information: over a whole round, no byte sent to a player names a face-down card",
          .timeLimit(.minutes(5)))
    func hiddenInformation() throws {
        let directory = makeRuntimeDirectory()
        let record = directory + "/ann.bytes"
        let host = try host(["--rounds", "1", "--start-when", "2"], in: directory)
        _ = host.line(startingWith: "listening on unix:")
        let ann = try bot("Ann", ["--record", record], in: directory)
        let bob = try bot("Bob", [], in: directory)
        #expect(host.exitStatus() == 0)
        #expect(ann.exitStatus() == 0)
        #expect(bob.exitStatus() == 0)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: record)))
        var events: [SeatEvent] = []
        for case .events(let batch) in try hostMessages(bytes) { events += batch }
        #expect(events.contains { if case .roundWon = $0 { true } else { false } })
        var hiddenMoves = 0
        for event in events {
            switch event {
            case .dealt(let card, _), .paid(let card, _, _), .handedOut(let card, _, .closed, _):
                #expect(card == nil)
                hiddenMoves += 1
            default: break
            }
        }
        #expect(hiddenMoves >= 52)
    }

    @Test("snapcards list shows live hosts and skips a stale socket; a new host replaces the stale file",
          .timeLimit(.minutes(5)))
    func discoveryAndStaleSockets() throws {
        let directory = makeRuntimeDirectory()
        // A socket file nobody listens on: what a crashed host leaves behind.
        let first = try host(["--start-when", "2"], in: directory, name: "Old")
        _ = first.line(startingWith: "listening on unix:")
        first.signal(SIGKILL)
        _ = first.exitStatus(timeout: 60)
        #expect(FileManager.default.fileExists(atPath: "\(directory)/snap/Old.sock"))

        let live = try host(["--start-when", "2", "--bots", "1"], in: directory, name: "Live")
        _ = live.line(startingWith: "listening on unix:")
        let list = try SnapProcess(["list"], runtimeDirectory: directory)
        #expect(list.exitStatus() == 0)
        #expect(list.lines == ["Live\tplayers 1/4\topen\t\(directory)/snap/Live.sock"])

        // Same name as the live host: refused. Same name as the stale file: replaced.
        let clash = try host(["--start-when", "2"], in: directory, name: "Live")
        #expect(clash.exitStatus() == 3)
        #expect(clash.output.contains("a host is already running"))
        let reborn = try host(["--start-when", "2"], in: directory, name: "Old")
        #expect(reborn.line(startingWith: "listening on unix:\(directory)/snap/Old.sock") != nil)
        reborn.signal(SIGKILL)
        live.signal(SIGKILL)

        let nobody = try SnapProcess(["join", "--bot", "--socket", "\(directory)/nothing.sock"], runtimeDirectory: directory)
        #expect(nobody.exitStatus() == 3)
        #expect(nobody.output.contains("error: cannot connect"))
        #expect(!nobody.output.contains("no network"))  // the network is fine: nobody listens
    }

    @Test("a Unix socket whose queue stays full: snapcards join --bot retries (more than 3 s; the time printed), then says host busy and exits 3",
          .timeLimit(.minutes(5)))
    func busyHost() throws {
        let directory = makeRuntimeDirectory()
        let busy = try #require(BusyListener(path: directory + "/busy.sock"))
        #expect(busy.attempt() == EAGAIN)
        let started = Date()
        let join = try SnapProcess(["join", "--bot", "--socket", busy.path], runtimeDirectory: directory)
        // §2's status for a host too busy to take the connection (there: one closed during its
        // TLS handshake; both are NetError.hostBusy, which snapcards join ends with the same status).
        let status = try #require(try Documents.numbers("PROTOCOL.md", "during the TLS handshake: the host is busy (past its connection limits); try again later` (exit {N})"),
                                  "PROTOCOL.md lacks snapcards join's exit status for a busy host").map(Int32.init)[0]
        #expect(join.exitStatus(timeout: 60) == status)
        let waited = Date().timeIntervalSince(started)
        #expect(join.output.contains("host busy: unix:\(busy.path)"))
        #expect(!join.output.contains("errno"))
        // It retried: a first EAGAIN would fail at once. (A floor, which a busy machine can only
        // pass more easily.) How long it went on is printed, not limited: about 5 s quiet; the
        // timeout above bounds a hang.
        #expect(waited > 3)
        print("a full Unix socket: snapcards join --bot said host busy after \(Int(waited * 1000)) ms of retries")
    }

    /// Whether this machine has the IPv6 loopback address.
    static func ipv6LoopbackAvailable() -> Bool {
        let probe = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard probe >= 0 else { return false }
        defer { close(probe) }
        var loopback = sockaddr_in6()
        loopback.sin6_family = sa_family_t(AF_INET6)
        loopback.sin6_addr = in6addr_loopback
        return withUnsafePointer(to: &loopback) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(probe, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        } == 0
    }

    @Test("the address of an IPv6 listener is printed in brackets, and a bot joins at it", .timeLimit(.minutes(5)),
          .enabled(if: ipv6LoopbackAvailable(), "no ::1 on this machine"))
    func ipv6Listener() throws {
        let directory = makeRuntimeDirectory()
        let host = try host(["--rounds", "1", "--start-when", "1", "--bots", "1", "--listen", "[::1]:0", "--open"], in: directory)
        let listening = try #require(host.line(startingWith: "listening on tcp:"))
        #expect(listening.hasPrefix("listening on tcp:[::1]:"))
        let port = try #require(Int(listening.dropFirst("listening on tcp:[::1]:".count)))
        #expect(port > 0)
        let bot = try bot("Ann", ["--connect", "[::1]:\(port)"], in: directory)
        #expect(host.exitStatus() == 0)
        #expect(bot.exitStatus() == 0)
    }

    @Test("a bad --listen or --connect address is a usage error (exit 64) naming the option and the range")
    func badAddresses() throws {
        let directory = makeRuntimeDirectory()
        let cases: [([String], String)] = [
            (["host", "--headless", "--start-when", "2", "--listen", "nonsense"], "--listen: not an address of the form HOST:PORT"),
            (["host", "--headless", "--start-when", "2", "--listen", "::1:7777"], "--listen: not an address of the form HOST:PORT"),
            (["host", "--headless", "--start-when", "2", "--listen", "127.0.0.1:65536"], "--listen: port must be 0–65535"),
            (["join", "--bot", "--connect", "127.0.0.1:0"], "--connect: port must be 1–65535"),
            (["join", "--bot", "--connect", "nonsense"], "--connect: not an address of the form HOST:PORT"),
        ]
        for (arguments, message) in cases {
            let process = try SnapProcess(arguments, runtimeDirectory: directory)
            #expect(process.exitStatus(timeout: 60) == 64, "\(arguments)")
            #expect(process.errors.contains(message), "\(arguments): \(process.errors)")
        }
    }

    @Test("listening where another host listens: plain words, exit 3", .timeLimit(.minutes(5)))
    func addressInUse() throws {
        let directory = makeRuntimeDirectory()
        let first = try host(["--start-when", "2", "--listen", "127.0.0.1:0"], in: directory, name: "First")
        let listening = try #require(first.line(startingWith: "listening on tcp:"))
        let address = String(listening.dropFirst("listening on tcp:".count))
        let second = try host(["--start-when", "2", "--listen", address], in: directory, name: "Second")
        #expect(second.exitStatus(timeout: 60) == 3)
        #expect(second.output.contains("error: cannot listen on \(address): the address is already in use"))
        #expect(!second.output.contains("errno"))
        first.signal(SIGKILL)
    }

    @Test("a socket directory that is not private: the host warns on stderr and falls back; snapcards list finds it there",
          .timeLimit(.minutes(5)))
    func socketDirectoryFallback() throws {
        let directory = makeRuntimeDirectory()
        let home = directory + "/home"
        mkdir(home, 0o700)
        mkdir(directory + "/snap", 0o755)
        chmod(directory + "/snap", 0o755)
        let fallback = home + "/.local/state/snap/sockets"
        let host = try SnapProcess(["host", "--headless", "--name", "Table", "--start-when", "2"],
                                   runtimeDirectory: directory, environment: ["HOME": home])
        #expect(host.line(startingWith: "listening on unix:\(fallback)/Table.sock") != nil)
        let warnings = host.errorLines.filter { $0.hasPrefix("warning:") }
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("socket directory \(directory)/snap is refused") == true)
        #expect(warnings.first?.contains("mode 0755") == true)
        #expect(warnings.first?.contains("XDG_RUNTIME_DIR") == true)
        let list = try SnapProcess(["list"], runtimeDirectory: directory, environment: ["HOME": home])
        #expect(list.exitStatus() == 0)
        #expect(list.lines == ["Table\tplayers 0/3\topen\t\(fallback)/Table.sock"])
        host.signal(SIGKILL)
    }
}
