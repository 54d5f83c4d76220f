import SnapProtocol

/// One connection (or in-process link) to the host, numbered by the host.
public struct ConnectionID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// 64 bits: a host accepting a million connections a second would take 584,000 years to run out.
    public let raw: UInt64
    public init(_ raw: UInt64) { self.raw = raw }
    public static func < (a: ConnectionID, b: ConnectionID) -> Bool { a.raw < b.raw }
    public var description: String { "#\(raw)" }
}

/// What happens to a host, as one value.
public enum HostInput: Sendable {
    /// A new connection: `local` for the host's own in-process player; `remote` is the
    /// peer's IP address for a TCP connection (nil for a Unix socket), which must then
    /// give the join code if the host has one.
    case connected(ConnectionID, local: Bool, remote: String? = nil)
    case message(ConnectionID, ClientMessage)
    /// The bytes from this connection could not be decoded: it is cut.
    case malformed(ConnectionID, String)
    case disconnected(ConnectionID)
    /// The connection cannot keep up with what the host sends it: it is cut.
    case tooSlow(ConnectionID, String)
    /// The host's own player (or the headless host) starts the game.
    case start
    /// The host's Next Round button.
    case nextRound
    /// The host ends the game on purpose.
    case quit
    /// Time passed; due timers fire.
    case tick
}

/// What the host must do, in order.
public enum HostAction: Hashable, Sendable {
    case send(ConnectionID, HostMessage)
    /// Send `closing(reason, message)`, then close.
    case close(ConnectionID, CloseReason, String)
    /// Close once what was sent has gone out (after answering a `query`).
    case hangUp(ConnectionID)
    case log(String)
    case roundWon(round: Int, winner: String)
    /// The game is over (all rounds played, too few players, or the host quit).
    case gameOver(String)
    /// A line for the headless host's standard output (a seat taken over or given back).
    case announce(String)
    /// The match log grew by this record: the journal writes it.
    case record(MatchRecord)
}
