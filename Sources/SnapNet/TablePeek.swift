import SnapBytes
import SnapPlatform
import NIOCore
import NIOPosix
import SnapEngine
import SnapProtocol

/// A seat at a started table, as the host sees it now.
public struct SeatAtTable: Hashable, Sendable {
    public var seat: Seat
    public var name: String
    /// The player's connection dropped and the seat waits out its grace for them
    /// (nobody is playing it from a window).
    public var away: Bool

    public init(seat: Seat, name: String, away: Bool) {
        (self.seat, self.name, self.away) = (seat, name, away)
    }
}

/// Who sits at the started game at `endpoint`, and which of them are away: signs in as a
/// watcher, reads `gameStarted` (names by seat) and the `snapshot` (each seat's `present`
/// and `away`), and says goodbye. Seats whose players have left are not listed.
///
/// `query`'s `info` does not say which seats are away, and adding to it would be a new
/// protocol version; a watcher's catch-up already says it (PROTOCOL.md, "Rejoining").
/// The other players see one watcher come and go.
/// Answers on `loop`; nothing waits for it (a window hands the answer to its scene).
public func seatsAtTable(_ endpoint: Endpoint, name: String, joinCode: String = "", loop: EventLoop,
                         timeout: TimeAmount = .seconds(3), trust: ServerTrust? = nil) -> EventLoopFuture<[SeatAtTable]> {
    let answer = loop.makePromise(of: [SeatAtTable].self)
    let once = Once(answer)
    connectLater(to: endpoint, on: loop, patience: .nanoseconds(timeout.nanoseconds), trust: trust) {
        TablePeekHandler(answer: once)
    }.whenComplete { connected in
        switch connected {
        case .failure(let error):
            once.fail(error)
        case .success(let channel):
            let hello = Hello(name: name, joinCode: joinCode, role: .watcher)
            channel.writeAndFlush(channel.allocator.buffer(bytes: WireCodec.encode(ClientMessage.hello(hello), sequence: 0)),
                                  promise: nil)
            let timer = loop.scheduleTask(in: timeout) { once.fail(NetError.noHost("no table from \(endpoint)")) }
            answer.futureResult.whenComplete { _ in
                timer.cancel()
                channel.close(promise: nil)
            }
        }
    }
    return answer.futureResult
}

/// A promise completed once, by whichever comes first; on the loop.
private final class Once: @unchecked Sendable {  // `done` is touched on the channel's loop only
    let promise: EventLoopPromise<[SeatAtTable]>
    private var done = false

    init(_ promise: EventLoopPromise<[SeatAtTable]>) { self.promise = promise }

    func succeed(_ seats: [SeatAtTable]) {
        guard !done else { return }
        done = true
        promise.succeed(seats)
    }

    func fail(_ error: Error) {
        guard !done else { return }
        done = true
        promise.fail(error)
    }
}

/// Reads the watcher's welcome, `gameStarted` and `snapshot` (frames in sequence, as
/// `HostFrameHandler` reads them); then says `leave` and answers once the host has hung up.
///
/// NB: it does not close first. A host still writing this connection's sign-in (the deal's
/// commitment, the watcher count to everyone) to a socket closed under it saw the hang-up
/// in the middle of that write, and told the other players "0 watching" before "1 watching"
/// (seen under Xvfb: their tables kept showing "1 watching").
private final class TablePeekHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private let answer: Once
    private var decoder = FrameDecoder()
    private var sequence = SequenceChecker()
    private var start: GameStart?
    /// The seats, once the snapshot is read: the answer when the host hangs up.
    private var seats: [SeatAtTable]?

    init(answer: Once) { self.answer = answer }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        decoder.append(unwrapInboundIn(data).readableBytesView)
        do {
            while let frame = try decoder.nextFrame() {
                try sequence.check(frame.sequence)
                switch try WireCodec.decodeHostMessage(frame) {
                case .gameStarted(let started):
                    start = started
                case .snapshot(let snapshot):
                    guard let start else { throw NetError.noHost("a snapshot before gameStarted") }
                    guard seats == nil else { continue }
                    seats = start.players.compactMap { player -> SeatAtTable? in
                        let place = snapshot.table[player.seat]
                        return place.isPresent ? SeatAtTable(seat: player.seat, name: player.name, away: place.isAbsent) : nil
                    }
                    context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(
                        bytes: WireCodec.encode(ClientMessage.leave, sequence: 1))), promise: nil)
                case .lobby:
                    // The game has not started (or started again): nobody is away.
                    throw NetError.noHost("the game is in its lobby")
                case .closing(_, let message):
                    throw NetError.noHost(message)
                default:
                    continue
                }
            }
        } catch {
            // Whatever follows the table (a game ending under it) does not unsay it.
            if let seats { answer.succeed(seats) } else { answer.fail(error) }
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let seats { return answer.succeed(seats) }
        answer.fail(NetError.noHost("the host hung up before showing its table"))
    }
}
