#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import NIOCore

/// TCP keepalive for a connection that may sit quiet for hours (a host's room at a relay):
/// the kernel probes it after `idle` seconds of silence, every `interval` seconds, and
/// closes it after `count` probes go unanswered, so a peer that vanished (a router
/// rebooted, a cable pulled) is noticed within `idle + interval × count` seconds instead of
/// never; the probes also keep a home router's NAT mapping open. No bytes of the protocol.
package struct KeepAlive: Sendable, Equatable {
    package var idle = 20
    package var interval = 5
    package var count = 4

    package init() {}

    /// At most this long from the peer's going to the connection's closing.
    package var noticedWithin: Int { idle + interval * count }

    /// Sets the options on `channel`; on its loop.
    package func apply(to channel: Channel) throws {
        guard let options = channel.syncOptions else { throw ChannelError.operationUnsupported }
        try options.setOption(ChannelOptions.socketOption(.so_keepalive), value: 1)
        for (name, value) in [(TCP_KEEPIDLE, idle), (TCP_KEEPINTVL, interval), (TCP_KEEPCNT, count)] {
            try options.setOption(ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: name)), value: value)
        }
    }
}
