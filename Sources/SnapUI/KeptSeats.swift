#if GUI
import Glibc
import NIOConcurrencyHelpers
import SnapNet
import SnapPlatform
import SnapProtocol

/// What a window turned away from a started game offers, from the seats this computer
/// keeps tokens for and what the host says of them now: a seat that is away (its window
/// crashed) is taken back; a seat that is playing in another window is only ever moved
/// here when the player says so in as many words; a game with neither is watched.
enum KeptSeatOffer: Equatable {
    /// Seats kept here whose players are away, waiting out their grace: one or more.
    case takeBack([String])
    /// Seats kept here that are playing now, in other windows (none kept here is away).
    case move([String])
    case watch

    /// Names are matched as the host matches them, whatever their case.
    init(kept: [String], table: [SeatAtTable]) {
        let mine = table.filter { seat in kept.contains { $0.lowercased() == seat.name.lowercased() } }
        let away = mine.filter(\.away).map(\.name)
        let playing = mine.filter { !$0.away }.map(\.name)
        if !away.isEmpty {
            self = .takeBack(away)
        } else if !playing.isEmpty {
            self = .move(playing)
        } else {
            self = .watch
        }
    }

    /// The question, and what each answer joins as (the way out joins nothing).
    func dialog(game: String, wayOut: String) -> (Dialog, answers: [(name: String?, role: Hello.Role)]) {
        switch self {
        case .takeBack(let names) where names.count == 1:
            let seat = names[0]
            return (Dialog.confirm("Take back \(seat)'s seat?", "\(game) has started, and \(seat)'s seat in it is kept on this computer.",
                                   yes: "Take it back", no: wayOut),
                    [(seat, .player)])
        case .takeBack(let names):
            return (Dialog.choose("Take back a seat?", "\(game) has started. These seats in it are kept on this computer, and their players are away:",
                                  options: names.map { "\($0)'s seat" }, no: wayOut),
                    names.map { ($0, .player) })
        case .move(let names):
            let who = names.count == 1 ? "\(names[0]) is playing in another window on this computer"
                : "\(names.dropLast().joined(separator: ", ")) and \(names.last!) are playing in other windows on this computer"
            let options = names.map { names.count == 1 ? "Move the seat here" : "Move \($0)'s seat here" } + ["Watch"]
            return (Dialog.choose(names.count == 1 ? "Move \(names[0])'s seat here?" : "Move a seat here?",
                                  "\(who) — move \(names.count == 1 ? "the seat" : "one") here? That window stops playing.",
                                  options: options, no: wayOut),
                    names.map { ($0, .player) } + [(nil, .watcher)])
        case .watch:
            return (Dialog.confirm(TableScene.closeTitle(.gameStarted), "\(game) has started without you. You can watch it.",
                                   yes: "Watch", no: wayOut),
                    [(nil, .watcher)])
        }
    }
}

/// Asks the host who is away; the answer arrives on the network loop, and the scene
/// takes it in `update`. Nil until then.
final class SeatLookup: @unchecked Sendable {  // `outcome` is only touched under `lock`
    private let lock = NIOLock()
    private var outcome: KeptSeatOffer?

    var offer: KeptSeatOffer? { lock.lock(); defer { lock.unlock() }; return outcome }

    /// With no seat kept for this game, the answer is Watch at once, and the host is not asked.
    /// A host that cannot be asked gets no seat taken from it: Watch.
    init(_ endpoint: Endpoint, name: String, joinCode: String, trust: ServerTrust? = nil, directories: UserDirectories) {
        let kept = directories.seatTokens.keptNames(for: endpoint)
        guard !kept.isEmpty else {
            outcome = .watch
            return
        }
        seatsAtTable(endpoint, name: name, joinCode: joinCode, loop: GameClient.group.next(), trust: trust)
            .whenComplete { [self] answer in
                let table = (try? answer.get()) ?? []
                lock.lock()
                outcome = KeptSeatOffer(kept: kept, table: table)
                lock.unlock()
                WindowWake.wake()
            }
    }
}
#endif
