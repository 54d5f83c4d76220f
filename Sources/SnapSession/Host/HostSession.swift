import SnapBots
import SnapEngine
import SnapProtocol

/// The host's whole job as a value: lobby, seats, pacing, fair judging of Snap!,
/// per-seat projection, keepalive, leavers. It owns the `Game`; the driver owns the
/// sockets and the clock. Feed it inputs with the current time; perform the actions it
/// returns; call `.tick` again at `nextDeadline`.
public struct HostSession: Sendable {
    public enum Phase: Hashable, Sendable { case lobby, playing, over }

    struct Player: Sendable {
        var id: UInt8
        var name: String
        var ready: Bool
        var connection: ConnectionID?
        /// Proves who holds the seat: a rejoining `hello` shows it.
        var token: SeatToken?
        var bot: Bot?
        var seat: Seat?
        /// Turns the host took for this player in a row (the turn timer).
        var missedTurns = 0
        /// A player with a connection whose seat a computer plays for now.
        var isAway: Bool { bot != nil && connection != nil }
    }

    struct Link: Sendable {
        var local: Bool
        var playerID: UInt8?
        var budgets = MessageBudget.buckets()
        /// Signed in to watch, not to play.
        var watcher = false
        var signedIn: Bool { playerID != nil || watcher }
        /// The peer's address for a TCP connection, nil otherwise.
        var remote: String?
    }

    /// Wrong join codes from one address, and until when it is refused without a look.
    struct WrongCodes: Sendable {
        var count = 0
        var refusedUntil: Duration = .zero
    }

    public private(set) var configuration: HostConfiguration
    public private(set) var phase: Phase = .lobby
    public private(set) var game: Game?
    var players: [Player] = []
    var links: [ConnectionID: Link] = [:]
    /// Per remote address (TCP only).
    var wrongCodes: [String: WrongCodes] = [:]
    var timers: [HostTimer: Duration] = [:]
    /// Pings, silence, and the grace period of dropped seats.
    var liveness: Liveness
    /// Secret tokens need no replay: they come from the system's generator.
    var tokens = SystemRandomNumberGenerator()
    /// The current round's seed and salt, from its commitment until its reveal.
    var dealSecret: DealReveal?
    /// Connections that watch.
    var watchers: Set<ConnectionID> = []
    /// The time of the input being handled (for log entries made without one at hand).
    var lastNow: Duration = .zero
    public private(set) var roundsWon = 0
    /// Commands applied, and the first broken invariant if any (checked after every one).
    public private(set) var commandsApplied = 0
    public private(set) var invariantViolation: String?
    /// The match log: every accepted command with the events it caused, in order. The
    /// game is a fold of it (`MatchReplay`); the journal is a copy of it on disk.
    public private(set) var log: [MatchRecord] = []

    /// Fair judging of Snap!: the reference cards' times, the calls waiting for a verdict.
    var judge: SnapJudge

    public init(_ configuration: HostConfiguration) {
        self.configuration = configuration
        judge = SnapJudge(matchSeed: configuration.seed, windowCap: configuration.judgingWindowCap)
        liveness = Liveness(configuration)
    }

    /// A host that crashed, restarted from its match log: the same game, every seat
    /// waiting for its owner within the grace period (the host's computers play on).
    /// `configuration` gives the timings and limits; the log gives the match itself.
    public init(resuming log: [MatchRecord], _ configuration: HostConfiguration, now: Duration) throws(ReplayMismatch) {
        let replay = try MatchReplay.fold(log)
        guard let start = replay.start, let game = replay.game else {
            throw ReplayMismatch(sequence: 0, "the match never started: nothing to resume")
        }
        guard replay.ended == nil else { throw ReplayMismatch(sequence: UInt64(log.count - 1), "the match is over") }
        var configuration = configuration
        configuration.hostName = start.hostName
        configuration.seed = start.seed
        configuration.rules = start.rules
        configuration.rounds = start.rounds
        configuration.botLevel = BotLevel.allCases[min(Int(start.botLevel), BotLevel.allCases.count - 1)]
        self.init(configuration)
        self.log = log
        self.game = game
        phase = .playing
        commandsApplied = replay.commands
        roundsWon = replay.winners.count
        dealSecret = replay.unrevealed
        lastNow = now
        for (index, seated) in start.players.enumerated() {
            var player = Player(id: UInt8(index), name: seated.name, ready: true, token: start.tokens[seated.seat])
            player.seat = seated.seat
            if player.token == nil {
                player.bot = Bot(seat: seated.seat, level: configuration.botLevel, seed: configuration.seed &+ UInt64(index),
                                 timeScale: configuration.speed)
            }
            players.append(player)
        }
    }

    /// After `init(resuming:)`: every owner's seat is away with its grace period, and the
    /// timers pick the match up where the log left it. Returns what to do (log lines,
    /// the `absent` events for the journal).
    public mutating func resume(now: Duration) -> [HostAction] {
        var out: [HostAction] = []
        guard let game else { return out }
        for player in players where player.token != nil {
            guard let seat = player.seat, game.hand(seat).isPresent else { continue }
            if configuration.grace > .zero {
                liveness.startGrace(for: seat, now: now)
                out.append(.announce("seat \(seat.rawValue): \(player.name) \(liveness.awayText)"))
                if !game.hand(seat).isAbsent { apply(.absent(seat), now: now, &out) }
            } else {
                leaveSeat(seat, reason: .dropped, now: now, &out)
            }
        }
        guard phase == .playing, let game = self.game else { return out }
        switch game.phase {
        case .lobby: deal(now: now, &out)
        case .dealing: timers[.finishDeal] = now + configuration.pacing.deal * configuration.speed
        case .playing:
            if game.hasTurned { timers[.activateNext] = now + configuration.pacing.nextPlayer * configuration.speed }
            judge.resume(turnsThisRound: game.turnsThisRound, at: now)
        case .roundOver:
            // The host crashed between a round's win and its reveal.
            revealDeal(now: now, &out)
            if let pause = configuration.autoNextRound { timers[.nextRound] = now + pause * configuration.speed }
        }
        if let table = self.game?.table {
            for index in players.indices where players[index].bot != nil {
                players[index].bot!.observe([], table: table, now: now)
            }
        }
        return out
    }

    /// When `.tick` should come next.
    public var nextDeadline: Duration? {
        let botWakes = players.compactMap { $0.bot?.nextWake }
        return (Array(timers.values) + [judge.deadline, liveness.nextDeadline].compactMap { $0 } + botWakes).min()
    }

    public var lobby: [LobbyPlayer] { players.map { LobbyPlayer(id: $0.id, name: $0.name, ready: $0.ready) } }
    public var clientCount: Int { players.filter { $0.connection != nil && !(links[$0.connection!]?.local ?? false) }.count }

    public mutating func handle(_ input: HostInput, now: Duration) -> [HostAction] {
        var out: [HostAction] = []
        lastNow = now
        switch input {
        case .connected(let id, let local, let remote):
            admit(id, local: local, remote: remote, now: now, &out)
        case .message(let id, let message):
            guard links[id] != nil else { break }
            receive(message, from: id, now: now, &out)
        case .malformed(let id, let reason):
            cut(id, .protocolViolation, reason, now: now, &out)
        case .disconnected(let id):
            drop(id, reason: .dropped, now: now, &out)
        case .tooSlow(let id, let why):
            cut(id, .timedOut, "too slow: \(why)", now: now, &out)
        case .start:
            start(now: now, &out)
        case .nextRound:
            if phase == .playing, case .roundOver = game?.phase { deal(now: now, &out) }
        case .quit:
            endGame(.hostQuit, "the host ended the game", &out)
        case .tick:
            fireTimers(now: now, &out)
        }
        return out
    }

    // MARK: - Lobby

    /// A new connection, within the caps on connections and on those still signing in.
    private mutating func admit(_ id: ConnectionID, local: Bool, remote address: String?, now: Duration,
                                _ out: inout [HostAction]) {
        let remote = links.values.filter { !$0.local }
        links[id] = Link(local: local, remote: local ? nil : address)
        liveness.connected(id, local: local, now: now)
        guard !local else { return }
        if remote.count >= configuration.maxConnections {
            return cut(id, .full, "the host is busy: \(configuration.maxConnections) connections at once is its limit",
                       now: now, &out)
        }
        if remote.filter({ !$0.signedIn }).count >= configuration.maxSigningIn {
            return cut(id, .full, "the host is busy: \(configuration.maxSigningIn) connections are signing in",
                       now: now, &out)
        }
    }

    /// Within budget, or cut: one token bucket per message kind per connection.
    private mutating func withinBudget(_ message: ClientMessage, from id: ConnectionID, now: Duration,
                                       _ out: inout [HostAction]) -> Bool {
        let kind = message.budgetKind
        // hello, query and leave are once-only by the rules of a connection's life.
        guard configuration.budgetsEnforced, !links[id]!.local, ![.hello, .query, .leave].contains(kind) else {
            return true
        }
        if links[id]!.budgets[kind, default: MessageBudget.bucket(kind)].take(at: now) { return true }
        cut(id, .protocolViolation, MessageBudget.overBudgetText(kind), now: now, &out)
        return false
    }

    private mutating func receive(_ message: ClientMessage, from id: ConnectionID, now: Duration, _ out: inout [HostAction]) {
        guard withinBudget(message, from: id, now: now, &out) else { return }
        let player = links[id]?.playerID
        if links[id]!.watcher {
            switch message {
            case .ready, .turn, .snap:
                return cut(id, .protocolViolation, "a watcher cannot play: it only watches", now: now, &out)
            case .leave:
                drop(id, reason: .quit, now: now, &out)
                return out.append(.hangUp(id))
            case .hello, .query:
                return cut(id, .protocolViolation, "\(message.budgetKind.rawValue) after hello", now: now, &out)
            case .pong:
                break  // below, as anyone's
            }
        }
        switch message {
        case .hello(let hello):
            guard !links[id]!.signedIn else { return cut(id, .protocolViolation, "hello sent twice", now: now, &out) }
            signIn(hello, from: id, now: now, &out)
        case .query:
            guard !links[id]!.signedIn else { return cut(id, .protocolViolation, "query after hello", now: now, &out) }
            if needsCode(id) {
                // Before a good hello, a stranger on TCP learns the name and that a code is needed: nothing more.
                send(id, .info(HostInfo(hostName: configuration.hostName, players: 0, maxPlayers: 4, started: false,
                                        needsCode: true)), &out)
            } else {
                var info = publicInfo
                info.needsCode = false
                send(id, .info(info), &out)
            }
            forget(id)
            out.append(.hangUp(id))
        case .pong(let nonce):
            guard links[id]!.signedIn else { return cut(id, .protocolViolation, "pong before hello", now: now, &out) }
            liveness.pong(nonce, from: id, now: now)
        case .ready:
            guard let index = playerIndex(player) else { return cut(id, .protocolViolation, "ready before hello", now: now, &out) }
            // A ready that crossed gameStarted on the wire is an honest race, not a violation.
            guard phase == .lobby else { return out.append(.log("ignored a ready from \(players[index].name) after the start")) }
            guard !players[index].ready else { return }  // a repeat changes nothing, so tells nobody
            players[index].ready = true
            broadcastLobby(&out)
        case .turn:
            guard let seat = seatOf(player) else { return cut(id, .protocolViolation, "turn outside a game", now: now, &out) }
            ownerActs(playerIndex(player)!, now: now, &out)
            let wasActive = game?.table.active == seat && game?.table.hasTurned == false
            judgeNow(now: now, &out)
            apply(.turn(seat), now: now, &out)
            if wasActive, let index = playerIndex(player) { players[index].missedTurns = 0 }
        case .snap(let call):
            guard let seat = seatOf(player) else { return cut(id, .protocolViolation, "snap outside a game", now: now, &out) }
            ownerActs(playerIndex(player)!, now: now, &out)
            collect(call, seat: seat, roundTrip: liveness.roundTrip(of: id), now: now, &out)
        case .leave:
            guard player != nil else { return cut(id, .protocolViolation, "leave before hello", now: now, &out) }
            drop(id, reason: .quit, now: now, &out)
            out.append(.hangUp(id))  // the leaver knows why: nothing more to say
        }
    }

    private mutating func signIn(_ hello: Hello, from id: ConnectionID, now: Duration, _ out: inout [HostAction]) {
        let common = hello.versions.clamped(to: ProtocolVersion.supported)
        guard hello.versions.overlaps(ProtocolVersion.supported), let version = common.last else {
            return cut(id, .versionUnsupported,
                       "this host speaks protocol \(ProtocolVersion.supported.lowerBound)–\(ProtocolVersion.supported.upperBound); "
                       + "you offered \(hello.versions.lowerBound)–\(hello.versions.upperBound)",
                       now: now, &out)
        }
        // The code comes before anything that would tell a stranger about the game.
        guard codeAccepted(hello.joinCode, from: id, now: now, &out) else { return }
        let name: String
        do { name = try PlayerName.validate(hello.name) } catch {
            return cut(id, .badName, "\(error)", now: now, &out)
        }
        if hello.role == .watcher { return admitWatcher(name, from: id, version: version, now: now, &out) }
        if let token = hello.token { return rejoin(token, from: id, version: version, now: now, &out) }
        guard phase == .lobby else {
            return cut(id, .gameStarted, "the game has already started (watch it with snap join --watch)", now: now, &out)
        }
        guard !players.contains(where: { $0.name.lowercased() == name.lowercased() }) else {
            return cut(id, .nameTaken, "someone called \(name) has already joined", now: now, &out)
        }
        let local = links[id]!.local
        if !local, clientCount >= configuration.maxClients {
            return cut(id, .full, "the game is full: \(configuration.maxClients) players have joined", now: now, &out)
        }
        if players.count + configuration.bots >= 4 {
            return cut(id, .full, "the table is full", now: now, &out)
        }
        let playerID = freePlayerID()
        let token = SeatToken.random(using: &tokens)
        players.append(Player(id: playerID, name: name, ready: local, connection: id, token: token))
        links[id]!.playerID = playerID
        send(id, .welcome(Welcome(version: version, hostName: configuration.hostName, playerID: playerID, token: token)), &out)
        // Measure the round trip at once: judging needs it before the first card.
        signedIn(id, now: now, &out)
        out.append(.log("\(name) joined from \(id)"))
        broadcastLobby(&out)
    }

    /// A player takes their seat back with the token their `welcome` gave them.
    private mutating func rejoin(_ token: SeatToken, from id: ConnectionID, version: UInt16, now: Duration,
                                 _ out: inout [HostAction]) {
        guard phase != .over,
              let index = players.firstIndex(where: { $0.token == token }),
              phase == .lobby || players[index].seat.map({ game?.hand($0).isPresent == true }) == true else {
            return cut(id, .badToken, "this token holds no seat at this table (wrong, or its grace period is over)",
                       now: now, &out)
        }
        // A connection the host still thinks alive (a network blink) gives way to the new one.
        if let old = players[index].connection, old != id {
            out.append(.close(old, .timedOut, "replaced by a new connection"))
            forget(old)
        }
        players[index].connection = id
        links[id]!.playerID = players[index].id
        let player = players[index]
        send(id, .welcome(Welcome(version: version, hostName: configuration.hostName, playerID: player.id, token: token)), &out)
        signedIn(id, now: now, &out)
        out.append(.log("\(player.name) rejoined from \(id)"))
        guard phase == .playing, let seat = player.seat, let game else { return broadcastLobby(&out) }
        send(id, .gameStarted(gameStart(for: seat)), &out)
        send(id, .wonCounts(wonCounts), &out)
        send(id, .snapshot(snapshot(of: game)), &out)
        if let dealSecret { send(id, .dealCommitted(dealSecret.commitment), &out) }
        send(id, .watching(UInt8(clamping: watchers.count)), &out)
        if game.hand(seat).isAbsent {
            liveness.endGrace(for: seat)
            out.append(.announce("seat \(seat.rawValue): \(player.name) back"))
            apply(.returned(seat), now: now, &out)
        }
    }

    /// A watcher: sees what every player sees of the table, at once and from then on.
    private mutating func admitWatcher(_ name: String, from id: ConnectionID, version: UInt16, now: Duration,
                                       _ out: inout [HostAction]) {
        links[id]!.watcher = true
        watchers.insert(id)
        send(id, .welcome(Welcome(version: version, hostName: configuration.hostName, playerID: 0xFF)), &out)
        signedIn(id, now: now, &out)
        out.append(.log("\(name) watches from \(id)"))
        if phase == .lobby { send(id, .lobby(lobby), &out) }
        if phase == .playing, let game {
            send(id, .gameStarted(gameStart(for: nil)), &out)
            send(id, .wonCounts(wonCounts), &out)
            send(id, .snapshot(snapshot(of: game)), &out)
            if let dealSecret { send(id, .dealCommitted(dealSecret.commitment), &out) }
        }
        broadcastWatching(&out)
    }

    private mutating func broadcastWatching(_ out: inout [HostAction]) {
        let count = UInt8(clamping: watchers.count)
        for id in audience { send(id, .watching(count), &out) }
    }

    /// Everyone who hears about the table: connected players and watchers.
    private var audience: [ConnectionID] {
        players.compactMap { player in player.connection.flatMap { links[$0] != nil ? $0 : nil } } + watchers.sorted()
    }

    private func gameStart(for seat: Seat?) -> GameStart {
        let seated = players.compactMap { player in player.seat.map { SeatedPlayer(seat: $0, name: player.name) } }
            .sorted { $0.seat < $1.seat }
        return GameStart(yourSeat: seat, players: seated, turnLimit: configuration.rules.turnLimit.map(UInt32.init),
                         turnTimeoutMillis: turnTimeoutMillis,
                         graceMillis: UInt32(clamping: configuration.grace.microseconds / 1000))
    }

    /// Every seated player's rounds won in earlier matches, by seat.
    private var wonCounts: [SeatWonCount] {
        players.compactMap { player in
            player.seat.map { SeatWonCount(seat: $0, won: UInt32(clamping: configuration.earlierWins[player.name] ?? 0)) }
        }.sorted { $0.seat < $1.seat }
    }

    /// Earlier matches' wins, read from the journals by the driver (no I/O here).
    public mutating func setEarlierWins(_ wins: [String: Int]) {
        configuration.earlierWins = wins
    }

    private func snapshot(of game: Game) -> TableSnapshot {
        TableSnapshot(table: game.table, turnsThisRound: UInt32(clamping: game.turnsThisRound),
                      computerPlays: players.filter(\.isAway).compactMap(\.seat))
    }

    /// What the Join list shows of this game: the name, seats taken (counting the host's
    /// bots, seated at the start) and the most, open or started, and whether TCP players
    /// need a code. The LAN announcement says exactly this.
    public var publicInfo: HostInfo {
        let taken = players.count + (phase == .lobby ? configuration.bots : 0)
        let local = links.values.contains { $0.local } ? 1 : 0
        let capacity = min(4, configuration.bots + configuration.maxClients + local)
        return HostInfo(hostName: configuration.hostName, players: UInt8(min(taken, capacity)),
                        maxPlayers: UInt8(max(2, capacity)), started: phase != .lobby,
                        needsCode: configuration.joinCode != nil)
    }

    /// Whether this connection must give the join code: TCP, and the host has one.
    private func needsCode(_ id: ConnectionID) -> Bool {
        configuration.joinCode != nil && links[id]?.remote != nil
    }

    /// Checks a TCP hello's join code; a wrong one is refused (`wrongCode`) and counted
    /// against the address, which past `wrongCodesAllowed` is refused unheard for a while.
    private mutating func codeAccepted(_ given: String, from id: ConnectionID, now: Duration,
                                       _ out: inout [HostAction]) -> Bool {
        guard needsCode(id), let code = configuration.joinCode, let address = links[id]?.remote else { return true }
        var record = wrongCodes[address] ?? WrongCodes()
        if now < record.refusedUntil {
            let wait = Int(((record.refusedUntil - now) / .seconds(1)).rounded(.up))
            cut(id, .wrongCode, "too many wrong join codes from \(address): try again in \(wait) s", now: now, &out)
            return false
        }
        if JoinCode.normalized(given) == code {
            wrongCodes[address] = nil
            return true
        }
        record.count += 1
        if record.count >= configuration.wrongCodesAllowed {
            let doublings = min(record.count - configuration.wrongCodesAllowed, 16)
            record.refusedUntil = now + min(.seconds(1) * (1 << doublings), configuration.wrongCodeMaxPause)
        }
        if wrongCodes.count >= 1024 { wrongCodes = wrongCodes.filter { now < $0.value.refusedUntil } }
        wrongCodes[address] = record
        out.append(.announce("wrong join code from \(address) (\(record.count) in a row)"))
        cut(id, .wrongCode,
            given.isEmpty ? "this game needs its join code: ask the host for it (snap join --code XXXXXX)"
                : "wrong join code: ask the host for the 6-character join code shown in its lobby",
            now: now, &out)
        return false
    }

    private mutating func broadcastLobby(_ out: inout [HostAction]) {
        let list = lobby
        for player in players { if let id = player.connection { send(id, .lobby(list), &out) } }
        for id in watchers.sorted() { send(id, .lobby(list), &out) }
    }

    // MARK: - The game

    private mutating func start(now: Duration, _ out: inout [HostAction]) {
        guard phase == .lobby else { return }
        let humans = players.count
        guard humans + configuration.bots >= 2 else {
            out.append(.log("start refused: at least two players are needed"))
            return
        }
        for index in 0..<configuration.bots {
            let name = (Bot.names + ["Mia"]).first { candidate in !players.contains { $0.name == candidate } }
                ?? "Bot \(index + 1)"
            players.append(Player(id: freePlayerID(), name: name, ready: true))
        }
        let seats = Seat.seating(playerCount: players.count)
        for index in players.indices {
            players[index].seat = seats[index]
            if players[index].connection == nil {
                players[index].bot = Bot(seat: seats[index], level: configuration.botLevel,
                                         seed: configuration.seed &+ UInt64(index), timeScale: configuration.speed)
            }
        }
        phase = .playing
        game = Game(seats: seats, rules: configuration.rules)
        let seated = gameStart(for: nil).players
        var tokens: [Seat: SeatToken] = [:]
        for player in players { if let seat = player.seat, let token = player.token { tokens[seat] = token } }
        record(.started(MatchStart(hostName: configuration.hostName, seed: configuration.seed, rules: configuration.rules,
                                   players: seated, startedAt: configuration.startedAt, tokens: tokens,
                                   rounds: configuration.rounds,
                                   botLevel: UInt8(BotLevel.allCases.firstIndex(of: configuration.botLevel) ?? 1))),
               now: now, &out)
        for player in players {
            guard let id = player.connection else { continue }
            send(id, .gameStarted(gameStart(for: player.seat)), &out)
            send(id, .wonCounts(wonCounts), &out)
        }
        for id in watchers.sorted() {
            send(id, .gameStarted(gameStart(for: nil)), &out)
            send(id, .wonCounts(wonCounts), &out)
        }
        out.append(.log("game started: " + seated.map { "\($0.name) at \($0.seat)" }.joined(separator: ", ")))
        deal(now: now, &out)
    }

    /// Commits to a fresh seed (logged, and announced to everyone at the table), then
    /// deals from it. The seed and salt are revealed when the round ends.
    private mutating func deal(now: Duration, _ out: inout [HostAction]) {
        timers[.nextRound] = nil
        guard let game else { return }
        let round = UInt32(clamping: game.round + 1)
        let secret = configuration.secretDeals ? DealReveal.secret(round: round, using: &tokens)
            : DealReveal.derived(match: configuration.seed, round: round)
        // A deal the engine would refuse commits to nothing.
        var trial = game
        guard (try? trial.apply(.deal(seed: secret.seed))) != nil else {
            return apply(.deal(seed: secret.seed), now: now, &out)  // refused and logged
        }
        let commitment = secret.commitment
        record(.committed(commitment, salt: secret.salt), now: now, &out)
        for id in audience { send(id, .dealCommitted(commitment), &out) }
        dealSecret = secret
        apply(.deal(seed: secret.seed), now: now, &out)
    }

    /// The round is over (or the match ends in it): everyone may now check its deal.
    private mutating func revealDeal(now: Duration, _ out: inout [HostAction]) {
        guard let secret = dealSecret else { return }
        dealSecret = nil
        record(.revealed(secret), now: now, &out)
        for id in audience { send(id, .dealRevealed(secret), &out) }
    }

    /// Applies a command, sends what it caused, and schedules what follows.
    private mutating func apply(_ command: Command, now: Duration, _ out: inout [HostAction]) {
        guard var game else { return }
        let events: [Event]
        do {
            events = try game.apply(command)
        } catch {
            // Out of turn, no cards, a race with the last move: honest players do this; nothing changes.
            out.append(.log("refused \(command): \(error)"))
            return
        }
        self.game = game
        commandsApplied += 1
        record(.applied(command, events), now: now, &out)
        if invariantViolation == nil, let violation = game.invariantViolation() {
            invariantViolation = "after \(command): \(violation)"
            out.append(.log("card conservation FAILED \(invariantViolation!)"))
        }
        broadcast(events, now: now, &out)
    }

    private mutating func broadcast(_ events: [Event], now: Duration, _ out: inout [HostAction]) {
        let seen = events.map(\.seen)
        for player in players where player.seat != nil {
            if let id = player.connection, links[id] != nil { send(id, .events(seen), &out) }
        }
        for id in watchers.sorted() { send(id, .events(seen), &out) }
        for event in events {
            judge.observe(event, at: now)
            switch event {
            case .roundStarted:
                timers[.finishDeal] = now + configuration.pacing.deal * configuration.speed
            case .activated(let seat):
                armTurnTimer(for: seat, now: now)
            case .turned:
                timers[.turnTimeout] = nil
                timers[.activateNext] = now + configuration.pacing.nextPlayer * configuration.speed
            case .roundWon(let seat, _):
                roundsWon += 1
                timers[.activateNext] = nil
                timers[.turnTimeout] = nil
                let name = players.first { $0.seat == seat }?.name ?? "\(seat)"
                out.append(.roundWon(round: game?.round ?? 0, winner: name))
                revealDeal(now: now, &out)
                if let rounds = configuration.rounds, roundsWon >= rounds {
                    endGame(.gameFinished, "all \(rounds) rounds played", &out)
                    return
                }
                if let pause = configuration.autoNextRound { timers[.nextRound] = now + pause * configuration.speed }
            default:
                break
            }
        }
        if let table = game?.table {
            for index in players.indices where players[index].bot != nil {
                players[index].bot!.observe(seen, table: table, now: now)
            }
        }
    }

    // MARK: - Fair judging of Snap!

    private mutating func collect(_ call: SnapCall, seat: Seat, roundTrip: Duration, now: Duration, _ out: inout [HostAction]) {
        guard game?.phase == .playing else {
            apply(.snap(seat), now: now, &out)  // refused and logged by the engine's rule
            return
        }
        // Once a call was judged since the last turn, every other is too late in any order.
        if !judge.isWaiting, game?.snapJudged == true {
            apply(.snap(seat), now: now, &out)
            return
        }
        judge.add(call, from: seat, roundTrip: roundTrip, now: now)
        var rivals: [Duration] = []
        for player in players {
            guard let seat = player.seat, !judge.hasCalled(seat), game?.hand(seat).hasCards == true else { continue }
            rivals.append(liveness.roundTrip(of: player.connection))
        }
        if !judge.keepOpen(forRivals: rivals, now: now) { judgeNow(now: now, &out) }
    }

    /// Applies the waiting calls in the judge's order.
    private mutating func judgeNow(now: Duration, _ out: inout [HostAction]) {
        guard let verdicts = judge.verdicts(now: now) else { return }
        out.append(.log(verdicts.log))
        for seat in verdicts.order { apply(.snap(seat), now: now, &out) }
    }

    // MARK: - Timers

    /// Stops a timer about to fire, in the part that keeps it.
    private mutating func clear(_ timer: HostTimer) {
        switch timer {
        case .judge: judge.stop()
        case .ping: liveness.pingTimerFired()
        case .grace(let seat): liveness.endGrace(for: seat)
        case .activateNext, .finishDeal, .nextRound, .turnTimeout: timers[timer] = nil
        }
    }

    private mutating func fireTimers(now: Duration, _ out: inout [HostAction]) {
        var due = timers.filter { $0.value <= now }.map(\.key)
        if let deadline = judge.deadline, deadline <= now { due.append(.judge) }
        liveness.due(at: now, into: &due)
        // (A grace timer may end the game; those after it then find nothing to do.)
        for timer in due.sorted() {
            clear(timer)
            switch timer {
            case .judge: judgeNow(now: now, &out)
            case .finishDeal: apply(.finishDeal, now: now, &out)
            case .activateNext: judgeNow(now: now, &out); apply(.activateNext, now: now, &out)
            case .nextRound: deal(now: now, &out)
            case .ping: keepAlive(now: now, &out)
            case .turnTimeout: turnForAbsentPlayer(now: now, &out)
            case .grace(let seat): graceEnded(seat, now: now, &out)
            }
        }
        for index in players.indices {
            guard let seat = players[index].seat, var bot = players[index].bot else { continue }
            let intent = bot.due(at: now)
            players[index].bot = bot
            switch intent {
            case .turn: judgeNow(now: now, &out); apply(.turn(seat), now: now, &out)
            case .snap:
                // The host's own bots react with zero latency; their reaction is measured like anyone's.
                collect(judge.computerCall(at: now), seat: seat, roundTrip: .zero, now: now, &out)
            case nil: break
            }
        }
    }

    // MARK: - The turn timer

    private var turnTimeoutMillis: UInt32? {
        configuration.turnTimeout.map { UInt32(clamping: max(1, $0.microseconds / 1000)) }
    }

    /// A seat its owner plays gets the turn timer; one a computer plays needs none.
    private mutating func armTurnTimer(for seat: Seat, now: Duration) {
        timers[.turnTimeout] = nil
        guard let timeout = configuration.turnTimeout,
              let player = players.first(where: { $0.seat == seat }), player.bot == nil else { return }
        timers[.turnTimeout] = now + timeout
    }

    /// The active player let the timer run out: their card is turned for them, and after
    /// a few in a row a computer plays their seat until they act again.
    private mutating func turnForAbsentPlayer(now: Duration, _ out: inout [HostAction]) {
        guard let table = game?.table, game?.phase == .playing, let seat = table.active, !table.hasTurned,
              let index = players.firstIndex(where: { $0.seat == seat }), players[index].bot == nil else { return }
        players[index].missedTurns += 1
        let name = players[index].name
        out.append(.log("\(name) did not turn in time: the host turned for them (\(players[index].missedTurns) in a row)"))
        judgeNow(now: now, &out)
        apply(.turn(seat), now: now, &out)
        guard players[index].missedTurns >= configuration.awayAfterMissedTurns, players[index].connection != nil,
              let table = game?.table else { return }
        var bot = Bot(seat: seat, level: configuration.botLevel, seed: configuration.seed &+ UInt64(index) &+ 0xA5A5,
                      timeScale: configuration.speed)
        bot.observe([], table: table, now: now)
        players[index].bot = bot
        out.append(.announce("seat \(seat.rawValue): \(name) missed \(players[index].missedTurns) turns: a computer plays for them"))
        broadcastToSeated(.seatAway(seat, away: true), &out)
    }

    /// The owner of a seat a computer plays for them acted: the seat is theirs again.
    private mutating func ownerActs(_ index: Int, now: Duration, _ out: inout [HostAction]) {
        guard players[index].isAway, let seat = players[index].seat else { return }
        players[index].bot = nil
        players[index].missedTurns = 0
        out.append(.announce("seat \(seat.rawValue): \(players[index].name) plays again"))
        broadcastToSeated(.seatAway(seat, away: false), &out)
        if game?.table.active == seat, game?.table.hasTurned == false { armTurnTimer(for: seat, now: now) }
    }

    private mutating func broadcastToSeated(_ message: HostMessage, _ out: inout [HostAction]) {
        for player in players where player.seat != nil {
            if let id = player.connection, links[id] != nil { send(id, message, &out) }
        }
        for id in watchers.sorted() { send(id, message, &out) }
    }

    // MARK: - Keepalive

    /// The ping timer: every remote connection is pinged, or cut if it fell silent.
    private mutating func keepAlive(now: Duration, _ out: inout [HostAction]) {
        for check in liveness.checks(now: now, isSignedIn: { links[$0]?.signedIn == true }) {
            switch check {
            case .cut(let id, let why):
                cut(id, .timedOut, why, now: now, &out)
            case .ping(let id):
                // (A cut before it may have ended the game, and every connection with it.)
                if links[id] != nil { out.append(liveness.ping(id, now: now)) }
            }
        }
        if phase != .over { liveness.schedulePings(now: now) }
    }

    /// A connection signed in: a sign of life; a remote one is pinged at once.
    private mutating func signedIn(_ id: ConnectionID, now: Duration, _ out: inout [HostAction]) {
        if let ping = liveness.signedIn(id, now: now) { out.append(ping) }
    }

    /// A connection the host no longer hears from, with nothing more to it (no leaving).
    private mutating func forget(_ id: ConnectionID) {
        links[id] = nil
        liveness.forget(id)
    }

    // MARK: - Leaving

    private mutating func cut(_ id: ConnectionID, _ reason: CloseReason, _ message: String, now: Duration,
                              _ out: inout [HostAction]) {
        guard links[id] != nil else { return }
        let message = CloseMessage.fitted(message)
        out.append(.log("closing \(id): \(reason): \(message)"))
        out.append(.close(id, reason, message))
        // A connection that fell silent or behind may come back within the grace period;
        // one cut for breaking the protocol leaves at once.
        drop(id, reason: .dropped, keepSeat: reason == .timedOut, now: now, &out)
    }

    /// The connection is gone (or leaving): the player leaves the lobby, or the game.
    private mutating func drop(_ id: ConnectionID, reason: LeaveReason, keepSeat: Bool = true, now: Duration,
                               _ out: inout [HostAction]) {
        guard let link = links.removeValue(forKey: id) else { return }
        liveness.forget(id)
        if watchers.remove(id) != nil { return broadcastWatching(&out) }
        guard let playerID = link.playerID, let index = players.firstIndex(where: { $0.id == playerID }),
              players[index].connection == id else { return }
        let player = players[index]
        out.append(.log("\(player.name) left (\(reason == .quit ? "quit" : "connection dropped"))"))
        switch phase {
        case .lobby:
            players.remove(at: index)
            broadcastLobby(&out)
        case .playing:
            players[index].connection = nil
            guard let seat = player.seat, let game, game.hand(seat).isPresent else { return }
            // A dropped connection keeps the seat for the grace period; a quit leaves at once.
            if reason == .dropped, keepSeat, configuration.grace > .zero, !game.hand(seat).isAbsent {
                players[index].bot = nil
                liveness.startGrace(for: seat, now: now)
                out.append(.announce("seat \(seat.rawValue): \(player.name) \(liveness.awayText)"))
                judgeNow(now: now, &out)
                apply(.absent(seat), now: now, &out)
                return
            }
            leaveSeat(seat, reason: reason, now: now, &out)
        case .over:
            break
        }
    }

    /// The grace period ran out: the seat leaves as if its player had.
    private mutating func graceEnded(_ seat: Seat, now: Duration, _ out: inout [HostAction]) {
        guard phase == .playing, let index = players.firstIndex(where: { $0.seat == seat }),
              players[index].connection == nil, game?.hand(seat).isAbsent == true else { return }
        leaveSeat(seat, reason: .dropped, now: now, &out)
    }

    private mutating func leaveSeat(_ seat: Seat, reason: LeaveReason, now: Duration, _ out: inout [HostAction]) {
        liveness.endGrace(for: seat)
        if let player = players.first(where: { $0.seat == seat }) {
            out.append(.announce("seat \(seat.rawValue): \(player.name) left"))
        }
        for id in audience { send(id, .seatLeft(seat, reason), &out) }
        judgeNow(now: now, &out)
        apply(.leave(seat), now: now, &out)
        if let game, game.presentSeats.count < 2 {
            endGame(.gameFinished, "too few players are left", &out)
        }
    }

    private mutating func endGame(_ reason: CloseReason, _ message: String, _ out: inout [HostAction]) {
        guard phase != .over else { return }
        if phase == .playing {
            revealDeal(now: lastNow, &out)
            record(.ended(reason: message), now: lastNow, &out)
        }
        phase = .over
        timers = [:]
        judge.stop()
        for id in links.keys.sorted() { out.append(.close(id, reason, CloseMessage.fitted(message))) }
        links = [:]
        liveness.stop()
        watchers = []
        out.append(.gameOver(message))
    }

    // MARK: - The match log

    private mutating func record(_ entry: MatchRecord.Entry, now: Duration, _ out: inout [HostAction]) {
        let record = MatchRecord(sequence: UInt64(log.count), timeMicros: UInt64(clamping: max(0, now.microseconds)),
                                 entry: entry)
        log.append(record)
        out.append(.record(record))
    }

    // MARK: - Helpers

    private mutating func send(_ id: ConnectionID, _ message: HostMessage, _ out: inout [HostAction]) {
        out.append(.send(id, message))
    }

    /// The lowest id nobody at the table holds: ids are reused, so a long-lived lobby
    /// never runs out (the table holds four at most).
    private func freePlayerID() -> UInt8 {
        let taken = Set(players.map(\.id))
        return (0...UInt8.max).first { !taken.contains($0) }!
    }

    private func playerIndex(_ id: UInt8?) -> Int? {
        id.flatMap { id in players.firstIndex { $0.id == id } }
    }

    private func seatOf(_ id: UInt8?) -> Seat? {
        guard phase == .playing, let index = playerIndex(id) else { return nil }
        return players[index].seat
    }
}
