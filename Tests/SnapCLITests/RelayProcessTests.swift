import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SnapPlatform
import SnapRelay
import SnapRelayProtocol
import SnapTestSupport
import Testing

/// A relay in this process, so that a test sees (and may change) every byte it copies; the
/// host and the players are `snapcards` processes as usual. (The relay people run has no
/// such hook: `snapcards relay serve` is tested as a process below.)
final class InProcessRelay: Sendable {
    let server: RelayServer
    let address: String
    /// Every byte copied between spliced connections, as it came.
    let copied = NIOLockedValueBox<[UInt8]>([])
    /// Whether the one byte `flipAfter` asks for was changed.
    let flipped = NIOLockedValueBox(false)

    /// `flipAfter`: the first buffer of 32 bytes or more from a host to a player, copied once
    /// that many bytes have gone through, gets its last byte inverted (a record's ciphertext
    /// or tag, not its header).
    /// `spliceFirstAs`: the first `spliced TAG` said to a host is this line instead (a hostile
    /// relay's tag that is not one); the later ones are said as they are.
    /// `version1`: a relay of the protocol's version 1, which tells no peer tags (it refuses
    /// `register-peers` as an unknown word).
    init(in directory: String, flipAfter: Int? = nil, spliceFirstAs: String? = nil, version1: Bool = false) throws {
        var limits = RelayLimits()
        limits.tellsPeers = !version1
        server = RelayServer(limits: limits, loop: MultiThreadedEventLoopGroup.singleton.next(), logger: Logger(label: "relay"))
        if let spliceFirstAs {
            let said = NIOLockedValueBox(false)
            server.replyHook = { line in
                guard line.starts(with: Array("spliced ".utf8)), said.withLockedValue({ done in defer { done = true }; return !done })
                else { return line }
                return Array(spliceFirstAs.utf8) + [0x0a]
            }
        }
        let (copied, flipped) = (copied, flipped)
        server.copyHook = { toPlayer, buffer in
            let before = copied.withLockedValue { bytes in
                defer { bytes += buffer.readableBytesView }
                return bytes.count
            }
            guard let flipAfter, toPlayer, before >= flipAfter, buffer.readableBytes >= 32,
                  flipped.withLockedValue({ done in defer { done = true }; return !done }) else { return }
            let last = buffer.writerIndex - 1
            buffer.setInteger(buffer.getInteger(at: last, as: UInt8.self)! ^ 0xFF, at: last)
        }
        let server = server
        let port = try waitOffPool {
            try await server.listen(host: "127.0.0.1", port: 0, identity: try TLSIdentity.selfMade(in: directory + "/relay-tls"))
        }
        address = "127.0.0.1:\(port)"
    }

    func shutdown() throws {
        let server = server
        try waitOffPool { await server.shutdown() }
    }
}

/// A relay, a host that only dials out (a Unix socket, no TCP listener) and players who join
/// by its invitation, all as `snapcards` processes on 127.0.0.1 (docs/RELAY.md).
@Suite("snapcards relay serve, host --relay and join --invite, as processes", .blocksThreads, .serialized)
struct RelayProcessTests {
    static let fast = ["--speed", "0.01"]

    /// A `snapcards relay serve` process; its address.
    func relay(in directory: String, listen: String = "127.0.0.1:0") throws -> (SnapProcess, String) {
        let relay = try SnapProcess(["relay", "serve", "--listen", listen, "--verbose"],
                                    runtimeDirectory: directory, environment: ["XDG_STATE_HOME": directory + "/relay-state"])
        let listening = try #require(relay.line(startingWith: "listening on tcp:"), "relay: \(relay.output) \(relay.errors)")
        #expect(relay.lines.contains { $0.hasPrefix("certificate: SHA256:") })
        // Its certificate is its own (its own state directory), not the host's.
        return (relay, String(listening.dropFirst("listening on tcp:".count)))
    }

    func host(_ extra: [String], relay address: String, in directory: String) throws -> (SnapProcess, String) {
        let host = try SnapProcess(["host", "--headless", "--name", "Tabletop", "--turn-limit", "150", "--relay", address]
                                   + Self.fast + extra, runtimeDirectory: directory)
        let invite = try #require(host.line(startingWith: "invite: "), "host: \(host.output) \(host.errors)")
        return (host, String(invite.dropFirst("invite: ".count)))
    }

    func join(_ name: String, _ invite: String, in directory: String) throws -> SnapProcess {
        try SnapProcess(["join", "--bot", "--name", name, "--invite", invite] + Self.fast, runtimeDirectory: directory)
    }

    @Test("a host with no TCP listener is joined by invitation through the relay, the game is played to its end, and the relay's copies hold no code, no name and no frame",
          .timeLimit(.minutes(5)))
    func playThroughRelay() throws {
        let directory = makeRuntimeDirectory()
        let relay = try InProcessRelay(in: directory)
        let (host, invite) = try host(["--rounds", "1", "--start-when", "2"], relay: relay.address, in: directory)
        #expect(invite.hasPrefix("snap://\(relay.address)/"))
        // The host listens on its Unix socket only.
        #expect(!host.lines.contains { $0.hasPrefix("listening on tcp:") })
        #expect(host.lines.contains { $0.hasPrefix("listening on unix:") })
        let code = try #require(host.line(startingWith: "join code: ")).dropFirst("join code: ".count)
        #expect(invite.contains("#\(code),SHA256:"))
        let players = try ["Marigold", "Bartholomew"].map { try join($0, invite, in: directory) }
        #expect(host.exitStatus() == 0, "host: \(host.output) \(host.errors)")
        #expect(host.lines.filter { $0.hasPrefix("round 1: ") }.count == 1)
        for player in players { #expect(player.exitStatus() == 0, "player: \(player.output) \(player.errors)") }

        try relay.shutdown()
        let copied = relay.copied.withLockedValue { $0 }
        // A game's worth of bytes went through (both ends' TLS handshakes alone are kilobytes)…
        #expect(copied.count > 4000, "copied \(copied.count) bytes")
        // …and none of it is readable.
        for secret in [String(code), "Marigold", "Bartholomew", "Tabletop", "SNAP"] {
            #expect(!contains(copied, Array(secret.utf8)), "the relay saw \(secret)")
        }
    }

    @Test("a relay that changes one byte on its way to a player mid-game: that player is told the connection was tampered with (exit 2), nothing wrong is played, and the other two play on to the end",
          .timeLimit(.minutes(5)))
    func flippedByte() throws {
        let directory = makeRuntimeDirectory()
        let relay = try InProcessRelay(in: directory, flipAfter: 12_000)
        let (host, invite) = try host(["--rounds", "2", "--start-when", "3", "--grace", "2"], relay: relay.address, in: directory)
        let players = try ["Ann", "Bob", "Cy"].map { try join($0, invite, in: directory) }
        let statuses = players.map { $0.exitStatus(timeout: 120) }
        let outputs = players.map(\.output).joined(separator: "\n")
        #expect(relay.flipped.withLockedValue { $0 }, "copied \(relay.copied.withLockedValue { $0.count }) bytes")
        let told = players.indices.filter { players[$0].output.contains("the connection was tampered with") }
        #expect(told.count == 1, "\(outputs)")
        for index in players.indices {
            // The one told ends with a dropped connection's status; the other two play both rounds.
            #expect(statuses[index] == (told.contains(index) ? 2 : 0), "\(players[index].output)")
        }
        #expect(host.exitStatus(timeout: 60) == 0, "host: \(host.output) \(host.errors)")
        #expect(host.lines.contains { $0.hasPrefix("round 2: ") }, "host: \(host.output)")
        #expect(host.lines.contains { $0.hasPrefix("card conservation: held") }, "host: \(host.output)")
        // Every deal the players saw verified: no changed card got through.
        #expect(!outputs.contains("does not match its commitment"), "\(outputs)")
        try relay.shutdown()
    }

    @Test("through the relay, a bot killed mid-round and started again takes its seat back with its token, and a watcher joins by the same invitation",
          .timeLimit(.minutes(5)))
    func rejoinAndWatchThroughRelay() throws {
        let directory = makeRuntimeDirectory()
        let (relay, address) = try relay(in: directory)
        let slow = ["--speed", "0.05"]
        let host = try SnapProcess(["host", "--headless", "--name", "Tabletop", "--turn-limit", "200", "--rounds", "1",
                                    "--start-when", "3", "--grace", "20", "--relay", address, "--verbose"] + slow,
                                   runtimeDirectory: directory)
        let invite = String(try #require(host.line(startingWith: "invite: ")).dropFirst("invite: ".count))
        func join(_ name: String, _ extra: [String] = []) throws -> SnapProcess {
            try SnapProcess(["join", "--bot", "--name", name, "--invite", invite] + slow + extra, runtimeDirectory: directory)
        }
        var bots = try ["Ann", "Bob", "Cy"].map { try join($0) }
        #expect(host.line(startingWith: "never", timeout: 2) == nil)  // let the round get going
        bots[1].signal(SIGKILL)
        let away = try #require(host.line(startingWith: "seat ", timeout: 10), "host: \(host.output)")
        #expect(away.hasSuffix(": Bob away (grace 20 s)"), "\(away)")
        let seatNumber = away.dropFirst("seat ".count).prefix { $0 != ":" }
        bots[1] = try join("Bob")  // the same name by the same invitation: its kept token
        #expect(host.line(startingWith: "seat \(seatNumber): Bob back", timeout: 10) != nil, "host: \(host.output)")
        let watcher = try join("Eve", ["--watch"])
        #expect(host.exitStatus(timeout: 90) == 0, "host: \(host.output) \(host.errors)")
        #expect(host.lines.contains { $0.hasPrefix("card conservation: held") })
        for bot in bots { #expect(bot.exitStatus(timeout: 10) == 0, "\(bot.output)") }
        #expect(watcher.exitStatus(timeout: 10) == 0, "\(watcher.output)")
        #expect(watcher.lines.contains { $0.hasPrefix("round 1: ") && $0.contains("verified") }, "\(watcher.output)")
        relay.signal(SIGTERM)
        _ = relay.exitStatus()
    }

    @Test("the relay restarts mid-game: the host asks for its room again under the same id, the players rejoin by the same invitation within the grace, and the game ends",
          .timeLimit(.minutes(5)))
    func relayRestart() throws {
        let directory = makeRuntimeDirectory()
        let relayState = ["XDG_STATE_HOME": directory + "/relay-state"]  // the same certificate after the restart
        var (relay, address) = try relay(in: directory)
        let slow = ["--speed", "0.05"]
        let host = try SnapProcess(["host", "--headless", "--name", "Tabletop", "--turn-limit", "200", "--rounds", "1",
                                    "--start-when", "2", "--grace", "30", "--relay", address, "--verbose"] + slow,
                                   runtimeDirectory: directory)
        let invite = String(try #require(host.line(startingWith: "invite: ")).dropFirst("invite: ".count))
        let room = invite.dropFirst("snap://\(address)/".count).prefix { $0 != "#" }
        let bots = try ["Ann", "Bob"].map {
            try SnapProcess(["join", "--bot", "--name", $0, "--invite", invite] + slow, runtimeDirectory: directory)
        }
        #expect(host.line(startingWith: "never", timeout: 2) == nil)  // let the round get going
        relay.signal(SIGKILL)
        _ = relay.exitStatus()
        #expect(host.line(startingWith: "relay: the connection to the relay \(address) closed: asking for room \(room) again",
                          timeout: 10) != nil, "host: \(host.output)")
        relay = try SnapProcess(["relay", "serve", "--listen", address], runtimeDirectory: directory, environment: relayState)
        #expect(relay.line(startingWith: "listening on tcp:\(address)") != nil, "relay: \(relay.output) \(relay.errors)")
        #expect(host.line(startingWith: "relay: room \(room) is open again", timeout: 20) != nil, "host: \(host.output)")
        #expect(host.exitStatus(timeout: 120) == 0, "host: \(host.output) \(host.errors)")
        #expect(host.lines.contains { $0.hasPrefix("card conservation: held") })
        #expect(host.lines.contains { $0.hasSuffix(": Ann back") } || host.lines.contains { $0.hasSuffix(": Bob back") },
                "host: \(host.output)")
        for bot in bots { #expect(bot.exitStatus(timeout: 10) == 0, "\(bot.output)") }
        relay.signal(SIGTERM)
        _ = relay.exitStatus()
    }

    @Test("an invitation whose fingerprint was changed is refused naming both fingerprints; nothing reaches the host",
          .timeLimit(.minutes(5)))
    func tamperedInvitation() throws {
        let directory = makeRuntimeDirectory()
        let (relay, address) = try relay(in: directory)
        let (host, invite) = try host(["--rounds", "1", "--start-when", "2"], relay: address, in: directory)
        var characters = Array(invite)
        let at = characters.count - 3
        characters[at] = characters[at] == "A" ? "B" : "A"
        let tampered = String(characters)
        let player = try join("Mallory", tampered, in: directory)
        #expect(player.exitStatus(timeout: 30) == 3)
        let real = String(invite.suffix(50).split(separator: ",").last!)
        let forged = String(tampered.suffix(50).split(separator: ",").last!)
        #expect(player.output.contains(real) && player.output.contains(forged), "\(player.output)")
        #expect(player.output.contains("nothing was sent"))
        #expect(!host.output.contains("Mallory") && !host.errors.contains("Mallory"))
        host.signal(SIGTERM)
        _ = host.exitStatus()
        relay.signal(SIGTERM)
        _ = relay.exitStatus()
    }

    @Test("an invitation to a room that is gone says the game is over or the host offline (exit 3)", .timeLimit(.minutes(5)))
    func roomGone() throws {
        let directory = makeRuntimeDirectory()
        let (relay, address) = try relay(in: directory)
        let (host, invite) = try host(["--rounds", "1", "--start-when", "2"], relay: address, in: directory)
        host.signal(SIGTERM)
        _ = host.exitStatus()
        let player = try join("Late", invite, in: directory)
        #expect(player.exitStatus(timeout: 30) == 3)
        #expect(player.output.contains("the game at 127.0.0.1 is over or the host is offline"), "\(player.output)")
        relay.signal(SIGTERM)
        _ = relay.exitStatus()
    }

    @Test("a malformed invitation is a usage error that says what is wrong")
    func malformedInvitation() throws {
        let directory = makeRuntimeDirectory()
        let player = try SnapProcess(["join", "--bot", "--invite", "snap://127.0.0.1:7790/short#ABCDEF,SHA256:x"], runtimeDirectory: directory)
        #expect(player.exitStatus() == 64)
        #expect(player.errors.contains("--invite: not a valid invitation (the room must be 32 lowercase hexadecimal digits)"),
                "\(player.errors)")
    }

    @Test("relay serve refuses caps that could carry no game, in words (usage error, 64)")
    func tinyCaps() throws {
        let directory = makeRuntimeDirectory()
        for (option, value, words) in [("--bytes-per-second", "10", "--bytes-per-second must be 0 (no cap) or at least 1024"),
                                       ("--pending-per-address", "0", "--pending-per-address must be at least 1")] {
            let relay = try SnapProcess(["relay", "serve", "--listen", "127.0.0.1:0", option, value], runtimeDirectory: directory)
            #expect(relay.exitStatus() == 64)
            #expect(relay.errors.contains(words), "\(relay.errors)")
        }
    }

    @Test("an invitee who guesses join codes through the relay is locked out alone: the host counts each player by the relay's tag of its own address, not by the relay's address every invitee shares, and two honest invitees beside it join and play to the end",
          .timeLimit(.minutes(5)))
    func guesserLockedOutAlone() throws {
        // Two addresses at the relay on one machine: the guesser dials it on ::1, the honest
        // invitees on 127.0.0.1; all of them reach the host from the relay's address.
        if let why = Self.ipv6LoopbackMissing() {
            print("skipped: a guessing invitee beside honest ones through the relay: \(why)")
            return
        }
        let directory = makeRuntimeDirectory()
        let (relay, listening) = try relay(in: directory, listen: "[::]:0")
        let port = try #require(listening.split(separator: ":").last.map(String.init))
        let (host, invite) = try host(["--rounds", "1", "--start-when", "2"], relay: "127.0.0.1:\(port)", in: directory)
        let code = String(try #require(host.line(startingWith: "join code: ")).dropFirst("join code: ".count))
        let guessing = invite.replacingOccurrences(of: "snap://127.0.0.1:\(port)/", with: "snap://[::1]:\(port)/")
            .replacingOccurrences(of: "#\(code),", with: "#\(code == "AAAAAA" ? "BBBBBB" : "AAAAAA"),")
        #expect(guessing.hasPrefix("snap://[::1]:") && !guessing.contains("#\(code),"), "\(guessing)")
        // The guesser guesses until the host has counted five wrong codes in a row: it is then
        // refused unheard for 4 s (1 s after the third, doubling), long enough for the honest
        // invitees below to say hello inside that pause, so that a host counting by the relay's
        // address would refuse them too. Guesses inside a pause are refused unheard, not counted.
        var guesses: [SnapProcess] = []
        while !host.lines.contains(where: { $0.hasSuffix("(5 in a row)") }), guesses.count < 60 {
            let guesser = try join("Mallory", guessing, in: directory)
            let status = guesser.exitStatus()
            #expect(status != nil && status != 0, "guesser: \(guesser.output) \(guesser.errors)")
            #expect(guesser.output.contains("(wrongCode)"), "guesser: \(guesser.output)")
            guesses.append(guesser)
        }
        // The honest invitees join by the same room at once.
        let players = try ["Ann", "Bob"].map { try join($0, invite, in: directory) }
        // The guesser's five, all under one tag (16 hex digits): neither the relay's address nor its own.
        let counted = host.lines.filter { $0.hasPrefix("wrong join code from ") }
        let tags = Set(counted.map { $0.dropFirst("wrong join code from relay peer ".count).prefix(16) })
        #expect(counted.count == 5 && tags.count == 1 && counted.allSatisfy { $0.hasPrefix("wrong join code from relay peer ") },
                "host: \(host.output)")
        #expect(tags.allSatisfy { $0.count == 16 && $0.allSatisfy(\.isHexDigit) }, "\(tags)")
        // A guess inside a pause was refused unheard under the same tag.
        for guesser in guesses where guesser.output.contains("too many wrong join codes") {
            #expect(tags.contains { guesser.output.contains("too many wrong join codes from relay peer \($0): try again in ") },
                    "guesser: \(guesser.output)")
        }
        #expect(!host.output.contains("127.0.0.1 (") && !host.output.contains("::1"), "host: \(host.output)")
        // The honest invitees play the match to its end.
        for player in players {
            #expect(player.exitStatus() == 0, "player: \(player.output) \(player.errors)")
            #expect(!player.output.contains("too many wrong join codes"), "player: \(player.output)")
        }
        #expect(host.exitStatus() == 0, "host: \(host.output) \(host.errors)")
        #expect(host.lines.filter { $0.hasPrefix("round 1: ") }.count == 1, "host: \(host.output)")
        relay.signal(SIGTERM)
        _ = relay.exitStatus()
    }

    @Test("a host of version 2 with a relay of version 1: it says once that every invitee counts as the relay's address, asks in the first form's words, and players join and play to the end",
          .timeLimit(.minutes(5)))
    func hostWithVersion1Relay() throws {
        let directory = makeRuntimeDirectory()
        let relay = try InProcessRelay(in: directory, version1: true)
        let (host, invite) = try host(["--rounds", "1", "--start-when", "2"], relay: relay.address, in: directory)
        let told = host.lines.filter { $0.contains("speaks version 1 of the relay protocol") }
        #expect(told == ["relay: the relay \(relay.address) speaks version 1 of the relay protocol: every invitee reaches this game "
            + "from the relay's address, so one who guesses join codes keeps them all out for a while (docs/RELAY.md §3)"],
                "host: \(host.output)")
        let players = try ["Ann", "Bob"].map { try join($0, invite, in: directory) }
        for player in players { #expect(player.exitStatus() == 0, "player: \(player.output) \(player.errors)") }
        #expect(host.exitStatus() == 0, "host: \(host.output) \(host.errors)")
        #expect(host.lines.filter { $0.hasPrefix("round 1: ") }.count == 1, "host: \(host.output)")
        try relay.shutdown()
    }

    /// Why this machine cannot put a TCP listener on ::1 (no IPv6 loopback), or nil if it can.
    static func ipv6LoopbackMissing() -> String? {
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return "no IPv6 sockets here (\(String(cString: strerror(errno))))" }
        defer { close(fd) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        }
        return bound == 0 ? nil : "no IPv6 loopback address ::1 (\(String(cString: strerror(errno))))"
    }

    @Test("a relay that tells the host a tag that is not one: that player's connection alone is dropped, the host says why quoting the line, and two players after it play to the end",
          .timeLimit(.minutes(5)))
    func malformedTagFromRelay() throws {
        let directory = makeRuntimeDirectory()
        let relay = try InProcessRelay(in: directory, spliceFirstAs: "spliced 10.0.0.2")
        let (host, invite) = try host(["--rounds", "1", "--start-when", "2"], relay: relay.address, in: directory)
        let first = try join("Eve", invite, in: directory)
        let status = first.exitStatus()
        #expect(status != nil && status != 0, "first: \(first.output) \(first.errors)")
        let dropped = try #require(host.line(startingWith: "relay: a player through the relay was dropped: ", timeout: 60),
                                   "host: \(host.output) \(host.errors)")
        #expect(dropped.hasSuffix("the relay at \(relay.address) does not speak the relay protocol (it said \"spliced 10.0.0.2\")"),
                "\(dropped)")
        let players = try ["Ann", "Bob"].map { try join($0, invite, in: directory) }
        for player in players { #expect(player.exitStatus() == 0, "player: \(player.output) \(player.errors)") }
        #expect(host.exitStatus() == 0, "host: \(host.output) \(host.errors)")
        #expect(host.lines.filter { $0.hasPrefix("round 1: ") }.count == 1, "host: \(host.output)")
        try relay.shutdown()
    }

    func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
