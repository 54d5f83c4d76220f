import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
@testable import SnapPlatform
@testable import SnapRelay
import SnapRelayProtocol
import SnapTestSupport
import Testing

/// The relay on real sockets (127.0.0.1, TLS): rooms, splicing, and bytes copied unchanged.
@Suite("Relay: the server on sockets", .blocksThreads, .serialized)
struct RelayServerTests {
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// Everything a client connection received, in order.
    final class Received: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let bytes = NIOLockedValueBox<[UInt8]>([])

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            bytes.withLockedValue { $0 += buffer.readableBytesView }
        }

        var text: String { String(decoding: bytes.withLockedValue { $0 }, as: UTF8.self) }

        /// Waits (within 10 s, a bound for a hang, not a timing) until the bytes end with `suffix`.
        func waitFor(_ suffix: String) async throws -> String {
            for _ in 0..<1000 {
                if text.hasSuffix(suffix) { return text }
                try await Task.sleep(for: .milliseconds(10))
            }
            return text
        }
    }

    struct Client {
        let channel: Channel
        let received: Received

        func send(_ bytes: [UInt8]) async throws {
            try await channel.writeAndFlush(channel.allocator.buffer(bytes: bytes))
        }
    }

    func client(_ port: Int, _ directory: String) async throws -> Client {
        let received = Received()
        let trust = ServerTrust(knownHosts: KnownHosts(path: directory + "/known_hosts"))
        let channel = try await connectLater(to: .tcp(host: "127.0.0.1", port: port), on: Self.group.next(), trust: trust) { received }.get()
        return Client(channel: channel, received: received)
    }

    /// A relay on 127.0.0.1. Its handshake deadline (which bounds its TLS too) is an hour: the
    /// deadline is RelayMachineTests' to check, and in a loaded full run this test's task can
    /// wait minutes for a thread of the pool between two steps (a busy-loop run saw 237 s).
    func relay(_ directory: String, limits given: RelayLimits = RelayLimits()) async throws -> (RelayServer, Int, NIOLockedValueBox<[UInt8]>) {
        var limits = given
        limits.handshakeDeadline = .seconds(3600)
        let server = RelayServer(limits: limits, loop: Self.group.next(), logger: Logger(label: "test"))
        let copied = NIOLockedValueBox<[UInt8]>([])
        server.copyHook = { _, buffer in copied.withLockedValue { $0 += buffer.readableBytesView } }
        let port = try await server.listen(host: "127.0.0.1", port: 0, identity: try TLSIdentity.selfMade(in: directory + "/relay-tls"))
        return (server, port, copied)
    }

    /// A host's room: its control connection, the room's id and the id told ahead of the first player.
    func registered(_ server: RelayServer, _ port: Int, _ directory: String) async throws -> (host: Client, room: RelayID, ahead: RelayID) {
        let host = try await client(port, directory)
        try await host.send(RelayLine.encode(.register))
        let replies = try await host.received.waitForLines(2)
        guard case .room(let room)? = replies.first, case .incoming(let ahead)? = replies.last else {
            throw RelayTestFailure("not a room and an id ahead: \(host.received.text)")
        }
        #expect(await server.roomCount == 1)
        return (host, room, ahead)
    }

    /// A host's room, its data connection accepted ahead, and a player in it spliced with that
    /// connection at once (docs/RELAY.md §4).
    func splicedPair(_ server: RelayServer, _ port: Int, _ directory: String) async throws -> (host: Client, player: Client, data: Client) {
        let (host, room, ahead) = try await registered(server, port, directory)
        let data = try await client(port, directory)
        try await data.send(RelayLine.encode(.accept(connection: ahead)))
        for _ in 0..<1000 where !(await server.holdsAhead(room)) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(await server.holdsAhead(room), "the data connection waits ahead")
        #expect(data.received.text.isEmpty, "nothing is said to it until its player comes")

        let player = try await client(port, directory)
        try await player.send(RelayLine.encode(.connect(room: room)))
        #expect(try await data.received.waitFor("spliced\n") == "spliced\n")
        #expect(try await player.received.waitFor("spliced\n") == "spliced\n")
        // The host is told the next id ahead; it is no player's.
        let replies = try await host.received.waitForLines(3)
        guard case .incoming(let next)? = replies.last else { throw RelayTestFailure("no next id ahead: \(host.received.text)") }
        #expect(next != ahead)
        #expect(!(await server.holdsAhead(room)))
        return (host, player, data)
    }

    /// A player who connects to `room` (its `connect` line and then `first`) while no data
    /// connection waits ahead, once announced to the host (`incoming`, its `lines`th line).
    func announced(_ host: Client, room: RelayID, lines: Int, first: [UInt8] = [], _ port: Int, _ directory: String)
        async throws -> (player: Client, own: RelayID) {
        let player = try await client(port, directory)
        try await player.send(RelayLine.encode(.connect(room: room)) + first)
        let replies = try await host.received.waitForLines(lines)
        guard case .incoming(let own)? = replies.last else { throw RelayTestFailure("no incoming line: \(host.received.text)") }
        return (player, own)
    }

    /// The host's data connection for the player announced under `own`.
    func accepted(_ own: RelayID, _ port: Int, _ directory: String) async throws -> Client {
        let data = try await client(port, directory)
        try await data.send(RelayLine.encode(.accept(connection: own)))
        return data
    }

    struct RelayTestFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test("a host registers, a player connects, the host accepts: bytes go both ways unchanged, and the relay copies exactly them")
    func spliceCopiesBothWays() async throws {
        let directory = scratchDirectory("relay-splice")
        let (server, port, copied) = try await relay(directory)
        let (host, player, data) = try await splicedPair(server, port, directory)

        // Every byte value, both ways, in pieces: what arrives is what was sent.
        let toHost: [UInt8] = (0...255).map { UInt8($0) } + Array("hello host\n".utf8)
        let toPlayer: [UInt8] = Array("SNAP and more\n".utf8) + (0...255).reversed().map { UInt8($0) }
        try await player.send(Array(toHost.prefix(100)))
        try await player.send(Array(toHost.dropFirst(100)))
        try await data.send(toPlayer)
        try await data.received.waitForCount(8 + toHost.count)
        try await player.received.waitForCount(8 + toPlayer.count)
        #expect(data.received.bytes.withLockedValue { $0 } == Array("spliced\n".utf8) + toHost)
        #expect(player.received.bytes.withLockedValue { $0 } == Array("spliced\n".utf8) + toPlayer)
        #expect(copied.withLockedValue { $0 }.count == toHost.count + toPlayer.count)

        // One end closes: the other is closed by the relay.
        try await data.channel.close()
        try await player.channel.closeFuture.get()
        for channel in [host.channel] { try await channel.close() }
        await server.shutdown()
    }

    @Test("bytes per second: a player sending three seconds' worth at once is not read again until it is back under the cap; every byte arrives unchanged",
          .timeLimit(.minutes(10)))
    func bytesPerSecondCap() async throws {
        let directory = scratchDirectory("relay-cap")
        var limits = RelayLimits()
        limits.bytesPerSecond = 20_000
        let (server, port, _) = try await relay(directory, limits: limits)
        let (host, player, data) = try await splicedPair(server, port, directory)
        // The first 60,000 bytes may be read in one go (a socket read, then TLS's records);
        // the 40,000 over the budget are a debt of two seconds, during which nothing more
        // is read from this player: the last byte cannot arrive sooner, however fast the
        // machine (a lower bound, the cap's, not a speed).
        let first = (0..<60_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let last: [UInt8] = [0xEE]
        let start = ContinuousClock.now
        try await player.send(first)
        try await data.received.waitForCount(8 + first.count, within: .seconds(60))
        try await player.send(last)
        try await data.received.waitForCount(8 + first.count + 1, within: .seconds(60))
        let took = ContinuousClock.now - start
        #expect(data.received.bytes.withLockedValue { $0 } == Array("spliced\n".utf8) + first + last)
        #expect(took >= .milliseconds(1900), "61,001 bytes at 20,000 a second took \(took)")
        // The other way is not held back by this connection's budget.
        try await data.send(Array("back".utf8))
        try await player.received.waitForCount(8 + 4)
        #expect(player.received.text == "spliced\nback")
        for client in [host, player, data] { try? await client.channel.close() }
        await server.shutdown()
    }

    @Test("no data connection waiting ahead: the player is announced and spliced once its own is accepted, as before")
    func announcedWhenNoneAhead() async throws {
        let directory = scratchDirectory("relay-noneahead")
        let (server, port, _) = try await relay(directory)
        let (host, room, ahead) = try await registered(server, port, directory)
        let (player, own) = try await announced(host, room: room, lines: 3, port, directory)
        #expect(own != ahead)
        let data = try await accepted(own, port, directory)
        #expect(try await data.received.waitFor("spliced\n") == "spliced\n")
        #expect(try await player.received.waitFor("spliced\n") == "spliced\n")
        try await player.send(Array("through".utf8))
        try await data.received.waitForCount(8 + 7)
        #expect(data.received.text == "spliced\nthrough")
        for client in [host, player, data] { try? await client.channel.close() }
        await server.shutdown()
    }

    @Test("a player's first bytes may follow its connect line before spliced: held unread, newlines and all, and handed to the host first")
    func earlyBytesHeldUntilSpliced() async throws {
        let directory = scratchDirectory("relay-early")
        let (server, port, _) = try await relay(directory)
        let (host, room, ahead) = try await registered(server, port, directory)
        // No data connection waits ahead: the player is announced and its bytes wait with it,
        // the rest of them sent after its announcement.
        let early: [UInt8] = Array("not\na line\n".utf8) + (0...255).map { UInt8($0) }
        let (player, own) = try await announced(host, room: room, lines: 3, first: Array(early.prefix(5)), port, directory)
        #expect(own != ahead)
        try await player.send(Array(early.dropFirst(5)))
        let data = try await accepted(own, port, directory)
        try await data.received.waitForCount(8 + early.count)
        #expect(data.received.bytes.withLockedValue { $0 } == Array("spliced\n".utf8) + early)
        #expect(try await player.received.waitFor("spliced\n") == "spliced\n")
        for client in [host, player, data] { try? await client.channel.close() }
        await server.shutdown()
    }

    @Test("early bytes: up to the cap are held and handed over; one byte more is refused as malformed, and the room stays")
    func earlyBytesCap() async throws {
        let directory = scratchDirectory("relay-early-cap")
        let (server, port, _) = try await relay(directory)
        let (host, room, _) = try await registered(server, port, directory)
        let full = (0..<RelayLine.maxEarlyBytes).map { $0 % 64 == 63 ? UInt8(0x0A) : UInt8(0x41 + $0 % 26) }
        // The id told ahead is not taken: each player is announced and waits.
        let (within, own) = try await announced(host, room: room, lines: 3, first: full, port, directory)
        let data = try await accepted(own, port, directory)
        try await data.received.waitForCount(8 + full.count)
        #expect(data.received.bytes.withLockedValue { $0 } == Array("spliced\n".utf8) + full)

        let over = try await client(port, directory)
        try await over.send(RelayLine.encode(.connect(room: room)) + full + [0x41])
        try await over.channel.closeFuture.get()
        #expect(over.received.text == "error malformed\n")
        #expect(await server.roomCount == 1)
        for client in [host, within, data] { try? await client.channel.close() }
        await server.shutdown()
    }

    @Test("the room going closes its host's data connection waiting ahead, saying the room is gone")
    func aheadClosedWithRoom() async throws {
        let directory = scratchDirectory("relay-aheadgone")
        let (server, port, _) = try await relay(directory)
        let (host, room, ahead) = try await registered(server, port, directory)
        let data = try await client(port, directory)
        try await data.send(RelayLine.encode(.accept(connection: ahead)))
        for _ in 0..<1000 where !(await server.holdsAhead(room)) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(await server.holdsAhead(room))
        try await host.channel.close()
        try await data.channel.closeFuture.get()
        #expect(data.received.text == "error no-such-room\n")
        #expect(await server.roomCount == 0)
        await server.shutdown()
    }

    @Test("a room that does not exist is refused in words, and the connection closed")
    func noSuchRoom() async throws {
        let directory = scratchDirectory("relay-noroom")
        let (server, port, _) = try await relay(directory)
        let player = try await client(port, directory)
        try await player.send(RelayLine.encode(.connect(room: RelayID(bytes: Array(repeating: 7, count: 16)))))
        try await player.channel.closeFuture.get()
        #expect(player.received.text == "error no-such-room\n")
        await server.shutdown()
    }

    @Test("a line that breaks the rules is refused as malformed")
    func malformed() async throws {
        let directory = scratchDirectory("relay-malformed")
        let (server, port, _) = try await relay(directory)
        let player = try await client(port, directory)
        try await player.send(Array("GET / HTTP/1.1\n".utf8))
        try await player.channel.closeFuture.get()
        #expect(player.received.text == "error malformed\n")
        await server.shutdown()
    }

    @Test("rooms per address: the next register from 127.0.0.1 is refused, the rooms held stay")
    func roomsPerAddress() async throws {
        let directory = scratchDirectory("relay-rooms")
        var limits = RelayLimits()
        limits.roomsPerAddress = 2
        let (server, port, _) = try await relay(directory, limits: limits)
        var hosts: [Client] = []
        for _ in 0..<2 {
            let host = try await client(port, directory)
            try await host.send(RelayLine.encode(.register))
            #expect(try await host.received.waitFor("\n").hasPrefix("room "))
            hosts.append(host)
        }
        let third = try await client(port, directory)
        try await third.send(RelayLine.encode(.register))
        try await third.channel.closeFuture.get()
        #expect(third.received.text == "error too-many-rooms\n")
        #expect(await server.roomCount == 2)
        for host in hosts { try await host.channel.close() }
        await server.shutdown()
    }
}

extension RelayServerTests.Received {
    /// Waits (within `bound`, for a hang) until `count` bytes have arrived.
    func waitForCount(_ count: Int, within bound: Duration = .seconds(10)) async throws {
        let end = ContinuousClock.now + bound
        while bytes.withLockedValue({ $0.count }) < count, ContinuousClock.now < end { try await Task.sleep(for: .milliseconds(10)) }
    }

    /// Waits (within 10 s, for a hang) until `count` whole lines have arrived; returns those that parse as replies.
    func waitForLines(_ count: Int) async throws -> [RelayReply?] {
        for _ in 0..<1000 where text.count(where: { $0 == "\n" }) < count { try await Task.sleep(for: .milliseconds(10)) }
        return text.split(separator: "\n").prefix(count).map { RelayLine.decodeReply(ArraySlice(Array($0.utf8))) }
    }
}
