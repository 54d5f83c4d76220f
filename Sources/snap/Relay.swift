import ArgumentParser
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import SnapCommandLine
import SnapNet
import SnapPlatform
import SnapRelay
import SnapRelayProtocol

/// `snapcards relay`: the relay that lets players reach a host behind a home router (docs/RELAY.md).
struct Relay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay",
        abstract: "Run a relay: players reach hosts that only dial out, and it can read none of their games (docs/RELAY.md).",
        subcommands: [RelayServe.self])
}

struct RelayServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run a relay (headless, until stopped).",
        discussion: """
            Listens on TCP (TLS, its own certificate) and prints "listening on tcp:HOST:PORT" and \
            "certificate: SHA256:…". Hosts register rooms; players connect to a room; the relay \
            pairs them and copies bytes it cannot read (docs/RELAY.md).
            """)
    @Option(help: "Listen on TCP, e.g. 0.0.0.0:7790 (port 0 picks a free one).") var listen: String
    @Option(help: "Rooms one source address may hold at once.") var roomsPerAddress = RelayLimits().roomsPerAddress
    @Option(help: "Player connections one room may hold at once (waiting or spliced).")
    var connectionsPerRoom = RelayLimits().connectionsPerRoom
    @Option(help: "Bytes one spliced connection may send a second, on average (0: no cap).")
    var bytesPerSecond = RelayLimits().bytesPerSecond ?? 0
    @Option(help: "Connections from one source address not yet past their first line, at once.")
    var pendingPerAddress = RelayLimits().linePhasePerAddress
    @OptionGroup var tls: TLSServerOptions
    @Flag(help: "Log connections and refusals to standard error.") var verbose = false

    func validate() throws {
        _ = try validAddress(listen, option: "--listen", use: .listen)
        guard roomsPerAddress >= 1 else { throw ValidationError("--rooms-per-address must be at least 1") }
        guard connectionsPerRoom >= 1 else { throw ValidationError("--connections-per-room must be at least 1") }
        guard pendingPerAddress >= 1 else { throw ValidationError("--pending-per-address must be at least 1") }
        guard bytesPerSecond == 0 || bytesPerSecond >= 1024 else {
            throw ValidationError("--bytes-per-second must be 0 (no cap) or at least 1024")
        }
    }

    func run() async throws {
        let logger = makeLogger("snap.relay", verbose: verbose)
        raiseOpenFileLimit()
        var limits = RelayLimits()
        limits.roomsPerAddress = roomsPerAddress
        limits.connectionsPerRoom = connectionsPerRoom
        limits.bytesPerSecond = bytesPerSecond == 0 ? nil : bytesPerSecond
        limits.linePhasePerAddress = pendingPerAddress
        let server = RelayServer(limits: limits, loop: MultiThreadedEventLoopGroup.singleton.next(), logger: logger)
        let address = try validAddress(listen, option: "--listen", use: .listen)
        let tls = self.tls
        let service = RelayServing(server: server) {
            let identity = try tls.identity()
            let port = try await server.listen(host: address.host, port: address.port, identity: identity)
            say("listening on tcp:" + formatHostPort(address.host, port))
        }
        try await runServices([service], logger: logger)
        say("stopped")
    }
}

/// A room of four players holds nine connections at the relay (the host's control, and a
/// pair per player), each an open file: the soft limit (often 1024) goes up to the hard one,
/// which bounds the rooms (docs/RELAY.md §9).
private func raiseOpenFileLimit() {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
    limit.rlim_cur = limit.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
}

/// The relay as a service: listens, relays until a graceful shutdown, then closes all.
struct RelayServing: Service {
    let server: RelayServer
    let listen: @Sendable () async throws -> Void

    func run() async throws {
        do { try await listen() } catch {
            await server.shutdown()
            printError("error: \(error)")
            throw ExitCode(3)
        }
        try? await gracefulShutdown()
        await server.shutdown()
    }
}
