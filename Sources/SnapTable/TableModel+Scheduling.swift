import SnapEngine
import SnapProtocol

/// Scheduling: one batch of seen events (everything one host command caused) turned into
/// the timeline's flights and cues, from the table as it was before them.
extension TableModel {
    // MARK: - Scheduling

    private func cue(_ time: Double, _ changes: VisualChange...) {
        for change in changes { cues.append((time, change)) }
    }

    func status(_ text: String, _ tone: TableVisual.Tone = .normal) -> VisualChange { .status(text, tone) }

    /// "You win!" on the winner's own screen, "Lucy wins" on the others'; when the turn
    /// limit decided it, the line says so for as long as it stays up.
    package func winLine(_ seat: Seat, byTurnLimit: Bool = false) -> String {
        if byTurnLimit {
            return (seat == me ? "You win" : "\(name(seat)) wins") + ": the most cards at the turn limit"
        }
        return seat == me ? "You win!" : "\(name(seat)) wins"
    }

    func turnStatus(_ seat: Seat) -> VisualChange {
        seat == me ? status("Your turn — click your pile", .mine) : status("\(name(seat))'s turn")
    }

    /// Queues the animations for one batch of events (everything one host command caused),
    /// starting from `table` as it was before them (the session's, or the replay's).
    package func schedule(_ events: [SeatEvent], from table: TableView, now: Double) {
        guard started else { return }
        var table = table
        if cursor - now > Self.maxBacklog { fastForward(now: now) }
        cursor = max(cursor, now)
        // Behind the host (a fast game): play new steps at double speed; no animations: at once.
        let pace = !animated ? 0 : cursor - now > 1.0 ? 0.5 : 1.0
        var dealBase = cursor
        var dealIndex = 0
        var collectBase: Double?
        var handOutStatusShown = false
        // A status other than whose turn it is was shown since the last activation.
        var turnStatusStale = false

        for event in events {
            let before = table
            table.apply(event)
            switch event {
            case .roundStarted(let round, _):
                turnsScheduled = 0
                unseenFaces = [:]
                if !clearScheduled, before.seats.contains(where: { before[$0].hasCards }) {
                    scheduleClear(before, at: cursor)
                }
                clearScheduled = false
                cue(cursor, .resetPiles, .round(round), .setDeck(52), .cleared(false), .active(nil),
                    status("Dealing…"))
                dealBase = cursor
                dealIndex = 0

            case .dealt(_, let seat):
                let start = dealBase + Self.dealSpacing * Double(dealIndex) * pace
                flights.append(Flight(kind: .deal, card: nil, faceUpAtStart: false, faceUpAtEnd: false, from: .deck,
                                      to: .closedTop(seat), start: start, duration: Self.dealFlight * pace,
                                      begin: [.addDeck(-1)], land: [.addClosed(seat, 1)], lift: 0))
                dealIndex += 1
                cursor = max(cursor, start + Self.dealFlight * pace)

            case .dealFinished:
                compressDeal(now: now)
                cue(cursor, .dealShown(round: table.round))

            case .activated(let seat):
                cue(cursor, .active(seat), turnStatus(seat))
                turnStatusStale = false

            case .turned(let seat, let card):
                turnsScheduled += 1
                unseenFaces[card] = Reference(round: table.round, turn: turnsScheduled)
                if seat == mySeat, let index = flights.firstIndex(where: { $0.awaitingFace }) {
                    // My own click already started the flip: now it knows the face.
                    flights[index].card = card
                    flights[index].awaitingFace = false
                    flights[index].land = [.pushOpen(seat, card)]
                    let half = flights[index].duration / 2
                    if now > flights[index].start + half { flights[index].start = now - half }
                    cursor = max(cursor, flights[index].end)
                } else {
                    let start = cursor
                    flights.append(Flight(kind: .turn, card: card, faceUpAtStart: false, faceUpAtEnd: true,
                                          from: .closedTop(seat), to: .open(seat), start: start,
                                          duration: Self.turnFlight * pace, begin: [.addClosed(seat, -1), .sound(.flick)],
                                          land: [.pushOpen(seat, card)], lift: 14))
                    cursor = start + Self.turnFlight * pace
                }

            case .recycled(let seat, let count):
                let cards = Array(before[seat].open.reversed())
                guard !cards.isEmpty else { break }
                let spacing = min(0.05, 0.5 / Double(max(1, count))) * pace
                var end = cursor
                for (index, card) in cards.enumerated() {
                    let start = cursor + spacing * Double(index)
                    flights.append(Flight(kind: .move, card: card, faceUpAtStart: true, faceUpAtEnd: false,
                                          from: .open(seat), to: .closedTop(seat), start: start,
                                          duration: Self.turnFlight * pace, begin: [.popOpen(seat, count: 1)],
                                          land: [.addClosed(seat, 1)], lift: 8))
                    end = start + Self.turnFlight * pace
                }
                cursor = end

            case .snapCalled(let seat):
                cue(now, .bubble(seat))

            case .snapCorrect(let caller, _):
                turnStatusStale = true
                // What the call won: the open piles this batch moves under the caller's.
                let won = events.reduce(0) { sum, event in
                    if case .collected(let cards, _, let to) = event, to == caller { sum + cards.count } else { sum }
                }
                let taker = caller == me ? "You take" : "\(name(caller)) takes"
                let line = won > 0 ? "Snap! \(taker) \(won) card\(won == 1 ? "" : "s")" : "Snap! \(taker) the piles"
                cue(now, .splash(caller, correct: true), .sound(.correct), status(line, .good))
                cursor = max(cursor, now + Self.snapBeat * pace)
                collectBase = cursor

            case .collected(let cards, let from, let to):
                let base = collectBase ?? cursor
                let spacing = min(0.04, 0.4 / Double(max(1, cards.count))) * pace
                for (index, card) in cards.reversed().enumerated() {
                    let start = base + spacing * Double(index)
                    flights.append(Flight(kind: .move, card: card, faceUpAtStart: true, faceUpAtEnd: false,
                                          from: .open(from), to: .closedBottom(to), start: start,
                                          duration: Self.moveFlight * pace, begin: [.popOpen(from, count: 1)],
                                          land: [.addClosed(to, 1)], lift: 16))
                    cursor = max(cursor, start + Self.moveFlight * pace)
                }

            case .snapWrong(let caller):
                turnStatusStale = true
                cue(now, .splash(caller, correct: false), .sound(.wrong), status("No match!", .bad))
                cursor = max(cursor, now + Self.snapBeat * 1.6 * pace)
                cue(cursor, caller == me ? status("You must pay", .bad) : status("\(name(caller)) must pay"))

            case .paid(_, let from, let to):
                flights.append(Flight(kind: .move, card: nil, faceUpAtStart: false, faceUpAtEnd: false,
                                      from: .closedTop(from), to: .closedBottom(to), start: cursor,
                                      duration: Self.moveFlight * pace, begin: [.addClosed(from, -1)],
                                      land: [.addClosed(to, 1)], lift: 16))
                cursor += Self.paySpacing * pace

            case .snapTooLate(let caller):
                // The call came after another had already won the match: say so for a moment,
                // on every screen, over whatever the status line says.
                let text = caller == me ? "Too late!" : "\(name(caller)) was too late"
                cue(now, .bubble(caller), .notice(TableVisual.Notice(text: text, tone: caller == me ? .bad : .normal,
                                                                      until: now + Self.noticeDuration)))

            case .playerOut:
                break

            case .playerLeft(let seat):
                turnStatusStale = true
                cue(cursor, .present(seat, false), status("\(name(seat)) left the table"))
                if before.active == seat { cue(cursor, .active(nil)) }

            case .handedOut(let card, let from, let pile, let to):
                turnStatusStale = true
                if !handOutStatusShown {
                    handOutStatusShown = true
                    let me = self.me
                    let toMe = events.contains { if case .handedOut(_, _, _, let to) = $0 { return to == me } else { return false } }
                    cue(cursor, toMe ? status("You receive cards", .good) : status("\(name(from))'s cards are handed out"))
                }
                let count = before[from].cardCount
                let spacing = min(0.15, 3.0 / Double(max(1, count))) * pace
                flights.append(Flight(kind: .move, card: card, faceUpAtStart: pile == .open, faceUpAtEnd: false,
                                      from: pile == .closed ? .closedTop(from) : .open(from), to: .closedBottom(to),
                                      start: cursor, duration: Self.moveFlight * pace,
                                      begin: [pile == .closed ? .addClosed(from, -1) : .popOpen(from, count: 1)],
                                      land: [.addClosed(to, 1)], lift: 16))
                cursor += spacing

            case .turnLimitReached:
                // The round ends on the turn limit: the winner (named by the `roundWon` that
                // follows in this batch) holds the most cards.
                let holder = events.lazy.compactMap { event -> Seat? in
                    if case .roundWon(let seat, _) = event { return seat } else { return nil }
                }.first
                let who = holder.map { $0 == me ? "you hold" : "\(name($0)) holds" }
                cue(cursor, status("Turn limit reached" + (who.map { ": \($0) the most cards" } ?? ""), .good))
                turnLimitEnded = true

            case .absent(let seat):
                turnStatusStale = true
                cue(cursor, status(seat == me ? "You are reconnecting…" : "\(name(seat)) is reconnecting…"))
                if before.active == seat, !before.hasTurned { cue(cursor, .active(nil)) }

            case .waiting:
                cue(cursor, .active(nil), status("Waiting for a player to reconnect…"))

            case .returned(let seat):
                turnStatusStale = true
                cue(cursor, status(seat == me ? "You are back" : "\(name(seat)) is back", .good))

            case .roundWon(let seat, let wins):
                // Every remaining flight ends this round's last move: settle, then name the winner.
                cursor = max(cursor, flights.map(\.end).max() ?? cursor)
                let winner = status(winLine(seat, byTurnLimit: turnLimitEnded), .good)
                if turnLimitEnded {
                    // Let "Turn limit reached: …" be read before the winner's line.
                    turnLimitEnded = false
                    cursor += 1.6
                } else {
                    cue(now, winner)
                }
                cue(cursor, .wins(seat, wins), .active(nil), winner, .celebrate(seat), .sound(.win))
                scheduleClear(table, at: cursor + Self.winPause)
                clearScheduled = true
            }
        }
        // Cards moved while someone was still to turn (a snap, a leaver): once they land,
        // say again whose turn it is.
        if turnStatusStale, table.phase == .playing, let active = table.active, !table.hasTurned {
            cue(cursor, .active(active), turnStatus(active))
        }
    }

    /// A line for the status, in turn with what is already queued.
    package func announce(_ text: String, now: Double) {
        cursor = max(cursor, now)
        cue(cursor, status(text))
    }

    /// The round is over: every seat's piles slide off the table's edge together, fading.
    private func scheduleClear(_ table: TableView, at time: Double) {
        let spacing = 0.012, duration = 0.55
        var end = time
        for seat in table.seats {
            var index = 0
            var closed = table[seat].closedCount
            // A thick pile leaves in a few chunks rather than card by card.
            let chunks = min(closed, 6)
            for chunk in 0..<chunks {
                let size = closed / (chunks - chunk)
                closed -= size
                flights.append(Flight(kind: .clear, card: nil, faceUpAtStart: false, faceUpAtEnd: false,
                                      from: .closedTop(seat), to: .away(seat), start: time + spacing * Double(index),
                                      duration: duration, begin: [.addClosed(seat, -size)], land: [], fades: true, lift: 0))
                index += 1
            }
            var open = table[seat].open
            while !open.isEmpty {
                let size = open.count > 6 ? open.count - 5 : 1
                let card = open[open.count - 1]
                open.removeLast(size)
                flights.append(Flight(kind: .clear, card: card, faceUpAtStart: true, faceUpAtEnd: true,
                                      from: .open(seat), to: .away(seat), start: time + spacing * Double(index),
                                      duration: duration, begin: [.popOpen(seat, count: size)], land: [], fades: true,
                                      lift: 0))
                index += 1
            }
            end = max(end, time + spacing * Double(max(0, index - 1)) + duration)
        }
        cue(end, .cleared(true))
        cursor = max(cursor, end)
    }

    /// The host finished dealing before the deal animation did (a faster game): play the
    /// rest of the deal quickly so nobody waits on it.
    private func compressDeal(now: Double) {
        let pending = flights.indices.filter { flights[$0].kind == .deal }
        guard let last = pending.map({ flights[$0].end }).max(), last - now > 0.35 else { return }
        let k = 0.3 / (last - now)
        for index in pending where !flights[index].began {
            flights[index].start = now + max(0, flights[index].start - now) * k
            flights[index].duration = max(0.08, flights[index].duration * k)
        }
        cursor = max(now, flights.map(\.end).max() ?? now)
    }
}
