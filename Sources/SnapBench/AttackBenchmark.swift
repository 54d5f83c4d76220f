#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SnapEngine
import SnapProtocol

/// `snap-bench attack`: each attack against a fresh `snapcards host` process, while two
/// honest players time Snap! → verdict; a quiet run (no attacker) is the baseline.
public struct AttackBenchmark: Sendable {
    public enum Attack: String, CaseIterable, Sendable {
        case quiet, churn
        case lobbyReady = "lobby-ready"
        case turnFlood = "turn-flood", readyFlood = "ready-flood", pongFlood = "pong-flood"
        case slowReader = "slow-reader", absent
        case connectionFlood = "conn-flood", snapFlood = "snap-flood"
        /// On the host's TLS port, while the players play on its Unix socket: connections
        /// that open a handshake and stall, and complete handshakes as fast as they go.
        case tlsStall = "tls-stall", tlsHandshakeFlood = "tls-handshakes"
        /// Against a relay (`snapcards relay serve`) with a room in play, timed by its round
        /// trips: none, `register` as fast as it goes, idle connections.
        case relayQuiet = "relay-quiet", relayRegisterFlood = "relay-register-flood", relayConnectionFlood = "relay-conn-flood"

        public var onRelay: Bool { self == .relayQuiet || self == .relayRegisterFlood || self == .relayConnectionFlood }

        var onTLS: Bool { self == .tlsStall || self == .tlsHandshakeFlood }

        /// Attacks made in the lobby, before the honest game: latency is timed after them.
        var inLobby: Bool { self == .churn || self == .lobbyReady }
    }

    public struct Row: Sendable {
        public var attack: Attack
        /// Snap! → verdict at both honest players, microseconds, sorted.
        public var latencies: [Double] = []
        public var missed = 0
        public var peakRSSMiB = 0.0
        /// Nil when the host died before a second sample.
        public var cpuPercent: Double?
        /// Seconds from the attack's start until the host cut the attacker; nil: not cut.
        public var cutAfter: Double?
        /// The `closing` reason the attacker saw, if any (nil: a bare hang-up, or not cut).
        public var cutReason: String?
        public var gameWentOn = false
        /// "signal 4", "exit 1": the host process ended during the run.
        public var hostEnded: String?
        public var note = ""

        public var p50: Double? { latencies.isEmpty ? nil : NetBenchmark.Result.percentile(latencies, 0.50) }
        public var p99: Double? { latencies.isEmpty ? nil : NetBenchmark.Result.percentile(latencies, 0.99) }
    }

    public var executable: String
    public var transport: NetBenchmark.Transport
    /// How long each attack (and each timing window) lasts.
    public var seconds: Double
    /// The most messages one flood sends (it also stops at the attack's end).
    public var floodLimit = 1_000_000
    public var churnCount = 300
    public var connections = 2000

    /// `executable`: snap-bench, whose `host` command is the host attacked.
    public init(executable: String, transport: NetBenchmark.Transport, seconds: Double) {
        self.executable = executable
        self.transport = transport
        self.seconds = seconds
    }

    static let clock = ContinuousClock()
    static let attackerName = "Mallory"
    public static let absentSeconds = 8.0

    public func run(_ attack: Attack) -> Row {
        if attack.onRelay { return runOnRelay(attack) }
        var row = Row(attack: attack)
        var arguments = ["--start-when", attack.inLobby ? "2" : "3", "--rounds", "1000"]
        arguments += attack == .absent ? ["--speed", "0.2"] : ["--still-table"]
        arguments += ["--turn-timeout", "2"]
        let host: HostProcess
        // The TLS attacks need a TLS port; the honest players then use the Unix socket.
        let transport = attack.onTLS ? NetBenchmark.Transport.unix : self.transport
        do { host = try HostProcess(executable: executable, arguments: arguments, tcp: transport == .tcp || attack.onTLS,
                                    tls: attack.onTLS) } catch {
            row.note = "the host did not start: \(error)"
            return row
        }
        defer { host.stop() }
        // The absent player's turns come every few seconds: give it time to show.
        let window = Duration.milliseconds(Int((attack == .absent ? max(seconds, Self.absentSeconds) : seconds) * 1000))
        // CPU is counted over the attack: the lobby attack, or the timing window in the game.
        var cpuFrom = (ticks: host.sample() ?? 0, at: Self.clock.now)
        var cpuTo = cpuFrom
        func mark() {
            if let ticks = host.sample() { cpuTo = (ticks, Self.clock.now) }
        }
        var cpuMeasured = false
        func finish() {
            if !cpuMeasured { mark() }
            row.peakRSSMiB = Double(host.peakRSSKiB) / 1024
            let wall = Attackers.seconds(cpuTo.at - cpuFrom.at)
            if cpuTo.at > cpuFrom.at {
                row.cpuPercent = Double(cpuTo.ticks - cpuFrom.ticks) / HostProcess.ticksPerSecond / max(wall, 0.001) * 100
            }
            row.hostEnded = host.ending
        }

        // Lobby attacks come first, then the honest game on the same host.
        if attack.inLobby {
            lobbyAttack(attack, host: host, deadline: cpuFrom.at + window, &row)
            mark()
            cpuMeasured = true
            guard host.isRunning else {
                finish()
                return row
            }
        }

        let honest: [AttackPeer]
        var third: AttackPeer?
        do {
            honest = try ["Alice", "Bob"].map { try AttackPeer.join(host, transport: transport, name: $0) }
            if !attack.inLobby {
                third = try AttackPeer.join(host, transport: transport,
                                            name: attack == .quiet || attack == .connectionFlood || attack.onTLS ? "Carol" : Self.attackerName)
            }
            for peer in honest + [third].compactMap({ $0 }) { peer.send(.ready) }
            let by = Self.clock.now + .seconds(10)
            let everyone = honest + [third].compactMap { $0 }
            while !honest.allSatisfy({ $0.session.table?.active != nil }) {
                guard Self.clock.now < by, !everyone.contains(where: \.closed) else {
                    throw BenchError.timedOut("the game to start")
                }
                AttackPeer.pump(everyone, milliseconds: 50, now: { Self.clock.now - Attackers.origin }) { _, _ in }
            }
        } catch {
            row.note += (row.note.isEmpty ? "" : "; ") + "honest players could not play: \(error)"
            finish()
            return row
        }

        if !attack.inLobby { cpuFrom = (host.sample() ?? 0, Self.clock.now) }
        let start = Self.clock.now
        let deadline = start + window
        let attacker = third.map { peer in Background { inGameAttack(attack, peer: peer, host: host, start: start, deadline: deadline) } }
        let connections = self.connections
        let flood: Background<AttackOutcome>? = switch attack {
        case .connectionFlood:
            Background { Attackers.connectionFlood(host, transport: transport, count: connections, start: start, deadline: deadline) }
        case .tlsStall:
            // The first bytes of a TLS handshake record, then nothing.
            Background { Attackers.connectionFlood(host, transport: .tcp, count: connections, start: start, deadline: deadline,
                                                   firstBytes: [0x16, 0x03, 0x01]) }
        case .tlsHandshakeFlood:
            Background { Attackers.handshakeFlood(host, deadline: deadline) }
        default: nil
        }
        let timing = HonestTiming(peers: honest, still: attack != .absent, attackerName: Self.attackerName)
        timing.run(start: start, deadline: deadline) { if !cpuMeasured { mark() } }
        var outcome = attacker?.wait() ?? AttackOutcome()
        if let flood { outcome = flood.wait() }
        if !cpuMeasured { mark() }
        cpuMeasured = true
        let cutHonest = honest.filter(\.closed).map { ($0.name, $0.closeReason.map { "\($0)" } ?? "connection closed") }
        for peer in honest { peer.close() }
        finish()

        row.latencies = timing.latencies.sorted()
        row.missed = timing.missed
        if !attack.inLobby, attack != .quiet {
            row.cutAfter = outcome.cutAfter
            row.cutReason = outcome.reason
        }
        if attack == .connectionFlood || attack.onTLS || attack == .absent || !outcome.note.isEmpty {
            row.note += (row.note.isEmpty ? "" : "; ") + outcome.note
        }
        if !attack.inLobby, attack != .connectionFlood, !attack.onTLS, attack != .quiet, attack != .absent, outcome.sent > 0 {
            row.note += (row.note.isEmpty ? "" : "; ") + Self.sent(outcome)
        }
        let windowEnd = Attackers.seconds(deadline - start)
        let recent = max(1.5, windowEnd * 0.2)
        if attack == .absent {
            let turns = timing.turns
            row.note += "\(turns.total) turns, \(turns.forAttacker) of them for the absent player"
                + (turns.firstForAttacker.map { ", the first after \(twoDecimals($0)) s" } ?? "")
                + "; stalled for \(twoDecimals(turns.longestGap)) s at most"
                + (honest[0].session.table?.active.flatMap { honest[0].session.names[$0] }.map { ", \($0) to turn at the end" } ?? "")
            // Went on: no stall longer than 3 s (the host's --turn-timeout 2, and some slack).
            row.gameWentOn = turns.total > 0 && turns.longestGap <= 3
        } else {
            row.gameWentOn = timing.lastVerdict.map { $0 >= windowEnd - recent } ?? false
        }
        for (name, why) in cutHonest { row.note += "; honest \(name) was cut: \(why)" }
        if row.hostEnded != nil || !cutHonest.isEmpty { row.gameWentOn = false }
        if attack.inLobby { row.note += (row.note.isEmpty ? "" : "; ") + "latency timed after the attack" }
        return row
    }

    static func sent(_ outcome: AttackOutcome) -> String {
        "\(outcome.flooded) in \(twoDecimals(outcome.sending)) s"
            + (outcome.sent > outcome.flooded ? ", then \(outcome.sent - outcome.flooded) more, one every 0.1 s" : "")
    }

    private func lobbyAttack(_ attack: Attack, host: HostProcess, deadline: ContinuousClock.Instant, _ row: inout Row) {
        let start = Self.clock.now
        switch attack {
        case .churn:
            let result = Attackers.churn(host, transport: transport, count: churnCount, deadline: deadline)
            let settle = Self.clock.now + .seconds(1)
            while host.isRunning, Self.clock.now < settle { usleep(20_000) }  // a crash shows at once
            row.note = "\(result.welcomed) of \(churnCount) sign-ins welcomed, \(result.refused) refused"
                + (result.hungUp > 0 ? ", \(result.hungUp) hung up on without a word" : "")
                + (result.failed.map { "; \($0)" } ?? "")
        case .lobbyReady:
            do {
                let peer = try AttackPeer.join(host, transport: transport, name: Self.attackerName)
                let outcome = Attackers.flood(peer, start: start, deadline: deadline, limit: floodLimit, reads: false) { _ in .ready }
                row.cutAfter = outcome.cutAfter
                row.cutReason = outcome.reason
                row.note = "readies: " + Self.sent(outcome) + ", never read"
                usleep(300_000)  // let the host see the attacker go before the honest players join
            } catch {
                row.note = "could not connect: \(error)"
            }
        default:
            break
        }
    }

    private func inGameAttack(_ attack: Attack, peer: AttackPeer, host: HostProcess,
                              start: ContinuousClock.Instant, deadline: ContinuousClock.Instant) -> AttackOutcome {
        let limit = floodLimit
        switch attack {
        case .quiet, .connectionFlood, .tlsStall, .tlsHandshakeFlood:  // a third, quiet player: answers pings, turns when it is its turn
            return Attackers.flood(peer, start: start, deadline: deadline, limit: 0, reads: true, turns: true) { _ in .ready }
        case .turnFlood:
            return Attackers.flood(peer, start: start, deadline: deadline, limit: limit, reads: true) { _ in .turn }
        case .readyFlood:
            return Attackers.flood(peer, start: start, deadline: deadline, limit: limit, reads: true) { _ in .ready }
        case .snapFlood:
            return Attackers.flood(peer, start: start, deadline: deadline, limit: limit, reads: true) { _ in
                .snap(SnapCall(seenTurns: 0, reactionMicros: 0))
            }
        case .pongFlood:
            peer.answersPings = false
            return Attackers.flood(peer, start: start, deadline: deadline, limit: limit, reads: true) { _ in
                .pong(nonce: Attackers.madeUpNonce())
            }
        case .slowReader:
            return Attackers.flood(peer, start: start, deadline: deadline, limit: limit, reads: false,
                                   interval: .milliseconds(100)) { _ in .pong(nonce: Attackers.madeUpNonce()) }
        case .absent:  // answers pings, never turns
            return Attackers.flood(peer, start: start, deadline: deadline, limit: 0, reads: true) { _ in .ready }
        case .churn, .lobbyReady, .relayQuiet, .relayRegisterFlood, .relayConnectionFlood:
            return AttackOutcome()
        }
    }
}
