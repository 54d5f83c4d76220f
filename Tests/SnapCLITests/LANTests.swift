import Foundation
import NIOPosix
import SnapBytes
import SnapLAN
import SnapNet
import SnapPlatform
import SnapProtocol
import SnapTestSupport
import Testing

/// Playing across the room: the join code over TCP (real processes on 127.0.0.1), and
/// discovery by multicast DNS inside a network namespace the test makes (root only;
/// otherwise skipped with the reason). No packet leaves this machine.
@Suite("LAN play: join codes and discovery, as processes", .blocksThreads, .serialized)
struct LANTests {
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    static let fast = ["--speed", "0.01"]

    func host(_ extra: [String], in directory: String, wrapper: [String] = []) throws -> SnapProcess {
        try SnapProcess(["host", "--headless", "--name", "Table", "--turn-limit", "150", "--verbose"] + Self.fast + extra,
                        runtimeDirectory: directory, wrapper: wrapper)
    }

    func bot(_ name: String, _ extra: [String], in directory: String) throws -> SnapProcess {
        try SnapProcess(["join", "--bot", "--name", name] + Self.fast + extra, runtimeDirectory: directory)
    }

    /// The address and join code a TCP host printed.
    func tcpHost(_ extra: [String], in directory: String) throws -> (SnapProcess, String, String?) {
        let host = try host(["--listen", "127.0.0.1:0", "--no-announce"] + extra, in: directory)
        let listening = try #require(host.line(startingWith: "listening on tcp:"))
        let codeLine = try #require(host.line(startingWith: "join code: "))
        let code = String(codeLine.dropFirst("join code: ".count))
        return (host, String(listening.dropFirst("listening on tcp:".count)), code.hasPrefix("none") ? nil : code)
    }

    @Test("a TCP host with a code: refused without it or with a wrong one (exit 1, naming the code); with it, a full round",
          .timeLimit(.minutes(5)))
    func joinCode() throws {
        let directory = makeRuntimeDirectory()
        let (host, address, code) = try tcpHost(["--rounds", "1", "--start-when", "1", "--bots", "1"], in: directory)
        let code6 = try #require(code)
        #expect(code6.count == 6 && code6.allSatisfy(JoinCode.alphabet.contains))
        // The status LAN.md gives a refused code.
        let refusedStatus = try #require(try Documents.numbers("LAN.md", "6-character join code shown in its lobby` and exits {N}."),
                                         "LAN.md lacks the wrong code's exit status").map(Int32.init)[0]
        // LAN.md's list of tests says the same.
        #expect(try Documents.numbers("LAN.md", "(refused without or with a wrong code, exit {N} naming the code;") == [Int(refusedStatus)])
        let without = try bot("Eve", ["--connect", address], in: directory)
        #expect(without.exitStatus(timeout: 60) == refusedStatus)
        #expect(without.output.contains("(wrongCode): this game needs its join code"))
        let wrong = try bot("Eve", ["--connect", address, "--code", code6 == "AAAAAA" ? "BBBBBB" : "AAAAAA"], in: directory)
        #expect(wrong.exitStatus(timeout: 60) == refusedStatus)
        #expect(wrong.output.contains("(wrongCode): wrong join code"))
        #expect(host.line(startingWith: "wrong join code from 127.0.0.1 (2 in a row)", timeout: 60) != nil)
        // LAN.md quotes both lines: what snapcards join prints, and the host's (ADDRESS, N).
        let told = try #require(wrong.output.split(separator: "\n").first { $0.contains("(wrongCode)") }, "\(wrong.output)")
        #expect(try Documents.quotes("LAN.md", "`snapcards join` prints `\(told)` and exits"), "LAN.md lacks: \(told)")
        let counted = try #require(host.line(startingWith: "wrong join code from 127.0.0.1 (2 in a row)"))
        let general = counted.replacingOccurrences(of: "127.0.0.1", with: "ADDRESS").replacingOccurrences(of: "(2 ", with: "(N ")
        #expect(try Documents.quotes("LAN.md", "The host prints `\(general)`."), "LAN.md lacks: \(general)")
        #expect(try Documents.quotes("LAN.md", "prints `join code: \(String(repeating: "X", count: code6.count))`"))
        // Typed in lower case with a dash, it is still the code.
        let typed = code6.lowercased().prefix(3) + "-" + code6.lowercased().dropFirst(3)
        let ann = try bot("Ann", ["--connect", address, "--code", String(typed)], in: directory)
        #expect(ann.exitStatus() == 0)
        #expect(ann.output.contains("game ended (gameFinished)"))
        #expect(host.exitStatus() == 0)
        #expect(host.lines.filter { $0.hasPrefix("round 1: ") }.count == 1)
    }

    @Test("info before hello over TCP reveals only the name and the need for a code; the Unix socket tells the lobby",
          .timeLimit(.minutes(5)))
    func withheldInfo() async throws {
        let directory = makeRuntimeDirectory()
        let (host, address, _) = try tcpHost(["--start-when", "2", "--bots", "1"], in: directory)
        defer { host.signal(SIGKILL) }
        let port = try #require(Int(address.split(separator: ":").last!))
        // Over TLS (the only way TCP is spoken now), through the probe the Join screen uses.
        var trust = ServerTrust(knownHosts: KnownHosts(path: directory + "/known_hosts"))
        trust.onFirstUse = nil
        let overTCP = try await probe(.tcp(host: "127.0.0.1", port: port), loop: Self.group.next(), timeout: .seconds(5), trust: trust)
        #expect(overTCP == HostInfo(hostName: "Table", players: 0, maxPlayers: 4, started: false, needsCode: true))
        // A plain client is told, in a frame it can read, that the port speaks TLS.
        let plain = try #require(RawSocket(loopbackPort: port))
        plain.send(WireCodec.encode(ClientMessage.query, sequence: 0))
        guard case .closing(.versionUnsupported, let words)? = try hostMessages(plain.readUntilClosed().bytes).first else {
            Issue.record("a plain query over TCP was not refused")
            return
        }
        #expect(words.contains("TLS"))
        // The modes §2 gives the socket directory, the socket and the TLS identity, as the host made them.
        let modes = try #require(try Documents.numbers("PROTOCOL.md", "The directory is mode {N} and the socket {N}, so only the same user can connect"),
                                 "PROTOCOL.md lacks the socket's modes").compactMap { Int(String($0), radix: 8) }
        let identity = try #require(try Documents.numbers("PROTOCOL.md", "made on first use and keeps ({N}) in `$XDG_STATE_HOME/snap/tls/identity.pem`"),
                                    "PROTOCOL.md lacks the identity's mode").compactMap { Int(String($0), radix: 8) }
        #expect(try Documents.quotes("LAN.md", "(`$XDG_STATE_HOME/snap/tls/identity.pem`, \(String(identity[0], radix: 8).leftPadded(to: 4)))"))
        func mode(_ path: String) -> Int? {
            var status = stat()
            return stat(path, &status) == 0 ? Int(status.st_mode & 0o777) : nil
        }
        #expect(modes.count == 2 && mode("\(directory)/snap") == modes[0] && mode("\(directory)/snap/Table.sock") == modes[1], "\(modes)")
        #expect(mode("\(directory)/state/snap/tls/identity.pem") == identity[0])
        // What the host prints of where to connect, and how snapcards list shows the game (LAN.md's examples).
        let reachable = try #require(host.line(startingWith: "players can connect to: "))
        #expect(try Documents.quotes("LAN.md", "(`\(reachable.replacingOccurrences(of: address, with: "192.168.1.20:7777, 127.0.0.1:7777"))`)"),
                "LAN.md lacks \(reachable)")
        let listed = try SnapProcess(["list"], runtimeDirectory: directory)
        #expect(listed.exitStatus(timeout: 30) == 0)
        let row = try #require(listed.lines.first { $0.hasPrefix("Table\t") }, "\(listed.output)")
        #expect(try Documents.quotes("LAN.md", "(without `--lan` the lines are unchanged: `\(row.replacingOccurrences(of: directory + "/snap/", with: "/run/…/"))`)"),
                "LAN.md lacks \(row)")
        let unix = try #require(RawSocket(unixPath: "\(directory)/snap/Table.sock"))
        unix.send(WireCodec.encode(ClientMessage.query, sequence: 0))
        let overUnix = try hostMessages(unix.readUntilClosed().bytes)
        #expect(overUnix == [.info(HostInfo(hostName: "Table", players: 1, maxPlayers: 4, started: false, needsCode: false))])
    }

    @Test("--open: no code on TCP; a bad --code is a usage error (exit 64)", .timeLimit(.minutes(5)))
    func openAndBadCodes() throws {
        let directory = makeRuntimeDirectory()
        let (host, address, code) = try tcpHost(["--open", "--rounds", "1", "--start-when", "1", "--bots", "1"], in: directory)
        #expect(code == nil)
        let ann = try bot("Ann", ["--connect", address], in: directory)
        #expect(ann.exitStatus() == 0)
        #expect(host.exitStatus() == 0)
        let usage = try #require(try Documents.numbers("LAN.md", "`--code XXXXXX` sets one (anything else is a usage error, exit {N})"),
                                 "LAN.md lacks a bad code's exit status").map(Int32.init)[0]
        #expect(try Documents.numbers("LAN.md", "`--open`; bad codes exit {N})") == [Int(usage)])
        for (arguments, message) in [
            (["host", "--headless", "--start-when", "2", "--listen", "127.0.0.1:0", "--code", "O0I1L5"], "--code: a join code is 6 characters"),
            (["host", "--headless", "--start-when", "2", "--listen", "127.0.0.1:0", "--code", "ABCDEF", "--open"], "--code and --open exclude each other"),
            (["host", "--headless", "--start-when", "2", "--code", "ABCDEF"], "--code needs --listen"),
            (["join", "--bot", "--connect", "127.0.0.1:9", "--code", "toolongcode"], "--code: a join code is 6 characters"),
        ] {
            let process = try SnapProcess(arguments, runtimeDirectory: directory)
            #expect(process.exitStatus(timeout: 60) == usage, "\(arguments)")
            #expect(process.errors.contains(message), "\(process.errors)")
        }
    }

    // MARK: - Discovery in a network namespace

    /// A fresh network namespace with multicast on its loopback, removed at the end; nil
    /// (and why) when this process may not make one.
    final class Namespace {
        let name = "snapt-\(getpid())-\(Int.random(in: 0..<1_000_000))"
        var exec: [String] { ["/usr/sbin/ip", "netns", "exec", name] }

        static func make() -> (Namespace?, String) {
            guard getuid() == 0 else { return (nil, "needs root to create a network namespace (uid \(getuid()))") }
            guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") else { return (nil, "no /usr/sbin/ip (iproute2)") }
            let namespace = Namespace()
            for command in [["netns", "add", namespace.name],
                            ["-n", namespace.name, "link", "set", "lo", "up"],
                            ["-n", namespace.name, "link", "set", "lo", "multicast", "on"],
                            ["-n", namespace.name, "route", "add", "224.0.0.0/4", "dev", "lo"]] {
                let (status, errors) = Self.ip(command)
                if status != 0 { return (nil, "ip \(command.joined(separator: " ")) failed: \(errors)") }
            }
            return (namespace, "")
        }

        static func ip(_ arguments: [String]) -> (Int32, String) { runIP(arguments) }

        deinit { _ = Self.ip(["netns", "delete", name]) }
    }

    @Test("a host announced in a namespace shows in snapcards list --lan, a seat taken shows there, and it drops out after kill -9 and after Ctrl-C (its goodbye): times printed",
          .timeLimit(.minutes(5)))
    func discovery() throws {
        let (made, why) = Namespace.make()
        guard let namespace = made else {
            print("skipped: LAN discovery test: \(why)")
            return
        }
        let directory = makeRuntimeDirectory()
        // Watching until killed below (its --for only bounds a watcher the test lost).
        let watcher = try SnapProcess(["list", "--lan", "--watch", "--for", "240"], runtimeDirectory: directory,
                                      wrapper: namespace.exec)
        #expect(eventually(30) { Self.listensForMDNS(watcher) }, "the watcher never joined the mDNS group")
        let started = Date()
        let host = try host(["--listen", "127.0.0.1:0", "--start-when", "2", "--bots", "1"], in: directory,
                            wrapper: namespace.exec)
        // The times below are printed, not limited (a busy machine's say); each timeout bounds a hang.
        let appeared = try #require(watcher.line(startingWith: "+\tlan\tTable", timeout: 30))
        let toAppear = Date().timeIntervalSince(started)
        let listening = try #require(host.line(startingWith: "listening on tcp:"))
        let code = try #require(host.line(startingWith: "join code: "))
        #expect(appeared.hasSuffix("\t\(listening.dropFirst("listening on ".count))\t\(appeared.split(separator: "\t")[6])\tcode"))
        #expect(appeared.contains("\tplayers 1/4\topen\t"))
        #expect(!appeared.contains(code.dropFirst("join code: ".count)), "the code itself is never announced")
        // A one-shot list in the namespace sees it too, beside the local socket.
        let list = try SnapProcess(["list", "--lan", "--wait", "1.2"], runtimeDirectory: directory, wrapper: namespace.exec)
        #expect(list.exitStatus(timeout: 60) == 0)
        #expect(list.lines.contains { $0.hasPrefix("local\tTable\tplayers 1/4\topen\tunix:") })
        #expect(list.lines.contains { $0.hasPrefix("lan\tTable\tplayers 1/4\topen\ttcp:127.0.0.1:") })

        // A player sits down: the live list shows the seat taken.
        let address = String(listening.dropFirst("listening on tcp:".count))
        let joined = Date()
        let ann = try SnapProcess(["join", "--bot", "--name", "Ann", "--connect", address,
                                   "--code", String(code.dropFirst("join code: ".count))] + Self.fast,
                                  runtimeDirectory: directory, wrapper: namespace.exec)
        #expect(watcher.line(startingWith: "~\tlan\tTable\tplayers 2/4\topen", timeout: 30) != nil)
        let toFill = Date().timeIntervalSince(joined)

        // No goodbye: it goes when its records expire (their TTL: LANTableTests, on a test clock).
        host.signal(SIGKILL)
        let killed = Date()
        #expect(watcher.line(startingWith: "-\tlan\tTable", timeout: 60) != nil)
        let toVanish = Date().timeIntervalSince(killed)
        print("LAN discovery: appeared \(Int(toAppear * 1000)) ms after the host started; a seat taken shown after \(Int(toFill * 1000)) ms; gone \(Int(toVanish * 1000)) ms after kill -9")
        _ = ann.exitStatus(timeout: 60)

        // A clean stop (Ctrl-C) says goodbye: gone at once, not after the TTL (the figure printed
        // below tells the two apart: milliseconds, against the seconds of the kill -9 above).
        let second = try self.host(["--listen", "127.0.0.1:0", "--start-when", "2", "--name", "Kitchen"], in: directory,
                              wrapper: namespace.exec)
        #expect(watcher.line(startingWith: "+\tlan\tKitchen", timeout: 30) != nil)
        second.signal(SIGINT)
        let stopped = Date()
        #expect(watcher.line(startingWith: "-\tlan\tKitchen", timeout: 30) != nil)
        let toGoodbye = Date().timeIntervalSince(stopped)
        #expect(second.exitStatus(timeout: 60) == 0)
        print("LAN discovery: gone \(Int(toGoodbye * 1000)) ms after Ctrl-C (goodbye)")
        watcher.signal(SIGKILL)
    }

    // MARK: - A hostile neighbour

    /// The packets of a hostile neighbour, for Tests/Support/hostile-mdns.py: each as its
    /// time (ms), its sender (an index into the script's addresses) and its bytes.
    static func hostilePackets() -> (bytes: [UInt8], count: Int) {
        var out: [UInt8] = []
        var count = 0
        func add(_ message: DNSMessage, at millis: Int, from sender: Int) {
            let bytes = message.encoded()
            out.u32(UInt32(millis))
            out.append(UInt8(sender))
            out.u16(UInt16(bytes.count))
            out += bytes
            count += 1
        }
        func game(_ name: String, machine: String = "box", seats: UInt8 = 0, most: UInt8 = 4, port: Int) -> LANGame {
            LANGame(instance: "\(name) on \(machine)", hostName: name, machine: machine, address: "127.0.0.1", port: port,
                    players: seats, maxPlayers: most, started: false, needsCode: false)
        }
        let loopback: [[UInt8]] = [[127, 0, 0, 1]]
        // 20,000 different games in 2 s, from 32 senders, one in ten each kind of nonsense.
        for index in 0..<20_000 {
            let port = 1000 + index % 100  // nobody listens there
            let message: DNSMessage
            switch index % 10 {
            case 0: message = SnapService.announcement(game("Bad\u{7}\(index)\u{1B}[2J", port: port), addresses: loopback)
            case 1: message = SnapService.announcement(game(String(repeating: "L", count: 250) + "\(index)", port: port),
                                                       addresses: loopback)
            case 2: message = SnapService.announcement(game("Seats\(index)", seats: 200, most: 200, port: port),
                                                       addresses: loopback)
            case 3: message = SnapService.announcement(game("Esc\(index)", machine: "evil\tbox\n\u{1B}[31m\u{202E}\(index)", port: port),
                                                       addresses: loopback)
            case 4: message = SnapService.announcement(game("\u{202E}Bidi\(index)", port: port), addresses: loopback)
            case 5: message = SnapService.announcement(game("Ever\(index)", port: port), addresses: loopback, ttl: .max)
            default: message = SnapService.announcement(game("Fake\(index)", port: port), addresses: loopback)
            }
            add(message, at: index / 10, from: index % 32)
        }
        // Every 100 ms for 3 s, from two more senders: a game that never expires, and one that changes every packet.
        for tick in 0..<30 {
            add(SnapService.announcement(game("Forever", port: 999), addresses: loopback, ttl: .max), at: tick * 100, from: 32)
            add(SnapService.announcement(game("Shifty", seats: UInt8(tick % 5), port: 2000 + tick), addresses: [[127, 0, 0, UInt8(1 + tick % 200)]]),
                at: tick * 100 + 50, from: 33)
        }
        return (out, count)
    }

    @Test("a hostile neighbour floods 20,000 fake games in 2 s: snapcards list --lan stays bounded, prints names safely and still finds the real game",
          .timeLimit(.minutes(5)))
    func hostileNetwork() throws {
        let (made, why) = Namespace.make()
        guard let namespace = made else {
            print("skipped: hostile LAN test: \(why)")
            return
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Support/hostile-mdns.py").path
        let python = try #require(["/usr/bin/python3", "/usr/local/bin/python3"].first(where: FileManager.default.isExecutableFile),
                                  "the hostile sender needs python3")
        let directory = makeRuntimeDirectory()
        let (packets, count) = Self.hostilePackets()
        let file = directory + "/hostile.bin"
        try Data(packets).write(to: URL(fileURLWithPath: file))

        // A watcher that knows the real game before the flood, and the real game.
        // Watching until killed below (its --for only bounds a watcher the test lost).
        let watcher = try SnapProcess(["list", "--lan", "--watch", "--for", "240"], runtimeDirectory: directory,
                                      wrapper: namespace.exec)
        #expect(eventually(30) { Self.listensForMDNS(watcher) }, "the watcher never joined the mDNS group")
        let host = try host(["--listen", "127.0.0.1:0", "--start-when", "2", "--bots", "1"], in: directory,
                            wrapper: namespace.exec)
        defer { host.signal(SIGKILL) }
        let listening = try #require(host.line(startingWith: "listening on tcp:"))
        #expect(watcher.line(startingWith: "+\tlan\tTable", timeout: 30) != nil)
        // Heard again, so confirmed, before the flood: no line says so (the watcher's table keeps
        // it to itself), so this waits out the host's next announcement (one a second). Not what
        // keeps the real game listed: one game from its sender is never the flood's victim.
        usleep(1_500_000)
        let rssBefore = Self.residentKB(watcher.process.processIdentifier)

        let senders = (1...32).map { "127.0.1.\($0)" } + ["127.0.2.1", "127.0.2.2"]
        let sender = try SnapProcess([], runtimeDirectory: directory, wrapper: namespace.exec + [python, script, file] + senders,
                                     runsSnap: false)
        // The flood is on: the watcher lists a game that is not the real one.
        #expect(eventually(30) { watcher.lines.contains { $0.hasPrefix("+\tlan\t") && !$0.hasPrefix("+\tlan\tTable\t") } },
                "the watcher heard none of the flood")
        let started = Date()
        let list = try SnapProcess(["list", "--lan", "--wait", "1.5"], runtimeDirectory: directory, wrapper: namespace.exec)
        // The time is printed, not limited (a busy machine's say); the timeout bounds a hang.
        let status = list.exitStatus(timeout: 60)
        let took = Date().timeIntervalSince(started)
        #expect(status == 0, "snapcards list --lan did not finish under the flood (\(String(describing: status)))")
        let sent = sender.exitStatus(timeout: 60)
        let floodEnded = Date()
        #expect(sent == 0, "\(sender.errors)")
        let rssAfter = Self.residentKB(watcher.process.processIdentifier)

        let lan = list.lines.filter { $0.hasPrefix("lan\t") }
        // Bounded: at most the cap; the real game listed, with its true address.
        #expect(lan.count <= LANGameTable.maxGames, "\(lan.count) games listed")
        #expect(lan.count >= 32, "the flood was heard: \(lan.count) games listed")
        let address = String(listening.dropFirst("listening on ".count))
        #expect(lan.contains { $0.hasPrefix("lan\tTable\tplayers 1/4\topen\t\(address)\t") }, "\(lan.prefix(5))")
        #expect(lan.contains { $0.hasPrefix("lan\tForever\t") })
        // Safe: no control character, no bidi override, seven fields a line, nonsense refused.
        let bad = list.output.unicodeScalars.filter {
            ($0.properties.generalCategory == .control && $0 != "\t" && $0 != "\n") || $0.properties.generalCategory == .format
        }
        #expect(bad.isEmpty, "\(bad.map { String($0.value, radix: 16) })")
        for line in lan {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            #expect(fields.count == 7, "\(line.debugDescription)")
            #expect(fields.count < 7 || fields[5].unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic
                || ("0"..."9").contains($0) || "-_?".unicodeScalars.contains($0)) || $0 == "…" }, "\(line.debugDescription)")
            #expect(!line.hasPrefix("lan\tBad") && !line.hasPrefix("lan\tSeats") && !line.hasPrefix("lan\tLLL")
                    && !line.contains("players 200"), "\(line.debugDescription)")
        }
        // The watcher never lost the real game, stayed bounded, and once the flood ended
        // everything else went (kept at most 10 s, LANGameTable.maxTTL), "never expires" too:
        // waited for (the time printed), a hang bounded at a minute.
        #expect(!watcher.lines.contains { $0.hasPrefix("-\tlan\tTable") })
        #expect(watcher.line(startingWith: "+\tlan\tForever", timeout: 60) != nil)
        #expect(eventually(60) { Self.replayed(watcher.lines).shown == ["Table"] },
                "still listed: \(Self.replayed(watcher.lines).shown.sorted().prefix(5))")
        let toClear = Date().timeIntervalSince(floodEnded)
        let (shown, most) = Self.replayed(watcher.lines)
        #expect(most <= LANGameTable.maxGames && most >= 32, "\(most) games at once in the live list")
        #expect(shown == ["Table"])
        let watched = watcher.lines.filter { $0.hasPrefix("+\tlan\t") }.count
        #expect(watcher.lines.allSatisfy { $0.unicodeScalars.allSatisfy { $0.properties.generalCategory != .control || $0 == "\t" } })
        if let rssBefore, let rssAfter { #expect(rssAfter - rssBefore < 32_000, "the watcher grew by \(rssAfter - rssBefore) kB") }

        // Joining a fake that points at a port nobody listens on fails, saying so (the time printed).
        let joinStarted = Date()
        let join = try SnapProcess(["join", "--bot", "--name", "Ann", "--connect", "127.0.0.1:1007"], runtimeDirectory: directory,
                                   wrapper: namespace.exec)
        #expect(join.exitStatus(timeout: 60) == 3)  // no network
        let joinTook = Date().timeIntervalSince(joinStarted)
        #expect((join.output + join.errors).contains("cannot connect to tcp:127.0.0.1:1007: nobody is listening there"),
                "\(join.output) \(join.errors)")
        watcher.signal(SIGKILL)
        print("hostile LAN: \(sender.output.trimmingCharacters(in: .whitespacesAndNewlines)) (\(count) prepared); "
              + "snapcards list --lan --wait 1.5 took \(Int(took * 1000)) ms and listed \(lan.count) LAN games; "
              + "the watcher printed \(watched) '+' lines, resident \(rssBefore ?? -1) kB before the flood, \(rssAfter ?? -1) kB after, "
              + "and showed the real game alone \(Int(toClear * 1000)) ms after the flood ended; "
              + "joining a dead port failed after \(Int(joinTook * 1000)) ms")
    }

    /// A `--watch` output replayed: the games it shows now, and the most it showed at once.
    /// Each poll prints its +/~ lines, then its - lines; counted at poll ends.
    static func replayed(_ lines: [String]) -> (shown: Set<String>, most: Int) {
        var shown: Set<String> = []
        var most = 0
        var removing = false
        for line in lines {
            let fields = line.split(separator: "\t")
            guard fields.count > 2 else { continue }
            if fields[0] != "-", removing { most = max(most, shown.count) }
            removing = fields[0] == "-"
            if fields[0] == "+" { shown.insert(String(fields[2])) }
            if fields[0] == "-" { shown.remove(String(fields[2])) }
        }
        return (shown, max(most, shown.count))
    }

    /// Whether `watcher` (run in a namespace of its own) listens for mDNS: a socket in its
    /// namespace is in the group 224.0.0.251 (in /proc/PID/net/igmp, FB0000E0). Before any
    /// host starts there, only the watcher's can be; the namespace is checked to be another
    /// than this process's first, which `ip netns exec` switches before it runs snapcards.
    static func listensForMDNS(_ watcher: SnapProcess) -> Bool {
        let pid = watcher.process.processIdentifier
        guard let theirs = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/ns/net"),
              let ours = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/net"),
              theirs != ours,
              let groups = try? String(contentsOfFile: "/proc/\(pid)/net/igmp", encoding: .utf8) else { return false }
        return groups.contains("FB0000E0")
    }

    /// A process's resident memory (VmRSS) in kB.
    static func residentKB(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }
}

extension [UInt8] {
    fileprivate mutating func u16(_ value: UInt16) { append(contentsOf: [UInt8(value >> 8), UInt8(value & 0xFF)]) }
    fileprivate mutating func u32(_ value: UInt32) {
        u16(UInt16(value >> 16))
        u16(UInt16(value & 0xFFFF))
    }
}

/// LAN.md quotes `snapcards list --lan`'s default listening time: the one its help shows.
@Suite("LAN.md quotes snapcards list", .blocksThreads)
struct ListDocumentationTests {
    @Test("snapcards list's --wait default is the one LAN.md names")
    func waitDefault() throws {
        let help = try runSnap(["list", "--help"])
        #expect(help.status == 0)
        let flat = help.output.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
        let shown = try #require(flat.range(of: #"--wait <[a-z-]+> .*?\(default: ([0-9.]+)\)"#, options: .regularExpression)
            .map { String(flat[$0]) }, "\(help.output)")
        let value = String(shown.split(separator: " ").last!.dropLast())
        #expect(try Documents.quotes("LAN.md", "listens for `--wait` seconds (default \(value))"), "help says \(value)")
    }
}

private extension String {
    /// "600" as a mode is written: "0600".
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
