#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOPosix
import SnapBytes
import SnapEngine
import SnapNet
import SnapProtocol
import SnapSession

/// `snap-bench rejoin`: how long from a player's connection dropping to its seat being
/// back with the table current (the snapshot received), over a Unix socket, against a
/// fresh sign-in's hello → welcome in the same run.
public struct RejoinBenchmark {
    public struct Result: Sendable {
        /// Microseconds, sorted: drop → snapshot on the new connection; and hello → snapshot.
        public var rejoin: [Double]
        public var signIn: [Double]

        public var rejoinP50: Double { NetBenchmark.Result.percentile(rejoin, 0.50) }
        public var rejoinP99: Double { NetBenchmark.Result.percentile(rejoin, 0.99) }
        public var signInP50: Double { NetBenchmark.Result.percentile(signIn, 0.50) }
        public var signInP99: Double { NetBenchmark.Result.percentile(signIn, 0.99) }
    }

    public let trials: Int

    public init(trials: Int) { self.trials = trials }

    public func run() throws -> Result {
        var template = Array("/tmp/snapr-XXXXXX".utf8CString)
        let directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        defer { rmdir(directory) }
        let path = directory + "/host.sock"
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        var configuration = NetBenchmark.stillTable()
        // A dropped seat is waited for, and nobody is turned for.
        configuration.turnTimeout = nil
        configuration.grace = .seconds(3_600)
        let server = HostServer(configuration, loop: group.next(), logger: NetBenchmark.quietLogger())
        server.startWhen(2)
        defer { server.shutdown(reason: "benchmark finished") }
        try blockingAwait { try await server.listen(unixPath: path) }

        var players: [BenchClient] = []
        var tokens: [SeatToken] = []
        for index in 0..<2 {
            let player = BenchClient(try BenchSocket(unixPath: path))
            player.send(.hello(Hello(name: "R\(index + 1)")))
            player.send(.ready)
            var token: SeatToken?
            try player.readUntil(timeout: 10, "a welcome") { message in
                if case .welcome(let welcome) = message { token = welcome.token }
                return token != nil
            }
            tokens.append(token!)
            players.append(player)
        }
        for player in players {
            try player.readUntil(timeout: 10, "the game to start") { message in
                if case .events(let events) = message { return events.contains { if case .activated = $0 { true } else { false } } }
                return false
            }
        }
        let clock = ContinuousClock()
        var rejoin: [Double] = []
        for _ in 0..<trials {
            let dropped = clock.now
            players[1].socket.close()
            // The host must have seen the drop before the seat can come back.
            try players[0].readUntil(timeout: 10, "the seat to go away") { message in
                if case .events(let events) = message { return events.contains(.absent(.top)) }
                return false
            }
            let again = BenchClient(try BenchSocket(unixPath: path))
            again.send(.hello(Hello(name: "R2", token: tokens[1])))
            try again.readUntil(timeout: 10, "the snapshot") { message in
                if case .snapshot = message { true } else { false }
            }
            rejoin.append(NetBenchmark.microseconds(clock.now - dropped))
            players[1] = again
            try players[0].readUntil(timeout: 10, "the seat to come back") { message in
                if case .events(let events) = message { return events.contains(.returned(.top)) }
                return false
            }
        }
        var signIn: [Double] = []
        for index in 0..<trials {
            let started = clock.now
            let watcher = BenchClient(try BenchSocket(unixPath: path))
            watcher.send(.hello(Hello(name: "W\(index % 100)", role: .watcher)))
            try watcher.readUntil(timeout: 10, "the snapshot") { message in
                if case .snapshot = message { true } else { false }
            }
            signIn.append(NetBenchmark.microseconds(clock.now - started))
            watcher.socket.close()
        }
        for player in players { player.socket.close() }
        return Result(rejoin: rejoin.sorted(), signIn: signIn.sorted())
    }
}
