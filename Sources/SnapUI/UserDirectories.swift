#if GUI
import SnapMatchFiles
import SnapNet
import SnapPlatform

/// The folders a window's game uses beyond the game itself: where hosts listen, the
/// settings file, kept seat tokens and match journals. By default those the environment
/// names (XDG_RUNTIME_DIR, XDG_CONFIG_HOME, XDG_STATE_HOME), read when the value is made;
/// tests pass folders of their own, so they never change the process's environment.
public struct UserDirectories: Sendable {
    /// Where a host listens (created if missing) and the Join screen looks; nil: the
    /// environment's (`SocketDirectory.forHost()`, `SocketDirectory.default()`).
    public var sockets: SocketDirectory?
    /// The settings file (`Settings.path`).
    public var settings: String
    public var seatTokens: SeatTokenStore
    public var journals: String

    public init(sockets: SocketDirectory? = nil, settings: String = Settings.path,
                seatTokens: SeatTokenStore = .default(), journals: String = MatchJournal.directory()) {
        (self.sockets, self.settings, self.seatTokens, self.journals) = (sockets, settings, seatTokens, journals)
    }

    /// The directory a host listens in.
    func hostSockets() throws(NetError) -> SocketDirectory {
        guard let sockets else { return try SocketDirectory.forHost() }
        try sockets.prepare()
        return sockets
    }
}
#endif
