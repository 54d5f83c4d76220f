import Foundation
import Testing
import SnapTestSupport

/// The relay between networks that cannot reach each other, as friends' homes are: three
/// network namespaces this test makes, the host's (H), the players' (P) and the relay's (R),
/// each joined to R alone by a virtual cable; R forwards nothing, so H and P never meet.
/// The relay's address, 10.77.0.1, is routed to R from both sides.
@Suite("the relay between networks that cannot reach each other (network namespaces)", .blocksThreads, .serialized)
struct RelayNamespaceTests {
    static let relayAddress = "10.77.0.1"

    final class Networks {
        let tag = "\(getpid() % 100_000)-\(Int.random(in: 0..<100_000))"
        var relay: String { "snr-" + tag }
        var host: String { "snh-" + tag }
        var players: String { "snp-" + tag }

        func exec(_ namespace: String) -> [String] { ["/usr/sbin/ip", "netns", "exec", namespace] }

        /// The three namespaces and their cables; nil (and why) where this process may not make them.
        static func make() -> (Networks?, String) {
            guard getuid() == 0 else { return (nil, "needs root to create network namespaces (uid \(getuid()))") }
            guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") else { return (nil, "no /usr/sbin/ip (iproute2)") }
            let networks = Networks()
            let (r, h, p) = (networks.relay, networks.host, networks.players)
            var commands: [[String]] = []
            for namespace in [r, h, p] { commands += [["netns", "add", namespace], ["-n", namespace, "link", "set", "lo", "up"]] }
            commands += [
                ["-n", r, "link", "add", "toh", "type", "veth", "peer", "name", "tor", "netns", h],
                ["-n", r, "link", "add", "top", "type", "veth", "peer", "name", "tor", "netns", p],
                ["-n", r, "addr", "add", "10.77.1.1/30", "dev", "toh"], ["-n", h, "addr", "add", "10.77.1.2/30", "dev", "tor"],
                ["-n", r, "addr", "add", "10.77.2.1/30", "dev", "top"], ["-n", p, "addr", "add", "10.77.2.2/30", "dev", "tor"],
                ["-n", r, "link", "set", "toh", "up"], ["-n", r, "link", "set", "top", "up"],
                ["-n", h, "link", "set", "tor", "up"], ["-n", p, "link", "set", "tor", "up"],
                ["-n", r, "addr", "add", relayAddress + "/32", "dev", "lo"],
                ["-n", h, "route", "add", relayAddress + "/32", "via", "10.77.1.1"],
                ["-n", p, "route", "add", relayAddress + "/32", "via", "10.77.2.1"],
            ]
            for command in commands {
                let (status, errors) = ip(command)
                if status != 0 { return (nil, "ip \(command.joined(separator: " ")) failed: \(errors)") }
            }
            return (networks, "")
        }

        static func ip(_ arguments: [String]) -> (Int32, String) { runIP(arguments) }

        deinit { for namespace in [relay, host, players] { _ = Self.ip(["netns", "delete", namespace]) } }
    }

    /// A relay in R and a host in H with a room at it; the host's invitation.
    func relayAndHost(_ networks: Networks, _ hostOptions: [String], in directory: String) throws -> (relay: SnapProcess, host: SnapProcess, invite: String) {
        let relay = try SnapProcess(["relay", "serve", "--listen", Self.relayAddress + ":0"], runtimeDirectory: directory,
                                    environment: ["XDG_STATE_HOME": directory + "/relay-state"], wrapper: networks.exec(networks.relay))
        let listening = try #require(relay.line(startingWith: "listening on tcp:"), "relay: \(relay.output) \(relay.errors)")
        let address = String(listening.dropFirst("listening on tcp:".count))
        let host = try SnapProcess(["host", "--headless", "--name", "Tabletop", "--turn-limit", "150", "--relay", address, "--speed", "0.01"]
                                   + hostOptions, runtimeDirectory: directory, wrapper: networks.exec(networks.host))
        let invite = try #require(host.line(startingWith: "invite: "), "host: \(host.output) \(host.errors)")
        return (relay, host, String(invite.dropFirst("invite: ".count)))
    }

    @Test("a host in one network and two players in another, which cannot reach each other, play a game through the relay",
          .timeLimit(.minutes(5)))
    func acrossNetworks() throws {
        let (made, why) = Networks.make()
        guard let networks = made else {
            print("skipped: relay across network namespaces: \(why)")
            return
        }
        // The players' network has no way to the host's.
        let (unreachable, routeError) = Networks.ip(["-n", networks.players, "route", "get", "10.77.1.2"])
        #expect(unreachable != 0 && routeError.contains("unreachable"), "\(routeError)")
        let directory = makeRuntimeDirectory()
        let (relay, host, invite) = try relayAndHost(networks, ["--rounds", "1", "--start-when", "2"], in: directory)
        let players = try ["Ann", "Bob"].map {
            try SnapProcess(["join", "--bot", "--name", $0, "--invite", invite, "--speed", "0.01"], runtimeDirectory: directory,
                            wrapper: networks.exec(networks.players))
        }
        #expect(host.exitStatus() == 0, "host: \(host.output) \(host.errors)")
        #expect(host.lines.contains { $0.hasPrefix("round 1: ") }, "host: \(host.output)")
        for player in players { #expect(player.exitStatus() == 0, "player: \(player.output) \(player.errors)") }
        relay.signal(SIGTERM)
        #expect(relay.exitStatus() == 0)
    }

    @Test("the relay's cable to the host is cut without a word: the host's keepalive notices, it asks for its room again once the cable is back, and a player joins by the same invitation",
          .timeLimit(.minutes(5)))
    func silentCut() throws {
        let (made, why) = Networks.make()
        guard let networks = made else {
            print("skipped: relay keepalive across network namespaces: \(why)")
            return
        }
        let directory = makeRuntimeDirectory()
        let (relay, host, invite) = try relayAndHost(networks, ["--rounds", "1", "--start-when", "1", "--bots", "1"], in: directory)
        let room = invite.split(separator: "/")[2].prefix { $0 != "#" }
        // The relay's end of the cable goes down: the host's packets leave and are lost, no
        // reset comes back. Only keepalive probes going unanswered can tell the host
        // (KeepAlive: 20 s quiet, then 4 probes 5 s apart).
        #expect(Networks.ip(["-n", networks.relay, "link", "set", "toh", "down"]).0 == 0)
        let noticed = host.line(startingWith: "relay: the connection to the relay ", timeout: 90)
        #expect(noticed?.hasSuffix("closed: asking for room \(room) again") == true, "host: \(host.output) \(host.errors)")
        #expect(Networks.ip(["-n", networks.relay, "link", "set", "toh", "up"]).0 == 0)
        // The relay may still hold the old room until its own keepalive gives up on the host:
        // the host asks again until it is free.
        #expect(host.line(startingWith: "relay: room \(room) is open again", timeout: 90) != nil, "host: \(host.output) \(host.errors)")
        let player = try SnapProcess(["join", "--bot", "--name", "Ann", "--invite", invite, "--speed", "0.01"], runtimeDirectory: directory,
                                     wrapper: networks.exec(networks.players))
        #expect(player.exitStatus() == 0, "player: \(player.output) \(player.errors)")
        #expect(host.exitStatus() == 0, "host: \(host.output) \(host.errors)")
        relay.signal(SIGTERM)
        _ = relay.exitStatus()
    }
}
