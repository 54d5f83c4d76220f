#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import Logging
import NIOCore
import NIOPosix
import SnapBytes
import SnapEngine
import SnapNet
import SnapPlatform
import SnapProtocol
import SnapSession

/// `snap-bench net`: how long a Snap! call takes to come back as a verdict at every
/// client, against a bare 16-byte ping-pong over the same transport, in one run.
public struct NetBenchmark {
    public enum Transport: String, Sendable { case unix, tcp }

    public struct Result: Sendable {
        public var transport: Transport
        public var clients: Int
        /// Microseconds, sorted ascending: without a journal, with one, and the baseline.
        public var verdict: [Double]
        public var journaledVerdict: [Double]
        public var pingPong: [Double]
        /// The verdict and the ping-pong again, each with the measuring thread on one CPU and
        /// the answering thread (the host's loop, the echo) on another; nil on one CPU.
        public var pinned: Pinned?

        public struct Pinned: Sendable {
            public var measuringCPU: Int32
            public var answeringCPU: Int32
            /// Microseconds, sorted ascending.
            public var verdict: [Double]
            public var pingPong: [Double]

            public var verdictP50: Double { Result.percentile(verdict, 0.50) }
            public var pingPongP50: Double { Result.percentile(pingPong, 0.50) }
            public var ratioP50: Double { verdictP50 / pingPongP50 }
        }

        public var verdictP50: Double { Self.percentile(verdict, 0.50) }
        public var verdictP99: Double { Self.percentile(verdict, 0.99) }
        public var verdictMax: Double { verdict.last ?? 0 }
        public var pingPongP50: Double { Self.percentile(pingPong, 0.50) }
        public var pingPongP99: Double { Self.percentile(pingPong, 0.99) }
        public var ratioP50: Double { verdictP50 / pingPongP50 }
        public var ratioP99: Double { verdictP99 / pingPongP99 }
        public var journaledP50: Double { Self.percentile(journaledVerdict, 0.50) }
        public var journaledP99: Double { Self.percentile(journaledVerdict, 0.99) }
        /// What writing the match's journal adds to a verdict (1.0: nothing).
        public var journalRatioP50: Double { journaledP50 / verdictP50 }
        public var journalRatioP99: Double { journaledP99 / verdictP99 }

        static func percentile(_ sorted: [Double], _ p: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            let index = Int((p * Double(sorted.count)).rounded(.up)) - 1
            return sorted[min(max(index, 0), sorted.count - 1)]
        }
    }

    public let samples: Int
    public let clients = 3

    public init(samples: Int) {
        self.samples = samples
    }

    public func run(transport: Transport) throws -> Result {
        let directory = makeTemporaryDirectory()
        defer { rmdir(directory) }
        let verdict = try measureVerdicts(transport: transport, directory: directory, journal: false)
        let journaled = try measureVerdicts(transport: transport, directory: directory, journal: true)
        let pingPong = try measurePingPong(transport: transport, directory: directory)
        let pinned = try CPUPlacement.twoCPUs().map { placement in
            let before = CPUPlacement.pinCurrentThread(to: placement.measuring)
            defer { CPUPlacement.restoreCurrentThread(before) }
            let verdict = try measureVerdicts(transport: transport, directory: directory, journal: false, answeringCPU: placement.answering)
            let pingPong = try measurePingPong(transport: transport, directory: directory, answeringCPU: placement.answering)
            return Result.Pinned(measuringCPU: placement.measuring, answeringCPU: placement.answering,
                                 verdict: verdict.sorted(), pingPong: pingPong.sorted())
        }
        return Result(transport: transport, clients: clients, verdict: verdict.sorted(),
                      journaledVerdict: journaled.sorted(), pingPong: pingPong.sorted(), pinned: pinned)
    }

    /// A benchmark host's game: dealt at once, then held still (nobody's turn comes round)
    /// so that only Snap! calls move it; no budgets, rounds without end, and the same deals
    /// every run, so figures compare across runs.
    static func stillTable() -> HostConfiguration {
        var configuration = HostConfiguration(hostName: "Bench")
        configuration.speed = 1
        configuration.pacing = Pacing(deal: .zero, nextPlayer: .seconds(100_000))
        configuration.budgetsEnforced = false
        configuration.rounds = nil
        configuration.secretDeals = false
        return configuration
    }

    static func quietLogger() -> Logger {
        var logger = Logger(label: "snap.bench")
        logger.logLevel = .critical
        return logger
    }

    // MARK: - Snap → verdict

    /// With `journal`, the host writes its match journal as a real host does (into
    /// `directory`, removed afterwards), so the difference is the journal's cost.
    /// With `answeringCPU`, the host's event loop runs on that CPU alone.
    private func measureVerdicts(transport: Transport, directory: String, journal: Bool,
                                 answeringCPU: Int32? = nil) throws -> [Double] {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        if let answeringCPU { _ = try group.next().submit { CPUPlacement.pinCurrentThread(to: answeringCPU) }.wait() }
        let server = HostServer(Self.stillTable(), loop: group.next(), logger: Self.quietLogger())
        server.startWhen(clients)
        var journalPath: String?
        if journal {
            journalPath = try blockingAwait {
                try await server.startJournal(in: directory + "/journal") { warning in
                    FileHandle.standardError.write(Data("warning: \(warning)\n".utf8))
                }
            }
        }
        defer {
            server.shutdown(reason: "benchmark finished")
            // Over once its journal is closed: only then may the loop go.
            _ = try? server.finished.wait()
            if let journalPath {
                unlink(journalPath)
                rmdir(directory + "/journal")
            }
        }

        let connect: () throws -> BenchSocket
        switch transport {
        case .unix:
            let path = directory + "/host.sock"
            try blockingAwait { try await server.listen(unixPath: path) }
            connect = { try BenchSocket(unixPath: path) }
        case .tcp:
            let port = try blockingAwait { try await server.listen(host: "127.0.0.1", port: 0, tls: nil) }
            connect = { try BenchSocket(tcpPort: port) }
        }

        var players: [BenchClient] = []
        for index in 0..<clients {
            let player = BenchClient(try connect())
            player.send(.hello(Hello(name: "B\(index + 1)")))
            player.send(.ready)
            players.append(player)
        }
        // Wait for the deal and the first player's activation: then the table is still.
        for player in players {
            try player.readUntil(timeout: 10, "the game to start") { message in
                if case .events(let events) = message {
                    return events.contains { if case .activated = $0 { return true } else { return false } }
                }
                return false
            }
        }

        var latencies: [Double] = []
        latencies.reserveCapacity(samples)
        let clock = ContinuousClock()
        for _ in 0..<samples {
            let t0 = clock.now
            players[0].send(.snap(SnapCall(seenTurns: 0, reactionMicros: 0)))
            var pending = Set(players.indices)
            var last = t0
            let deadline = t0 + .seconds(10)
            while !pending.isEmpty {
                guard clock.now < deadline else { throw BenchError.timedOut("a verdict") }
                var fds = players.map { pollfd(fd: $0.socket.fd, events: Int16(POLLIN), revents: 0) }
                guard poll(&fds, nfds_t(fds.count), 100) > 0 else { continue }
                for index in players.indices where fds[index].revents != 0 {
                    let messages = try players[index].receive()
                    let now = clock.now
                    for message in messages where pending.contains(index) {
                        if case .events(let events) = message, events.contains(where: Self.isVerdict) {
                            pending.remove(index)
                            last = now
                        }
                    }
                }
            }
            latencies.append(Self.microseconds(last - t0))
        }
        for player in players { player.socket.close() }
        return latencies
    }

    static func isVerdict(_ event: SeatEvent) -> Bool {
        switch event {
        case .snapCorrect, .snapWrong, .snapTooLate: return true
        default: return false
        }
    }

    static func microseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1e6 + Double(attoseconds) / 1e12
    }

    // MARK: - TLS against plain TCP, through the same NIO client

    /// Snap → verdict at every client and connect → welcome, with TLS and without, both
    /// through one NIO client (`BlockingStream`, TLS as every client connects), so that the only
    /// difference is TLS.
    public struct TLSResult: Sendable {
        /// Microseconds, sorted.
        public var tlsVerdict: [Double]
        public var plainVerdict: [Double]
        public var tlsWelcome: [Double]
        public var plainWelcome: [Double]
        public var connections: Int

        public func p(_ values: [Double], _ q: Double) -> Double { Result.percentile(values, q) }
    }

    public func runTLS(connections: Int) throws -> TLSResult {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let identity = try TLSIdentity.selfMade(in: directory + "/tls")
        var trust = ServerTrust(knownHosts: KnownHosts(path: directory + "/known_hosts"))
        var plain = trust
        plain.plainTCPForBenchmarks = true
        trust.accepting = identity.fingerprint
        let tlsVerdict = try measureStreamVerdicts(trust: trust) { try benchHost($0, identity: identity) }
        let plainVerdict = try measureStreamVerdicts(trust: plain) { try benchHost($0, identity: nil) }
        let tlsWelcome = try measureWelcomes(trust: trust, connections: connections) { try benchHost($0, identity: identity) }
        let plainWelcome = try measureWelcomes(trust: plain, connections: connections) { try benchHost($0, identity: nil) }
        return TLSResult(tlsVerdict: tlsVerdict.sorted(), plainVerdict: plainVerdict.sorted(),
                         tlsWelcome: tlsWelcome.sorted(), plainWelcome: plainWelcome.sorted(), connections: connections)
    }

    /// A benchmark host for the stream clients: its server, how a client finds it (made
    /// inside the timing: an invitation is parsed there), and what to close before its loop goes.
    struct StreamHost {
        var server: HostServer
        var endpoint: () throws -> Endpoint
        var close: () -> Void = {}
    }

    private func benchHost(_ group: EventLoopGroup, identity: TLSIdentity?) throws -> StreamHost {
        let server = HostServer(Self.stillTable(), loop: group.next(), logger: Self.quietLogger())
        let port = try blockingAwait {
            if let identity { try await server.listen(host: "127.0.0.1", port: 0, identity: identity) } else {
                try await server.listen(host: "127.0.0.1", port: 0, tls: nil)
            }
        }
        return StreamHost(server: server, endpoint: { .tcp(host: "127.0.0.1", port: port) })
    }

    /// Snap → verdict at every client of the host `makeHost` sets up on the group given.
    func measureStreamVerdicts(trust: ServerTrust, host makeHost: (EventLoopGroup) throws -> StreamHost) throws -> [Double] {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let host = try makeHost(group)
        let server = host.server
        server.startWhen(clients)
        defer {
            server.shutdown(reason: "benchmark finished")
            host.close()
        }
        let players = try (0..<clients).map { index in
            let player = StreamClient(try BlockingStream(endpoint: try host.endpoint(), trust: trust))
            try player.send(.hello(Hello(name: "B\(index + 1)")))
            try player.send(.ready)
            return player
        }
        for player in players {
            try player.readUntil { message in
                if case .events(let events) = message { return events.contains { if case .activated = $0 { true } else { false } } }
                return false
            }
        }
        var latencies: [Double] = []
        let clock = ContinuousClock()
        for _ in 0..<samples {
            let t0 = clock.now
            try players[0].send(.snap(SnapCall(seenTurns: 0, reactionMicros: 0)))
            var last = t0
            // Each read returns as soon as that client's verdict is in; the last one is the figure.
            for player in players {
                try player.readUntil { message in
                    if case .events(let events) = message { return events.contains(where: Self.isVerdict) }
                    return false
                }
                last = max(last, clock.now)
            }
            latencies.append(Self.microseconds(last - t0))
        }
        for player in players { player.stream.close() }
        return latencies
    }

    /// Connect → welcome, one connection after another, to the host `makeHost` sets up.
    /// `pause`: microseconds between one join's end and the next's start.
    func measureWelcomes(trust: ServerTrust, connections: Int, pause: useconds_t = 500,
                         host makeHost: (EventLoopGroup) throws -> StreamHost) throws -> [Double] {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let host = try makeHost(group)
        defer {
            host.server.shutdown(reason: "benchmark finished")
            host.close()
        }
        var latencies: [Double] = []
        let clock = ContinuousClock()
        var attempt = 0
        while latencies.count < connections {
            attempt += 1
            guard attempt < connections * 10 else { throw BenchError.timedOut("\(connections) welcomes") }
            let t0 = clock.now
            let player = StreamClient(try BlockingStream(endpoint: try host.endpoint(), trust: trust))
            try player.send(.hello(Hello(name: "W\(attempt)")))
            var full = false
            do {
                try player.readUntil { if case .welcome = $0 { true } else { false } }
            } catch BenchError.closed {
                full = true  // the seats of earlier connections are not free yet: not a sample
            }
            let took = clock.now - t0
            player.stream.close()
            if full {
                usleep(2000)
                continue
            }
            latencies.append(Self.microseconds(took))
            // Leave the lobby empty for the next one.
            usleep(pause)
        }
        return latencies
    }

    // MARK: - Baseline: 16-byte ping-pong

    /// With `answeringCPU`, the echo thread runs on that CPU alone.
    private func measurePingPong(transport: Transport, directory: String, answeringCPU: Int32? = nil) throws -> [Double] {
        let listener: BenchSocket
        let connect: () throws -> BenchSocket
        switch transport {
        case .unix:
            let path = directory + "/echo.sock"
            listener = try BenchSocket(listeningUnixPath: path)
            connect = { try BenchSocket(unixPath: path) }
        case .tcp:
            listener = try BenchSocket(listeningTCP: ())
            let port = listener.localPort
            connect = { try BenchSocket(tcpPort: port) }
        }
        let listening = listener.fd
        let echo = Thread {
            if let answeringCPU { CPUPlacement.pinCurrentThread(to: answeringCPU) }
            let peer = accept(listening, nil, nil)
            guard peer >= 0 else { return }
            BenchSocket.setNoDelay(peer, transport == .tcp)
            var buffer = [UInt8](repeating: 0, count: 64)
            while true {
                let count = read(peer, &buffer, buffer.count)
                if count <= 0 { break }
                var written = 0
                while written < count {
                    let n = buffer.withUnsafeBufferPointer { write(peer, $0.baseAddress! + written, count - written) }
                    if n <= 0 { break }
                    written += n
                }
            }
            Glibc.close(peer)
        }
        echo.start()
        let client = try connect()
        defer {
            client.close()
            listener.close()
            if case .unix = transport { unlink(directory + "/echo.sock") }
        }
        let message = [UInt8](repeating: 0x5A, count: 16)
        var reply = [UInt8](repeating: 0, count: 16)
        let clock = ContinuousClock()
        var latencies: [Double] = []
        latencies.reserveCapacity(samples)
        for sample in 0..<(samples + samples / 10) {  // the first tenth warms up
            let t0 = clock.now
            client.write(message)
            try client.readExactly(&reply)
            if sample >= samples / 10 { latencies.append(Self.microseconds(clock.now - t0)) }
        }
        return latencies
    }

    private func makeTemporaryDirectory() -> String {
        var template = Array("/tmp/snapb-XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }
}

public enum BenchError: Error, CustomStringConvertible {
    case socket(String)
    case timedOut(String)
    case closed(String)

    public var description: String {
        switch self {
        case .socket(let what): return "socket: \(what)"
        case .timedOut(let what): return "timed out waiting for \(what)"
        case .closed(let what): return "the host closed the connection: \(what)"
        }
    }
}

/// A raw blocking socket. An initializer that fails closes through `close()`, which
/// marks the descriptor gone: the deinit runs after a failed init too, and a second
/// `close` of the number could close whatever descriptor took it meanwhile.
final class BenchSocket {
    private(set) var fd: Int32

    init(unixPath path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError.socket("socket: errno \(errno)") }
        var address = Self.unixAddress(path)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if result != 0 { let error = errno; close(); throw BenchError.socket("connect \(path): errno \(error)") }
    }

    init(tcpPort port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError.socket("socket: errno \(errno)") }
        var address = Self.loopback(port: 0)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if result != 0 { let error = errno; close(); throw BenchError.socket("connect 127.0.0.1:\(port): errno \(error)") }
        Self.setNoDelay(fd, true)
    }

    init(listeningUnixPath path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError.socket("socket: errno \(errno)") }
        var address = Self.unixAddress(path)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0, listen(fd, 4) == 0 else { let error = errno; close(); throw BenchError.socket("listen \(path): errno \(error)") }
    }

    init(listeningTCP: Void) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError.socket("socket: errno \(errno)") }
        var address = Self.loopback(port: 0)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0, listen(fd, 4) == 0 else { let error = errno; close(); throw BenchError.socket("listen tcp: errno \(error)") }
    }

    var localPort: Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func unixAddress(_ path: String) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() where index < raw.count - 1 { raw[index] = byte }
        }
        return address
    }

    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(port.bigEndian)
        address.sin_addr = in_addr(s_addr: in_addr_t(UInt32(0x7F00_0001).bigEndian))
        return address
    }

    static func setNoDelay(_ fd: Int32, _ on: Bool) {
        guard on else { return }
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    func write(_ bytes: [UInt8]) {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBufferPointer { Glibc.write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n <= 0 { return }
            written += n
        }
    }

    func readExactly(_ buffer: inout [UInt8]) throws {
        var got = 0
        let total = buffer.count
        while got < total {
            let n = buffer.withUnsafeMutableBufferPointer { Glibc.read(fd, $0.baseAddress! + got, total - got) }
            if n <= 0 { throw BenchError.closed("echo") }
            got += n
        }
    }

    func close() {
        if fd >= 0 { Glibc.close(fd); fd = -1 }
    }

    deinit { close() }
}

/// A raw game client: sends what it is told, answers pings, decodes what arrives.
final class BenchClient {
    let socket: BenchSocket
    private var sequence = SequenceCounter()
    private var decoder = FrameDecoder()
    private var buffer = [UInt8](repeating: 0, count: 65_536)
    /// Received but not yet looked at by `readUntil`.
    private var unread: [HostMessage] = []

    init(_ socket: BenchSocket) {
        self.socket = socket
    }

    func send(_ message: ClientMessage) {
        socket.write(WireCodec.encode(message, sequence: sequence.next()))
    }

    /// Reads what is there now (one read), answers pings, returns the messages.
    func receive() throws -> [HostMessage] {
        let count = buffer.withUnsafeMutableBufferPointer { read(socket.fd, $0.baseAddress!, $0.count) }
        if count <= 0 { throw BenchError.closed("read returned \(count)") }
        decoder.append(buffer[0..<count])
        var messages: [HostMessage] = []
        while let frame = try decoder.nextFrame() {
            let message = try WireCodec.decodeHostMessage(frame)
            switch message {
            case .ping(let nonce): send(.pong(nonce: nonce))
            case .closing(let reason, let text): throw BenchError.closed("\(reason): \(text)")
            default: break
            }
            messages.append(message)
        }
        return messages
    }

    /// Reads until a message satisfies `done`. Messages that arrived in the same read after
    /// it are kept for the next call: a welcome and the start of the game often share a read.
    func readUntil(timeout: Double, _ what: String, _ done: (HostMessage) -> Bool) throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int(timeout * 1000))
        while true {
            if let index = unread.firstIndex(where: done) {
                unread.removeSubrange(...index)
                return
            }
            unread.removeAll()
            guard clock.now < deadline else { break }
            var poller = pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            unread = try receive()
        }
        throw BenchError.timedOut(what)
    }
}

/// A game client over a `BlockingStream`: sends, answers pings, reads until.
final class StreamClient {
    let stream: BlockingStream
    private var sequence = SequenceCounter()
    private var decoder = FrameDecoder()
    private var unread: [HostMessage] = []

    init(_ stream: BlockingStream) { self.stream = stream }

    func send(_ message: ClientMessage) throws {
        try stream.write(WireCodec.encode(message, sequence: sequence.next()))
    }

    func readUntil(timeout: Duration = .seconds(10), _ done: (HostMessage) -> Bool) throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            if let index = unread.firstIndex(where: done) {
                unread.removeSubrange(...index)
                return
            }
            unread.removeAll()
            guard clock.now < deadline else { throw BenchError.timedOut("a message") }
            let (bytes, closed) = stream.read(timeout: deadline - clock.now)
            if let closed { throw BenchError.closed(closed) }
            decoder.append(bytes)
            while let frame = try decoder.nextFrame() {
                let message = try WireCodec.decodeHostMessage(frame)
                switch message {
                case .ping(let nonce): try send(.pong(nonce: nonce))
                case .closing(let reason, let text): throw BenchError.closed("\(reason): \(text)")
                default: unread.append(message)
                }
            }
        }
    }
}
