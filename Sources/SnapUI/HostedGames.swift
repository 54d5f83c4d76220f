#if GUI
import ServiceLifecycle
import SnapNet
import Synchronization

/// The games this process hosts (a window's Host Game, `snapcards host` and `play`, single
/// player), each kept until it is over, so that closing the window ends them: the players hear
/// "host quit", the socket files go, the journals close. One per process, made by the command
/// that opens the window and held by its `GameStarter`; a swift-service-lifecycle `Service` in
/// that process's `ServiceGroup`, so a graceful shutdown (SIGINT, SIGTERM) or its task's
/// cancellation ends them too. Behind a lock: a game is started and ends on other threads.
public final class HostedGames: Service, Sendable {
    private let servers = Mutex<[HostServer]>([])

    public init() {}

    /// The games hosted now, oldest first (tests).
    public var games: [HostServer] { servers.withLock { $0 } }

    /// Among the hosted games until it is over.
    func keep(_ server: HostServer) {
        servers.withLock { $0.append(server) }
        // Held strongly until the game is over (the owner lives as long as its process): a weak
        // capture here made the release build warn, once inlined, that it is always nil.
        server.finished.whenComplete { [self] _ in servers.withLock { $0.removeAll { $0 === server } } }
    }

    /// Ends every game this process hosts: the players hear "host quit", the socket files go.
    /// Returns once each has ended (its last words are out, its journal closed).
    public func endAll() async {
        let ending = servers.withLock { servers in
            defer { servers = [] }
            return servers
        }
        for server in ending {
            server.submit(.quit)
            _ = try? await server.finished.get()
        }
    }

    /// Waits for the process's shutdown (or this task's cancellation), then ends the games.
    public func run() async throws {
        try? await gracefulShutdown()
        await endAll()
    }
}
#endif
