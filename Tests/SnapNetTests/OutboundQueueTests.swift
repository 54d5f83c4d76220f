import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import SnapBytes
import SnapProtocol
import SnapSession
import Testing
@testable import SnapNet

/// The host's sending side (`OutboundQueue`) on NIO's embedded channels: a reader that is
/// behind is a handler holding the writes, time is the embedded loop's.
@Suite("The host's outbound queue")
struct OutboundQueueTests {
    /// A message of some 200 bytes on the wire.
    static func message() -> HostMessage { .closing(.versionUnsupported, message: String(repeating: "x", count: 200)) }
    static let size = WireCodec.encode(message(), sequence: 0).count

    /// Small limits (1, 2 and 4 KiB), so that a few messages reach them.
    static var limits: OutboundLimits {
        var limits = OutboundLimits()
        (limits.lowWater, limits.highWater, limits.hardCap) = (1024, 2048, 4096)
        return limits
    }
    /// Messages that pass the high water mark, and the hard cap.
    static let pastHighWater = 2048 / size + 1, pastHardCap = 4096 / size + 1

    let loop = EmbeddedEventLoop()
    let held = HeldWrites()
    let channel: EmbeddedChannel
    let queue: OutboundQueue
    let id = ConnectionID(7)

    init() throws {
        channel = EmbeddedChannel(handler: held, loop: loop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        queue = OutboundQueue(loop: loop) { [loop] in .nanoseconds(Int64(loop.now.uptimeNanoseconds)) }
        queue.limits = Self.limits
        queue.open(id, channel)
    }

    // What the expectations look at, as plain values (a failed expectation describes what it
    // names, and NIO's description of a closed embedded channel's pipeline traps).
    var pending: Int? { queue.pending(id) }
    var open: Bool { queue.isOpen(id) }
    var active: Bool { channel.isActive }
    var heldCount: Int { held.count }
    var heldSequences: [UInt32] { held.sequences }

    /// Everything the test left is closed and run, so no promise is left behind.
    func finish() throws {
        held.releaseAll()
        if channel.isActive { try channel.close().wait() }
        loop.run()
        try loop.syncShutdownGracefully()
    }

    /// Cuts the connections `cutTooSlow` finds, as the session does (`closing(tooSlow)` and
    /// a hang-up), and returns why each was cut.
    func cuts() -> [String] {
        var told: [String] = []
        queue.cutTooSlow { cut, why in
            #expect(cut == id)
            queue.send(Self.message(), to: cut)  // its last words: dropped, it cannot take them
            queue.hangUp(cut)
            told.append(why)
        }
        return told
    }

    @Test("a write that has not gone out is pending until it has; frames are numbered from 0")
    func pendingUntilWritten() throws {
        queue.send(Self.message(), to: id)
        queue.send(Self.message(), to: id)
        #expect(pending == 2 * Self.size)
        #expect(heldCount == 2)
        held.release(1)
        #expect(pending == Self.size)
        held.release(1)
        #expect(pending == 0)
        #expect(heldSequences == [0, 1])
        #expect(open && active)
        try finish()
    }

    @Test("past the hard cap the connection is cut at once, in today's words, its last write never sent")
    func hardCap() throws {
        for _ in 1..<Self.pastHardCap { queue.send(Self.message(), to: id) }
        #expect(cuts().isEmpty)
        queue.send(Self.message(), to: id)
        #expect(heldCount == Self.pastHardCap - 1)
        #expect(cuts() == ["more than 4 KiB waiting to be sent"])
        #expect(heldCount == 0)  // dropped by the close
        #expect(!open)
        #expect(!active)  // at once, though its writes never went out
        try finish()
    }

    @Test("past the high water mark for slowLimit the connection is cut, in today's words")
    func congestedTooLong() throws {
        for _ in 0..<Self.pastHighWater { queue.send(Self.message(), to: id) }
        #expect(cuts().isEmpty)
        loop.advanceTime(by: .nanoseconds(Self.limits.slowLimit.nanoseconds - 1))
        #expect(cuts().isEmpty)
        loop.advanceTime(by: .nanoseconds(1))
        #expect(cuts() == ["more than 2 KiB waiting to be sent for 3 s"])
        #expect(!active)
        try finish()
    }

    @Test("a reader that catches up below the low water mark in time is not cut")
    func catchesUp() throws {
        for _ in 0..<Self.pastHighWater { queue.send(Self.message(), to: id) }
        loop.advanceTime(by: .seconds(2))
        held.release(Self.pastHighWater - 1024 / Self.size)  // at the low water mark or below
        loop.advanceTime(by: .seconds(2))
        #expect(cuts().isEmpty)
        #expect(open && active)
        try finish()
    }

    @Test("a connection hung up closes once its last words are written")
    func closesOnceWritten() throws {
        queue.send(Self.message(), to: id)
        queue.send(Self.message(), to: id)
        queue.hangUp(id)
        #expect(!open)
        queue.send(Self.message(), to: id)  // hung up: nothing more is written
        #expect(heldCount == 2)
        held.release(1)
        #expect(active)
        held.release(1)
        #expect(!active)
        #expect(pending == nil)
        try finish()
    }

    @Test("a connection hung up whose reader never reads closes at slowLimit")
    func closesAtTheDeadline() throws {
        queue.send(Self.message(), to: id)
        queue.hangUp(id)
        loop.advanceTime(by: .nanoseconds(Self.limits.slowLimit.nanoseconds - 1))
        #expect(active)
        loop.advanceTime(by: .nanoseconds(1))
        #expect(!active)
        #expect(pending == nil)
        try finish()
    }

    @Test("a connection hung up with nothing waiting closes at once")
    func closesAtOnce() throws {
        queue.send(Self.message(), to: id)
        held.release(1)
        queue.hangUp(id)
        #expect(!active)
        try finish()
    }

    @Test("hanging up every connection: each future completes as its connection closes")
    func hangUpAll() throws {
        let other = EmbeddedChannel(loop: loop)
        try other.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 2)).wait()
        queue.open(ConnectionID(8), other)
        queue.send(Self.message(), to: id)
        let closed = EventLoopFuture.andAllComplete(queue.hangUpAll(), on: loop)
        let otherActive = other.isActive
        #expect(!otherActive && active)
        let done = NIOLockedValueBox(false)
        closed.whenComplete { _ in done.withLockedValue { $0 = true } }
        #expect(!done.withLockedValue { $0 })
        held.release(1)
        loop.run()  // an embedded channel's close completes on its loop
        #expect(done.withLockedValue { $0 })
        try finish()
    }

    @Test("a connection that ended from its side is forgotten; one hung up first was not open")
    func disconnected() throws {
        let wasOpen = queue.disconnected(id)
        #expect(wasOpen)
        #expect(!open && pending == nil)
        let again = queue.disconnected(id)
        #expect(!again)
        try finish()
    }
}

/// A reader that is behind: holds every write (its promise pending) until released; a close
/// fails what it still holds, as a socket's close does.
final class HeldWrites: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer
    private var held: [(bytes: ByteBuffer, promise: EventLoopPromise<Void>?)] = []
    private(set) var sequences: [UInt32] = []

    var count: Int { held.count }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        held.append((unwrapOutboundIn(data), promise))
    }

    func flush(context: ChannelHandlerContext) {}

    /// The first `count` held writes go out.
    func release(_ count: Int) {
        let going = held.prefix(count)
        held.removeFirst(count)  // first: a write's completion may close the channel, which fails what is held
        for (bytes, promise) in going {
            var decoder = FrameDecoder(maxBodyLength: Frame.maxBodyLength)
            decoder.append(bytes.readableBytesView)
            if let frame = try? decoder.nextFrame() { sequences.append(frame.sequence) }
            promise?.succeed()
        }
    }

    func releaseAll() { release(held.count) }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        failAll()
        context.close(mode: mode, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) { failAll() }

    private func failAll() {
        let failing = held
        held = []
        for (_, promise) in failing { promise?.fail(ChannelError.ioOnClosedChannel) }
    }
}
