import NIOCore
import NIOPosix

/// The floor under any relay on this machine: a TCP hop on one event loop (as RelayServer
/// runs on one) that copies bytes to the host's port and back and does nothing else: no
/// TLS of its own, no line phase, no rooms. A game through it pays one more process hop and
/// nothing more, so what it costs against a direct connection, no relay can beat.
final class CopyingHop: Sendable {
    let port: Int
    private let listener: Channel

    private init(listener: Channel) {
        self.listener = listener
        port = listener.localAddress?.port ?? 0
    }

    /// Listens on 127.0.0.1 (a port of its own) for players, each copied to `targetPort`.
    static func start(to targetPort: Int, loop: EventLoop) async throws -> CopyingHop {
        let listener = try await ServerBootstrap(group: loop)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            // Nothing is read from the player until the host's side is connected.
            .childChannelOption(ChannelOptions.autoRead, value: false)
            .childChannelInitializer { player in
                let toPlayer = CopyHandler(), toHost = CopyHandler()
                (toPlayer.peer, toHost.peer) = (toHost, toPlayer)
                return ClientBootstrap(group: player.eventLoop)
                    .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
                    .channelInitializer { host in host.eventLoop.makeCompletedFuture { try host.pipeline.syncOperations.addHandler(toHost) } }
                    .connect(host: "127.0.0.1", port: targetPort)
                    .flatMapThrowing { _ in
                        try player.pipeline.syncOperations.addHandler(toPlayer)
                        player.setOption(ChannelOptions.autoRead, value: true).whenComplete { _ in }
                    }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return CopyingHop(listener: listener)
    }

    /// No more players; the pairs copying go on until an end closes.
    func stop() { listener.close(promise: nil) }
}

/// One side of a hop: what its channel reads goes out on the peer's, unread.
private final class CopyHandler: ChannelInboundHandler, @unchecked Sendable {  // touched on the hop's one loop only
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    var peer: CopyHandler?
    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        peer?.context?.writeAndFlush(data, promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        peer?.context?.close(promise: nil)
        (peer, self.context) = (nil, nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) { context.close(promise: nil) }
}
