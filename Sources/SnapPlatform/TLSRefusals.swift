import NIOCore
import NIOSSL

/// Closes a server's connection after its last words (a `closing` or `refused` frame), and
/// lets those words reach a TLS client even when they were written before its handshake
/// was done: a host past its caps refuses at the TCP accept, before any handshake.
///
/// Saying it in words costs a handshake, crypto a busy host does for a stranger, so it is
/// bounded (PROTOCOL.md §2): at most `allowance` such refusals at once, each closed
/// `deadline` after it began whether or not its handshake finished. Past the allowance a
/// refusal is a bare close. Touched on its server's loop only.
package final class TLSRefusals: @unchecked Sendable {  // loop-confined (see above)
    /// Refusals whose handshake may be under way at once.
    package static let allowance = 8
    /// How long a refused connection may take to finish its handshake and be told.
    package static let deadline: TimeAmount = .seconds(2)

    private var open = 0

    package init() {}

    /// `channel` is in its TLS handshake, which `close` waits for (within its bounds).
    package func isHandshaking(_ channel: Channel) -> Bool {
        (try? channel.pipeline.syncOperations.handler(type: HandshakeDeadline.self)) != nil
    }

    /// Closes `channel` once what was written to it has gone out. A TLS connection whose
    /// handshake is not done keeps its writes until it is (NIOSSL holds them): it is closed
    /// once the handshake is done, after them; within the allowance, and never later than
    /// `deadline`.
    package func close(_ channel: Channel) {
        guard let handshake = try? channel.pipeline.syncOperations.handler(type: HandshakeDeadline.self),
              open < Self.allowance else {
            // Plain, or handshaken (the writes go out before TLS's close), or too many: at once.
            return channel.close(promise: nil)
        }
        open += 1
        let loop = channel.eventLoop
        let cut = loop.scheduleTask(in: Self.deadline) { Self.closeBeneathTLS(channel) }
        channel.closeFuture.whenComplete { _ in
            loop.execute {
                self.open -= 1
                cut.cancel()
            }
        }
        // Told when the handshake is done; NIOSSL writes what it held right after, so the
        // close goes behind it.
        handshake.onCompleted = { loop.execute { channel.close(promise: nil) } }
    }

    /// Closes the socket itself, without waiting for TLS to say goodbye.
    private static func closeBeneathTLS(_ channel: Channel) {
        if let tls = try? channel.pipeline.syncOperations.context(handlerType: NIOSSLServerHandler.self) {
            tls.close(promise: nil)
        } else {
            channel.close(promise: nil)
        }
    }
}
