import SnapBytes
import SnapPlatform
import NIOCore
import NIOPosix
import SnapProtocol

/// A host found on this machine.
public struct DiscoveredHost: Sendable {
    public var socketPath: String
    public var info: HostInfo
}

/// Asks every socket in `directory` what it hosts (`query` → `info`), all at once.
/// Sockets that do not answer within `timeout` are left out: a crashed host's stale file
/// is not a game. In the directory's order.
public func discoverHosts(in directory: SocketDirectory, loop: EventLoop,
                          timeout: TimeAmount = .seconds(1)) async -> [DiscoveredHost] {
    let paths = directory.socketFiles()
    let answers = await withTaskGroup(of: (Int, HostInfo?).self) { group in
        for (index, path) in paths.enumerated() {
            group.addTask { (index, try? await probe(.unix(path), loop: loop, timeout: timeout)) }
        }
        var answers = [HostInfo?](repeating: nil, count: paths.count)
        for await (index, info) in group { answers[index] = info }
        return answers
    }
    return zip(paths, answers).compactMap { path, info in info.map { DiscoveredHost(socketPath: path, info: $0) } }
}

/// One `query` → `info` exchange.
public func probe(_ endpoint: Endpoint, loop: EventLoop, timeout: TimeAmount = .seconds(1),
                  trust: ServerTrust? = nil) async throws -> HostInfo {
    let answer = Answer(loop.makePromise(of: HostInfo.self))
    let channel: Channel
    do {
        channel = try await connectLater(to: endpoint, on: loop, patience: .nanoseconds(timeout.nanoseconds), trust: trust) {
            InfoHandler(answer: answer)
        }.get()
    } catch {
        loop.execute { answer.fail(error) }
        throw error
    }
    let timer = loop.scheduleTask(in: timeout) { answer.fail(NetError.noHost("no answer from \(endpoint)")) }
    defer {
        timer.cancel()
        channel.close(promise: nil)
    }
    return try await answer.promise.futureResult.get()
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

    private var asked = false

    /// Asks on the loop as soon as the connection is ready (a Unix socket once connected,
    /// TCP once TLS is done, when this handler joins): the host's deadline for a first
    /// message never waits on whoever awaits the answer.
    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { ask(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        ask(context)
        context.fireChannelActive()
    }

    private func ask(_ context: ChannelHandlerContext) {
        guard !asked else { return }
        asked = true
        context.writeAndFlush(NIOAny(context.channel.allocator.buffer(bytes: WireCodec.encode(ClientMessage.query, sequence: 0))),
                              promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        decoder.append(unwrapInboundIn(data).readableBytesView)
        do {
            guard let frame = try decoder.nextFrame() else { return }
            switch try WireCodec.decodeHostMessage(frame) {
            case .info(let info): answer.succeed(info)
            // A host that will not answer says why (busy, too slow to ask): say it on.
            case .closing(_, let message): answer.fail(NetError.noHost("the host closed the connection: \(message)"))
            default: answer.fail(NetError.noHost("not a Snap! host"))
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
