/// One connection to the relay, as the relay's sockets number them.
public struct RelayConnection: Hashable, Sendable, CustomStringConvertible {
    public let number: UInt64
    public init(_ number: UInt64) { self.number = number }
    public var description: String { "#\(number)" }
}

/// The relay's caps (docs/RELAY.md §7).
public struct RelayLimits: Sendable, Equatable {
    public var roomsPerAddress = 4
    public var connectionsPerRoom = 16
    /// For the first line, for a waiting player's `accept` by its host, and for the host's
    /// `accept` of the id announced ahead of its next player.
    public var handshakeDeadline: Duration = .seconds(10)
    /// Connections in the line phase at once (not yet a room's control, not spliced).
    public var connectionsInLinePhase = 1024
    /// Of those, from one source address: a flood from one machine leaves room for the others.
    public var linePhasePerAddress = 64
    /// What one spliced connection may send a second, on average over a second; nil: no cap.
    /// A game sends a few kilobytes a second at most: the cap is for a relay's fair share.
    public var bytesPerSecond: Int? = 256 * 1024
    /// Keeps a host data connection waiting ahead of each room's next player (docs/RELAY.md §4).
    /// Off only for `snap-bench relay`, to time joins as the relay's first form made them.
    public var keepsAhead = true
    /// Answers `register-peers` (version 2, docs/RELAY.md §3). Off only in tests: a relay of
    /// version 1, which refuses it as malformed, for a host of version 2 to fall back from.
    public var tellsPeers = true
    public init() {}
}

public enum RelayInput: Sendable, Equatable {
    /// A connection from `address` (the peer's IP address, as text).
    case opened(RelayConnection, address: String)
    case line(RelayConnection, RelayRequest)
    /// A line that breaks docs/RELAY.md §3.
    case malformed(RelayConnection)
    case closed(RelayConnection)
    /// Time passed: deadlines are due (`nextDeadline`).
    case tick
}

/// What the sockets are to do.
public enum RelayAction: Sendable, Equatable {
    case send(RelayConnection, RelayReply)
    /// Said `spliced` to both: copy bytes between them from now on.
    case splice(RelayConnection, RelayConnection)
    /// Close it (after anything sent to it before).
    case close(RelayConnection)
}

/// The relay's bookkeeping as a value: connections, rooms, waiting players, caps and
/// deadlines; no sockets, no clock, no randomness and no key of its own (`newID`, `peerTag`
/// and `now` are given). `RelayServer` drives it from its sockets; the tests drive it directly. Once
/// two connections are spliced it forgets what they carry: it only counts them against
/// their room until either closes.
///
/// Each room keeps one host data connection **ahead** of its next player (docs/RELAY.md §4):
/// the relay announces an id (`incoming`) as soon as the room is granted and again after
/// each splice; the host accepts it as it accepts any; the connection then waits, and the
/// next player's `connect` is spliced with it at once. With none waiting, a player is
/// announced and waits for its own `accept`, as before.
///
/// A room registered with `register-peers` (docs/RELAY.md §3, version 2) hears, on the host's
/// side of each splice, `spliced TAG`: `peerTag` of the player's own address and the room, so
/// that the host tells its invitees apart (all of them reach it from the relay's address)
/// without learning their addresses.
public struct RelayMachine {
    public let limits: RelayLimits
    private let newID: () -> RelayID
    private let peerTag: (_ address: String, _ room: RelayID) -> RelayPeerTag

    private enum State {
        /// Opened; its first line not yet read.
        case opening(since: Duration)
        /// A host's control connection.
        case control(room: RelayID)
        /// A player's connection waiting for its host to accept it.
        case waiting(room: RelayID, id: RelayID, since: Duration)
        /// Paired: counted against `room` (nil: the host's side).
        case spliced(with: RelayConnection, room: RelayID?)
        /// A host's data connection accepted ahead: the room's next player is spliced with it.
        case ready(room: RelayID)
    }

    private struct Room {
        var control: RelayConnection
        var address: String
        /// Registered with `register-peers`: its host's side of a splice hears the player's tag.
        var tellsPeers: Bool
        /// Player connections waiting or spliced.
        var players: Set<RelayConnection> = []
        /// The id announced ahead of the next player, not yet accepted, and since when.
        var ahead: (id: RelayID, since: Duration)?
        /// The host's data connection accepted under it, waiting for that player.
        var ready: RelayConnection?
    }

    private var connections: [RelayConnection: State] = [:]
    private var addresses: [RelayConnection: String] = [:]
    private var rooms: [RelayID: Room] = [:]
    private var waiting: [RelayID: RelayConnection] = [:]
    /// Ids announced ahead, by room.
    private var aheadIDs: [RelayID: RelayID] = [:]
    private var inLinePhase = 0
    private var linePhaseByAddress: [String: Int] = [:]

    /// `peerTag`: what a room's host is told of a player's address (the relay's keyed hash of
    /// both: the same address in the same room, the same tag; never the address itself).
    public init(limits: RelayLimits = RelayLimits(), peerTag: @escaping (_ address: String, _ room: RelayID) -> RelayPeerTag,
                newID: @escaping () -> RelayID) {
        self.limits = limits
        self.peerTag = peerTag
        self.newID = newID
    }

    /// Rooms open now.
    public var roomCount: Int { rooms.count }
    /// Connections known (any phase).
    public var connectionCount: Int { connections.count }
    /// Players spliced so far, and of those, spliced at once with a connection waiting ahead.
    public private(set) var splices = 0, splicesAhead = 0

    /// The earliest deadline of any connection in the line phase or id announced ahead, nil if none.
    public var nextDeadline: Duration? {
        let lines = connections.values.compactMap { state -> Duration? in
            switch state {
            case .opening(let since), .waiting(_, _, let since): since + limits.handshakeDeadline
            case .control, .spliced, .ready: nil
            }
        }
        let ahead = rooms.values.compactMap { $0.ahead.map { $0.since + limits.handshakeDeadline } }
        return (lines + ahead).min()
    }

    /// The room's host data connection waiting ahead, if any (for the tests and the figures).
    public func ready(in room: RelayID) -> RelayConnection? { rooms[room]?.ready }

    public mutating func handle(_ input: RelayInput, now: Duration) -> [RelayAction] {
        switch input {
        case .opened(let connection, let address):
            guard inLinePhase < limits.connectionsInLinePhase,
                  linePhaseByAddress[address, default: 0] < limits.linePhasePerAddress else {
                return [.send(connection, .error(.busy)), .close(connection)]
            }
            connections[connection] = .opening(since: now)
            addresses[connection] = address
            inLinePhase += 1
            linePhaseByAddress[address, default: 0] += 1
            return []
        case .line(let connection, let request):
            guard case .opening = connections[connection] else {
                // A second line, or a line after `spliced` (which the sockets never pass):
                // the protocol reads one.
                return refuse(connection, .malformed)
            }
            return firstLine(request, from: connection, now: now)
        case .malformed(let connection):
            return refuse(connection, .malformed)
        case .closed(let connection):
            return closed(connection)
        case .tick:
            var actions: [RelayAction] = []
            for (connection, state) in connections {
                switch state {
                case .opening(let since) where now - since >= limits.handshakeDeadline:
                    actions += closeNow(connection)
                case .waiting(_, _, let since) where now - since >= limits.handshakeDeadline:
                    actions += refuse(connection, .hostDidNotAnswer)
                default: break
                }
            }
            // An id the host did not take in time (its dial failed, or it is slow): forgotten;
            // the room's next splice announces another.
            for (id, room) in aheadIDs {
                guard let since = rooms[room]?.ahead?.since, now - since >= limits.handshakeDeadline else { continue }
                aheadIDs[id] = nil
                rooms[room]?.ahead = nil
            }
            return actions
        }
    }

    private mutating func firstLine(_ request: RelayRequest, from connection: RelayConnection, now: Duration) -> [RelayAction] {
        let address = addresses[connection] ?? ""
        switch request {
        case .register, .reregister, .registerPeers:
            if case .registerPeers = request, !limits.tellsPeers { return refuse(connection, .malformed) }
            guard rooms.values.count(where: { $0.address == address }) < limits.roomsPerAddress else {
                return refuse(connection, .tooManyRooms)
            }
            let (asked, tellsPeers): (RelayID?, Bool) = switch request {
            case .reregister(let room): (room, false)
            case .registerPeers(let room): (room, true)
            default: (nil, false)
            }
            var room: RelayID
            if let asked {
                // Whoever asks first gets a free id: a stranger who takes it can only keep the
                // players out, never read them (they check the host's certificate).
                guard rooms[asked] == nil else { return refuse(connection, .roomTaken) }
                room = asked
            } else {
                room = newID()
                while rooms[room] != nil { room = newID() }
            }
            rooms[room] = Room(control: connection, address: address, tellsPeers: tellsPeers)
            connections[connection] = .control(room: room)
            leftLinePhase(connection)
            return [.send(connection, .room(room))] + announceAhead(room, now: now)
        case .connect(let room):
            guard let control = rooms[room]?.control else { return refuse(connection, .noSuchRoom) }
            guard rooms[room]!.players.count < limits.connectionsPerRoom else { return refuse(connection, .roomFull) }
            if let ready = rooms[room]!.ready {
                // The host's side is here already: no round trip to the host.
                rooms[room]!.ready = nil
                rooms[room]!.players.insert(connection)
                connections[connection] = .spliced(with: ready, room: room)
                connections[ready] = .spliced(with: connection, room: nil)
                leftLinePhase(connection)
                splices += 1
                splicesAhead += 1
                return [.send(connection, .spliced), .send(ready, hostSide(room, player: connection)), .splice(connection, ready)]
                    + announceAhead(room, now: now)
            }
            let id = freshID()
            waiting[id] = connection
            rooms[room]!.players.insert(connection)
            connections[connection] = .waiting(room: room, id: id, since: now)
            return [.send(control, .incoming(id))]
        case .accept(let id):
            if let room = aheadIDs.removeValue(forKey: id), rooms[room] != nil {
                // Ahead of its player: it waits, quietly, for as long as the room lasts.
                rooms[room]!.ahead = nil
                rooms[room]!.ready = connection
                connections[connection] = .ready(room: room)
                leftLinePhase(connection)
                return []
            }
            guard let player = waiting.removeValue(forKey: id), case .waiting(let room, _, _) = connections[player] else {
                return refuse(connection, .noSuchConnection)
            }
            connections[player] = .spliced(with: connection, room: room)
            connections[connection] = .spliced(with: player, room: nil)
            leftLinePhase(player)
            leftLinePhase(connection)
            splices += 1
            return [.send(player, .spliced), .send(connection, hostSide(room, player: player)), .splice(player, connection)]
                + announceAhead(room, now: now)
        }
    }

    /// What the host's side of a splice hears: `spliced`, with the player's tag if its room asked.
    private func hostSide(_ room: RelayID, player: RelayConnection) -> RelayReply {
        guard rooms[room]?.tellsPeers == true, let address = addresses[player] else { return .spliced }
        return .splicedPeer(peerTag(address, room))
    }

    /// A connection id no one is waiting under, announced or ahead.
    private func freshID() -> RelayID {
        var id = newID()
        while waiting[id] != nil || aheadIDs[id] != nil { id = newID() }
        return id
    }

    /// Tells `room`'s host an id to accept ahead of its next player, unless one is announced
    /// or waiting already, or the room holds its cap of players (the connection waiting ahead
    /// is the host's side of a player still to come: a room never holds more of them than
    /// its players' cap allows).
    private mutating func announceAhead(_ room: RelayID, now: Duration) -> [RelayAction] {
        guard limits.keepsAhead, let held = rooms[room], held.ahead == nil, held.ready == nil,
              held.players.count < limits.connectionsPerRoom else { return [] }
        let id = freshID()
        aheadIDs[id] = room
        rooms[room]!.ahead = (id, now)
        return [.send(held.control, .incoming(id))]
    }

    /// `connection` is past its first line (a room's control, spliced) or gone.
    private mutating func leftLinePhase(_ connection: RelayConnection) {
        inLinePhase -= 1
        guard let address = addresses[connection] else { return }
        linePhaseByAddress[address, default: 1] -= 1
        if linePhaseByAddress[address] == 0 { linePhaseByAddress[address] = nil }
    }

    private mutating func refuse(_ connection: RelayConnection, _ code: RelayErrorCode) -> [RelayAction] {
        guard connections[connection] != nil else { return [] }
        return [.send(connection, .error(code))] + closeNow(connection)
    }

    /// Forgets `connection` and tells the sockets to close it.
    private mutating func closeNow(_ connection: RelayConnection) -> [RelayAction] {
        closed(connection) + [.close(connection)]
    }

    /// Forgets a connection that closed, and what hung on it.
    private mutating func closed(_ connection: RelayConnection) -> [RelayAction] {
        guard let state = connections[connection] else { return [] }
        switch state {
        case .opening, .waiting: leftLinePhase(connection)
        case .control, .spliced, .ready: break
        }
        connections[connection] = nil
        addresses[connection] = nil
        switch state {
        case .opening:
            return []
        case .waiting(let room, let id, _):
            waiting[id] = nil
            rooms[room]?.players.remove(connection)
            return []
        case .ready(let room):
            // The host dropped it: the next player is announced and waits, and after that
            // splice another is announced ahead.
            if rooms[room]?.ready == connection { rooms[room]?.ready = nil }
            return []
        case .control(let room):
            // The room goes with its host; its waiting players are told, and the connection
            // waiting ahead is closed. Spliced pairs go on.
            guard let gone = rooms.removeValue(forKey: room) else { return [] }
            if let ahead = gone.ahead { aheadIDs[ahead.id] = nil }
            var actions: [RelayAction] = []
            for player in gone.players {
                if case .waiting = connections[player] { actions += refuse(player, .noSuchRoom) }
            }
            if let ready = gone.ready { actions += refuse(ready, .noSuchRoom) }
            return actions
        case .spliced(let other, let room):
            // One end gone: the other closes too (its bytes have nowhere to go).
            if let room { rooms[room]?.players.remove(connection) }
            guard let otherState = connections.removeValue(forKey: other) else { return [] }
            addresses[other] = nil
            if case .spliced(_, let otherRoom?) = otherState { rooms[otherRoom]?.players.remove(other) }
            return [.close(other)]
        }
    }
}
