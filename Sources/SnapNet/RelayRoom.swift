import Logging
import NIOCore
import NIOSSL
import SnapBytes
import SnapPlatform
import SnapRelayClient
import SnapRelayProtocol

/// A host's room at a relay (docs/RELAY.md §4): the control connection it keeps, and a data
/// connection dialled for each id the relay announces (`incoming`): one for a player waiting,
/// or one the relay keeps ahead of the next player, who is then spliced with it at once. Each
/// spliced data connection
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
        _ = try await server.loop.flatSubmit { self.openControl(.register) }.get()
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
            }, onSpliced: { _ in throw RelayRefused(relay: address, code: .malformed) },
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
            openControl(.reregister(room: room)).whenComplete { [self] result in
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
            RelayLineClient(.accept(connection: connection), relay: address, onSpliced: { [self] context in
                unspliced[ObjectIdentifier(context.channel)] = nil
                try TLSTransport.addServer(to: context.channel, context: tls, plainRefusal: HostServer.plainRefusal)
                try context.pipeline.syncOperations.addHandler(FrameConnectionHandler(server: server))
            }, onFailure: { [self] error in
                if !leaving { logger.info("a player through the relay did not arrive: \(error)") }
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
