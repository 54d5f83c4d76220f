import Foundation
import SnapProtocol
import Testing

/// Playing across the room: the join code over TCP (real processes on 127.0.0.1), and
/// discovery by multicast DNS inside a network namespace the test makes (root only;
/// otherwise skipped with the reason). No packet leaves this machine.
@Suite("LAN play: join codes and discovery, as processes", .serialized)
struct LANTests {
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
        let without = try bot("Eve", ["--connect", address], in: directory)
        #expect(without.exitStatus(timeout: 10) == 1)
        #expect(without.output.contains("(wrongCode): this game needs its join code"))
        let wrong = try bot("Eve", ["--connect", address, "--code", code6 == "AAAAAA" ? "BBBBBB" : "AAAAAA"], in: directory)
        #expect(wrong.exitStatus(timeout: 10) == 1)
        #expect(wrong.output.contains("(wrongCode): wrong join code"))
        #expect(host.line(startingWith: "wrong join code from 127.0.0.1 (2 in a row)", timeout: 5) != nil)
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
    func withheldInfo() throws {
        let directory = makeRuntimeDirectory()
        let (host, address, _) = try tcpHost(["--start-when", "2", "--bots", "1"], in: directory)
        defer { host.signal(SIGKILL) }
        let port = try #require(Int(address.split(separator: ":").last!))
        let tcp = try #require(RawSocket(loopbackPort: port))
        tcp.send(WireCodec.encode(ClientMessage.query, sequence: 0))
        let overTCP = try hostMessages(tcp.readUntilClosed().bytes)
        #expect(overTCP == [.info(HostInfo(hostName: "Table", players: 0, maxPlayers: 4, started: false, needsCode: true))])
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
        for (arguments, message) in [
            (["host", "--headless", "--start-when", "2", "--listen", "127.0.0.1:0", "--code", "O0I1L5"], "--code: a join code is 6 characters"),
            (["host", "--headless", "--start-when", "2", "--listen", "127.0.0.1:0", "--code", "ABCDEF", "--open"], "--code and --open exclude each other"),
            (["host", "--headless", "--start-when", "2", "--code", "ABCDEF"], "--code needs --listen"),
            (["join", "--bot", "--connect", "127.0.0.1:9", "--code", "toolongcode"], "--code: a join code is 6 characters"),
        ] {
            let process = try SnapProcess(arguments, runtimeDirectory: directory)
            #expect(process.exitStatus(timeout: 10) == 64, "\(arguments)")
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

        static func ip(_ arguments: [String]) -> (Int32, String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
            process.arguments = arguments
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            do { try process.run() } catch { return (-1, "\(error)") }
            process.waitUntilExit()
            return (process.terminationStatus,
                    String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        }

        deinit { _ = Self.ip(["netns", "delete", name]) }
    }

    @Test("a host announced in a namespace shows in snap list --lan within 2 s, and drops out within 5 s of kill -9",
          .timeLimit(.minutes(5)))
    func discovery() throws {
        let (made, why) = Namespace.make()
        guard let namespace = made else {
            print("skipped: LAN discovery test: \(why)")
            return
        }
        let directory = makeRuntimeDirectory()
        let watcher = try SnapProcess(["list", "--lan", "--watch", "--for", "20"], runtimeDirectory: directory,
                                      wrapper: namespace.exec)
        usleep(300_000)  // the watcher is listening
        let started = Date()
        let host = try host(["--listen", "127.0.0.1:0", "--start-when", "2", "--bots", "1"], in: directory,
                            wrapper: namespace.exec)
        let appeared = try #require(watcher.line(startingWith: "+\tlan\tTable", timeout: 5))
        let toAppear = Date().timeIntervalSince(started)
        let listening = try #require(host.line(startingWith: "listening on tcp:"))
        let code = try #require(host.line(startingWith: "join code: "))
        #expect(appeared.hasSuffix("\t\(listening.dropFirst("listening on ".count))\t\(appeared.split(separator: "\t")[6])\tcode"))
        #expect(appeared.contains("\tplayers 1/4\topen\t"))
        #expect(!appeared.contains(code.dropFirst("join code: ".count)), "the code itself is never announced")
        #expect(toAppear < 2, "appeared after \(toAppear) s")
        // A one-shot list in the namespace sees it too, beside the local socket.
        let list = try SnapProcess(["list", "--lan", "--wait", "1.2"], runtimeDirectory: directory, wrapper: namespace.exec)
        #expect(list.exitStatus(timeout: 10) == 0)
        #expect(list.lines.contains { $0.hasPrefix("local\tTable\tplayers 1/4\topen\tunix:") })
        #expect(list.lines.contains { $0.hasPrefix("lan\tTable\tplayers 1/4\topen\ttcp:127.0.0.1:") })

        // A player sits down: the live list shows the seat taken within a second.
        let address = String(listening.dropFirst("listening on tcp:".count))
        let joined = Date()
        let ann = try SnapProcess(["join", "--bot", "--name", "Ann", "--connect", address,
                                   "--code", String(code.dropFirst("join code: ".count))] + Self.fast,
                                  runtimeDirectory: directory, wrapper: namespace.exec)
        #expect(watcher.line(startingWith: "~\tlan\tTable\tplayers 2/4\topen", timeout: 5) != nil)
        let toFill = Date().timeIntervalSince(joined)
        #expect(toFill < 1, "seat shown after \(toFill) s")

        host.signal(SIGKILL)
        let killed = Date()
        #expect(watcher.line(startingWith: "-\tlan\tTable", timeout: 8) != nil)
        let toVanish = Date().timeIntervalSince(killed)
        #expect(toVanish < 5, "gone after \(toVanish) s")
        print("LAN discovery: appeared \(Int(toAppear * 1000)) ms after the host started; a seat taken shown after \(Int(toFill * 1000)) ms; gone \(Int(toVanish * 1000)) ms after kill -9")
        _ = ann.exitStatus(timeout: 10)

        // A clean stop (Ctrl-C) says goodbye: gone at once, not after the TTL.
        let second = try self.host(["--listen", "127.0.0.1:0", "--start-when", "2", "--name", "Kitchen"], in: directory,
                              wrapper: namespace.exec)
        #expect(watcher.line(startingWith: "+\tlan\tKitchen", timeout: 5) != nil)
        second.signal(SIGINT)
        let stopped = Date()
        #expect(watcher.line(startingWith: "-\tlan\tKitchen", timeout: 5) != nil)
        let toGoodbye = Date().timeIntervalSince(stopped)
        #expect(toGoodbye < 1, "gone after \(toGoodbye) s")
        #expect(second.exitStatus(timeout: 10) == 0)
        print("LAN discovery: gone \(Int(toGoodbye * 1000)) ms after Ctrl-C (goodbye)")
        watcher.signal(SIGKILL)
    }
}
