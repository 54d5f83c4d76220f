import SnapBots
import SnapBytes
import SnapEngine
import SnapProtocol

/// The session's glue between its parts while the game is on: every command goes through
/// `apply`, which logs it (the match log is the one truth) and tells the seats, the judge and
/// the table what it caused.
extension HostSession {
    // MARK: - The game

    /// The host starts the game: its computers take the seats left, the match log begins,
    /// everyone learns who sits where, and the first round is dealt.
    mutating func start(now: Duration, _ out: inout [HostAction]) {
        guard phase == .lobby else { return }
        guard seating.players.count + configuration.bots >= 2 else {
            out.append(.log("start refused: at least two players are needed"))
            return
        }
        let seated = seating.seatEveryone(computers: configuration.bots)
        table.start(seats: seated.seats, computers: seated.computers)
        phase = .playing
        let players = seating.gameStart(for: nil).players
        record(.started(MatchStart(hostName: configuration.hostName, seed: configuration.seed, rules: configuration.rules,
                                   players: players, startedAt: configuration.startedAt, tokens: seating.tokensBySeat,
                                   rounds: configuration.rounds,
                                   botLevel: UInt8(BotLevel.allCases.firstIndex(of: configuration.botLevel) ?? 1))),
               now: now, &out)
        let wonCounts = seating.wonCounts
        for player in seating.players {
            guard let id = player.connection else { continue }
            out.append(.send(id, .gameStarted(seating.gameStart(for: player.seat))))
            out.append(.send(id, .wonCounts(wonCounts)))
        }
        for id in seating.watchers.sorted() {
            out.append(.send(id, .gameStarted(seating.gameStart(for: nil))))
            out.append(.send(id, .wonCounts(wonCounts)))
        }
        out.append(.log("game started: " + players.map { "\($0.name) at \($0.seat)" }.joined(separator: ", ")))
        deal(now: now, &out)
    }

    /// Commits to a fresh seed (logged, and announced to everyone at the table), then
    /// deals from it. The seed and salt are revealed when the round ends.
    mutating func deal(now: Duration, _ out: inout [HostAction]) {
        guard let deal = table.nextDeal() else { return }
        // A deal the engine would refuse commits to nothing (and is refused and logged).
        if let secret = deal.secret {
            record(.committed(secret.commitment, salt: secret.salt), now: now, &out)
            for id in seating.audience { out.append(.send(id, .dealCommitted(secret.commitment))) }
        }
        apply(.deal(seed: deal.seed), now: now, &out)
    }

    /// The round is over (or the match ends in it): everyone may now check its deal.
    mutating func revealDeal(now: Duration, _ out: inout [HostAction]) {
        guard let secret = table.takeDealSecret() else { return }
        record(.revealed(secret), now: now, &out)
        for id in seating.audience { out.append(.send(id, .dealRevealed(secret))) }
    }

    /// Applies a command: logs it, sends what it caused, and lets every part schedule what follows.
    mutating func apply(_ command: Command, now: Duration, _ out: inout [HostAction]) {
        switch table.apply(command) {
        case nil:
            return
        case .refused(let error):
            // Out of turn, no cards, a race with the last move: honest players do this; nothing changes.
            out.append(.log("refused \(command): \(error)"))
        case .applied(let events, let violation):
            record(.applied(command, events), now: now, &out)
            if let violation { out.append(.log("card conservation FAILED \(violation)")) }
            broadcast(events, now: now, &out)
        }
    }

    /// The seen events to the seated players and the watchers; then the judge and the table
    /// observe each. A won round's deal is revealed, and the match may end with it.
    private mutating func broadcast(_ events: [Event], now: Duration, _ out: inout [HostAction]) {
        let seen = events.map { $0.seen }  // NB: a closure; `map(\.seen)` went through a key path, per event
        for id in seating.seatedAudience { out.append(.send(id, .events(seen))) }
        for event in events {
            judge.observe(event, at: now)
            guard let end = table.observe(event, now: now) else { continue }
            out.append(.roundWon(round: end.round, winner: seating.name(at: end.winner)))
            revealDeal(now: now, &out)
            if end.matchOver, let rounds = configuration.rounds {
                endGame(.gameFinished, "all \(rounds) rounds played", &out)
                return
            }
        }
        table.computersObserve(seen, now: now)
    }

    // MARK: - Judging

    /// A Snap! call from a seat (`roundTrip`: its link's slowest; zero for the host's own).
    mutating func collect(_ call: SnapCall, seat: Seat, roundTrip: Duration, now: Duration, _ out: inout [HostAction]) {
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
        for player in seating.players {
            guard let seat = player.seat, !judge.hasCalled(seat), game?.hand(seat).hasCards == true else { continue }
            rivals.append(liveness.roundTrip(of: player.connection))
        }
        if !judge.keepOpen(forRivals: rivals, now: now) { judgeNow(now: now, &out) }
    }

    /// Applies the waiting calls in the judge's order.
    mutating func judgeNow(now: Duration, _ out: inout [HostAction]) {
        guard let verdicts = judge.verdicts(now: now) else { return }
        out.append(.log(verdicts.log))
        for seat in verdicts.order { apply(.snap(seat), now: now, &out) }
    }

    // MARK: - Timers

    mutating func fireTimers(now: Duration, _ out: inout [HostAction]) {
        var due: [HostTimer] = []
        table.due(at: now, into: &due)
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
        for index in table.seats.indices {
            let seat = table.seats[index].seat
            switch table.computerIntent(at: index, now: now) {
            case .turn: judgeNow(now: now, &out); apply(.turn(seat), now: now, &out)
            case .snap:
                // The host's own computers react with zero latency; their reaction is measured like anyone's.
                collect(judge.computerCall(at: now), seat: seat, roundTrip: .zero, now: now, &out)
            case nil: break
            }
        }
    }

    /// Stops a timer about to fire, in the part that keeps it.
    private mutating func clear(_ timer: HostTimer) {
        switch timer {
        case .judge: judge.stop()
        case .ping: liveness.pingTimerFired()
        case .grace(let seat): liveness.endGrace(for: seat)
        case .activateNext, .finishDeal, .nextRound, .turnTimeout: table.clear(timer)
        }
    }

    // MARK: - The turn timer

    /// The active player let the timer run out: their card is turned for them, and after
    /// a few in a row a computer plays their seat until they act again.
    private mutating func turnForAbsentPlayer(now: Duration, _ out: inout [HostAction]) {
        guard let (seat, missed) = table.missTurn() else { return }
        let name = seating.name(at: seat)
        out.append(.log("\(name) did not turn in time: the host turned for them (\(missed) in a row)"))
        judgeNow(now: now, &out)
        apply(.turn(seat), now: now, &out)
        guard seating.player(at: seat)?.connection != nil, table.standIn(at: seat, now: now) else { return }
        out.append(.announce("seat \(seat.rawValue): \(name) missed \(missed) turns: a computer plays for them"))
        broadcastToSeated(.seatAway(seat, away: true), &out)
    }

    /// The owner of a seat a computer plays for them acted: the seat is theirs again.
    mutating func ownerActs(at seat: Seat, now: Duration, _ out: inout [HostAction]) {
        guard seating.player(at: seat)?.connection != nil, table.ownerTakesBack(seat, now: now) else { return }
        out.append(.announce("seat \(seat.rawValue): \(seating.name(at: seat)) plays again"))
        broadcastToSeated(.seatAway(seat, away: false), &out)
    }

    private func broadcastToSeated(_ message: HostMessage, _ out: inout [HostAction]) {
        for id in seating.seatedAudience { out.append(.send(id, message)) }
    }

    // MARK: - Keepalive

    /// The ping timer: every remote connection is pinged, or cut if it fell silent.
    private mutating func keepAlive(now: Duration, _ out: inout [HostAction]) {
        for check in liveness.checks(now: now, isSignedIn: { seating.connections[$0]?.signedIn == true }) {
            switch check {
            case .cut(let id, let why):
                cut(id, .timedOut, why, now: now, &out)
            case .ping(let id):
                // (A cut before it may have ended the game, and every connection with it.)
                if liveness.knows(id) { out.append(liveness.ping(id, now: now)) }
            }
        }
        if phase != .over { liveness.schedulePings(now: now) }
    }

    // MARK: - Leaving

    mutating func cut(_ id: ConnectionID, _ reason: CloseReason, _ message: String, now: Duration,
                      _ out: inout [HostAction]) {
        guard seating.connections[id] != nil else { return }
        let message = CloseMessage.fitted(message)
        out.append(.log("closing \(id): \(reason): \(message)"))
        out.append(.close(id, reason, message))
        // A connection that fell silent or behind may come back within the grace period;
        // one cut for breaking the protocol leaves at once.
        drop(id, reason: .dropped, keepSeat: reason == .timedOut, now: now, &out)
    }

    /// The connection is gone (or leaving): the player leaves the lobby, or the game.
    mutating func drop(_ id: ConnectionID, reason: LeaveReason, keepSeat: Bool = true, now: Duration,
                       _ out: inout [HostAction]) {
        guard let departure = seating.disconnect(id, phase: phase) else { return }
        liveness.forget(id)
        guard case .player(let player) = departure else {
            if case .watcher = departure { out += seating.watchingBroadcast() }
            return
        }
        out.append(.log("\(player.name) left (\(reason == .quit ? "quit" : "connection dropped"))"))
        switch phase {
        case .lobby:
            out += seating.lobbyBroadcast()
        case .playing:
            guard let seat = player.seat, let game, game.hand(seat).isPresent else { return }
            // A dropped connection keeps the seat for the grace period; a quit leaves at once.
            if reason == .dropped, keepSeat, liveness.grace > .zero, !game.hand(seat).isAbsent {
                table.removeComputer(at: seat)
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
        guard phase == .playing, let player = seating.player(at: seat), player.connection == nil,
              game?.hand(seat).isAbsent == true else { return }
        leaveSeat(seat, reason: .dropped, now: now, &out)
    }

    mutating func leaveSeat(_ seat: Seat, reason: LeaveReason, now: Duration, _ out: inout [HostAction]) {
        liveness.endGrace(for: seat)
        if let player = seating.player(at: seat) { out.append(.announce("seat \(seat.rawValue): \(player.name) left")) }
        for id in seating.audience { out.append(.send(id, .seatLeft(seat, reason))) }
        judgeNow(now: now, &out)
        apply(.leave(seat), now: now, &out)
        if let game, game.presentSeats.count < 2 {
            endGame(.gameFinished, "too few players are left", &out)
        }
    }

    mutating func endGame(_ reason: CloseReason, _ message: String, _ out: inout [HostAction]) {
        guard phase != .over else { return }
        if phase == .playing {
            revealDeal(now: lastNow, &out)
            record(.ended(reason: message), now: lastNow, &out)
        }
        phase = .over
        table.stop()
        judge.stop()
        liveness.stop()
        for id in seating.closeAll() { out.append(.close(id, reason, CloseMessage.fitted(message))) }
        out.append(.gameOver(message))
    }

    // MARK: - The match log

    /// Appends to the match log, the one truth; the journal writes the same record.
    private mutating func record(_ entry: MatchRecord.Entry, now: Duration, _ out: inout [HostAction]) {
        let record = MatchRecord(sequence: UInt64(log.count), timeMicros: UInt64(clamping: max(0, now.microseconds)),
                                 entry: entry)
        log.append(record)
        out.append(.record(record))
    }
}
