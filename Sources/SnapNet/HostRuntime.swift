import SnapBytes
import SnapMatchFiles
import SnapPlatform
import NIOConcurrencyHelpers
import ServiceLifecycle
import SnapRelayProtocol

/// Where and how a host runs its game, beside the game's own configuration.
public struct HostPlacement: Sendable {
    /// The Unix socket.
    public enum Socket: Sendable {
        /// This path, as given.
        case path(String)
        /// `NAME.sock` (the host's name) in this directory, prepared first; nil: the
        /// environment's (`SocketDirectory.forHost()`).
        case named(in: SocketDirectory?)
    }

    public var socket: Socket
    /// Also on TCP, every connection in TLS, with the configuration's join code.
    public var listen: HostPort?
    /// The certificate TCP players see: by default the one made here on first use.
    public var identity: @Sendable () throws -> TLSIdentity
    /// Announce a TCP game on the local network.
    public var announce: Bool
    /// Where a new match is journaled (nil: it is not).
    public var journalDirectory: String?
    /// Also through this relay (docs/RELAY.md): a room there, and an invitation for players;
    /// no port is listened on for it.
    public var relay: HostPort?
    /// TCP without TLS: the baseline `snap-bench` measures TLS against, never a player's.
    package var plainTCP = false

    public init(socket: Socket = .named(in: nil), listen: HostPort? = nil,
                identity: @escaping @Sendable () throws -> TLSIdentity = { try TLSIdentity.selfMade() },
                announce: Bool = true, journalDirectory: String? = MatchJournal.directory()) {
        (self.socket, self.listen, self.identity, self.announce, self.journalDirectory) =
            (socket, listen, identity, announce, journalDirectory)
    }
}

/// What a starting host tells whoever started it, in order (`snapcards host --headless`
/// prints each as a line; a window keeps them for its lobby).
public enum HostReport: Sendable {
    /// Listening, e.g. `unix:PATH` or `tcp:HOST:PORT`.
    case listening(Endpoint)
    /// Where players on other machines connect (HOST:PORT each), once TCP is bound.
    case reachable([String])
    /// This match's journal file.
    case journal(String)
    /// The invitation to the room at the relay (`snap://…`), once it is open.
    case invite(String)
    /// What happens to the room at the relay later (lost, open again).
    case note(String)
    /// Something did not work and the game goes on without it.
    case warning(String)
}

/// What a started host listens on.
public struct HostStarted: Sendable {
    public var socketPath: String
    public var tcp: HostPort?
    /// The addresses players on other machines can use (HOST:PORT).
    public var reachable: [String]
    public var certificate: CertificateFingerprint?
    /// The invitation through the relay, with `HostPlacement.relay`.
    public var invitation: RelayInvitation?
}

/// The one way a host runs: `snapcards host --headless`, a host's window (Host Game,
/// `snapcards host`, `snapcards play`) and `snap-bench host` all start their `HostServer` here. It owns
/// the server's listeners, its TLS identity, its LAN announcement and its journal; the
/// event loop is given to the server. As a `Service` (swift-service-lifecycle) it starts
/// the host and runs until the game ends; a graceful shutdown (SIGINT, SIGTERM) ends
/// the game on purpose, so that every player hears "host quit".
public final class HostRuntime: Service, Sendable {
    public let server: HostServer
    public let placement: HostPlacement
    private let report: @Sendable (HostReport) -> Void
    private let relayRoom = NIOLockedValueBox<RelayRoom?>(nil)

    public init(server: HostServer, placement: HostPlacement, report: @escaping @Sendable (HostReport) -> Void = { _ in }) {
        self.server = server
        self.placement = placement
        self.report = report
    }

    /// Listens on the Unix socket, then on TCP (TLS) and announces it, then starts the
    /// match's journal. A socket or port that cannot be had throws `NetError` and ends
    /// the server; a journal or an announcement that cannot be had is a `.warning`.
    public func start() async throws -> HostStarted {
        do {
            let path: String
            switch placement.socket {
            case .path(let given): path = given
            case .named(let given):
                let directory: SocketDirectory
                if let given {
                    try given.prepare()
                    directory = given
                } else {
                    directory = try SocketDirectory.forHost()
                }
                if let warning = directory.warning { report(.warning(warning)) }
                path = directory.socketPath(forHost: server.hostName)
            }
            try await server.listen(unixPath: path)
            report(.listening(.unix(path)))
            var started = HostStarted(socketPath: path, reachable: [])
            if placement.listen != nil { (started.tcp, started.reachable, started.certificate) = try await openTCP() }
            if let relay = placement.relay { started.invitation = try await openRoom(at: relay) }
            if let directory = placement.journalDirectory {
                // A journal that cannot be written is a warning: the game goes on without it.
                do { report(.journal(try await server.startJournal(in: directory) { [report] in report(.warning($0)) })) } catch {
                    report(.warning("this match is not journaled: \(error)"))
                }
            }
            return started
        } catch {
            server.shutdown(reason: "\(error)")
            throw error
        }
    }

    /// Listens on `placement.listen` and announces it; returns where, and the certificate.
    /// (A lobby renamed before anyone joined lets go of a fixed port, and takes it back here
    /// when the rename fails.)
    @discardableResult
    public func openTCP() async throws -> (HostPort?, [String], CertificateFingerprint?) {
        guard let listen = placement.listen else { return (nil, [], nil) }
        let port: Int
        var certificate: CertificateFingerprint?
        if placement.plainTCP {
            port = try await server.listen(host: listen.host, port: listen.port, tls: nil)
        } else {
            let identity: TLSIdentity
            do { identity = try placement.identity() } catch {
                throw NetError.cannotListen(formatHostPort(listen.host, listen.port), "its TLS certificate: \(error)")
            }
            port = try await server.listen(host: listen.host, port: listen.port, identity: identity)
            certificate = identity.fingerprint
        }
        report(.listening(.tcp(host: listen.host, port: port)))
        let reachable = reachableAddresses(listeningOn: listen.host).map { formatHostPort($0, port) }
        report(.reachable(reachable))
        if placement.announce {
            do { try await server.announceOnLAN(listeningOn: listen.host, port: port) } catch {
                report(.warning("not announced on the local network (\(error)); players can still connect to the address"))
            }
        }
        return (HostPort(host: listen.host, port: port), reachable, certificate)
    }

    /// Registers a room at `relay` and reports its invitation: the relay's certificate is
    /// trusted on first use and remembered, as a host's is.
    private func openRoom(at relay: HostPort) async throws -> RelayInvitation {
        let address = formatHostPort(relay.host, relay.port)
        let identity: TLSIdentity
        do { identity = try placement.identity() } catch {
            throw NetError.cannotConnect("relay " + address, "the host's TLS certificate: \(error)")
        }
        var trust = ServerTrust.standard()
        trust.onFirstUse = { [report] line in report(.note(line)) }
        let room: RelayRoom
        do {
            room = try await RelayRoom.open(for: server, relay: relay, identity: identity, trust: trust, logger: server.logger) {
                [report] line in report(.note(line))
            }
        } catch let error as NetError {
            throw error
        } catch {
            throw NetError.noHost("no room at the relay \(address): \(error)")
        }
        relayRoom.withLockedValue { $0 = room }
        guard let invitation = room.invitation(code: server.joinCode, certificate: identity.fingerprint) else {
            throw NetError.noHost("no room at the relay \(address)")
        }
        report(.invite(invitation.description))
        return invitation
    }

    /// Starts the host and plays until the game ends; on a graceful shutdown the host
    /// quits, and the players are told.
    public func run() async throws {
        _ = try await start()
        try await playUntilOver()
    }

    /// Plays a started host until the game ends; on a graceful shutdown the host quits,
    /// and the players are told.
    public func playUntilOver() async throws {
        defer { relayRoom.withLockedValue { $0?.close() } }
        try await withGracefulShutdownHandler {
            _ = try await server.finished.get()
        } onGracefulShutdown: { [server] in
            server.submit(.quit)
        }
    }
}
