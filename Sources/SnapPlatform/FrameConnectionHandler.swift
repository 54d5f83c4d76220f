import NIOCore
import SnapBytes

/// A server that takes framed messages from its connections: Snap!'s host and Story's
/// service. Every method runs on the connection's event loop.
package protocol FrameServer: AnyObject {
    associatedtype ConnectionKey
    associatedtype Inbound
    /// The protocol's error, which framing and sequence faults are thrown as.
    associatedtype Failure: WireFailure

    /// The largest frame body a peer may send.
    var maxFrameBody: Int { get }
    /// A new connection: its key, or nil to refuse it (the server has closed it).
    func connected(_ channel: Channel) -> ConnectionKey?
    func decode(_ frame: Frame) throws -> Inbound
    /// False once the server has cut the connection: the rest of its bytes are not read.
    func received(_ message: Inbound, from key: ConnectionKey) -> Bool
    /// A frame or message that does not decode, or a sequence out of order: the server cuts it.
    func malformed(_ key: ConnectionKey, _ reason: String)
    func disconnected(_ key: ConnectionKey)
}

/// One connection: bytes → frames (within the server's size limit, in sequence) →
/// messages for the server; anything malformed cuts it.
package final class FrameConnectionHandler<Server: FrameServer>: ChannelInboundHandler {
    package typealias InboundIn = ByteBuffer

    private let server: Server
    private var key: Server.ConnectionKey?
    private var decoder: FrameDecoder
    private var sequence = SequenceChecker()
    private var broken = false

    package init(server: Server) {
        self.server = server
        decoder = FrameDecoder(maxBodyLength: server.maxFrameBody)
    }

    package func channelActive(context: ChannelHandlerContext) {
        guard key == nil, !broken else { return }
        key = server.connected(context.channel)
        if key == nil { broken = true }
    }

    /// A connection handed over already open (a relay's spliced one) is connected now.
    package func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { channelActive(context: context) }
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let key, !broken else { return }
        decoder.append(unwrapInboundIn(data).readableBytesView)
        do {
            while let frame = try decoder.nextFrame(failing: Server.Failure.self) {
                try sequence.check(frame.sequence, failing: Server.Failure.self)
                // A cut connection's remaining bytes are not worth decoding.
                guard server.received(try server.decode(frame), from: key) else {
                    broken = true
                    return
                }
            }
        } catch {
            broken = true
            server.malformed(key, "\(error)")
        }
    }

    package func channelInactive(context: ChannelHandlerContext) {
        if let key { server.disconnected(key) }
    }

    package func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}
