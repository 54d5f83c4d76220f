import SnapProtocol

/// What a window turned away from a started game offers, from the seats this computer
/// keeps tokens for and what the host says of them now: a seat that is away (its window
/// crashed) is taken back; a seat that is playing in another window is only ever moved
/// here when the player says so in as many words; a game with neither is watched.
public enum KeptSeatOffer: Equatable, Sendable {
    /// Seats kept here whose players are away, waiting out their grace: one or more.
    case takeBack([String])
    /// Seats kept here that are playing now, in other windows (none kept here is away).
    case move([String])
    case watch

    /// One seat at the table as its host describes it.
    public struct Seat: Equatable, Sendable {
        public var name: String
        public var away: Bool

        public init(name: String, away: Bool) {
            self.name = name
            self.away = away
        }
    }

    /// Names are matched as the host matches them, whatever their case.
    public init(kept: [String], table: [Seat]) {
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

    /// What each answer to the offer joins as (`name` nil: under the name the player typed).
    public struct Answer: Equatable, Sendable {
        public var name: String?
        public var role: Hello.Role
    }

    /// The question, and what each answer joins as (the way out joins nothing).
    public func question(game: String, wayOut: String) -> (Question, answers: [Answer]) {
        switch self {
        case .takeBack(let names) where names.count == 1:
            let seat = names[0]
            return (.confirm("Take back \(seat)'s seat?", "\(game) has started, and \(seat)'s seat in it is kept on this computer.",
                             yes: "Take it back", no: wayOut),
                    [Answer(name: seat, role: .player)])
        case .takeBack(let names):
            return (.choose("Take back a seat?", "\(game) has started. These seats in it are kept on this computer, and their players are away:",
                            options: names.map { "\($0)'s seat" }, no: wayOut),
                    names.map { Answer(name: $0, role: .player) })
        case .move(let names):
            let who = names.count == 1 ? "\(names[0]) is playing in another window on this computer"
                : "\(names.dropLast().joined(separator: ", ")) and \(names.last!) are playing in other windows on this computer"
            let options = names.map { names.count == 1 ? "Move the seat here" : "Move \($0)'s seat here" } + ["Watch"]
            return (.choose(names.count == 1 ? "Move \(names[0])'s seat here?" : "Move a seat here?",
                            "\(who) — move \(names.count == 1 ? "the seat" : "one") here? That window stops playing.",
                            options: options, no: wayOut),
                    names.map { Answer(name: $0, role: .player) } + [Answer(name: nil, role: .watcher)])
        case .watch:
            // The title is the table's for a game that started (`TableScene.closeTitle(.gameStarted)`).
            return (.confirm("The game has started", "\(game) has started without you. You can watch it.", yes: "Watch", no: wayOut),
                    [Answer(name: nil, role: .watcher)])
        }
    }
}
