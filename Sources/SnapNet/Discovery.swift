import SnapPlatform
import NIOCore
import NIOPosix
import SnapProtocol

/// A host found on this machine.
public struct DiscoveredHost: Sendable {
    public var socketPath: String
    public var info: HostInfo
}

/// Asks every socket in `directory` what it hosts (`query` → `info`). Sockets that do
/// not answer within `timeout` are left out: a crashed host's stale file is not a game.
public func discoverHosts(in directory: SocketDirectory, loop: EventLoop,
                          timeout: TimeAmount = .seconds(1)) -> [DiscoveredHost] {
    directory.socketFiles().compactMap { path in
        guard let info = try? probe(.unix(path), loop: loop, timeout: timeout) else { return nil }
        return DiscoveredHost(socketPath: path, info: info)
    }
}

/// One `query` → `info` exchange.
public func probe(_ endpoint: Endpoint, loop: EventLoop, timeout: TimeAmount = .seconds(1), trust: ServerTrust? = nil) throws -> HostInfo {
    let answer = Answer(loop.makePromise(of: HostInfo.self))
    let channel: Channel
    do {
        channel = try connect(to: endpoint, on: loop, patience: .nanoseconds(timeout.nanoseconds), trust: trust) { InfoHandler(answer: answer) }
    } catch {
        loop.execute { answer.fail(error) }
        throw error
    }
    channel.writeAndFlush(channel.allocator.buffer(bytes: WireCodec.encode(ClientMessage.query, sequence: 0)), promise: nil)
    let timer = loop.scheduleTask(in: timeout) { answer.fail(NetError.noHost("no answer from \(endpoint)")) }
    defer {
        timer.cancel()
        channel.close(promise: nil)
    }
    return try answer.promise.futureResult.wait()
}

/// A promise completed once, by whichever comes first (answer, hang-up, timeout); on the loop.
final class Answer: @unchecked Sendable {  // `done` is touched on the channel's loop only
    let promise: EventLoopPromise<HostInfo>
    private var done = false

    init(_ promise: EventLoopPromise<HostInfo>) {
        self.promise = promise
    }

    func succeed(_ info: HostInfo) {
        guard !done else { return }
        done = true
        promise.succeed(info)
    }

    func fail(_ error: Error) {
        guard !done else { return }
        done = true
        promise.fail(error)
    }
}

final class InfoHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let answer: Answer
    private var decoder = FrameDecoder()

    init(answer: Answer) {
        self.answer = answer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        decoder.append(unwrapInboundIn(data).readableBytesView)
        do {
            guard let frame = try decoder.nextFrame() else { return }
            if case .info(let info) = try WireCodec.decodeHostMessage(frame) {
                answer.succeed(info)
            } else {
                answer.fail(NetError.noHost("not a Snap! host"))
            }
        } catch {
            answer.fail(error)
        }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        answer.fail(NetError.noHost("the host hung up without answering"))
    }
}
