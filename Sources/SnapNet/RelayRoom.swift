import Logging
import NIOCore
import NIOSSL
import SnapBytes
import SnapPlatform
import SnapProtocol
import SnapRelayClient
import SnapRelayProtocol
import SnapSession

/// A host's room at a relay (docs/RELAY.md §4): the control connection it keeps, and a data
/// connection dialled for each id the relay announces (`incoming`): one for a player waiting,
/// or one the relay keeps ahead of the next player, who is then spliced with it at once. Each
/// spliced data connection
/// becomes the host server's connection exactly as an accepted TCP one does: the host's
/// TLS (it is the server), then frames (`FrameConnectionHandler`); the host listens on no
/// port for it. Every player comes from the relay's address: the room is asked for with
/// `register-peers` (docs/RELAY.md §3), and the host counts a player's wrong join codes by
/// the tag the relay tells with `spliced` (`relay peer TAG`), so that one who guesses codes
/// is locked out alone. Touched on the server's loop only.
public final class RelayRoom: @unchecked Sendable {  // touched on `server.loop` only
    public let relay: HostPort
    public private(set) var room: RelayID?
    private let server: HostServer
    private let tls: NIOSSLContext
    private let trust: ServerTrust
    private let logger: Logger
    private var control: Channel?
    /// Data connections dialled and not yet spliced (one waits ahead for the next player
    /// for as long as nobody joins): closed with the room.
    private var unspliced: [ObjectIdentifier: Channel] = [:]

    init(server: HostServer, relay: HostPort, tls: NIOSSLContext, trust: ServerTrust, logger: Logger,
         onNote: (@Sendable (String) -> Void)?) {
        (self.server, self.relay, self.tls, self.trust, self.logger, self.onNote) = (server, relay, tls, trust, logger, onNote)
    }

    /// Opens a room at `relay` for `server`'s game, shown to players with `identity`; the
    /// relay's own certificate is checked by `trust` (first use, then remembered).
    public static func open(for server: HostServer, relay: HostPort, identity: TLSIdentity, trust: ServerTrust,
                            logger: Logger, onNote: (@Sendable (String) -> Void)? = nil) async throws -> RelayRoom {
        let room = RelayRoom(server: server, relay: relay, tls: try identity.serverContext(), trust: trust, logger: logger,
                             onNote: onNote)
        try await room.register()
        return room
    }

    private var address: String { formatHostPort(relay.host, relay.port) }

    private func register() async throws {
        _ = try await server.loop.flatSubmit { self.openControl(asking: nil) }.get()
    }

    /// Whether the relay tells each player's tag (version 2; false: a relay of version 1,
    /// every player counted as the relay's address).
    private(set) var tellsPeers = true

    /// Asks for a room (nil: a new one; else the room again), with players' tags
    /// (`register-peers`). A relay of version 1 refuses that line as malformed: it is then
    /// asked in its own words (`register`), and the host says once what that costs.
    private func openControl(asking room: RelayID?) -> EventLoopFuture<RelayID> {
        let loop = server.loop
        return openControl(.registerPeers(room: room)).flatMapError { [self] error in
            guard (error as? RelayRefused)?.code == .malformed else { return loop.makeFailedFuture(error) }
            if tellsPeers {
                tellsPeers = false
                onNote?("the relay \(address) speaks version 1 of the relay protocol: every invitee reaches this game from "
                    + "the relay's address, so one who guesses join codes keeps them all out for a while (docs/RELAY.md §3)")
            }
            return openControl(room.map { .reregister(room: $0) } ?? .register)
        }
    }

    /// Said when the room is lost and when it is back (a line for the host's output).
    private let onNote: (@Sendable (String) -> Void)?
    private var leaving = false

    /// A control connection asking `request`; completes with the room the relay grants.
    /// Once granted, its closing makes the room ask again under the same id, every second
    /// or so, until it is back or the host leaves (players rejoin within their grace).
    private func openControl(_ request: RelayRequest) -> EventLoopFuture<RelayID> {
        let loop = server.loop
        let registered = loop.makePromise(of: RelayID.self)
        let address = self.address
        let dialled = connectLater(to: .tcp(host: relay.host, port: relay.port), on: loop, trust: trust) { [self] in
            RelayLineClient(request, relay: address, onReply: { [self] reply in
                switch reply {
                case .room(let id):
                    room = id
                    registered.succeed(id)
                case .incoming(let connection): accept(connection)
                default: break
                }
            }, onSpliced: { _, _ in throw RelayRefused(relay: address, code: .malformed) },
               onFailure: { error in registered.fail(error) })
        }
        dialled.whenFailure { registered.fail($0) }
        dialled.whenSuccess { [self] channel in
            control = channel
            // Quiet for hours while nobody joins: keepalive notices a relay that vanished.
            do { try KeepAlive().apply(to: channel) } catch { logger.info("no keepalive on the relay connection: \(error)") }
            channel.closeFuture.whenComplete { _ in registered.fail(RelayRefused(relay: address, code: nil, closed: true)) }
            // Only a room that was granted is asked for again when its connection closes.
            registered.futureResult.whenSuccess { [self] _ in
                channel.closeFuture.whenComplete { [self] _ in lost() }
            }
        }
        return registered.futureResult
    }

    /// The control connection closed: the room is asked for again unless the host is leaving.
    /// Its data connections not yet spliced were the lost room's: the room asked for again
    /// gets ids of its own.
    private func lost() {
        closeUnspliced()
        guard !leaving, let room else { return }
        onNote?("the connection to the relay \(address) closed: asking for room \(room) again")
        askAgain(room, pause: .milliseconds(500))
    }

    private func askAgain(_ room: RelayID, pause: TimeAmount) {
        server.loop.scheduleTask(in: pause) { [self] in
            guard !leaving else { return }
            openControl(asking: room).whenComplete { [self] result in
                switch result {
                case .success: onNote?("room \(room) is open again at the relay \(address)")
                case .failure: askAgain(room, pause: min(pause * 2, .seconds(4)))
                }
            }
        }
    }

    /// The relay has a player for us, or will have: a data connection takes the id, and is the
    /// game's once spliced (at once, or when the relay's next player comes).
    private func accept(_ connection: RelayID) {
        let server = self.server, tls = self.tls, logger = self.logger, address = self.address
        connectLater(to: .tcp(host: relay.host, port: relay.port), on: server.loop, trust: trust) {
            RelayLineClient(.accept(connection: connection), relay: address, onSpliced: { [self] context, tag in
                unspliced[ObjectIdentifier(context.channel)] = nil
                try TLSTransport.addServer(to: context.channel, context: tls, plainRefusal: HostServer.plainRefusal)
                // What the host counts this player's wrong join codes by: the relay's tag of its own
                // address, or (a relay of version 1) the relay's address, which every invitee shares.
                let remote = tag.map { "relay peer \($0)" } ?? context.channel.remoteAddress?.ipAddress
                try context.pipeline.syncOperations.addHandler(FrameConnectionHandler(server: RelayedConnection(server, remote: remote)))
            }, onFailure: { [self] error in
                guard !leaving else { return }
                // A line that is not the protocol's (a tag that is not one, say) is the relay's fault,
                // worth the host's output; that connection alone is closed, the others go on.
                if let refused = error as? RelayRefused, refused.line != nil {
                    onNote?("a player through the relay was dropped: \(refused)")
                } else {
                    logger.info("a player through the relay did not arrive: \(error)")
                }
            })
        }.whenComplete { [self] result in
            switch result {
            case .failure(let error):
                logger.info("cannot reach the relay \(address) for a player: \(error)")
            case .success(let channel):
                // Still in its line phase (the line client is there until `spliced`): it may wait
                // for hours, so keepalive watches it as it watches the control connection.
                guard channel.isActive, (try? channel.pipeline.syncOperations.handler(type: RelayLineClient.self)) != nil else { return }
                if leaving || control?.isActive != true { return channel.close(promise: nil) }
                do { try KeepAlive().apply(to: channel) } catch { logger.info("no keepalive on a relay data connection: \(error)") }
                let key = ObjectIdentifier(channel)
                unspliced[key] = channel
                channel.closeFuture.whenComplete { [self] _ in unspliced[key] = nil }
            }
        }
    }

    /// Forgets (and closes) the data connections not yet spliced; spliced ones are the game's.
    private func closeUnspliced() {
        let waiting = unspliced.values
        unspliced = [:]
        for channel in waiting { channel.close(promise: nil) }
    }

    /// Leaves the relay: the room is gone for players who have not joined yet.
    public func close() {
        server.loop.execute {
            self.leaving = true
            self.control?.close(promise: nil)
            self.closeUnspliced()
        }
    }

    /// What a player pastes (docs/RELAY.md §5); nil before the room is registered.
    public func invitation(code: String?, certificate: CertificateFingerprint) -> RelayInvitation? {
        room.map { RelayInvitation(relayHost: relay.host, relayPort: relay.port, room: $0, code: code, certificate: certificate) }
    }
}

/// A player's connection through the relay, as the host server takes it: as any of its
/// connections, but from `remote` (`relay peer TAG`), not from the channel's peer (the relay).
final class RelayedConnection: FrameServer {
    typealias Failure = ProtocolError
    private let server: HostServer
    private let remote: String?

    init(_ server: HostServer, remote: String?) { (self.server, self.remote) = (server, remote) }

    var maxFrameBody: Int { server.maxFrameBody }
    func connected(_ channel: Channel) -> ConnectionID? { server.connected(channel, remote: remote) }
    func decode(_ frame: Frame) throws -> ClientMessage { try server.decode(frame) }
    func received(_ message: ClientMessage, from id: ConnectionID) -> Bool { server.received(message, from: id) }
    func malformed(_ id: ConnectionID, _ reason: String) { server.malformed(id, reason) }
    func disconnected(_ id: ConnectionID) { server.disconnected(id) }
}
