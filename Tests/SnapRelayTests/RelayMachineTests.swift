import SnapBytes
import SnapRelayProtocol
import Testing

/// The relay's lines, byte for byte (docs/RELAY.md §3), and its bookkeeping as a value.
@Suite("Relay: lines and the machine")
struct RelayMachineTests {
    static let room = RelayID("0123456789abcdef0123456789abcdef")!

    @Test("lines are encoded byte for byte as RELAY.md shows them")
    func linesAsDocumented() {
        #expect(RelayLine.encode(.register) == Array("register\n".utf8))
        #expect(RelayLine.encode(.connect(room: Self.room)) == Array("connect 0123456789abcdef0123456789abcdef\n".utf8))
        #expect(RelayLine.encode(.connect(room: Self.room)).count == 41)
        #expect(RelayLine.encode(.room(Self.room)).count == 38)
        #expect(RelayLine.encode(.spliced) == [0x73, 0x70, 0x6c, 0x69, 0x63, 0x65, 0x64, 0x0a])
        #expect(RelayLine.encode(.error(.noSuchRoom)) == Array("error no-such-room\n".utf8))
    }

    @Test("a connection's byte budget: a second's worth at once, then a pause as long as the debt takes to pay")
    func byteBudget() {
        var budget = TokenBucket(capacity: 1000, perSecond: 1000)
        #expect(budget.spend(600, at: .zero) == .zero)
        #expect(budget.spend(400, at: .zero) == .zero)
        #expect(budget.spend(500, at: .zero) == .milliseconds(500))
        // Half a second later the debt is paid, and nothing more is free yet.
        #expect(budget.spend(0, at: .milliseconds(500)) == .zero)
        #expect(budget.spend(100, at: .milliseconds(500)) == .milliseconds(100))
        // A long quiet refills to the capacity, no more.
        #expect(budget.spend(1000, at: .seconds(60)) == .zero)
        #expect(budget.spend(1, at: .seconds(60)) == .milliseconds(1))
    }

    @Test("every line decodes to what was encoded")
    func roundTrip() {
        for request in [RelayRequest.register, .connect(room: Self.room), .accept(connection: Self.room)] {
            #expect(RelayLine.decodeRequest(RelayLine.encode(request).dropLast()) == request)
        }
        var replies: [RelayReply] = [.room(Self.room), .incoming(Self.room), .spliced]
        replies += RelayErrorCode.allCases.map { .error($0) }
        for reply in replies { #expect(RelayLine.decodeReply(RelayLine.encode(reply).dropLast()) == reply) }
    }

    @Test("lines that break §3 are refused", arguments: [
        "", "register ", " register", "register  x", "connect", "connect 0123", "connect 0123456789ABCDEF0123456789ABCDEF",
        "connect 0123456789abcdef0123456789abcdeg", "hello", "register\r", "accept \u{7f}", "register extra",
    ])
    func malformedLines(_ text: String) {
        #expect(RelayLine.decodeRequest(ArraySlice(Array(text.utf8))) == nil)
    }

    @Test("ids are 32 lowercase hex digits from 16 bytes")
    func ids() {
        #expect(RelayID(bytes: Array(repeating: 0xAB, count: 16)).text == String(repeating: "ab", count: 16))
        #expect(RelayID(String(repeating: "a", count: 31)) == nil)
        #expect(RelayID(String(repeating: "a", count: 33)) == nil)
    }

    @Test("the line buffer cuts lines at every chunk size, keeps what follows, and refuses a long line")
    func lineBuffer() throws {
        let stream = Array("spliced\n".utf8) + [0x16, 0x03, 0x01, 0x0a, 0x00]
        for size in 1...stream.count {
            var buffer = RelayLineBuffer()
            var lines: [[UInt8]] = []
            var start = 0
            while start < stream.count {
                buffer.append(stream[start..<min(start + size, stream.count)])
                start += size
                if lines.isEmpty, let line = try buffer.nextLine() { lines.append(Array(line)) }
            }
            #expect(lines == [Array("spliced".utf8)], "chunks of \(size)")
            #expect(buffer.takeRest() == [0x16, 0x03, 0x01, 0x0a, 0x00], "chunks of \(size)")
        }
        var long = RelayLineBuffer()
        long.append(Array(repeating: 0x61, count: RelayLine.maxLength))
        #expect(throws: RelayLineTooLong.self) { try long.nextLine() }
        var longWithEnd = RelayLineBuffer()
        longWithEnd.append(Array(repeating: 0x61, count: RelayLine.maxLength) + [0x0a])
        #expect(throws: RelayLineTooLong.self) { try longWithEnd.nextLine() }
    }

    /// A machine whose ids count up (1, 2, …), so that tests can name them.
    static func machine(_ limits: RelayLimits = RelayLimits()) -> RelayMachine {
        var counter: UInt8 = 0
        return RelayMachine(limits: limits) {
            counter += 1
            return RelayID(bytes: Array(repeating: 0, count: 15) + [counter])
        }
    }

    static func id(_ n: UInt8) -> RelayID { RelayID(bytes: Array(repeating: 0, count: 15) + [n]) }
    let host = RelayConnection(1), player = RelayConnection(2), data = RelayConnection(3)

    @Test("register, connect, incoming, accept, spliced: the room's life")
    func roomLife() {
        var relay = Self.machine()
        #expect(relay.handle(.opened(host, address: "10.0.0.1"), now: .zero).isEmpty)
        #expect(relay.handle(.line(host, .register), now: .zero) == [.send(host, .room(Self.id(1)))])
        _ = relay.handle(.opened(player, address: "10.0.0.2"), now: .zero)
        #expect(relay.handle(.line(player, .connect(room: Self.id(1))), now: .zero) == [.send(host, .incoming(Self.id(2)))])
        _ = relay.handle(.opened(data, address: "10.0.0.1"), now: .zero)
        #expect(relay.handle(.line(data, .accept(connection: Self.id(2))), now: .zero)
            == [.send(player, .spliced), .send(data, .spliced), .splice(player, data)])
        // Spliced: no deadline any more; one end closing closes the other.
        #expect(relay.nextDeadline == nil)
        #expect(relay.handle(.closed(data), now: .seconds(500)) == [.close(player)])
        #expect(relay.roomCount == 1)
        // The host goes: the room goes; later players hear there is no such room.
        #expect(relay.handle(.closed(host), now: .seconds(500)).isEmpty)
        #expect(relay.roomCount == 0)
        let late = RelayConnection(9)
        _ = relay.handle(.opened(late, address: "10.0.0.3"), now: .seconds(500))
        #expect(relay.handle(.line(late, .connect(room: Self.id(1))), now: .seconds(500)) == [.send(late, .error(.noSuchRoom)), .close(late)])
        #expect(relay.connectionCount == 0)
    }

    @Test("an unknown room, an unknown connection id and a second line are refused")
    func refusals() {
        var relay = Self.machine()
        _ = relay.handle(.opened(player, address: "a"), now: .zero)
        #expect(relay.handle(.line(player, .connect(room: Self.room)), now: .zero) == [.send(player, .error(.noSuchRoom)), .close(player)])
        _ = relay.handle(.opened(data, address: "a"), now: .zero)
        #expect(relay.handle(.line(data, .accept(connection: Self.room)), now: .zero) == [.send(data, .error(.noSuchConnection)), .close(data)])
        _ = relay.handle(.opened(host, address: "a"), now: .zero)
        _ = relay.handle(.line(host, .register), now: .zero)
        #expect(relay.handle(.line(host, .register), now: .zero) == [.send(host, .error(.malformed)), .close(host)])
        #expect(relay.roomCount == 0)
        let bad = RelayConnection(7)
        _ = relay.handle(.opened(bad, address: "a"), now: .zero)
        #expect(relay.handle(.malformed(bad), now: .zero) == [.send(bad, .error(.malformed)), .close(bad)])
    }

    @Test("rooms per address are capped; other addresses still register")
    func roomsPerAddress() {
        var limits = RelayLimits()
        limits.roomsPerAddress = 2
        var relay = Self.machine(limits)
        for n in 1...3 as ClosedRange<UInt64> {
            _ = relay.handle(.opened(RelayConnection(n), address: "10.0.0.1"), now: .zero)
        }
        #expect(relay.handle(.line(RelayConnection(1), .register), now: .zero).count == 1)
        #expect(relay.handle(.line(RelayConnection(2), .register), now: .zero).count == 1)
        #expect(relay.handle(.line(RelayConnection(3), .register), now: .zero)
            == [.send(RelayConnection(3), .error(.tooManyRooms)), .close(RelayConnection(3))])
        _ = relay.handle(.opened(RelayConnection(4), address: "10.0.0.2"), now: .zero)
        #expect(relay.handle(.line(RelayConnection(4), .register), now: .zero) == [.send(RelayConnection(4), .room(Self.id(3)))])
        // A room closed frees its place.
        _ = relay.handle(.closed(RelayConnection(1)), now: .zero)
        _ = relay.handle(.opened(RelayConnection(5), address: "10.0.0.1"), now: .zero)
        #expect(relay.handle(.line(RelayConnection(5), .register), now: .zero) == [.send(RelayConnection(5), .room(Self.id(4)))])
    }

    @Test("player connections per room are capped, waiting and spliced alike; one leaving frees a place")
    func connectionsPerRoom() {
        var limits = RelayLimits()
        limits.connectionsPerRoom = 2
        var relay = Self.machine(limits)
        _ = relay.handle(.opened(host, address: "h"), now: .zero)
        _ = relay.handle(.line(host, .register), now: .zero)
        for n in 10...12 as ClosedRange<UInt64> { _ = relay.handle(.opened(RelayConnection(n), address: "p"), now: .zero) }
        #expect(relay.handle(.line(RelayConnection(10), .connect(room: Self.id(1))), now: .zero) == [.send(host, .incoming(Self.id(2)))])
        // The first is spliced, the second waits: the room is full for a third.
        _ = relay.handle(.opened(data, address: "h"), now: .zero)
        _ = relay.handle(.line(data, .accept(connection: Self.id(2))), now: .zero)
        #expect(relay.handle(.line(RelayConnection(11), .connect(room: Self.id(1))), now: .zero) == [.send(host, .incoming(Self.id(3)))])
        #expect(relay.handle(.line(RelayConnection(12), .connect(room: Self.id(1))), now: .zero)
            == [.send(RelayConnection(12), .error(.roomFull)), .close(RelayConnection(12))])
        _ = relay.handle(.closed(RelayConnection(10)), now: .zero)
        _ = relay.handle(.opened(RelayConnection(13), address: "p"), now: .zero)
        #expect(relay.handle(.line(RelayConnection(13), .connect(room: Self.id(1))), now: .zero) == [.send(host, .incoming(Self.id(4)))])
    }

    @Test("the handshake deadline closes a silent connection and tells a player whose host never accepted")
    func deadlines() {
        var relay = Self.machine()
        let silent = RelayConnection(5)
        _ = relay.handle(.opened(silent, address: "s"), now: .zero)
        _ = relay.handle(.opened(host, address: "h"), now: .zero)
        _ = relay.handle(.line(host, .register), now: .zero)
        _ = relay.handle(.opened(player, address: "p"), now: .seconds(4))
        _ = relay.handle(.line(player, .connect(room: Self.id(1))), now: .seconds(4))
        #expect(relay.nextDeadline == .seconds(10))
        #expect(relay.handle(.tick, now: .seconds(9)).isEmpty)
        #expect(relay.handle(.tick, now: .seconds(10)) == [.close(silent)])
        #expect(relay.nextDeadline == .seconds(14))
        #expect(relay.handle(.tick, now: .seconds(14)) == [.send(player, .error(.hostDidNotAnswer)), .close(player)])
        // The control connection has no deadline: it waits for players as long as its game runs.
        #expect(relay.nextDeadline == nil)
        #expect(relay.roomCount == 1)
    }

    @Test("a host leaving tells its waiting players the room is gone")
    func hostLeaves() {
        var relay = Self.machine()
        _ = relay.handle(.opened(host, address: "h"), now: .zero)
        _ = relay.handle(.line(host, .register), now: .zero)
        _ = relay.handle(.opened(player, address: "p"), now: .zero)
        _ = relay.handle(.line(player, .connect(room: Self.id(1))), now: .zero)
        #expect(relay.handle(.closed(host), now: .zero) == [.send(player, .error(.noSuchRoom)), .close(player)])
        #expect(relay.connectionCount == 0)
    }

    @Test("connections in the line phase are capped: one more is told the relay is busy")
    func linePhaseCap() {
        var limits = RelayLimits()
        limits.connectionsInLinePhase = 2
        var relay = Self.machine(limits)
        _ = relay.handle(.opened(RelayConnection(1), address: "a"), now: .zero)
        _ = relay.handle(.opened(RelayConnection(2), address: "a"), now: .zero)
        #expect(relay.handle(.opened(RelayConnection(3), address: "a"), now: .zero) == [.send(RelayConnection(3), .error(.busy)), .close(RelayConnection(3))])
        // A registered host no longer counts: the next may come in.
        _ = relay.handle(.line(RelayConnection(1), .register), now: .zero)
        #expect(relay.handle(.opened(RelayConnection(4), address: "a"), now: .zero).isEmpty)
    }

    @Test("one address's connections in the line phase are capped apart: a flood from one machine leaves the others room")
    func linePhasePerAddress() {
        var limits = RelayLimits()
        limits.linePhasePerAddress = 2
        var relay = Self.machine(limits)
        let busy = { (number: UInt64) in [RelayAction.send(RelayConnection(number), .error(.busy)), .close(RelayConnection(number))] }
        #expect(relay.handle(.opened(RelayConnection(1), address: "flood"), now: .zero).isEmpty)
        #expect(relay.handle(.opened(RelayConnection(2), address: "flood"), now: .zero).isEmpty)
        #expect(relay.handle(.opened(RelayConnection(3), address: "flood"), now: .zero) == busy(3))
        // Another address is not held back by the flood.
        #expect(relay.handle(.opened(RelayConnection(4), address: "friend"), now: .zero).isEmpty)
        #expect(relay.handle(.line(RelayConnection(4), .register), now: .zero) == [.send(RelayConnection(4), .room(Self.id(1)))])
        // The flood's own slots come back as its connections leave the line phase: closed,
        // timed out, or past their first line.
        _ = relay.handle(.closed(RelayConnection(1)), now: .zero)
        #expect(relay.handle(.opened(RelayConnection(5), address: "flood"), now: .zero).isEmpty)
        #expect(relay.handle(.opened(RelayConnection(6), address: "flood"), now: .zero) == busy(6))
        _ = relay.handle(.tick, now: limits.handshakeDeadline)
        #expect(relay.connectionCount == 1, "the two quiet ones timed out; the room's control stays")
        #expect(relay.handle(.opened(RelayConnection(7), address: "flood"), now: limits.handshakeDeadline).isEmpty)
        #expect(relay.handle(.opened(RelayConnection(8), address: "flood"), now: limits.handshakeDeadline).isEmpty)
        // A spliced pair has left the line phase: both ends' slots are free again.
        _ = relay.handle(.line(RelayConnection(7), .connect(room: Self.id(1))), now: limits.handshakeDeadline)
        _ = relay.handle(.line(RelayConnection(8), .accept(connection: Self.id(2))), now: limits.handshakeDeadline)
        #expect(relay.handle(.opened(RelayConnection(9), address: "flood"), now: limits.handshakeDeadline).isEmpty)
        #expect(relay.handle(.opened(RelayConnection(10), address: "flood"), now: limits.handshakeDeadline).isEmpty)
        #expect(relay.handle(.opened(RelayConnection(11), address: "flood"), now: limits.handshakeDeadline) == busy(11))
    }
}

/// A host's room again after the relay restarted or its control connection dropped.
@Suite("Relay: registering a room again")
struct RelayReregisterTests {
    let first = RelayConnection(1), second = RelayConnection(2)
    static let room = RelayID("0123456789abcdef0123456789abcdef")!

    @Test("register ROOM is its own line, byte for byte")
    func line() {
        #expect(RelayLine.encode(.reregister(room: Self.room)) == Array("register 0123456789abcdef0123456789abcdef\n".utf8))
        #expect(RelayLine.decodeRequest(RelayLine.encode(.reregister(room: Self.room)).dropLast()) == .reregister(room: Self.room))
    }

    @Test("a free room is granted under the same id; a held one is refused as taken; once its holder goes it is free again")
    func reregister() {
        var relay = RelayMachine { RelayID(bytes: Array(repeating: 9, count: 16)) }
        _ = relay.handle(.opened(first, address: "h"), now: .zero)
        #expect(relay.handle(.line(first, .reregister(room: Self.room)), now: .zero) == [.send(first, .room(Self.room))])
        _ = relay.handle(.opened(second, address: "x"), now: .zero)
        #expect(relay.handle(.line(second, .reregister(room: Self.room)), now: .zero) == [.send(second, .error(.roomTaken)), .close(second)])
        _ = relay.handle(.closed(first), now: .zero)
        let third = RelayConnection(3)
        _ = relay.handle(.opened(third, address: "h"), now: .zero)
        #expect(relay.handle(.line(third, .reregister(room: Self.room)), now: .zero) == [.send(third, .room(Self.room))])
        // Players find it under its old id.
        let player = RelayConnection(4)
        _ = relay.handle(.opened(player, address: "p"), now: .zero)
        #expect(relay.handle(.line(player, .connect(room: Self.room)), now: .zero) == [.send(third, .incoming(RelayID(bytes: Array(repeating: 9, count: 16))))])
    }
}
