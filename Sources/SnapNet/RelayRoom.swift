import Logging
import NIOCore
import NIOSSL
import SnapBytes
import SnapPlatform
import SnapRelayProtocol

/// A host's room at a relay (docs/RELAY.md §4): the control connection it keeps, and a data
/// connection dialled for each player the relay announces. Each spliced data connection
/// becomes the host server's connection exactly as an accepted TCP one does: the host's
/// TLS (it is the server), then frames (`FrameConnectionHandler`); the host listens on no
/// port for it. Touched on the server's loop only.
public final class RelayRoom: @unchecked Sendable {  // touched on `server.loop` only
    public let relay: HostPort
    public private(set) var room: RelayID?
    private let server: HostServer
    private let tls: NIOSSLContext
    private let trust: ServerTrust
    private let logger: Logger
    private var control: Channel?

    init(server: HostServer, relay: HostPort, tls: NIOSSLContext, trust: ServerTrust, logger: Logger) {
        (self.server, self.relay, self.tls, self.trust, self.logger) = (server, relay, tls, trust, logger)
    }

    /// Opens a room at `relay` for `server`'s game, shown to players with `identity`; the
    /// relay's own certificate is checked by `trust` (first use, then remembered).
    public static func open(for server: HostServer, relay: HostPort, identity: TLSIdentity, trust: ServerTrust,
                            logger: Logger) async throws -> RelayRoom {
        let room = RelayRoom(server: server, relay: relay, tls: try identity.serverContext(), trust: trust, logger: logger)
        try await room.register()
        return room
    }

    private var address: String { formatHostPort(relay.host, relay.port) }

    private func register() async throws {
        let loop = server.loop
        let registered = loop.makePromise(of: RelayID.self)
        let channel = try await connectLater(to: .tcp(host: relay.host, port: relay.port), on: loop, trust: trust) { [self] in
            RelayLineClient(.register, relay: address, onReply: { [self] reply in
                switch reply {
                case .room(let id):
                    room = id
                    registered.succeed(id)
                case .incoming(let connection): accept(connection)
                default: break
                }
            }, onSpliced: { _ in throw RelayRefused(relay: self.address, code: .malformed) },
               onFailure: { error in registered.fail(error) })
        }.get()
        control = channel
        // A control connection that goes leaves the room: the game goes on for those seated.
        channel.closeFuture.whenComplete { [self, logger] _ in
            registered.fail(RelayRefused(relay: address, code: nil, closed: true))
            if room != nil { logger.warning("the connection to the relay \(address) closed: no more players can join by invitation") }
        }
        _ = try await registered.futureResult.get()
    }

    /// The relay has a player for us: a data connection takes it, and is the game's once spliced.
    private func accept(_ connection: RelayID) {
        let server = self.server, tls = self.tls, logger = self.logger, address = self.address
        connectLater(to: .tcp(host: relay.host, port: relay.port), on: server.loop, trust: trust) {
            RelayLineClient(.accept(connection: connection), relay: address, onSpliced: { context in
                try TLSTransport.addServer(to: context.channel, context: tls, plainRefusal: HostServer.plainRefusal)
                try context.pipeline.syncOperations.addHandler(FrameConnectionHandler(server: server))
            }, onFailure: { error in logger.info("a player through the relay did not arrive: \(error)") })
        }.whenFailure { error in logger.info("cannot reach the relay \(address) for a player: \(error)") }
    }

    /// Leaves the relay: the room is gone for players who have not joined yet.
    public func close() {
        server.loop.execute { self.control?.close(promise: nil) }
    }

    /// What a player pastes (docs/RELAY.md §5); nil before the room is registered.
    public func invitation(code: String?, certificate: CertificateFingerprint) -> RelayInvitation? {
        room.map { RelayInvitation(relayHost: relay.host, relayPort: relay.port, room: $0, code: code, certificate: certificate) }
    }
}
