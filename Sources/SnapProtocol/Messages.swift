import SnapBytes
import SnapEngine

/// The protocol version this build speaks. A client offers a range in its hello; the
/// host picks the highest version both know, or closes with `.versionUnsupported`.
public enum ProtocolVersion {
    /// 2 added the turn timeout to `gameStarted` and the `seatAway` message; 3 added the
    /// join code (`hello.joinCode`, `info.needsCode`, close reason `wrongCode`) and seats that
    /// outlive connections (tokens, rejoining, watching, snapshots, close reason `badToken`).
    public static let current: UInt16 = 3
    public static let supported: ClosedRange<UInt16> = 3...3
}

// MARK: - Client → host: intents only. The host knows the sender from the connection.

public enum ClientMessage: Hashable, Sendable {
    /// The first message on a connection: sign in.
    case hello(Hello)
    /// In the lobby: this player is ready to start.
    case ready
    /// Turn the top card of my closed pile.
    case turn
    /// Snap!, with this client's own measure of how long after the card showed it was pressed.
    case snap(SnapCall)
    /// I quit on purpose.
    case leave
    /// The answer to a ping, echoing its nonce.
    case pong(nonce: UInt64)
    /// Instead of a hello: what game is this? The host answers `info` and closes.
    /// Used by discovery (`snapcards list`) to probe a socket without joining.
    case query
}

public struct Hello: Hashable, Sendable {
    public var versions: ClosedRange<UInt16>
    public var name: String
    // Since version 3: the join code, the role and the token.
    /// The host's join code as the player typed it, or "" for none (0–16 bytes on the
    /// wire). Only a TCP host that shows a code checks it; see `JoinCode`.
    public var joinCode: String
    public var role: Role
    /// The token a `welcome` gave this player, to take their seat back; nil to sign in fresh.
    public var token: SeatToken?

    public enum Role: UInt8, Hashable, Sendable {
        case player = 0
        /// Watches the table: sees what every player sees of it, never acts.
        case watcher = 1
    }

    public init(versions: ClosedRange<UInt16> = ProtocolVersion.supported, name: String, joinCode: String = "",
                role: Role = .player, token: SeatToken? = nil) {
        self.versions = versions
        self.name = name
        self.joinCode = joinCode
        self.role = role
        self.token = token
    }
}

public struct SnapCall: Hashable, Sendable {
    /// How many cards this client had seen turned this round when the player pressed
    /// (0 before the first turn): which card the reaction is measured from.
    public var seenTurns: UInt32
    /// Microseconds from that card showing on this client's screen to the press (monotonic clock).
    public var reactionMicros: UInt32

    public init(seenTurns: UInt32, reactionMicros: UInt32) {
        self.seenTurns = seenTurns
        self.reactionMicros = reactionMicros
    }
}

// MARK: - Host → client: what happened, already projected for the receiving seat.

public enum HostMessage: Hashable, Sendable {
    case welcome(Welcome)
    /// Everyone signed in so far, in joining order (the host's own player first).
    case lobby([LobbyPlayer])
    case gameStarted(GameStart)
    /// Everything one command caused, in order; face-down cards are `nil`.
    case events([SeatEvent])
    case ping(nonce: UInt64)
    /// A player left; their cards follow as `handedOut` events (now or after a grace period).
    case seatLeft(Seat, LeaveReason)
    /// A computer plays this seat for its owner, who missed turns (`away`), or the owner
    /// is back (`!away`).
    case seatAway(Seat, away: Bool)
    /// How many are watching the table (sent to everyone whenever it changes).
    case watching(UInt8)
    /// The table as it stands, for a player who rejoined or a watcher who came in
    /// mid-game; the events after it follow as usual.
    case snapshot(TableSnapshot)
    /// The host is closing this connection, and says why. Nothing follows.
    case closing(CloseReason, message: String)
    /// The answer to a `query`; the host closes the connection after it.
    case info(HostInfo)
    /// Before a round's deal: the host's commitment to the seed it will deal from.
    case dealCommitted(DealCommitment)
    /// After the round (won, or cut short when the match ends): the seed and salt the
    /// commitment hid, so every client can check the deal it saw.
    case dealRevealed(DealReveal)
    /// Rounds each seated player won in this host's earlier matches (its journals), by
    /// seat: sent right after `gameStarted`. The table adds this match's wins as they come.
    case wonCounts([SeatWonCount])
}

public struct SeatWonCount: Hashable, Sendable {
    public var seat: Seat
    public var won: UInt32

    public init(seat: Seat, won: UInt32) {
        self.seat = seat
        self.won = won
    }
}

/// SHA-256 of a round's `DealReveal.committedBytes`, sent before the deal. It tells
/// nothing about the seed, and the host cannot find another seed with the same digest.
public struct DealCommitment: Hashable, Sendable {
    public static let digestLength = 32
    public var round: UInt32
    public var digest: [UInt8]

    public init(round: UInt32, digest: [UInt8]) {
        precondition(digest.count == Self.digestLength, "a commitment of \(digest.count) bytes")
        self.round = round
        self.digest = digest
    }
}

/// What a `DealCommitment` committed to: the round's deal seed (the `deal` command's)
/// and a random salt, so the digest cannot be matched against guessed seeds.
public struct DealReveal: Hashable, Sendable {
    public static let saltLength = 16
    public var round: UInt32
    public var seed: UInt64
    public var salt: [UInt8]

    public init(round: UInt32, seed: UInt64, salt: [UInt8]) {
        precondition(salt.count == Self.saltLength, "a salt of \(salt.count) bytes")
        self.round = round
        self.seed = seed
        self.salt = salt
    }

    /// What is hashed: the seed (8 bytes, big-endian), then the salt.
    public var committedBytes: [UInt8] {
        var writer = ByteWriter(capacity: 8 + Self.saltLength)
        writer.u64(seed)
        writer.bytes(salt)
        return writer.bytes
    }
}

public struct HostInfo: Hashable, Sendable {
    public var hostName: String
    /// Seats taken (players signed in, the host's own player and its computer players
    /// included), and the most the table takes.
    public var players: UInt8
    public var maxPlayers: UInt8
    /// False while the lobby is open; true once the game has started.
    public var started: Bool
    // Since version 3 (the join code); later versions append their fields after this one.
    /// A `hello` must carry the host's join code. When true and asked over TCP, the host
    /// withholds the lobby: `players` 0, `maxPlayers` 4, `started` false.
    public var needsCode: Bool

    public init(hostName: String, players: UInt8, maxPlayers: UInt8, started: Bool, needsCode: Bool = false) {
        self.hostName = hostName
        self.players = players
        self.maxPlayers = maxPlayers
        self.started = started
        self.needsCode = needsCode
    }
}

public struct Welcome: Hashable, Sendable {
    public var version: UInt16
    public var hostName: String
    /// This connection's player number in the lobby (the host's own player is 0; 255 for a watcher).
    public var playerID: UInt8
    /// Keep it secret: it takes this seat back after a dropped connection. Nil for a watcher.
    public var token: SeatToken?

    public init(version: UInt16, hostName: String, playerID: UInt8, token: SeatToken? = nil) {
        self.version = version
        self.hostName = hostName
        self.playerID = playerID
        self.token = token
    }
}

/// The table at one moment, as every player may see it (no face-down card), plus how
/// many cards have been turned this round (what a Snap! call counts from).
public struct TableSnapshot: Hashable, Sendable {
    public var table: TableView
    public var turnsThisRound: UInt32
    /// Seats a computer plays for an owner who missed turns.
    public var computerPlays: [Seat]

    public init(table: TableView, turnsThisRound: UInt32, computerPlays: [Seat] = []) {
        self.table = table
        self.turnsThisRound = turnsThisRound
        self.computerPlays = computerPlays
    }
}

public struct LobbyPlayer: Hashable, Sendable {
    public var id: UInt8
    public var name: String
    public var ready: Bool

    public init(id: UInt8, name: String, ready: Bool) {
        self.id = id
        self.name = name
        self.ready = ready
    }
}

public struct GameStart: Hashable, Sendable {
    /// Where the receiver sits; nil for a watcher.
    public var yourSeat: Seat?
    /// Every seated player, clockwise from the bottom.
    public var players: [SeatedPlayer]
    /// `Rules.turnLimit`, or nil for the original rule.
    public var turnLimit: UInt32?
    /// How long a player may take to turn before the host turns for them, or nil for never.
    public var turnTimeoutMillis: UInt32?
    /// How long a seat whose connection dropped waits for its player (0: it leaves at once).
    public var graceMillis: UInt32

    public init(yourSeat: Seat?, players: [SeatedPlayer], turnLimit: UInt32?, turnTimeoutMillis: UInt32? = nil,
                graceMillis: UInt32 = 0) {
        self.yourSeat = yourSeat
        self.players = players
        self.turnLimit = turnLimit
        self.turnTimeoutMillis = turnTimeoutMillis
        self.graceMillis = graceMillis
    }
}

public struct SeatedPlayer: Hashable, Sendable {
    public var seat: Seat
    public var name: String

    public init(seat: Seat, name: String) {
        self.seat = seat
        self.name = name
    }
}

public enum LeaveReason: UInt8, Hashable, Sendable {
    /// The player chose to leave.
    case quit = 1
    /// The connection dropped (closed, or silent past the keepalive bound).
    case dropped = 2
}

public enum CloseReason: UInt8, Hashable, Sendable, CaseIterable {
    case full = 1
    case gameStarted = 2
    case badName = 3
    case nameTaken = 4
    case versionUnsupported = 5
    case protocolViolation = 6
    case hostQuit = 7
    case gameFinished = 8
    case timedOut = 9
    /// Since version 3: the hello's join code is missing or wrong (or this address gave
    /// too many wrong ones lately).
    case wrongCode = 10
    /// A `hello` whose token holds no seat here (wrong, or its grace period is over).
    case badToken = 11
}
