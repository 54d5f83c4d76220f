import SnapBots
import SnapBytes
import SnapEngine
import SnapProtocol
@testable import SnapSession

/// A host and its clients on one virtual timeline, joined by links with a one-way
/// delay each way: the in-process proxy of the session tests. Messages go through the
/// real wire codec, so what a client receives is exactly the bytes a socket would carry.
struct VirtualNetwork {
    enum Peer {
        case bot(BotClient)
        /// Presses Snap! `reaction` after a card that makes a match shows, and never turns.
        case scripted(ClientSession, reaction: Duration)
        /// Only watches: records everything it is sent.
        case recorder(ClientSession)
        /// Signs in, then never answers anything (a hung peer).
        case silent
    }

    struct Client {
        var connection: ConnectionID
        var peer: Peer
        var delay: Duration
        var received: [[UInt8]] = []
        var sequenceToHost: UInt32 = 0
        var sequenceFromHost: UInt32 = 0
        var pendingPress: Duration?
        var pendingTurn: Duration?
        var closed = false
        var isSilent: Bool { if case .silent = peer { true } else { false } }
    }

    struct Delivery {
        var at: Duration
        var order: Int
        var toHost: Bool
        var client: Int
        var frame: [UInt8]
    }

    var host: HostSession
    var clients: [Client] = []
    var now = Duration.zero
    var queue: [Delivery] = []
    var order = 0
    var wins: [String] = []
    var log: [String] = []
    var over: String?
    /// Rewrites what a client sends, as a man in the middle would.
    var tamper: [Int: (ClientMessage) -> ClientMessage] = [:]

    init(_ configuration: HostConfiguration) {
        host = HostSession(configuration)
    }

    /// `local`: the host's own player, on the in-process link.
    mutating func join(_ peer: Peer, name: String, delay: Duration = .zero, local: Bool = false) {
        let connection = ConnectionID(UInt64(clients.count + 1))
        clients.append(Client(connection: connection, peer: peer, delay: delay))
        perform(host.handle(.connected(connection, local: local), now: now))
        send(ClientSession.hello(name: name), from: clients.count - 1)
    }

    mutating func send(_ message: ClientMessage, from index: Int) {
        guard !clients[index].closed else { return }
        let message = tamper[index].map { $0(message) } ?? message
        let frame = WireCodec.encode(message, sequence: clients[index].sequenceToHost)
        clients[index].sequenceToHost += 1
        order += 1
        queue.append(Delivery(at: now + clients[index].delay, order: order, toHost: true, client: index, frame: frame))
    }

    mutating func perform(_ actions: [HostAction]) {
        for action in actions {
            switch action {
            case .send(let id, let message):
                deliver(message, to: id)
            case .close(let id, let reason, let message):
                deliver(.closing(reason, message: message), to: id)
                if let index = clients.firstIndex(where: { $0.connection == id }) { clients[index].closed = true }
            case .hangUp(let id):
                if let index = clients.firstIndex(where: { $0.connection == id }) { clients[index].closed = true }
            case .log(let line), .announce(let line): log.append(line)
            case .roundWon(_, let winner): wins.append(winner)
            case .gameOver(let why): over = why
            case .record: break  // the log is read from `host.log`
            }
        }
    }

    mutating func deliver(_ message: HostMessage, to id: ConnectionID) {
        guard let index = clients.firstIndex(where: { $0.connection == id }) else { return }
        let frame = WireCodec.encode(message, sequence: clients[index].sequenceFromHost)
        clients[index].sequenceFromHost += 1
        order += 1
        queue.append(Delivery(at: now + clients[index].delay, order: order, toHost: false, client: index, frame: frame))
    }

    /// Decodes a whole frame as a socket reader would.
    static func decode(_ frame: [UInt8]) -> Frame {
        var decoder = FrameDecoder()
        decoder.append(frame)
        return try! decoder.nextFrame()!
    }

    /// Runs until `until` (virtual), the game ends, or nothing is left to happen.
    mutating func run(until limit: Duration) {
        while now <= limit {
            var next: Duration? = queue.map(\.at).min()
            // Once the game is over, only what is already on the wire still arrives.
            if over != nil, next == nil { return }
            for wake in over != nil ? [] : [host.nextDeadline] + clients.map(wakeTime) {
                if let wake, next == nil || wake < next! { next = wake }
            }
            guard let time = next, time <= limit else { now = limit; return }
            now = max(now, time)
            if let index = queue.indices.filter({ queue[$0].at <= now }).min(by: { queue[$0].order < queue[$1].order }) {
                let delivery = queue.remove(at: index)
                arrive(delivery)
                continue
            }
            if let deadline = host.nextDeadline, deadline <= now {
                perform(host.handle(.tick, now: now))
            }
            for index in clients.indices { wake(index) }
        }
    }

    func wakeTime(_ client: Client) -> Duration? {
        switch client.peer {
        case .bot(let bot): bot.nextWake
        case .scripted: [client.pendingPress, client.pendingTurn].compactMap { $0 }.min()
        case .recorder, .silent: nil
        }
    }

    mutating func arrive(_ delivery: Delivery) {
        let frame = Self.decode(delivery.frame)
        if delivery.toHost {
            let message = try! WireCodec.decodeClientMessage(frame)
            perform(host.handle(.message(clients[delivery.client].connection, message), now: now))
            return
        }
        let index = delivery.client
        clients[index].received.append(delivery.frame)
        let message = try! WireCodec.decodeHostMessage(frame)
        var replies: [ClientMessage] = []
        switch clients[index].peer {
        case .bot(var bot):
            replies = bot.receive(message, now: now)
            clients[index].peer = .bot(bot)
        case .scripted(var session, let reaction):
            let events = session.receive(message, now: now)
            if case .welcome = message { replies.append(.ready) }
            if events.contains(where: { if case .turned = $0 { true } else { false } }) {
                clients[index].pendingPress = session.table.map { $0.matching.isEmpty } == false ? now + reaction : nil
            }
            if !events.isEmpty, let table = session.table, table.phase == .playing, table.active == session.seat,
               !table.hasTurned {
                if clients[index].pendingTurn == nil { clients[index].pendingTurn = now + .milliseconds(300) }
            }
            clients[index].peer = .scripted(session, reaction: reaction)
        case .recorder(var session):
            session.receive(message, now: now)
            if case .welcome = message { replies.append(.ready) }
            clients[index].peer = .recorder(session)
        case .silent:
            replies = []
        }
        // The clients here answer pings as a `SeatLink` would; the silent one never does.
        if case .ping(let nonce) = message, !clients[index].isSilent { replies.append(.pong(nonce: nonce)) }
        for reply in replies { send(reply, from: index) }
    }

    mutating func wake(_ index: Int) {
        switch clients[index].peer {
        case .bot(var bot):
            if let wake = bot.nextWake, wake <= now, let message = bot.tick(now: now) {
                clients[index].peer = .bot(bot)
                send(message, from: index)
            } else {
                clients[index].peer = .bot(bot)
            }
        case .scripted(let session, _):
            if let press = clients[index].pendingPress, press <= now {
                clients[index].pendingPress = nil
                send(session.snap(at: now), from: index)
            }
            if let turn = clients[index].pendingTurn, turn <= now {
                clients[index].pendingTurn = nil
                send(.turn, from: index)
            }
        case .recorder, .silent:
            break
        }
    }

    mutating func start() { perform(host.handle(.start, now: now)) }

    mutating func disconnect(_ index: Int) {
        clients[index].closed = true
        perform(host.handle(.disconnected(clients[index].connection), now: now))
    }
}
