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

    /// A machine whose ids count up (1, 2, …), so that tests can name them, and whose peer
    /// tags are `tag(address)`.
    static func machine(_ limits: RelayLimits = RelayLimits()) -> RelayMachine {
        var counter: UInt8 = 0
        return RelayMachine(limits: limits, peerTag: tag) {
            counter += 1
            return RelayID(bytes: Array(repeating: 0, count: 15) + [counter])
        }
    }

    static func id(_ n: UInt8) -> RelayID { RelayID(bytes: Array(repeating: 0, count: 15) + [n]) }

    /// A test's stand-in for the relay's keyed hash: distinct addresses (or rooms), distinct tags (FNV-1a).
    static func tag(_ address: String, _ room: RelayID = RelayMachineTests.id(1)) -> RelayPeerTag {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(room) \(address)".utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return RelayPeerTag(bytes: (0..<8).map { UInt8(truncatingIfNeeded: hash >> (8 * $0)) })
    }
    let host = RelayConnection(1), player = RelayConnection(2), data = RelayConnection(3)

    @Test("register, incoming ahead, accept, connect, spliced at once: the room's life")
    func roomLife() {
        var relay = Self.machine()
        #expect(relay.handle(.opened(host, address: "10.0.0.1"), now: .zero).isEmpty)
        // The room, and at once an id for the host's data connection ahead of its first player.
        #expect(relay.handle(.line(host, .register), now: .zero) == [.send(host, .room(Self.id(1))), .send(host, .incoming(Self.id(2)))])
        _ = relay.handle(.opened(data, address: "10.0.0.1"), now: .zero)
        // Accepted ahead: no answer yet (`spliced` comes with its player), no deadline.
        #expect(relay.handle(.line(data, .accept(connection: Self.id(2))), now: .zero).isEmpty)
        #expect(relay.ready(in: Self.id(1)) == data)
        #expect(relay.nextDeadline == nil)
        _ = relay.handle(.opened(player, address: "10.0.0.2"), now: .seconds(300))
        // The player is spliced at once, and the host is told the next id ahead.
        #expect(relay.handle(.line(player, .connect(room: Self.id(1))), now: .seconds(300))
            == [.send(player, .spliced), .send(data, .spliced), .splice(player, data), .send(host, .incoming(Self.id(3)))])
        #expect(relay.ready(in: Self.id(1)) == nil)
        // Spliced: no deadline but the new id's; one end closing closes the other.
        #expect(relay.nextDeadline == .seconds(310))
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
        #expect(relay.handle(.line(RelayConnection(1), .register), now: .zero).first == .send(RelayConnection(1), .room(Self.id(1))))
        #expect(relay.handle(.line(RelayConnection(2), .register), now: .zero).first == .send(RelayConnection(2), .room(Self.id(3))))
        #expect(relay.handle(.line(RelayConnection(3), .register), now: .zero)
            == [.send(RelayConnection(3), .error(.tooManyRooms)), .close(RelayConnection(3))])
        _ = relay.handle(.opened(RelayConnection(4), address: "10.0.0.2"), now: .zero)
        #expect(relay.handle(.line(RelayConnection(4), .register), now: .zero).first == .send(RelayConnection(4), .room(Self.id(5))))
        // A room closed frees its place.
        _ = relay.handle(.closed(RelayConnection(1)), now: .zero)
        _ = relay.handle(.opened(RelayConnection(5), address: "10.0.0.1"), now: .zero)
        #expect(relay.handle(.line(RelayConnection(5), .register), now: .zero).first == .send(RelayConnection(5), .room(Self.id(7))))
    }

    @Test("player connections per room are capped, waiting and spliced alike; one leaving frees a place")
    func connectionsPerRoom() {
        var limits = RelayLimits()
        limits.connectionsPerRoom = 2
        var relay = Self.machine(limits)
        _ = relay.handle(.opened(host, address: "h"), now: .zero)
        // (The id announced ahead, 2, is never accepted here: each player waits for its own.)
        _ = relay.handle(.line(host, .register), now: .zero)
        for n in 10...12 as ClosedRange<UInt64> { _ = relay.handle(.opened(RelayConnection(n), address: "p"), now: .zero) }
        #expect(relay.handle(.line(RelayConnection(10), .connect(room: Self.id(1))), now: .zero) == [.send(host, .incoming(Self.id(3)))])
        // The first is spliced, the second waits: the room is full for a third.
        _ = relay.handle(.opened(data, address: "h"), now: .zero)
        _ = relay.handle(.line(data, .accept(connection: Self.id(3))), now: .zero)
        #expect(relay.handle(.line(RelayConnection(11), .connect(room: Self.id(1))), now: .zero) == [.send(host, .incoming(Self.id(4)))])
        #expect(relay.handle(.line(RelayConnection(12), .connect(room: Self.id(1))), now: .zero)
            == [.send(RelayConnection(12), .error(.roomFull)), .close(RelayConnection(12))])
        _ = relay.handle(.closed(RelayConnection(10)), now: .zero)
        _ = relay.handle(.opened(RelayConnection(13), address: "p"), now: .zero)
        #expect(relay.handle(.line(RelayConnection(13), .connect(room: Self.id(1))), now: .zero) == [.send(host, .incoming(Self.id(5)))])
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
        #expect(relay.handle(.line(RelayConnection(4), .register), now: .zero)
            == [.send(RelayConnection(4), .room(Self.id(1))), .send(RelayConnection(4), .incoming(Self.id(2)))])
        // The flood's own slots come back as its connections leave the line phase: closed,
        // timed out, or past their first line.
        _ = relay.handle(.closed(RelayConnection(1)), now: .zero)
        #expect(relay.handle(.opened(RelayConnection(5), address: "flood"), now: .zero).isEmpty)
        #expect(relay.handle(.opened(RelayConnection(6), address: "flood"), now: .zero) == busy(6))
        _ = relay.handle(.tick, now: limits.handshakeDeadline)
        #expect(relay.connectionCount == 1, "the two quiet ones timed out; the room's control stays")
        #expect(relay.handle(.opened(RelayConnection(7), address: "flood"), now: limits.handshakeDeadline).isEmpty)
        #expect(relay.handle(.opened(RelayConnection(8), address: "flood"), now: limits.handshakeDeadline).isEmpty)
        // A spliced pair has left the line phase: both ends' slots are free again. (The id
        // announced ahead, 2, timed out unaccepted: the player waits for its own, 3.)
        _ = relay.handle(.line(RelayConnection(7), .connect(room: Self.id(1))), now: limits.handshakeDeadline)
        _ = relay.handle(.line(RelayConnection(8), .accept(connection: Self.id(3))), now: limits.handshakeDeadline)
        #expect(relay.handle(.opened(RelayConnection(9), address: "flood"), now: limits.handshakeDeadline).isEmpty)
        #expect(relay.handle(.opened(RelayConnection(10), address: "flood"), now: limits.handshakeDeadline).isEmpty)
        #expect(relay.handle(.opened(RelayConnection(11), address: "flood"), now: limits.handshakeDeadline) == busy(11))
    }
}

/// The host's data connection dialled ahead of its next player (docs/RELAY.md §4).
@Suite("Relay: a data connection ahead")
struct RelayAheadTests {
    let host = RelayConnection(1), data = RelayConnection(2), player = RelayConnection(3)
    static func id(_ n: UInt8) -> RelayID { RelayMachineTests.id(n) }
    static let room = id(1)

    /// A room (id 1) whose host was told id 2 ahead; with `accepted`, its data connection took it.
    func room(_ limits: RelayLimits = RelayLimits(), accepted: Bool) -> RelayMachine {
        var relay = RelayMachineTests.machine(limits)
        _ = relay.handle(.opened(host, address: "h"), now: .zero)
        _ = relay.handle(.line(host, .register), now: .zero)
        if accepted {
            _ = relay.handle(.opened(data, address: "h"), now: .zero)
            _ = relay.handle(.line(data, .accept(connection: Self.id(2))), now: .zero)
        }
        return relay
    }

    @Test("none waiting: the player is announced and waits for its own accept, as before; the id ahead, taken later, serves the next")
    func noneWaiting() {
        var relay = room(accepted: false)
        _ = relay.handle(.opened(player, address: "p"), now: .zero)
        #expect(relay.handle(.line(player, .connect(room: Self.room)), now: .zero) == [.send(host, .incoming(Self.id(3)))])
        let own = RelayConnection(4)
        _ = relay.handle(.opened(own, address: "h"), now: .zero)
        // Spliced; no second id ahead while the first is still on its way.
        #expect(relay.handle(.line(own, .accept(connection: Self.id(3))), now: .zero)
            == [.send(player, .spliced), .send(own, .spliced), .splice(player, own)])
        _ = relay.handle(.opened(data, address: "h"), now: .zero)
        #expect(relay.handle(.line(data, .accept(connection: Self.id(2))), now: .zero).isEmpty)
        let next = RelayConnection(5)
        _ = relay.handle(.opened(next, address: "p"), now: .zero)
        #expect(relay.handle(.line(next, .connect(room: Self.room)), now: .zero)
            == [.send(next, .spliced), .send(data, .spliced), .splice(next, data), .send(host, .incoming(Self.id(4)))])
    }

    @Test("two players at once: the first takes the connection waiting, the second is announced and waits for its own")
    func twoAtOnce() {
        var relay = room(accepted: true)
        let second = RelayConnection(4), secondData = RelayConnection(5), nextAhead = RelayConnection(6)
        _ = relay.handle(.opened(player, address: "p"), now: .zero)
        _ = relay.handle(.opened(second, address: "q"), now: .zero)
        #expect(relay.handle(.line(player, .connect(room: Self.room)), now: .zero)
            == [.send(player, .spliced), .send(data, .spliced), .splice(player, data), .send(host, .incoming(Self.id(3)))])
        #expect(relay.handle(.line(second, .connect(room: Self.room)), now: .zero) == [.send(host, .incoming(Self.id(4)))])
        _ = relay.handle(.opened(secondData, address: "h"), now: .zero)
        #expect(relay.handle(.line(secondData, .accept(connection: Self.id(4))), now: .zero)
            == [.send(second, .spliced), .send(secondData, .spliced), .splice(second, secondData)])
        _ = relay.handle(.opened(nextAhead, address: "h"), now: .zero)
        #expect(relay.handle(.line(nextAhead, .accept(connection: Self.id(3))), now: .zero).isEmpty)
        #expect(relay.ready(in: Self.room) == nextAhead)
    }

    @Test("the room going closes the connection waiting ahead, and an id announced but not taken is no good after it")
    func roomGoes() {
        var relay = room(accepted: true)
        #expect(relay.handle(.closed(host), now: .zero) == [.send(data, .error(.noSuchRoom)), .close(data)])
        #expect(relay.connectionCount == 0)

        var unaccepted = room(accepted: false)
        _ = unaccepted.handle(.closed(host), now: .zero)
        #expect(unaccepted.nextDeadline == nil)
        _ = unaccepted.handle(.opened(data, address: "h"), now: .zero)
        #expect(unaccepted.handle(.line(data, .accept(connection: Self.id(2))), now: .zero)
            == [.send(data, .error(.noSuchConnection)), .close(data)])
    }

    @Test("caps: the connection ahead is the host's side of a player still to come, never one more; it leaves the line phase")
    func caps() {
        var limits = RelayLimits()
        limits.connectionsPerRoom = 2
        limits.linePhasePerAddress = 2
        var relay = room(limits, accepted: true)
        // Host, control and data connection from "h": neither counts in the line phase now.
        #expect(relay.handle(.opened(RelayConnection(10), address: "h"), now: .zero).isEmpty)
        #expect(relay.handle(.opened(RelayConnection(11), address: "h"), now: .zero).isEmpty)
        let second = RelayConnection(4), third = RelayConnection(5)
        for (connection, address) in [(player, "p"), (second, "q"), (third, "r")] { _ = relay.handle(.opened(connection, address: address), now: .zero) }
        #expect(relay.handle(.line(player, .connect(room: Self.room)), now: .zero).last == .send(host, .incoming(Self.id(3))))
        _ = relay.handle(.line(RelayConnection(10), .accept(connection: Self.id(3))), now: .zero)
        // The second player fills the room: no id ahead for a third, who is refused.
        #expect(relay.handle(.line(second, .connect(room: Self.room)), now: .zero)
            == [.send(second, .spliced), .send(RelayConnection(10), .spliced), .splice(second, RelayConnection(10))])
        #expect(relay.ready(in: Self.room) == nil)
        #expect(relay.handle(.line(third, .connect(room: Self.room)), now: .zero) == [.send(third, .error(.roomFull)), .close(third)])
        #expect(relay.connectionCount == 6, "control, two pairs, and 11 still in its line phase")
        // One leaving frees a place: the next player is announced (none ahead), and after its
        // splice the room is full again.
        _ = relay.handle(.closed(player), now: .zero)
        let fourth = RelayConnection(6)
        _ = relay.handle(.opened(fourth, address: "s"), now: .zero)
        #expect(relay.handle(.line(fourth, .connect(room: Self.room)), now: .zero) == [.send(host, .incoming(Self.id(4)))])
        #expect(relay.handle(.line(RelayConnection(11), .accept(connection: Self.id(4))), now: .zero)
            == [.send(fourth, .spliced), .send(RelayConnection(11), .spliced), .splice(fourth, RelayConnection(11))])
    }

    @Test("a player cannot take the host's side: ids go to the control connection only, an id is not a room, is taken once, and the waiting connection says nothing more")
    func playerCannotTakeHostSide() {
        var relay = RelayMachineTests.machine()
        _ = relay.handle(.opened(host, address: "h"), now: .zero)
        var actions = relay.handle(.line(host, .register), now: .zero)
        _ = relay.handle(.opened(data, address: "h"), now: .zero)
        actions += relay.handle(.line(data, .accept(connection: Self.id(2))), now: .zero)
        _ = relay.handle(.opened(player, address: "p"), now: .zero)
        actions += relay.handle(.line(player, .connect(room: Self.room)), now: .zero)
        // The player hears `spliced`, no id; every id went to the host's control connection.
        for action in actions {
            if case .send(let to, .incoming) = action { #expect(to == host) }
            if case .send(let to, let reply) = action, to == player { #expect(reply == .spliced) }
        }
        // An id named as a room finds none.
        let guesser = RelayConnection(7)
        _ = relay.handle(.opened(guesser, address: "p"), now: .zero)
        #expect(relay.handle(.line(guesser, .connect(room: Self.id(3))), now: .zero) == [.send(guesser, .error(.noSuchRoom)), .close(guesser)])
        // An id already taken, or one never announced, is refused.
        for (number, id) in [(8, Self.id(2)), (9, Self.id(9))] as [(UInt64, RelayID)] {
            let other = RelayConnection(number)
            _ = relay.handle(.opened(other, address: "p"), now: .zero)
            #expect(relay.handle(.line(other, .accept(connection: id)), now: .zero) == [.send(other, .error(.noSuchConnection)), .close(other)])
        }
        // The next data connection waiting ahead breaks the protocol with a second line: refused,
        // and the next player is announced and waits for its own accept.
        let ahead = RelayConnection(10)
        _ = relay.handle(.opened(ahead, address: "h"), now: .zero)
        _ = relay.handle(.line(ahead, .accept(connection: Self.id(3))), now: .zero)
        #expect(relay.handle(.line(ahead, .register), now: .zero) == [.send(ahead, .error(.malformed)), .close(ahead)])
        let next = RelayConnection(11)
        _ = relay.handle(.opened(next, address: "p"), now: .zero)
        #expect(relay.handle(.line(next, .connect(room: Self.room)), now: .zero) == [.send(host, .incoming(Self.id(4)))])
    }

    @Test("an id the host does not take within the handshake deadline is forgotten; the next splice announces another")
    func aheadTimesOut() {
        var relay = room(accepted: false)
        #expect(relay.nextDeadline == RelayLimits().handshakeDeadline)
        #expect(relay.handle(.tick, now: .seconds(10)).isEmpty)
        #expect(relay.nextDeadline == nil)
        _ = relay.handle(.opened(data, address: "h"), now: .seconds(11))
        #expect(relay.handle(.line(data, .accept(connection: Self.id(2))), now: .seconds(11))
            == [.send(data, .error(.noSuchConnection)), .close(data)])
        _ = relay.handle(.opened(player, address: "p"), now: .seconds(11))
        #expect(relay.handle(.line(player, .connect(room: Self.room)), now: .seconds(11)) == [.send(host, .incoming(Self.id(3)))])
        let own = RelayConnection(4)
        _ = relay.handle(.opened(own, address: "h"), now: .seconds(11))
        #expect(relay.handle(.line(own, .accept(connection: Self.id(3))), now: .seconds(11))
            == [.send(player, .spliced), .send(own, .spliced), .splice(player, own), .send(host, .incoming(Self.id(4)))])
    }

    @Test("the host dropping its connection waiting ahead: the next player is announced as before")
    func readyDropped() {
        var relay = room(accepted: true)
        #expect(relay.handle(.closed(data), now: .zero).isEmpty)
        #expect(relay.ready(in: Self.room) == nil)
        _ = relay.handle(.opened(player, address: "p"), now: .zero)
        #expect(relay.handle(.line(player, .connect(room: Self.room)), now: .zero) == [.send(host, .incoming(Self.id(3)))])
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
        var counter: UInt8 = 0
        var relay = RelayMachine(peerTag: RelayMachineTests.tag) {
            counter += 1
            return RelayID(bytes: Array(repeating: 9, count: 15) + [counter])
        }
        let id = { (n: UInt8) in RelayID(bytes: Array(repeating: 9, count: 15) + [n]) }
        _ = relay.handle(.opened(first, address: "h"), now: .zero)
        #expect(relay.handle(.line(first, .reregister(room: Self.room)), now: .zero) == [.send(first, .room(Self.room)), .send(first, .incoming(id(1)))])
        _ = relay.handle(.opened(second, address: "x"), now: .zero)
        #expect(relay.handle(.line(second, .reregister(room: Self.room)), now: .zero) == [.send(second, .error(.roomTaken)), .close(second)])
        _ = relay.handle(.closed(first), now: .zero)
        let third = RelayConnection(3)
        _ = relay.handle(.opened(third, address: "h"), now: .zero)
        #expect(relay.handle(.line(third, .reregister(room: Self.room)), now: .zero) == [.send(third, .room(Self.room)), .send(third, .incoming(id(2)))])
        // Players find it under its old id.
        let player = RelayConnection(4)
        _ = relay.handle(.opened(player, address: "p"), now: .zero)
        #expect(relay.handle(.line(player, .connect(room: Self.room)), now: .zero) == [.send(third, .incoming(id(3)))])
    }
}

/// Peer tags (docs/RELAY.md §3, version 2): a host that asks with `register-peers` is told, with
/// `spliced`, a tag of each player's own address, so that it tells its invitees apart (all of
/// them reach it from the relay's address) without learning where they are.
@Suite("Relay: peer tags")
struct RelayPeerTagTests {
    let host = RelayConnection(1), data = RelayConnection(2)
    static let tag = RelayPeerTag("0123456789abcdef")!

    @Test("register-peers, register-peers ROOM and spliced TAG, byte for byte, and back")
    func lines() {
        let room = RelayMachineTests.room
        #expect(RelayLine.encode(.registerPeers(room: nil)) == Array("register-peers\n".utf8))
        #expect(RelayLine.encode(.registerPeers(room: room)) == Array("register-peers 0123456789abcdef0123456789abcdef\n".utf8))
        #expect(RelayLine.encode(.registerPeers(room: room)).count == 48)
        #expect(RelayLine.encode(.splicedPeer(Self.tag)) == Array("spliced 0123456789abcdef\n".utf8))
        #expect(RelayLine.encode(.splicedPeer(Self.tag)).count == 25)
        for request in [RelayRequest.registerPeers(room: nil), .registerPeers(room: room)] {
            #expect(RelayLine.decodeRequest(RelayLine.encode(request).dropLast()) == request)
        }
        #expect(RelayLine.decodeReply(RelayLine.encode(.splicedPeer(Self.tag)).dropLast()) == .splicedPeer(Self.tag))
        #expect(RelayPeerTag(bytes: [0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef]) == Self.tag)
    }

    @Test("a tag that is not 16 lowercase hex digits is not a line of the protocol (a host refuses it)", arguments: [
        "spliced 0123456789abcde", "spliced 0123456789abcdef0", "spliced 0123456789ABCDEF", "spliced 0123456789abcdeg",
        "spliced 10.0.0.2", "spliced  0123456789abcdef", "spliced 0123456789abcdef ", "register-peers 0123", "register-peers x",
    ])
    func malformed(_ text: String) {
        let line = ArraySlice(Array(text.utf8))
        #expect(RelayLine.decodeReply(line) == nil && RelayLine.decodeRequest(line) == nil)
    }

    /// A room asked for with `register-peers`, its data connection accepted ahead.
    func room() -> RelayMachine {
        var relay = RelayMachineTests.machine()
        _ = relay.handle(.opened(host, address: "10.0.0.1"), now: .zero)
        #expect(relay.handle(.line(host, .registerPeers(room: nil)), now: .zero)
            == [.send(host, .room(RelayMachineTests.id(1))), .send(host, .incoming(RelayMachineTests.id(2)))])
        _ = relay.handle(.opened(data, address: "10.0.0.1"), now: .zero)
        #expect(relay.handle(.line(data, .accept(connection: RelayMachineTests.id(2))), now: .zero).isEmpty)
        return relay
    }

    @Test("spliced at once or announced, the host's side hears the player's tag and the player plain spliced; one address, one tag; another, another")
    func tagged() {
        var relay = room()
        let room = RelayMachineTests.id(1)
        let guesser = RelayConnection(3), honest = RelayConnection(4), again = RelayConnection(5)
        let guesserTag = RelayMachineTests.tag("192.0.2.7"), honestTag = RelayMachineTests.tag("198.51.100.9")
        #expect(guesserTag != honestTag)
        // Spliced at once with the connection ahead.
        _ = relay.handle(.opened(guesser, address: "192.0.2.7"), now: .zero)
        #expect(relay.handle(.line(guesser, .connect(room: room)), now: .zero)
            == [.send(guesser, .spliced), .send(data, .splicedPeer(guesserTag)), .splice(guesser, data),
                .send(host, .incoming(RelayMachineTests.id(3)))])
        // Announced (the id ahead not yet taken), then accepted: the same.
        _ = relay.handle(.opened(honest, address: "198.51.100.9"), now: .zero)
        #expect(relay.handle(.line(honest, .connect(room: room)), now: .zero) == [.send(host, .incoming(RelayMachineTests.id(4)))])
        let own = RelayConnection(6)
        _ = relay.handle(.opened(own, address: "10.0.0.1"), now: .zero)
        #expect(relay.handle(.line(own, .accept(connection: RelayMachineTests.id(4))), now: .zero)
            == [.send(honest, .spliced), .send(own, .splicedPeer(honestTag)), .splice(honest, own)])
        // The guesser again, on a new connection: the same tag (the host's count goes on).
        let ahead = RelayConnection(7)
        _ = relay.handle(.opened(ahead, address: "10.0.0.1"), now: .zero)
        _ = relay.handle(.line(ahead, .accept(connection: RelayMachineTests.id(3))), now: .zero)
        _ = relay.handle(.opened(again, address: "192.0.2.7"), now: .zero)
        #expect(relay.handle(.line(again, .connect(room: room)), now: .zero).prefix(2)
            == [.send(again, .spliced), .send(ahead, .splicedPeer(guesserTag))])
    }

    @Test("a room asked for with plain register (a host of version 1) hears plain spliced, as before")
    func untaggedForTheFirstForm() {
        var relay = RelayMachineTests.machine()
        _ = relay.handle(.opened(host, address: "10.0.0.1"), now: .zero)
        _ = relay.handle(.line(host, .register), now: .zero)
        _ = relay.handle(.opened(data, address: "10.0.0.1"), now: .zero)
        _ = relay.handle(.line(data, .accept(connection: RelayMachineTests.id(2))), now: .zero)
        let player = RelayConnection(3)
        _ = relay.handle(.opened(player, address: "192.0.2.7"), now: .zero)
        #expect(relay.handle(.line(player, .connect(room: RelayMachineTests.id(1))), now: .zero).prefix(3)
            == [.send(player, .spliced), .send(data, .spliced), .splice(player, data)])
    }

    @Test("a relay of version 1 (tellsPeers off) refuses register-peers as malformed, as an unknown word; register still gets a room")
    func version1() {
        var limits = RelayLimits()
        limits.tellsPeers = false
        var relay = RelayMachineTests.machine(limits)
        _ = relay.handle(.opened(host, address: "10.0.0.1"), now: .zero)
        #expect(relay.handle(.line(host, .registerPeers(room: nil)), now: .zero) == [.send(host, .error(.malformed)), .close(host)])
        _ = relay.handle(.opened(data, address: "10.0.0.1"), now: .zero)
        #expect(relay.handle(.line(data, .register), now: .zero).first == .send(data, .room(RelayMachineTests.id(1))))
    }

    @Test("register-peers ROOM asks for the room again, tagged; taken, it is refused as register ROOM is")
    func again() {
        var relay = RelayMachineTests.machine()
        let room = RelayReregisterTests.room
        _ = relay.handle(.opened(host, address: "10.0.0.1"), now: .zero)
        #expect(relay.handle(.line(host, .registerPeers(room: room)), now: .zero).first == .send(host, .room(room)))
        let stranger = RelayConnection(9)
        _ = relay.handle(.opened(stranger, address: "10.0.0.9"), now: .zero)
        #expect(relay.handle(.line(stranger, .registerPeers(room: room)), now: .zero) == [.send(stranger, .error(.roomTaken)), .close(stranger)])
        _ = relay.handle(.opened(data, address: "10.0.0.1"), now: .zero)
        _ = relay.handle(.line(data, .accept(connection: RelayMachineTests.id(1))), now: .zero)
        let player = RelayConnection(3)
        _ = relay.handle(.opened(player, address: "192.0.2.7"), now: .zero)
        #expect(relay.handle(.line(player, .connect(room: room)), now: .zero).prefix(2)
            == [.send(player, .spliced), .send(data, .splicedPeer(RelayMachineTests.tag("192.0.2.7", room)))])
    }
}
