import NIOCore
import SnapPlatform
import SnapProtocol
import SnapSession

/// The sending side of a host's connections on sockets (back-pressure, docs/PROTOCOL.md §10):
/// each connection's channel, its frames' sequence numbers and the bytes written to it that
/// have not gone out yet. A connection that falls too far behind — past `limits.highWater`
/// for `limits.slowLimit`, or past `limits.hardCap` at any moment — is cut as too slow
/// (`cutTooSlow`); one that is hung up closes once its last words are written, or at
/// `limits.slowLimit` at the latest. Touched on `loop` only; time is `now` (the host's clock).
final class OutboundQueue: @unchecked Sendable {  // loop-confined (see above)
    let loop: EventLoop
    /// How far behind a connection may fall; read as each write is counted.
    var limits = OutboundLimits()
    private let now: () -> Duration
    private var channels: [ConnectionID: Channel] = [:]
    private var sequences: [ConnectionID: UInt32] = [:]
    private var outbound: [ConnectionID: Outbound] = [:]
    /// Connections that fell too far behind during the current input, cut right after it.
    private var tooSlow: [ConnectionID: String] = [:]
    /// Connections hung up (or ended with the game) whose last words still wait in NIO's
    /// buffer, their reader being behind: each closes once they are written (`wrote`), or at
    /// `slowLimit`.
    private var closingOnceWritten: [ConnectionID: Channel] = [:]
    /// Refusals written before a TLS handshake was done, and their bound.
    private let refusals = TLSRefusals()

    init(loop: EventLoop, now: @escaping () -> Duration) {
        self.loop = loop
        self.now = now
    }

    /// A new connection, its frames numbered from 0.
    func open(_ id: ConnectionID, _ channel: Channel) {
        channels[id] = channel
        sequences[id] = 0
        outbound[id] = Outbound()
    }

    /// Whether `id` is open (neither hung up nor disconnected).
    func isOpen(_ id: ConnectionID) -> Bool { channels[id] != nil }

    /// Bytes written to `id` and not gone out yet (nil: not counted, or no longer).
    func pending(_ id: ConnectionID) -> Int? { outbound[id]?.pending }

    /// The connection ended from its side: forgotten. False if it was not open (hung up already).
    func disconnected(_ id: ConnectionID) -> Bool {
        guard channels.removeValue(forKey: id) != nil else { return false }
        outbound[id] = nil
        sequences[id] = nil
        return true
    }

    /// Writes `message` to `id` as its next frame, counting what waits to go out; past the
    /// hard cap nothing more is written and the connection is marked too slow. A connection
    /// that is not open, or already too slow, gets nothing.
    func send(_ message: HostMessage, to id: ConnectionID) {
        guard let channel = channels[id], let sequence = sequences[id], tooSlow[id] == nil else { return }
        sequences[id] = sequence &+ 1
        let bytes = WireCodec.encode(message, sequence: sequence)
        let size = bytes.count
        outbound[id, default: Outbound()].pending += size
        let pending = outbound[id]!.pending
        if pending > limits.highWater, outbound[id]!.congestedSince == nil { outbound[id]!.congestedSince = now() }
        if pending > limits.hardCap {
            tooSlow[id] = "more than \(limits.hardCap / 1024) KiB waiting to be sent"
            return
        }
        let promise = loop.makePromise(of: Void.self)
        promise.futureResult.whenComplete { [weak self] _ in self?.wrote(size, to: id) }
        channel.writeAndFlush(channel.allocator.buffer(bytes: bytes), promise: promise)
    }

    private func wrote(_ size: Int, to id: ConnectionID) {
        guard outbound[id] != nil else { return }
        outbound[id]!.pending -= size
        if outbound[id]!.pending <= limits.lowWater { outbound[id]!.congestedSince = nil }
        if outbound[id]!.pending <= 0, let channel = closingOnceWritten.removeValue(forKey: id) {
            outbound[id] = nil
            channel.close(promise: nil)
        }
    }

    /// Cuts the connections over the hard cap, and those congested for too long: `tell` (the
    /// session hears why; anything it writes to that connection meanwhile is dropped), then
    /// the connection is hung up. Called after each input.
    func cutTooSlow(_ tell: (ConnectionID, String) -> Void) {
        let current = now()
        for (id, state) in outbound where closingOnceWritten[id] == nil {
            if let since = state.congestedSince, current - since >= limits.slowLimit, tooSlow[id] == nil {
                tooSlow[id] = "more than \(limits.highWater / 1024) KiB waiting to be sent for \(limits.slowLimit.secondsText)"
            }
        }
        while let (id, why) = tooSlow.first {
            tell(id, why)
            tooSlow[id] = nil
            hangUp(id)
        }
    }

    /// Ends `id` from the host's side: it closes once its last words have gone out.
    func hangUp(_ id: ConnectionID) {
        guard let channel = channels.removeValue(forKey: id) else { return }
        sequences[id] = nil
        _ = closeOnceWritten(id, channel)
    }

    /// Hangs up every connection (the game is over); each future completes as one closes.
    func hangUpAll() -> [EventLoopFuture<Void>] {
        defer { channels = [:] }
        return channels.map { id, channel in closeOnceWritten(id, channel) }
    }

    /// Closes `channel` once its last words (a `closing`, the game's end) have gone out, or
    /// at `slowLimit` at the latest: a close drops what still waits in NIO's buffer, and a
    /// player whose reader was behind would see the connection end without being told why
    /// (at the game's end, a bot would try to rejoin). A connection cut as too slow closes
    /// at once; one still in its TLS handshake is `refusals`' to close.
    private func closeOnceWritten(_ id: ConnectionID, _ channel: Channel) -> EventLoopFuture<Void> {
        guard let pending = outbound[id]?.pending, pending > 0, tooSlow[id] == nil, !refusals.isHandshaking(channel) else {
            outbound[id] = nil
            refusals.close(channel)
            return channel.closeFuture
        }
        closingOnceWritten[id] = channel
        let deadline = loop.scheduleTask(in: .nanoseconds(limits.slowLimit.nanoseconds)) { [weak self] in
            guard let self, let channel = self.closingOnceWritten.removeValue(forKey: id) else { return }
            self.outbound[id] = nil
            channel.close(promise: nil)
        }
        channel.closeFuture.whenComplete { _ in deadline.cancel() }
        return channel.closeFuture
    }
}

/// How much a connection may have waiting to be sent. Past `highWater` for `slowLimit`,
/// or past `hardCap` at any moment, it is cut as too slow (docs/PROTOCOL.md §10).
public struct OutboundLimits: Sendable {
    public var lowWater = 16 * 1024
    public var highWater = 64 * 1024
    public var hardCap = 256 * 1024
    public var slowLimit: Duration = .seconds(3)
    /// The kernel's send buffer per connection (SO_SNDBUF), nil for the system's default;
    /// tests shrink it so that a slow reader shows at once.
    public var socketSendBuffer: Int?
    public init() {}
}

struct Outbound {
    var pending = 0
    var congestedSince: Duration?
}
