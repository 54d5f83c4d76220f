import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SnapPlatform
import SnapRelayClient
import SnapRelayProtocol

/// One end of a pair the bench splices at a relay: not a game, bytes the size and pace of
/// one. The relay copies bytes it cannot read (docs/RELAY.md §5), so it cannot tell these
/// from a game's; `snap-bench relay` says so in its output. After `spliced` an end writes
/// `size` bytes every `every` (if given), echoes what it gets (`echo`), or writes as fast as
/// the connection takes (`flood`), and counts what it gets.
final class SyntheticEnd: ChannelInboundHandler, @unchecked Sendable {  // `channel`, `task` touched on the channel's loop; counters behind locks
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let every: TimeAmount?
    private let size: Int
    private let echo: Bool
    private let flood: Bool
    /// Told on the loop of every read's byte count (round trips).
    private let onBytes: (@Sendable (Int) -> Void)?
    private var task: RepeatedTask?
    private var channel: Channel?
    private let counts = NIOLockedValueBox((received: 0, closed: false, stop: false))

    init(every: TimeAmount? = nil, size: Int = 0, echo: Bool = false, flood: Bool = false, onBytes: (@Sendable (Int) -> Void)? = nil) {
        (self.every, self.size, self.echo, self.flood, self.onBytes) = (every, size, echo, flood, onBytes)
    }

    var received: Int { counts.withLockedValue { $0.received } }
    var closed: Bool { counts.withLockedValue { $0.closed } }

    /// Stops pacing and flooding (the connection stays open).
    func stop() { counts.withLockedValue { $0.stop = true } }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        self.channel = channel
        if let every {
            // A random phase: a thousand rooms do not all write in the same millisecond.
            let phase = TimeAmount.nanoseconds(Int64.random(in: 0..<every.nanoseconds))
            let bytes = [UInt8](repeating: 0x5A, count: size)
            task = channel.eventLoop.scheduleRepeatedTask(initialDelay: phase, delay: every) { [weak self] task in
                guard let self, !self.counts.withLockedValue({ $0.stop }) else { return task.cancel() }
                channel.writeAndFlush(channel.allocator.buffer(bytes: bytes), promise: nil)
            }
        }
        if flood { fill(channel) }
    }

    /// Writes 64 KiB chunks while the channel takes them; more once it drains.
    private func fill(_ channel: Channel) {
        let chunk = channel.allocator.buffer(repeating: 0x5A, count: 65_536)
        while channel.isWritable, channel.isActive, !counts.withLockedValue({ $0.stop }) {
            channel.write(chunk, promise: nil)
            channel.flush()
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if flood, context.channel.isWritable { fill(context.channel) }
        context.fireChannelWritabilityChanged()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        let count = buffer.readableBytes
        counts.withLockedValue { $0.received += count }
        if echo { context.writeAndFlush(wrapOutboundOut(buffer), promise: nil) }
        onBytes?(count)
    }

    func channelInactive(context: ChannelHandlerContext) {
        task?.cancel()
        counts.withLockedValue { $0.closed = true }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }

    /// Closes the connection (from any thread).
    func close() {
        stop()
        guard let channel = channel else { return }
        channel.close(promise: nil)
    }
}

/// Dials a relay on 127.0.0.1 the way hosts and players do (its TLS, then one line), for
/// ends the bench makes itself.
enum SyntheticRelay {
    /// Sends `request` (`connect` or `accept`); completes with the channel once the relay
    /// answers `spliced` (`end` takes the bytes from then on); fails with `RelayRefused`
    /// when the relay says no or closes first.
    static func dial(port: Int, _ request: RelayRequest, trust: ServerTrust, loop: EventLoop,
                     end: SyntheticEnd) -> EventLoopFuture<Channel> {
        let spliced = loop.makePromise(of: Channel.self)
        let relay = "127.0.0.1:\(port)"
        let dialled = connectLater(to: .tcp(host: "127.0.0.1", port: port), on: loop, trust: trust) {
            RelayLineClient(request, relay: relay, onSpliced: { context, _ in
                try context.pipeline.syncOperations.addHandler(end)
                spliced.succeed(context.channel)
            }, onFailure: { spliced.fail($0) })
        }
        dialled.whenFailure { spliced.fail($0) }
        return spliced.futureResult
    }

    /// A host's control connection: `register`; completes with the room id and the
    /// channel; each player the relay announces is accepted on a new connection whose
    /// end `makeEnd` makes (told when it is spliced, or why not).
    static func register(port: Int, trust: ServerTrust, loop: EventLoop, makeEnd: @escaping @Sendable () -> SyntheticEnd,
                         accepted: @escaping @Sendable (Result<SyntheticEnd, Error>) -> Void = { _ in })
        -> EventLoopFuture<(RelayID, Channel)> {
        let granted = loop.makePromise(of: RelayID.self)
        let relay = "127.0.0.1:\(port)"
        let dialled = connectLater(to: .tcp(host: "127.0.0.1", port: port), on: loop, trust: trust) {
            RelayLineClient(.register, relay: relay, onReply: { reply in
                switch reply {
                case .room(let id): granted.succeed(id)
                case .incoming(let connection):
                    let end = makeEnd()
                    dial(port: port, .accept(connection: connection), trust: trust, loop: loop, end: end)
                        .whenComplete { accepted($0.map { _ in end }) }
                default: break
                }
            }, onSpliced: { _, _ in throw RelayRefused(relay: relay, code: .malformed) }, onFailure: { granted.fail($0) })
        }
        dialled.whenFailure { granted.fail($0) }
        return dialled.and(granted.futureResult).map { both in (both.1, both.0) }
    }
}
