import SnapBytes
import SnapEngine
import SnapProtocol

/// What the seating tells: the lobby, the Join list's entry, `gameStarted` and the won
/// counts, and who hears what. Read-only views of `Seating`'s state.
extension Seating {
    // MARK: - The lobby and the game's start

    var lobby: [LobbyPlayer] { players.map { LobbyPlayer(id: $0.id, name: $0.name, ready: $0.ready) } }

    /// Players on a network connection (not the host's own).
    var clientCount: Int {
        players.filter { $0.connection != nil && !(connections[$0.connection!]?.local ?? false) }.count
    }

    /// What the Join list shows of this game: the name, seats taken (counting the host's
    /// bots, seated at the start) and the most, open or started, and whether TCP players
    /// need a code. The LAN announcement says exactly this.
    func publicInfo(phase: HostSession.Phase) -> HostInfo {
        let taken = players.count + (phase == .lobby ? configuration.bots : 0)
        let local = connections.values.contains { $0.local } ? 1 : 0
        let capacity = min(4, configuration.bots + configuration.maxClients + local)
        return HostInfo(hostName: configuration.hostName, players: UInt8(min(taken, capacity)),
                        maxPlayers: UInt8(max(2, capacity)), started: phase != .lobby,
                        needsCode: configuration.joinCode != nil)
    }

    /// The answer to a `query`: before a good hello, a stranger on TCP learns the name and
    /// that a code is needed, nothing more.
    func info(for id: ConnectionID, phase: HostSession.Phase) -> HostInfo {
        guard !joinCodes.isAsked(of: connections[id]?.remote) else {
            return HostInfo(hostName: configuration.hostName, players: 0, maxPlayers: 4, started: false, needsCode: true)
        }
        var info = publicInfo(phase: phase)
        info.needsCode = false
        return info
    }

    /// What `gameStarted` tells a seat (nil: a watcher).
    func gameStart(for seat: Seat?) -> GameStart {
        let seated = players.compactMap { player in player.seat.map { SeatedPlayer(seat: $0, name: player.name) } }
            .sorted { $0.seat < $1.seat }
        return GameStart(yourSeat: seat, players: seated, turnLimit: configuration.rules.turnLimit.map(UInt32.init),
                         turnTimeoutMillis: configuration.turnTimeout.map { UInt32(clamping: max(1, $0.microseconds / 1000)) },
                         graceMillis: UInt32(clamping: configuration.grace.microseconds / 1000))
    }

    /// Every seated player's rounds won in earlier matches, by seat.
    var wonCounts: [SeatWonCount] {
        players.compactMap { player in
            player.seat.map { SeatWonCount(seat: $0, won: UInt32(clamping: earlierWins[player.name] ?? 0)) }
        }.sorted { $0.seat < $1.seat }
    }

    /// Each seat's token (the host's computers have none).
    var tokensBySeat: [Seat: SeatToken] {
        var tokens: [Seat: SeatToken] = [:]
        for player in players { if let seat = player.seat, let token = player.token { tokens[seat] = token } }
        return tokens
    }

    // MARK: - Who hears what

    /// Everyone who hears about the table: connected players and watchers.
    var audience: [ConnectionID] {
        players.compactMap { player in player.connection.flatMap { connections[$0] != nil ? $0 : nil } } + watchers.sorted()
    }

    /// Everyone who hears the game's events: seated players still connected, and watchers.
    var seatedAudience: [ConnectionID] {
        players.compactMap { player in
            guard player.seat != nil, let id = player.connection, connections[id] != nil else { return nil }
            return id
        } + watchers.sorted()
    }

    /// The lobby to every player with a connection and every watcher.
    func lobbyBroadcast() -> [HostAction] {
        let list = lobby
        return (players.compactMap(\.connection) + watchers.sorted()).map { .send($0, .lobby(list)) }
    }

    /// How many watch, to everyone who hears about the table.
    func watchingBroadcast() -> [HostAction] {
        let count = UInt8(clamping: watchers.count)
        return audience.map { .send($0, .watching(count)) }
    }
}
