import ArgumentParser
import Dispatch
import Foundation
import Logging
import NIOPosix
import SnapBench
import SnapEngine
import SnapNet
import SnapPlatform
import SnapSession

/// `snap-bench host`: the host `snap-bench attack` attacks, in a process of its own. It is
/// the `HostServer` that `snapcards host --headless --no-journal --open --no-announce` runs,
/// configured as that configures one, plus what only a benchmark wants: a table held
/// still after the deal (so Snap! calls can be timed) and plain TCP on a loopback address
/// (for the raw-socket players). Those two stay out of the player's `snapcards`. Not in the
/// help: the attack bench starts it (`HostProcess`) and reads its "listening on" lines.
struct BenchHost: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "host",
        abstract: "The attack bench's host process (started by snap-bench attack).",
        shouldDisplay: false)

    @Option(help: "Listen on this Unix socket path.") var socket: String
    @Option(help: "Also listen on TCP at this 127.x address (port 0 picks a free one).") var listen: String?
    @Flag(help: "TCP without TLS (the raw-socket players).") var plainTcp = false
    @Option(help: "Start once this many players have joined.") var startWhen = 1
    @Option(help: "Rounds to play.") var rounds = 1000
    @Option(help: "Multiply every host-side delay.") var speed = 1.0
    @Option(help: "Seconds a player may take to turn (0: wait for ever).") var turnTimeout = 15.0
    @Flag(help: "Deal at once, then hold the table still.") var stillTable = false

    func validate() throws {
        guard (1...3).contains(startWhen) else { throw ValidationError("--start-when must be 1 to 3") }
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1") }
        if let listen, !listen.hasPrefix("127.") { throw ValidationError("--listen is for a 127.x address only") }
        if plainTcp, listen == nil { throw ValidationError("--plain-tcp needs --listen") }
    }

    func run() throws {
        // As `snapcards host --headless` without --seed or --bots: secret deals, enough computer
        // players to make two, the next round 2 s after a win.
        var configuration = HostConfiguration(hostName: "Bench")
        configuration.rounds = rounds
        configuration.seed = 1
        configuration.speed = speed
        configuration.bots = max(0, 2 - startWhen)
        configuration.autoNextRound = .seconds(2)
        configuration.maxClients = min(3, 4 - configuration.bots)
        configuration.turnTimeout = turnTimeout == 0 ? nil : .milliseconds(Int64((turnTimeout * 1000).rounded()))
        if stillTable { configuration.pacing = Pacing(deal: .zero, nextPlayer: .seconds(100_000)) }

        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = HostServer(configuration, loop: group.next(), logger: makeLogger("snap-bench.host", verbose: false))
        server.startWhen(startWhen)
        server.observe { action in
            if case .roundWon(let round, let winner) = action { say("round \(round): \(winner) wins") }
        }
        // SIGTERM (HostProcess.stop) or SIGINT: the players hear "host quit", then the process ends.
        let stops = ([SIGINT, SIGTERM] as [Int32]).map { signalNumber in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { server.submit(.quit) }
            source.resume()
            return source
        }
        defer { stops.forEach { $0.cancel() } }
        // The one host runtime, as `snapcards host --headless --no-journal --no-announce` runs it.
        var placement = HostPlacement(socket: .path(socket), announce: false, journalDirectory: nil)
        do {
            placement.listen = try listen.map { text in
                let (host, port) = try parseHostPort(text, for: .listen)
                return HostPort(host: host, port: port)
            }
        } catch {
            say("error: \(error)")
            throw ExitCode(3)
        }
        placement.plainTCP = plainTcp
        let runtime = HostRuntime(server: server, placement: placement) { report in
            if case .listening(let endpoint) = report { say("listening on \(endpoint)") }
        }
        do { _ = try blockingAwait { try await runtime.start() } } catch {
            say("error: \(error)")
            throw ExitCode(3)
        }
        say("game over: \(try blockingAwait { try await server.finished.get() })")
    }
}
