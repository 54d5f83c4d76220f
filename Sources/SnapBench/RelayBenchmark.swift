#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SnapNet
import SnapPlatform
import SnapRelay
import SnapRelayClient
import SnapRelayProtocol

/// `snap-bench relay` (docs/RELAY.md, "Figures"): a game through a relay against the same
/// game over a direct TLS connection, many rooms on one relay process, and the relay's
/// copying against a plain copy loop, each pair measured in the same run.
public struct RelayBenchmark {
    /// Snap! calls timed through the relay and directly.
    public var samples: Int
    /// Joins timed through the relay and directly.
    public var joins: Int
    /// Rooms held at once on one relay process, and for how long their traffic is measured.
    public var rooms: Int
    public var roomSeconds: Double
    /// How long one spliced pair (and the plain copy) copies.
    public var throughputSeconds: Double
    public static let playersPerRoom = 4
    /// The game's pace per player connection (docs/PROTOCOL.md §6, Pacing's 0.5 s between
    /// turns): the host sends a turn's `events` (about 64 bytes) every 0.5 s and a `ping`
    /// each second, which the player answers with a `pong` (about 16 bytes; its turns come
    /// as often, one player in four turning each 0.5 s).
    public static let hostEvery = TimeAmount.milliseconds(500), hostBytes = 64
    public static let playerEvery = TimeAmount.seconds(1), playerBytes = 16

    public init(samples: Int, joins: Int, rooms: Int, roomSeconds: Double, throughputSeconds: Double) {
        (self.samples, self.joins, self.rooms, self.roomSeconds, self.throughputSeconds) =
            (samples, joins, rooms, roomSeconds, throughputSeconds)
    }

    /// Microseconds, sorted, through the relay and over a direct TLS connection.
    public struct Latencies: Sendable {
        public var relayed: [Double]
        public var direct: [Double]
        public func p(_ values: [Double], _ q: Double) -> Double { NetBenchmark.Result.percentile(values, q) }
        public var ratioP50: Double { p(relayed, 0.5) / max(p(direct, 0.5), 0.001) }
        public var ratioP99: Double { p(relayed, 0.99) / max(p(direct, 0.99), 0.001) }
        /// The same through a bare copying hop in front of the direct host (`CopyingHop`):
        /// one more process hop and nothing else, the floor under any relay.
        public var hop: [Double] = []
        public var hopRatioP50: Double { p(hop, 0.5) / max(p(direct, 0.5), 0.001) }
        /// The relay against that floor: what its TLS and its rooms cost on top of the hop.
        public var relayOverHopP50: Double { p(relayed, 0.5) / max(p(hop, 0.5), 0.001) }
        /// The relay's splices during the relayed part, and how many of them found the host's
        /// data connection waiting ahead (docs/RELAY.md §4).
        public var splices = 0, splicesAhead = 0
    }

    // MARK: - Through the relay against direct TLS (an in-process RelayServer)

    /// Snap! → verdict at every client (3, `NetBenchmark`'s stream clients), through a
    /// relay on loopback, the host's room opened by `RelayRoom` and the players joining by
    /// its invitation, against the same host over a direct TLS connection.
    public func verdicts() throws -> Latencies {
        let relay = try InProcessRelay()
        defer { relay.stop() }
        let net = NetBenchmark(samples: samples)
        let direct = try net.measureStreamVerdicts(trust: relay.playerTrust) { try relay.directHost($0) }
        let relayed = try net.measureStreamVerdicts(trust: relay.playerTrust) { try relay.relayedHost($0) }
        let hop = try net.measureStreamVerdicts(trust: relay.playerTrust) { try relay.hoppedHost($0) }
        var latencies = Latencies(relayed: relayed.sorted(), direct: direct.sorted())
        latencies.hop = hop.sorted()
        return latencies
    }

    /// Invitation → welcome (the table's first frame), one join after another: the
    /// invitation parsed, the relay's TLS, its line, the host's TLS inside, hello; against
    /// a direct TLS connect → welcome. `pause`: microseconds from one join's end to the next's
    /// start. `relayedWithoutAhead`: the same joins through a relay that keeps no host data
    /// connection ahead (each player announced and accepted, the relay's first form).
    public func joinTimes(pause: useconds_t = 500) throws -> (Latencies, relayedWithoutAhead: [Double]) {
        let relay = try InProcessRelay()
        defer { relay.stop() }
        var first = RelayLimits()
        first.keepsAhead = false
        let firstForm = try InProcessRelay(limits: first)
        defer { firstForm.stop() }
        let net = NetBenchmark(samples: samples)
        let direct = try net.measureWelcomes(trust: relay.playerTrust, connections: joins, pause: pause) { try relay.directHost($0) }
        let relayed = try net.measureWelcomes(trust: relay.playerTrust, connections: joins, pause: pause) { try relay.relayedHost($0) }
        let without = try net.measureWelcomes(trust: firstForm.playerTrust, connections: joins, pause: pause) { try firstForm.relayedHost($0) }
        let hop = try net.measureWelcomes(trust: relay.playerTrust, connections: joins, pause: pause) { try relay.hoppedHost($0) }
        let server = relay.server
        let splices = try blockingAwait { await server.splices }
        var latencies = Latencies(relayed: relayed.sorted(), direct: direct.sorted())
        latencies.hop = hop.sorted()
        (latencies.splices, latencies.splicesAhead) = (splices.all, splices.ahead)
        return (latencies, without.sorted())
    }

    // MARK: - Many rooms on one relay process

    public struct Rooms: Sendable {
        public var asked: Int
        /// Rooms whose control connection and every player's pair were still open, and
        /// whose pairs carried bytes both ways, during the measuring window.
        public var held: Int
        public var connections: Int
        public var seconds: Double
        /// Of one core, over the window.
        public var cpuPercent: Double
        public var rssMiB: Double
        public var idleRSSMiB: Double
        public var setUpSeconds: Double
        public var fileLimit: Int
        public var rssPerRoomKiB: Double { (rssMiB - idleRSSMiB) * 1024 / Double(max(asked, 1)) }
    }

    /// Connections each side holds for a room: the host's control, per player its connection
    /// and the host's data connection for it, and the host's data connection the relay keeps
    /// ahead of a next player (docs/RELAY.md §4).
    public static func connections(rooms: Int) -> Int { rooms * (2 + 2 * playersPerRoom) }

    /// `rooms` rooms of four synthetic players on one `snapcards relay serve` process, each
    /// pair carrying the game's pace; the relay's CPU and memory read from /proc.
    public func manyRooms(snapcards: String) throws -> Rooms {
        let needed = Self.connections(rooms: rooms) + 256
        let fileLimit = try Self.raiseFileLimit(to: needed)
        // The relay inherits the raised limit; every room comes from 127.0.0.1.
        // Every room and player comes from 127.0.0.1: the caps on one address are lifted.
        let relay = try HostProcess(relay: snapcards, arguments: ["--rooms-per-address", "\(rooms + 1)",
                                                                  "--pending-per-address", "\(Self.connections(rooms: rooms) + 1)"])
        defer { relay.stop() }
        relay.sample()
        let idle = relay.rssKiB
        let port = relay.tcpPort ?? 0
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let trust = ServerTrust(knownHosts: KnownHosts(path: relay.directory + "/bench_known_hosts"))
        let clock = ContinuousClock()
        let began = clock.now
        var made: [SyntheticRoom] = []
        defer { for room in made { room.close() } }
        // A few rooms at a time: the relay holds at most 1024 connections in its line phase.
        let batch = 25
        var next = 0
        while next < rooms {
            let count = min(batch, rooms - next)
            let opening = (0..<count).map { _ in SyntheticRoom.open(port: port, trust: trust, loop: group.next()) }
            for future in opening { made.append(try future.wait()) }
            next += count
        }
        let setUp = Attackers.seconds(clock.now - began)
        // Every pace has come round once before the window opens.
        usleep(1_200_000)
        let before = made.map { $0.counts() }
        let from = (ticks: relay.sample() ?? 0, at: clock.now)
        usleep(useconds_t(roomSeconds * 1_000_000))
        let to = (ticks: relay.sample() ?? 0, at: clock.now)
        let after = made.map { $0.counts() }
        let held = made.indices.filter { index in
            made[index].isOpen && zip(before[index], after[index]).allSatisfy { $0.1 > $0.0 }
        }.count
        let wall = Attackers.seconds(to.at - from.at)
        return Rooms(asked: rooms, held: held, connections: Self.connections(rooms: rooms), seconds: wall,
                     cpuPercent: Double(to.ticks - from.ticks) / HostProcess.ticksPerSecond / max(wall, 0.001) * 100,
                     rssMiB: Double(relay.rssKiB) / 1024, idleRSSMiB: Double(idle) / 1024, setUpSeconds: setUp,
                     fileLimit: fileLimit)
    }

    /// Raises this process's soft limit on open files to `needed` (its children inherit
    /// it); throws when the hard limit is lower. Returns the soft limit now.
    static func raiseFileLimit(to needed: Int) throws -> Int {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        guard limit.rlim_max >= rlim_t(needed) else {
            throw BenchError.socket("this needs \(needed) open files a process (the bench and the relay each), "
                + "but the hard limit is \(limit.rlim_max) (ulimit -Hn): ask for fewer --rooms or raise it")
        }
        if limit.rlim_cur < rlim_t(needed) {
            limit.rlim_cur = rlim_t(needed)
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return Int(limit.rlim_cur)
    }

    // MARK: - Throughput: one spliced pair against a plain copy loop

    public struct Throughput: Sendable {
        public var relayedBytes: Int
        public var relayCPUSeconds: Double
        public var relayedWallSeconds: Double
        public var plainBytes: Int
        public var plainCPUSeconds: Double
        public var plainWallSeconds: Double
        /// Bytes per second of CPU (one core busy for a second).
        public var relayedPerCore: Double { Double(relayedBytes) / max(relayCPUSeconds, 0.001) }
        public var plainPerCore: Double { Double(plainBytes) / max(plainCPUSeconds, 0.000_001) }
        public var ratio: Double { relayedPerCore / max(plainPerCore, 1) }
    }

    /// One pair spliced at a `snapcards relay serve` process, one end writing as fast as
    /// the connection takes: bytes that came out the other end per second of the relay's
    /// CPU (its TLS in and out included). Beside it, a plain copy loop on a thread of this
    /// process (read, write, no TLS, no relay logic) between two loopback TCP connections:
    /// bytes per second of that thread's CPU.
    public func throughput(snapcards: String) throws -> Throughput {
        // The relay's copying, not its per-connection cap (docs/RELAY.md §7), is measured.
        let relay = try HostProcess(relay: snapcards, arguments: ["--bytes-per-second", "0"])
        defer { relay.stop() }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let trust = ServerTrust(knownHosts: KnownHosts(path: relay.directory + "/bench_known_hosts"))
        let sender = NIOLockedValueBox<SyntheticEnd?>(nil)
        // The spliced one floods (the relay also keeps one ahead, never spliced here).
        let (room, control) = try SyntheticRelay.register(port: relay.tcpPort ?? 0, trust: trust, loop: group.next(), makeEnd: {
            SyntheticEnd(flood: true)
        }, accepted: { result in
            if case .success(let end) = result { sender.withLockedValue { $0 = end } }
        }).wait()
        defer { control.close(promise: nil) }
        let receiver = SyntheticEnd()
        _ = try SyntheticRelay.dial(port: relay.tcpPort ?? 0, .connect(room: room), trust: trust, loop: group.next(), end: receiver).wait()
        defer {
            sender.withLockedValue { $0?.close() }
            receiver.close()
        }
        usleep(300_000)  // past the start
        let clock = ContinuousClock()
        let from = (bytes: receiver.received, ticks: relay.sample() ?? 0, at: clock.now)
        usleep(useconds_t(throughputSeconds * 1_000_000))
        let to = (bytes: receiver.received, ticks: relay.sample() ?? 0, at: clock.now)
        sender.withLockedValue { $0?.stop() }
        let plain = try Self.plainCopy(seconds: throughputSeconds)
        return Throughput(relayedBytes: to.bytes - from.bytes,
                          relayCPUSeconds: Double(to.ticks - from.ticks) / HostProcess.ticksPerSecond,
                          relayedWallSeconds: Attackers.seconds(to.at - from.at),
                          plainBytes: plain.bytes, plainCPUSeconds: plain.cpu, plainWallSeconds: plain.wall)
    }

    /// A writer thread → TCP → a copy thread (read 64 KiB, write it on) → TCP → a reader
    /// thread, for `seconds`: what the copy thread moved, its CPU time and the wall time.
    static func plainCopy(seconds: Double) throws -> (bytes: Int, cpu: Double, wall: Double) {
        let inbound = try BenchSocket(listeningTCP: ())
        let outbound = try BenchSocket(listeningTCP: ())
        defer {
            inbound.close()
            outbound.close()
        }
        let (inListener, outListener, inPort) = (inbound.fd, outbound.fd, inbound.localPort)
        let outPort = outbound.localPort
        let stop = NIOLockedValueBox(false)
        let writer = Background { () -> Int in
            guard let socket = try? BenchSocket(tcpPort: inPort) else { return 0 }
            let chunk = [UInt8](repeating: 0x5A, count: 65_536)
            while !stop.withLockedValue({ $0 }) { socket.write(chunk) }
            socket.close()
            return 0
        }
        let reader = Background { () -> Int in
            let peer = accept(outListener, nil, nil)
            guard peer >= 0 else { return 0 }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            var total = 0
            while true {
                let n = buffer.withUnsafeMutableBufferPointer { read(peer, $0.baseAddress!, $0.count) }
                if n <= 0 { break }
                total += n
            }
            Glibc.close(peer)
            return total
        }
        let copier = Background { () -> (Int, Double, Double) in
            let from = accept(inListener, nil, nil)
            guard from >= 0, let to = try? BenchSocket(tcpPort: outPort) else { return (0, 0, 0) }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            var total = 0
            let clock = ContinuousClock()
            let began = clock.now, cpuBegan = Self.threadCPUSeconds()
            while true {
                let n = buffer.withUnsafeMutableBufferPointer { read(from, $0.baseAddress!, $0.count) }
                if n <= 0 { break }
                var written = 0
                while written < n {
                    let w = buffer.withUnsafeBufferPointer { write(to.fd, $0.baseAddress! + written, n - written) }
                    if w <= 0 { break }
                    written += w
                }
                total += n
            }
            let result = (total, Self.threadCPUSeconds() - cpuBegan, Attackers.seconds(clock.now - began))
            Glibc.close(from)
            to.close()
            return result
        }
        usleep(useconds_t(seconds * 1_000_000))
        stop.withLockedValue { $0 = true }
        _ = writer.wait()
        let copied = copier.wait()
        _ = reader.wait()
        return (copied.0, copied.1, copied.2)
    }

    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// A relay in this process on a loop of its own, the host's certificate, and the trust
/// files of the bench's players and host (first use, in a private directory).
final class InProcessRelay {
    let directory: String
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let server: RelayServer
    let port: Int
    let hostIdentity: TLSIdentity
    let playerTrust: ServerTrust
    let hostTrust: ServerTrust

    init(limits: RelayLimits = RelayLimits()) throws {
        var template = Array("/tmp/snapr-XXXXXX".utf8CString)
        directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        let relayIdentity = try TLSIdentity.selfMade(in: directory + "/relay-tls")
        hostIdentity = try TLSIdentity.selfMade(in: directory + "/host-tls")
        playerTrust = ServerTrust(knownHosts: KnownHosts(path: directory + "/player_known_hosts"))
        hostTrust = ServerTrust(knownHosts: KnownHosts(path: directory + "/host_known_hosts"))
        let server = RelayServer(limits: limits, loop: group.next(), logger: NetBenchmark.quietLogger())
        self.server = server
        port = try blockingAwait { try await server.listen(host: "127.0.0.1", port: 0, identity: relayIdentity) }
    }

    func directHost(_ group: EventLoopGroup) throws -> NetBenchmark.StreamHost {
        let server = HostServer(NetBenchmark.stillTable(), loop: group.next(), logger: NetBenchmark.quietLogger())
        let identity = hostIdentity
        let port = try blockingAwait { try await server.listen(host: "127.0.0.1", port: 0, identity: identity) }
        return NetBenchmark.StreamHost(server: server, endpoint: { .tcp(host: "127.0.0.1", port: port) })
    }

    /// The direct host behind a `CopyingHop` on the relay's loop: players connect to the hop.
    func hoppedHost(_ group: EventLoopGroup) throws -> NetBenchmark.StreamHost {
        let direct = try directHost(group)
        guard case .tcp(_, let port) = try direct.endpoint() else { throw BenchError.socket("the direct host has no TCP port") }
        let loop = self.group.next()
        let hop = try blockingAwait { try await CopyingHop.start(to: port, loop: loop) }
        return NetBenchmark.StreamHost(server: direct.server, endpoint: { .tcp(host: "127.0.0.1", port: hop.port) },
                                       close: { hop.stop() })
    }

    /// A host with no listener, its room at the relay (`RelayRoom`, as `snapcards host
    /// --relay` opens it); its players join by the invitation's text.
    func relayedHost(_ group: EventLoopGroup) throws -> NetBenchmark.StreamHost {
        let server = HostServer(NetBenchmark.stillTable(), loop: group.next(), logger: NetBenchmark.quietLogger())
        let (identity, trust, port) = (hostIdentity, hostTrust, self.port)
        let room = try blockingAwait {
            try await RelayRoom.open(for: server, relay: HostPort(host: "127.0.0.1", port: port), identity: identity, trust: trust,
                                     logger: NetBenchmark.quietLogger())
        }
        guard let invitation = room.invitation(code: nil, certificate: identity.fingerprint)?.description else {
            room.close()
            throw BenchError.closed("the relay granted no room")
        }
        return NetBenchmark.StreamHost(server: server, endpoint: { Endpoint(try RelayInvitation(parsing: invitation)) },
                                       close: { room.close() })
    }

    func stop() {
        let server = self.server
        try? blockingAwait { await server.shutdown() }
        try? group.syncShutdownGracefully()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// A room of synthetic ends at a relay: the host's control connection, and per player the
/// player's connection and the host's data connection, each at the game's pace.
final class SyntheticRoom: @unchecked Sendable {  // `hostEnds` behind its lock; the rest set before `open` completes
    private(set) var control: Channel?
    private(set) var players: [SyntheticEnd] = []
    private let hostEnds = NIOLockedValueBox<[SyntheticEnd]>([])

    /// Registers, then joins four players; completes once every pair is spliced.
    static func open(port: Int, trust: ServerTrust, loop: EventLoop) -> EventLoopFuture<SyntheticRoom> {
        let room = SyntheticRoom()
        let hostsSpliced = loop.makePromise(of: Void.self)
        let count = RelayBenchmark.playersPerRoom
        let failed = NIOLockedValueBox(false)
        return SyntheticRelay.register(port: port, trust: trust, loop: loop, makeEnd: {
            SyntheticEnd(every: RelayBenchmark.hostEvery, size: RelayBenchmark.hostBytes)
        }, accepted: { result in
            switch result {
            case .success(let end):
                if room.hostEnds.withLockedValue({ $0.append(end); return $0.count }) == count { hostsSpliced.succeed(()) }
            case .failure(let error):
                if !failed.withLockedValue({ let was = $0; $0 = true; return was }) { hostsSpliced.fail(error) }
            }
        }).flatMap { granted in
            let (id, control) = granted
            room.control = control
            let players = (0..<count).map { _ in SyntheticEnd(every: RelayBenchmark.playerEvery, size: RelayBenchmark.playerBytes) }
            room.players = players
            let dialled = players.map { SyntheticRelay.dial(port: port, .connect(room: id), trust: trust, loop: loop, end: $0) }
            return EventLoopFuture.andAllSucceed(dialled, on: loop)
        }.flatMap { _ in hostsSpliced.futureResult }.map { _ in room }
    }

    /// Bytes each end has received so far (players first).
    func counts() -> [Int] { (players + hostEnds.withLockedValue { $0 }).map(\.received) }

    var isOpen: Bool {
        let ends = players + hostEnds.withLockedValue { $0 }
        return control?.isActive == true && ends.count == 2 * RelayBenchmark.playersPerRoom && !ends.contains(where: \.closed)
    }

    func close() {
        for end in players + hostEnds.withLockedValue({ $0 }) { end.close() }
        control?.close(promise: nil)
    }
}
