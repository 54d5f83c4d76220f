import SnapBytes
import SnapEngine
import SnapProtocol
import SnapTestSupport
import Testing
@testable import SnapSession

/// The join code (protocol version 3): asked of TCP connections only, checked before
/// anything about the game is said, wrong codes counted and slowed per address.
@Suite("Host session: the join code")
struct JoinCodeTests {
    static func host(code: String? = "K7QX4M") -> HostSession {
        var configuration = HostConfiguration(hostName: "Host")
        configuration.joinCode = code
        configuration.nonceSeed = 7
        return HostSession(configuration)
    }

    static func closes(_ actions: [HostAction], _ id: ConnectionID) -> (CloseReason, String)? {
        for case .close(id, let reason, let message) in actions { return (reason, message) }
        return nil
    }

    static func welcomed(_ actions: [HostAction], _ id: ConnectionID) -> Bool {
        actions.contains { if case .send(id, .welcome) = $0 { true } else { false } }
    }

    @Test("over TCP: no code or a wrong one is refused as wrongCode; the right one, in any case, signs in")
    func tcpNeedsTheCode() {
        var host = Self.host()
        let tries: [(String, Bool)] = [("", false), ("AAAAAA", false), ("k7q-x4m", true)]
        for (index, (code, accepted)) in tries.enumerated() {
            let id = ConnectionID(UInt64(index + 1))
            _ = host.handle(.connected(id, local: false, remote: "192.0.2.7"), now: .zero)
            let actions = host.handle(.message(id, .hello(Hello(name: "Ann", joinCode: code))), now: .zero)
            #expect(Self.welcomed(actions, id) == accepted, "code \(code)")
            if !accepted {
                let (reason, message) = try! #require(Self.closes(actions, id))
                #expect(reason == .wrongCode)
                #expect(message.contains("join code"))
                #expect(actions.contains(.announce("wrong join code from 192.0.2.7 (\(index + 1) in a row)")))
            }
        }
        #expect(host.lobby.map(\.name) == ["Ann"])
    }

    @Test("a version-2 client's hello (no code field on the wire) is refused as versionUnsupported naming both ranges, before the code")
    func oldClient() throws {
        let bytes = WireCodec.encode(ClientMessage.hello(Hello(versions: 2...2, name: "Ann")), sequence: 0)
        #expect(bytes == [0, 0, 0, 0x11, 0x53, 0x4E, 0x41, 0x50, 1, 0, 0, 0, 0, 0, 2, 0, 2, 3, 0x41, 0x6E, 0x6E])
        var decoder = FrameDecoder()
        decoder.append(bytes)
        let hello = try WireCodec.decodeClientMessage(try #require(try decoder.nextFrame()))
        var host = Self.host()
        _ = host.handle(.connected(ConnectionID(1), local: false, remote: "192.0.2.7"), now: .zero)
        let actions = host.handle(.message(ConnectionID(1), hello), now: .zero)
        #expect(Self.closes(actions, ConnectionID(1))! == (.versionUnsupported, "this host speaks protocol 3–3; you offered 2–2"))
        // §3 quotes this refusal whole.
        let words = try #require(Self.closes(actions, ConnectionID(1))).1
        #expect(try Documents.quotes("PROTOCOL.md", "offering 2–2 with `closing(versionUnsupported, \"\(words)\")`"), "\(words)")
    }

    @Test("a Unix-socket connection, or an open host, needs no code")
    func unixAndOpen() {
        var host = Self.host()
        _ = host.handle(.connected(ConnectionID(1), local: false), now: .zero)
        #expect(Self.welcomed(host.handle(.message(ConnectionID(1), .hello(Hello(name: "Ann"))), now: .zero), ConnectionID(1)))
        var open = Self.host(code: nil)
        _ = open.handle(.connected(ConnectionID(1), local: false, remote: "192.0.2.7"), now: .zero)
        #expect(Self.welcomed(open.handle(.message(ConnectionID(1), .hello(Hello(name: "Ann"))), now: .zero), ConnectionID(1)))
    }

    @Test("info over TCP with a code: only the name and needsCode; over a Unix socket: the lobby")
    func withheldInfo() {
        var host = Self.host()
        _ = host.handle(.connected(ConnectionID(1), local: false), now: .zero)
        _ = host.handle(.message(ConnectionID(1), .hello(Hello(name: "Ann"))), now: .zero)
        _ = host.handle(.connected(ConnectionID(2), local: false, remote: "192.0.2.7"), now: .zero)
        let tcp = host.handle(.message(ConnectionID(2), .query), now: .zero)
        #expect(tcp.contains(.send(ConnectionID(2), .info(HostInfo(hostName: "Host", players: 0, maxPlayers: 4, started: false, needsCode: true)))))
        _ = host.handle(.connected(ConnectionID(3), local: false), now: .zero)
        let unix = host.handle(.message(ConnectionID(3), .query), now: .zero)
        #expect(unix.contains(.send(ConnectionID(3), .info(HostInfo(hostName: "Host", players: 1, maxPlayers: 3, started: false)))))
    }

    @Test("the code is checked before the game's state: a stranger cannot learn that it started")
    func codeBeforeState() {
        var host = Self.host()
        _ = host.handle(.connected(ConnectionID(1), local: false), now: .zero)
        _ = host.handle(.message(ConnectionID(1), .hello(Hello(name: "Ann"))), now: .zero)
        _ = host.handle(.connected(ConnectionID(2), local: true), now: .zero)
        _ = host.handle(.message(ConnectionID(2), .hello(Hello(name: "Host"))), now: .zero)
        _ = host.handle(.start, now: .zero)
        _ = host.handle(.connected(ConnectionID(3), local: false, remote: "192.0.2.7"), now: .zero)
        let actions = host.handle(.message(ConnectionID(3), .hello(Hello(name: "Eve", joinCode: "BADBAD"))), now: .zero)
        #expect(Self.closes(actions, ConnectionID(3))?.0 == .wrongCode)
    }

    @Test("repeated wrong codes from one address: refused unheard for 1 s, then 2 s, 4 s…; other addresses unaffected")
    func slowedDown() throws {
        var host = Self.host()
        var next: UInt64 = 1
        func attempt(_ code: String, from address: String, at seconds: Double) -> (CloseReason, String)? {
            let id = ConnectionID(next)
            next += 1
            let now = Duration.milliseconds(Int64(seconds * 1000))
            _ = host.handle(.connected(id, local: false, remote: address), now: now)
            let actions = host.handle(.message(id, .hello(Hello(name: "P\(next)", joinCode: code))), now: now)
            if Self.welcomed(actions, id) { _ = host.handle(.disconnected(id), now: now); return nil }
            return Self.closes(actions, id)
        }
        for _ in 0..<3 { #expect(attempt("AAAAAA", from: "192.0.2.7", at: 0)?.1.hasPrefix("wrong join code") == true) }
        // The third wrong code started a 1 s pause: even the right code is refused unheard.
        let unheard = try #require(attempt("K7QX4M", from: "192.0.2.7", at: 0.5)).1
        #expect(unheard == "too many wrong join codes from 192.0.2.7: try again in 1 s")
        // §10 quotes it with the address and the seconds as ADDRESS and N.
        let general = unheard.replacingOccurrences(of: "192.0.2.7", with: "ADDRESS").replacingOccurrences(of: "in 1 s", with: "in N s")
        #expect(try Documents.quotes("PROTOCOL.md", "refused unheard (`closing(wrongCode, \"\(general)\")`)"), "\(general)")
        #expect(attempt("K7QX4M", from: "192.0.2.8", at: 0.5) == nil)
        #expect(attempt("AAAAAA", from: "192.0.2.7", at: 1.0)?.1.hasPrefix("wrong join code") == true)  // 4th: 2 s
        #expect(attempt("K7QX4M", from: "192.0.2.7", at: 2.5)?.1 == "too many wrong join codes from 192.0.2.7: try again in 1 s")
        #expect(attempt("K7QX4M", from: "192.0.2.7", at: 3.0) == nil)  // the pause is over; the count is cleared
        #expect(host.wrongCodes["192.0.2.7"] == nil)
    }

    @Test("through a relay (every connection from the relay's address): counted by the relay's tag of each player, so a guesser's three wrong codes lock out that tag alone, and another invitee of the room still joins")
    func relayedPeersCountedApart() throws {
        var host = Self.host()
        let guesser = "relay peer 0123456789abcdef", honest = "relay peer fedcba9876543210"
        var next: UInt64 = 1
        func attempt(_ code: String, from remote: String, name: String) -> [HostAction] {
            let id = ConnectionID(next)
            next += 1
            _ = host.handle(.connected(id, local: false, remote: remote), now: .milliseconds(100))
            return host.handle(.message(id, .hello(Hello(name: name, joinCode: code))), now: .milliseconds(100))
        }
        for count in 1...3 {
            let actions = attempt("AAAAAA", from: guesser, name: "Mallory")
            #expect(actions.contains(.announce("wrong join code from \(guesser) (\(count) in a row)")), "\(actions)")
        }
        // The guesser is refused unheard, even with the right code…
        let unheard = try #require(Self.closes(attempt("K7QX4M", from: guesser, name: "Mallory"), ConnectionID(4)))
        #expect(unheard.1 == "too many wrong join codes from \(guesser): try again in 1 s")
        // …and the honest invitee beside it, through the same relay, joins at once.
        #expect(Self.welcomed(attempt("K7QX4M", from: honest, name: "Ann"), ConnectionID(5)))
        #expect(host.wrongCodes[guesser] != nil && host.wrongCodes[honest] == nil)
    }
}
