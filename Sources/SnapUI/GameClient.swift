#if GUI
import SnapBytes
import SnapNet
import SnapPlatform
import SnapProtocol
import SnapRelayProtocol
import SnapSession
import SnapTable

/// One window's game: the link to the host and the mirror of what this seat knows.
/// On the host's window it also owns the `HostServer` (Start, Next Round, End game).
/// Everything here runs on the main thread; the link is the only thing shared. A
/// `GameStarter` makes it (host, single player, join, the same game again).
public final class GameClient {
    public let link: GameLink
    public private(set) var session = ClientSession()
    public let server: HostServer?
    public let name: String
    /// Where this host listens (for the lobby and `snapcards play`).
    public let socketPath: String?
    /// A TCP host's certificate fingerprint (the lobby shows its short form).
    public internal(set) var certificate: CertificateFingerprint?
    /// Single player: everyone else at the table is a computer player.
    public internal(set) var isSolo = false
    /// Where this game's window keeps what outlives it (a rejoin and a rename use the same).
    public let directories: UserDirectories

    /// `signedIn`: the link says its own hello (a network link does, to sign in again after a drop).
    init(link: GameLink, name: String, joinCode: String = "", server: HostServer?, socketPath: String?,
         role: Hello.Role = .player, signedIn: Bool = false, endpoint: Endpoint? = nil,
         directories: UserDirectories = UserDirectories()) {
        self.link = link
        self.directories = directories
        self.name = name
        self.server = server
        self.socketPath = socketPath
        self.role = role
        self.joinCode = joinCode
        self.endpoint = endpoint
        // The window sleeps until input: every message from the host wakes it.
        link.onDelivery = { WindowWake.wake() }
        if !signedIn { link.send(.hello(Hello(name: name, joinCode: joinCode, role: role))) }
        WindowWake.wake()
    }

    /// A watcher never acts: the host would cut it for trying.
    public let role: Hello.Role
    /// Where a joined window's host is, and the code it gave (nil for a host's own window
    /// and single player): enough to join again under another name.
    public let endpoint: Endpoint?
    public let joinCode: String

    public var isHost: Bool { server != nil }

    /// A host on TCP: the addresses players can use (HOST:PORT) and the join code, if any.
    /// Worked out once, when the host starts listening: the lobby draws it every frame, and
    /// asking the host's loop (or the system's interfaces) from the window's thread each
    /// time would make every frame wait on them.
    public internal(set) var network: (addresses: [String], code: String?)?
    /// A host with a room at a relay: the line players paste (docs/RELAY.md §5).
    public internal(set) var invitation: RelayInvitation?

    /// Applies everything the host sent since the last call; returns each message with
    /// the events it carried, in order, for the scene to animate.
    public func poll(now: Double) -> [ReceivedMessage] {
        var result: [ReceivedMessage] = []
        for message in link.drain() {
            // Pings never get here: the link answers them on its loop (the host's own
            // window is never pinged).
            let received = session.receiveForWindow(message, now: .seconds(now))
            // A window that joined is ready at once (a headless host's --start-when waits for it).
            if case .welcome = message, !isHost, role == .player { link.send(.ready) }
            result.append(received)
        }
        if let lost = link.connectionLost { session.connectionLost(lost) }
        return result
    }

    /// Within the host's budgets: a click past them would only get this window cut, so it is dropped.
    private var pacer = MessagePacer()

    public func send(_ message: ClientMessage, now: Double) {
        if role == .watcher, [.ready, .turn, .snap].contains(message.budgetKind) { return }
        if pacer.allow(message, at: .seconds(now)) { link.send(message) }
    }

    /// Snap!, with this player's reaction time measured on this screen: `now` is when the
    /// press happened (the input event's time), the reference when its card was first shown.
    public func snap(now: Double) {
        let message = session.snap(at: .seconds(now))
        if case .snap(let call) = message { lastSnap = call }
        send(message, now: now)
    }

    /// The last Snap! this window sent (tests).
    private(set) var lastSnap: SnapCall?

    /// The window drew and presented round `round`'s reference `turn` (its card, or the
    /// finished deal for 0) at `time` (the app's clock).
    public func referenceShown(round: Int, turn: UInt32, at time: Double) {
        session.referenceShown(round: round, turn: turn, at: .seconds(time))
    }

    public func start() { server?.submit(.start) }
    public func nextRound() { server?.submit(.nextRound) }

    /// Leaves on purpose: a host ends the game for everyone; a client says goodbye.
    public func leave() {
        if let server {
            // It stays among the hosted games until it is over (its journal closed):
            // a window closed meanwhile waits for that.
            server.submit(.quit)
        } else {
            link.send(.leave)
            link.close()
        }
    }

    // MARK: - The same game again

    /// How a host's game was started: enough for the starter to open it again, renamed or
    /// with a room at a relay (`GameStarter.hostAgain`, `GameStarter.invite`).
    public struct Hosting: Sendable {
        let configuration: HostConfiguration
        let placement: HostPlacement
        let startWhen: Int?
        let directories: UserDirectories
        let runtime: HostRuntime
    }

    /// Set on a host's window by the starter; nil for a joined window and single player.
    public internal(set) var hosting: Hosting?
}
#endif
