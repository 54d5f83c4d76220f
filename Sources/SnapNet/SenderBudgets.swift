import SnapBytes
import SnapPlatform
import SnapProtocol

/// How many packets a multicast DNS socket reads from each sender address: every
/// packet is decoded and weighed only if its sender is within budget, so a flood from
/// a few addresses costs a browser (or a host answering queries) a bounded amount of
/// work a second, and a real host announcing once a second is always read (docs/LAN.md,
/// "Trust and limits"). Pure, for tests; one per socket, on its loop.
public struct SenderBudgets: Sendable {
    /// A sender may send this many packets at once, and this many a second after that.
    public static let burst = 20
    public static let perSecond = 20.0
    /// The most senders tracked. Past it, a sender silent for `idleAfter` makes room; with
    /// none that quiet, newcomers share one bucket of their own (a flood that spoofs a new
    /// address in every packet gets one sender's budget between them all).
    public static let maxSenders = 256
    public static let idleAfter: Duration = .seconds(10)

    private struct Sender: Sendable {
        var bucket: TokenBucket
        var lastHeard: Duration
    }

    private var senders: [String: Sender] = [:]
    private var newcomers = TokenBucket(capacity: burst, perSecond: perSecond)

    public init() {}

    /// How many senders are tracked now.
    public var count: Int { senders.count }

    /// Whether a packet from `address` heard at `now` is read; false drops it unread.
    public mutating func allow(_ address: String, at now: Duration) -> Bool {
        if senders[address] == nil {
            if senders.count >= Self.maxSenders {
                guard let idle = senders.first(where: { now - $0.value.lastHeard >= Self.idleAfter })?.key else {
                    return newcomers.take(at: now)
                }
                senders[idle] = nil
            }
            senders[address] = Sender(bucket: TokenBucket(capacity: Self.burst, perSecond: Self.perSecond), lastHeard: now)
        }
        senders[address]!.lastHeard = now
        return senders[address]!.bucket.take(at: now)
    }
}
