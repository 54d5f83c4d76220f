import SnapEngine
import SnapProtocol
import SnapSession

/// The live game: what one window's session received, turned into the model's timeline.
/// The window only polls the network and hands every batch here.
extension TableModel {
    /// Takes one poll's messages (each with the events it carried, already applied to
    /// `session`, and the table before it), in order.
    package func receive(_ batches: [ReceivedMessage], session: ClientSession, now: Double) {
        for batch in batches {
            switch batch.message {
            case .gameStarted(let start):
                // A watcher sees the table from the first seat.
                self.start(seats: start.players.map(\.seat), mySeat: start.yourSeat ?? start.players[0].seat,
                           names: session.names)
            case .events(let events):
                if started, let before = batch.tableBefore { schedule(events, from: before, now: now) }
            case .snapshot:
                // Rejoined, or watching from mid-game: the table as it stands, no animation.
                if let table = session.table {
                    adopt(table, mySeat: session.seat ?? table.seats[0], names: session.names, now: now)
                }
            case .seatLeft(let seat, let reason):
                if started, reason == .dropped { announce("\(name(seat)) lost the connection", now: now) }
            case .seatAway(let seat, let away):
                // My own seat says it in the status line instead ("Ann (you)" stays).
                if seat != session.seat { names[seat] = session.displayName(seat) }
                let name = session.names[seat] ?? self.name(seat)
                if started {
                    announce(away ? "\(name) is away: the computer plays for them" : "\(name) is back", now: now)
                }
            default:
                break
            }
        }
        // The scene before this one already drained the game's start (and perhaps the deal).
        if !started, let table = session.table, let seat = session.seat {
            adopt(table, mySeat: seat, names: session.names, now: now)
        }
        showReconnecting(session, now: now)
        trackMyTurn(session, now: now)
    }

    /// "Ann — reconnecting… 24 s" under a seat whose connection dropped, counted down.
    private func showReconnecting(_ session: ClientSession, now: Double) {
        guard let table = session.table else { return }
        for seat in table.seats where seat != session.seat {
            let base = session.displayName(seat)
            if let seconds = session.reconnectCountdown(seat, now: .seconds(now)) {
                names[seat] = Self.reconnectingName(base, seconds: seconds)
            } else if names[seat] != base, names[seat]?.contains("reconnecting") == true {
                names[seat] = base
            }
        }
    }

    /// "Ann — reconnecting… 24 s": a dropped seat's name with the seconds its seat still waits.
    static func reconnectingName(_ name: String, seconds: Int) -> String { "\(name) — reconnecting… \(seconds) s" }

    /// My click on my pile was sent: the first half of the flip starts now, before the host answers.
    package func requestTurn(now: Double) {
        turnRequestedAt = now
        beginLocalFlip(now: now)
    }

    /// The game stopped under a pending turn: put my card back.
    package func dropTurnRequest() {
        turnRequestedAt = nil
        cancelLocalFlip()
    }

    /// Ends a pending turn request when the host answers (or never does, within 2 s).
    private func trackMyTurn(_ session: ClientSession, now: Double) {
        guard let at = turnRequestedAt else { return }
        guard let table = session.table, let seat = session.seat else {
            turnRequestedAt = nil
            return
        }
        let playing: Bool
        if case .playing = session.phase, table.phase == .playing { playing = true } else { playing = false }
        if table.hasTurned && table.active == seat {
            turnRequestedAt = nil
        } else if table.active != seat || now - at > 2 || !playing {
            dropTurnRequest()
        }
    }
}
