import NIOCore
import SnapPlatform
import SnapRelayProtocol

// The relay's client side on NIO (docs/RELAY.md §3), for a host's room and a player's way
// in: its line phase, its refusals, an invitation's endpoint. SnapPlatform, which connects,
// knows no relay: a relayed `Endpoint` carries a `RelayPassage`, and this is the relay's.

/// The way through Snap!'s relay to a host: `connect ROOM`. The relay may wait its own
/// handshake deadline for the host to accept before it answers.
public struct RelayRoomPassage: RelayPassage {
    public var room: RelayID

    public init(room: RelayID) { self.room = room }

    public var text: String { room.text }
    public var wait: Duration { RelayLimits().handshakeDeadline }

    public func handler(relay: String, failed: @escaping (any Error) -> Void) -> any ChannelHandler {
        RelayLineClient(.connect(room: room), relay: relay, onSpliced: { _, _ in }, onFailure: failed)
    }
}

extension Endpoint {
    /// An invitation's game: the relay's address, the room, and the host's certificate as
    /// the invitation names it (the end-to-end TLS accepts that one only).
    public init(_ invitation: RelayInvitation) {
        self = .relayed(host: invitation.relayHost, port: invitation.relayPort,
                        through: RelayRoomPassage(room: invitation.room), certificate: invitation.certificate)
    }
}

/// A client's line phase at the relay (docs/RELAY.md §3): sends its one line once added
/// (after the relay's TLS handshake), reads the answer, and on `spliced` puts what
/// `onSpliced` adds in its place: from then on the bytes are the other end's, the very
/// first of them included (they may come in the same read as `spliced`). A host's data
/// connection in a room asked for with `register-peers` is told its player's tag with
/// `spliced` (`spliced TAG`); `onSpliced` gets it (nil from a relay of version 1).
package final class RelayLineClient: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer
    package typealias OutboundOut = ByteBuffer

    private let request: RelayRequest
    private let relay: String
    private var lines = RelayLineBuffer()
    private var done = false
    /// Told each line before `spliced`: `room` and `incoming` on a host's control connection.
    private let onReply: (RelayReply) -> Void
    /// Adds the handlers that speak to the other end (after this one); the player's tag, if told.
    private let onSpliced: (ChannelHandlerContext, RelayPeerTag?) throws -> Void
    /// Fails with `RelayRefused` (or the connection closing) before `spliced`.
    private let onFailure: (Error) -> Void

    package init(_ request: RelayRequest, relay: String, onReply: @escaping (RelayReply) -> Void = { _ in },
                 onSpliced: @escaping (ChannelHandlerContext, RelayPeerTag?) throws -> Void, onFailure: @escaping (Error) -> Void) {
        (self.request, self.relay, self.onReply, self.onSpliced, self.onFailure) = (request, relay, onReply, onSpliced, onFailure)
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: RelayLine.encode(request))), promise: nil)
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return context.fireChannelRead(data) }
        lines.append(unwrapInboundIn(data).readableBytesView)
        do {
            while !done, let line = try lines.nextLine() {
                guard let reply = RelayLine.decodeReply(line) else { throw RelayRefused(relay: relay, code: nil, line: line) }
                switch reply {
                case .spliced, .splicedPeer:
                    done = true
                    if case .splicedPeer(let tag) = reply { try onSpliced(context, tag) } else { try onSpliced(context, nil) }
                    let rest = lines.takeRest()
                    if !rest.isEmpty { context.fireChannelRead(wrapInboundOut(context.channel.allocator.buffer(bytes: rest))) }
                    context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
                case .error(let code):
                    throw RelayRefused(relay: relay, code: code)
                case .room, .incoming:
                    onReply(reply)
                }
            }
        } catch {
            fail(context, error)
        }
    }

    package func channelInactive(context: ChannelHandlerContext) {
        if !done { fail(context, RelayRefused(relay: relay, code: nil, closed: true)) }
        context.fireChannelInactive()
    }

    package func errorCaught(context: ChannelHandlerContext, error: Error) {
        guard !done else { return context.fireErrorCaught(error) }
        fail(context, error)
    }

    private func fail(_ context: ChannelHandlerContext, _ error: Error) {
        guard !done else { return }
        done = true
        onFailure(error)
        context.close(promise: nil)
    }
}

/// The relay said no (docs/RELAY.md §6), broke its protocol, or closed before `spliced`.
public struct RelayRefused: RelayRefusal, Equatable {
    /// The relay's address (HOST:PORT).
    public var relay: String
    /// Nil: a line that was not the protocol's, or the connection closed (`closed`).
    public var code: RelayErrorCode?
    public var closed = false
    /// The line that was not the protocol's, as it came (at most 80 bytes), if one was.
    public var line: [UInt8]?

    public init(relay: String, code: RelayErrorCode?, closed: Bool = false, line: ArraySlice<UInt8>? = nil) {
        (self.relay, self.code, self.closed, self.line) = (relay, code, closed, line.map(Array.init))
    }

    public var description: String {
        let host = relay.hasPrefix("[") ? String(relay.dropFirst().prefix { $0 != "]" }) : String(relay.prefix { $0 != ":" })
        switch code {
        case .noSuchRoom?: return "the game at \(host) is over or the host is offline"
        case .hostDidNotAnswer?: return "the host at \(host) did not answer (it may be offline)"
        case .roomFull?: return "the game at \(host) is full at the relay"
        case .roomTaken?: return "the room at the relay \(relay) is held by another connection"
        case .busy?: return "the relay at \(relay) is busy; try again later"
        case .tooManyRooms?: return "the relay at \(relay) holds as many rooms from this address as it allows"
        case .noSuchConnection?: return "the relay at \(relay) no longer has that player waiting"
        case .malformed?: return "the relay at \(relay) did not understand us (malformed)"
        case nil:
            if closed { return "the relay at \(relay) closed the connection" }
            let said = line.map { " (it said \"\(Self.shown($0))\")" } ?? ""
            return "the relay at \(relay) does not speak the relay protocol\(said)"
        }
    }

    /// A line from the relay as words may show it: printable ASCII as is, any other byte as `\xNN`.
    static func shown(_ line: [UInt8]) -> String {
        line.map { (0x20...0x7E).contains($0) ? String(Character(UnicodeScalar($0))) : "\\x" + String($0, radix: 16, uppercase: false).leftPadded(2) }
            .joined()
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
