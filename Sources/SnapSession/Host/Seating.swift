import SnapBots
import SnapBytes
import SnapEngine
import SnapProtocol

/// Seats and sign-in: every connection from its first message to its goodbye. The caps on
/// connections, the message budgets, hellos (the join code, names, protocol versions),
/// the lobby, seat tokens and rejoining, watchers, and who sits where once the game starts.
///
/// What it decides comes back as `Step`s, in order: plain actions (messages, log lines),
/// and what the session must do with the other parts (cut a connection, catch a
/// connection up with the table, give a seat back to its player).
struct Seating: Sendable {
    struct Player: Sendable {
        var id: UInt8
        var name: String
        var ready: Bool
        var connection: ConnectionID?
        /// Proves who holds the seat: a rejoining `hello` shows it.
        var token: SeatToken?
        var seat: Seat?
    }

    struct Connection: Sendable {
        var local: Bool
        /// The peer's address for a TCP connection, nil otherwise.
        var remote: String?
        var playerID: UInt8?
        /// Signed in to watch, not to play.
        var watcher = false
        var budgets = MessageBudget.buckets()
        var signedIn: Bool { playerID != nil || watcher }
    }

    enum Step: Equatable, Sendable {
        case act(HostAction)
        /// Cut this connection (a refusal or a violation).
        case cut(ConnectionID, CloseReason, String)
        /// A new connection replaces this one for its player: close it, nothing more.
        case replace(ConnectionID)
        /// It signed in: a sign of life (liveness pings a remote one at once).
        case signedIn(ConnectionID)
        /// Send it the table as it is: the snapshot and the deal's commitment.
        case catchUp(ConnectionID)
        /// This seat's player is back within its grace period.
        case returned(Seat)
    }

    /// Who left, as `disconnect` found it.
    enum Departure: Sendable {
        case watcher
        /// A connection that held no player (or no longer held its player).
        case connection
        /// A player's connection: gone from the lobby, or away from their seat.
        case player(Player)
    }

    private(set) var players: [Player] = []
    private(set) var connections: [ConnectionID: Connection] = [:]
    /// Connections that watch.
    private(set) var watchers: Set<ConnectionID> = []
    private(set) var joinCodes: JoinCodeGuard
    /// Rounds each player name won in this host's earlier matches.
    var earlierWins: [String: Int]
    /// Secret tokens need no replay: they come from the system's generator.
    private var tokens = SystemRandomNumberGenerator()
    /// The caps, the host's name and what `gameStarted` tells (the wins: `earlierWins`).
    let configuration: HostConfiguration

    init(_ configuration: HostConfiguration) {
        self.configuration = configuration
        joinCodes = JoinCodeGuard(configuration)
        earlierWins = configuration.earlierWins
    }

    /// A host restarted from its match log: everyone seated, nobody connected.
    init(resuming start: MatchStart, _ configuration: HostConfiguration) {
        self.init(configuration)
        for (index, seated) in start.players.enumerated() {
            players.append(Player(id: UInt8(index), name: seated.name, ready: true, token: start.tokens[seated.seat],
                                  seat: seated.seat))
        }
    }

    // MARK: - Connections

    /// A new connection. Returns why it is refused at once (past the caps on connections
    /// and on those still signing in), if it is.
    mutating func connect(_ id: ConnectionID, local: Bool, remote address: String?) -> (CloseReason, String)? {
        let remote = connections.values.filter { !$0.local }
        connections[id] = Connection(local: local, remote: local ? nil : address)
        guard !local else { return nil }
        if remote.count >= configuration.maxConnections {
            return (.full, Self.tooManyText(configuration.maxConnections))
        }
        if remote.filter({ !$0.signedIn }).count >= configuration.maxSigningIn {
            return (.full, Self.tooManySigningInText(configuration.maxSigningIn))
        }
        return nil
    }

    /// The words of the two refusals (docs/PROTOCOL.md §10 quotes them).
    static func tooManyText(_ cap: Int) -> String { "the host is busy: \(cap) connections at once is its limit" }
    static func tooManySigningInText(_ cap: Int) -> String { "the host is busy: \(cap) connections are signing in" }

    /// The words to a hello with no version in common (PROTOCOL.md §6 quotes them).
    static func versionText(offered: ClosedRange<UInt16>) -> String {
        "this host speaks protocol \(ProtocolVersion.supported.lowerBound)–\(ProtocolVersion.supported.upperBound); "
            + "you offered \(offered.lowerBound)–\(offered.upperBound)"
    }

    /// Within budget, or to be cut: one token bucket per message kind per connection.
    mutating func withinBudget(_ message: ClientMessage, from id: ConnectionID, now: Duration) -> Bool {
        let kind = message.budgetKind
        // hello, query and leave are once-only by the rules of a connection's life.
        guard configuration.budgetsEnforced, !connections[id]!.local, ![.hello, .query, .leave].contains(kind) else {
            return true
        }
        return connections[id]!.budgets[kind, default: MessageBudget.bucket(kind)].take(at: now)
    }

    /// Forgets a connection with nothing more to it (a query answered, one replaced).
    mutating func forget(_ id: ConnectionID) { connections[id] = nil }

    /// The connection is gone: out of the lobby, or away from its seat (nil: unknown).
    mutating func disconnect(_ id: ConnectionID, phase: HostSession.Phase) -> Departure? {
        guard let connection = connections.removeValue(forKey: id) else { return nil }
        if watchers.remove(id) != nil { return .watcher }
        guard let playerID = connection.playerID, let index = players.firstIndex(where: { $0.id == playerID }),
              players[index].connection == id else { return .connection }
        let player = players[index]
        switch phase {
        case .lobby: players.remove(at: index)
        case .playing: players[index].connection = nil
        case .over: break
        }
        return .player(player)
    }

    /// The game is over: every connection closes (returned in order); players keep their seats.
    mutating func closeAll() -> [ConnectionID] {
        defer {
            connections = [:]
            watchers = []
        }
        return connections.keys.sorted()
    }

    // MARK: - Sign-in

    /// A `hello` from a connection that has not signed in.
    mutating func signIn(_ hello: Hello, from id: ConnectionID, phase: HostSession.Phase, game: Game?,
                         now: Duration) -> [Step] {
        let common = hello.versions.clamped(to: ProtocolVersion.supported)
        guard hello.versions.overlaps(ProtocolVersion.supported), let version = common.last else {
            return [.cut(id, .versionUnsupported, Self.versionText(offered: hello.versions))]
        }
        // The code comes before anything that would tell a stranger about the game.
        if case .refused(let why, let announce) = joinCodes.check(hello.joinCode, from: connections[id]!.remote, now: now) {
            return (announce.map { [.act(.announce($0))] } ?? []) + [.cut(id, .wrongCode, why)]
        }
        let name: String
        do { name = try PlayerName.validate(hello.name) } catch {
            return [.cut(id, .badName, "\(error)")]
        }
        if hello.role == .watcher { return watch(name, from: id, version: version, phase: phase, game: game) }
        if let token = hello.token { return rejoin(token, from: id, version: version, phase: phase, game: game) }
        guard phase == .lobby else {
            return [.cut(id, .gameStarted, "the game has already started (watch it with snapcards join --watch)")]
        }
        guard !players.contains(where: { $0.name.lowercased() == name.lowercased() }) else {
            return [.cut(id, .nameTaken, "someone called \(name) has already joined")]
        }
        let local = connections[id]!.local
        if !local, clientCount >= configuration.maxClients {
            return [.cut(id, .full, "the game is full: \(configuration.maxClients) players have joined")]
        }
        if players.count + configuration.bots >= 4 {
            return [.cut(id, .full, "the table is full")]
        }
        let playerID = freePlayerID()
        let token = SeatToken.random(using: &tokens)
        players.append(Player(id: playerID, name: name, ready: local, connection: id, token: token))
        connections[id]!.playerID = playerID
        return [.act(.send(id, .welcome(Welcome(version: version, hostName: configuration.hostName, playerID: playerID,
                                                token: token)))),
                // Measure the round trip at once: judging needs it before the first card.
                .signedIn(id),
                .act(.log("\(name) joined from \(id)"))] + lobbyBroadcast().map(Step.act)
    }

    /// A player takes their seat back with the token their `welcome` gave them.
    private mutating func rejoin(_ token: SeatToken, from id: ConnectionID, version: UInt16, phase: HostSession.Phase,
                                 game: Game?) -> [Step] {
        guard phase != .over,
              let index = players.firstIndex(where: { $0.token == token }),
              phase == .lobby || players[index].seat.map({ game?.hand($0).isPresent == true }) == true else {
            return [.cut(id, .badToken, "this token holds no seat at this table (wrong, or its grace period is over)")]
        }
        var steps: [Step] = []
        // A connection the host still thinks alive (a network blink) gives way to the new one.
        if let old = players[index].connection, old != id {
            steps.append(.replace(old))
            connections[old] = nil
        }
        players[index].connection = id
        connections[id]!.playerID = players[index].id
        let player = players[index]
        steps += [.act(.send(id, .welcome(Welcome(version: version, hostName: configuration.hostName, playerID: player.id,
                                                  token: token)))),
                  .signedIn(id),
                  .act(.log("\(player.name) rejoined from \(id)"))]
        guard phase == .playing, let seat = player.seat, let game else { return steps + lobbyBroadcast().map(Step.act) }
        steps += [.act(.send(id, .gameStarted(gameStart(for: seat)))), .act(.send(id, .wonCounts(wonCounts))),
                  .catchUp(id), .act(.send(id, .watching(UInt8(clamping: watchers.count))))]
        if game.hand(seat).isAbsent { steps.append(.returned(seat)) }
        return steps
    }

    /// A watcher: sees what every player sees of the table, at once and from then on.
    private mutating func watch(_ name: String, from id: ConnectionID, version: UInt16, phase: HostSession.Phase,
                                game: Game?) -> [Step] {
        connections[id]!.watcher = true
        watchers.insert(id)
        var steps: [Step] = [.act(.send(id, .welcome(Welcome(version: version, hostName: configuration.hostName,
                                                             playerID: 0xFF)))),
                             .signedIn(id),
                             .act(.log("\(name) watches from \(id)"))]
        if phase == .lobby { steps.append(.act(.send(id, .lobby(lobby)))) }
        if phase == .playing, game != nil {
            steps += [.act(.send(id, .gameStarted(gameStart(for: nil)))), .act(.send(id, .wonCounts(wonCounts))),
                      .catchUp(id)]
        }
        return steps + watchingBroadcast().map(Step.act)
    }

    /// A player's `ready` (only in the lobby; a repeat tells nobody).
    mutating func ready(from id: ConnectionID, phase: HostSession.Phase) -> [Step] {
        guard let index = playerIndex(of: id) else { return [.cut(id, .protocolViolation, "ready before hello")] }
        // A ready that crossed gameStarted on the wire is an honest race, not a violation.
        guard phase == .lobby else { return [.act(.log("ignored a ready from \(players[index].name) after the start"))] }
        guard !players[index].ready else { return [] }
        players[index].ready = true
        return lobbyBroadcast().map(Step.act)
    }

    // MARK: - The start

    /// The start: the host's computer players take the seats left, named Ray, Lucy, Steve
    /// (or Mia), and everyone sits down in the order they joined. Returns the seats, and
    /// which of them a computer plays (nobody plays it from a connection).
    mutating func seatEveryone(computers: Int) -> (seats: [Seat], computers: [Bool]) {
        for index in 0..<computers {
            let name = (Bot.names + ["Mia"]).first { candidate in !players.contains { $0.name == candidate } }
                ?? "Bot \(index + 1)"
            players.append(Player(id: freePlayerID(), name: name, ready: true))
        }
        let seats = Seat.seating(playerCount: players.count)
        for index in players.indices { players[index].seat = seats[index] }
        return (seats, players.map { $0.connection == nil })
    }

    // MARK: - Players

    /// The lowest id nobody at the table holds: ids are reused, so a long-lived lobby
    /// never runs out (the table holds four at most).
    private func freePlayerID() -> UInt8 {
        let taken = Set(players.map(\.id))
        return (0...UInt8.max).first { !taken.contains($0) }!
    }

    func playerIndex(of id: ConnectionID) -> Int? {
        connections[id]?.playerID.flatMap { playerID in players.firstIndex { $0.id == playerID } }
    }

    /// The seat this connection plays, while the game is on.
    func seat(of id: ConnectionID, phase: HostSession.Phase) -> Seat? {
        guard phase == .playing, let index = playerIndex(of: id) else { return nil }
        return players[index].seat
    }

    func player(at seat: Seat) -> Player? { players.first { $0.seat == seat } }

    func name(at seat: Seat) -> String { player(at: seat)?.name ?? "\(seat)" }
}
