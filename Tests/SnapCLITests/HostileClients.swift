import Foundation
import SnapBytes
import SnapProtocol

/// A raw client for attack tests: frames it is told to send, and (when `answering`) a
/// background reader that decodes everything the host sends and echoes its pings.
final class RawPlayer: @unchecked Sendable {
    let socket: RawSocket
    private let lock = NSLock()
    private var sequence: UInt32 = 0
    private var decoder = FrameDecoder()
    private var received: [HostMessage] = []
    private var closedAt: Date?
    private var reader: Thread?

    init?(unixPath: String) {
        guard let socket = RawSocket(unixPath: unixPath) else { return nil }
        self.socket = socket
    }

    /// Sends one message with the next sequence number. False once the host has closed.
    @discardableResult
    func send(_ message: ClientMessage) -> Bool {
        let bytes = lock.withLock {
            defer { sequence &+= 1 }
            return WireCodec.encode(message, sequence: sequence)
        }
        return socket.sendWithoutBlocking(bytes)
    }

    /// Reads in the background until the host closes, answering every ping (an honest
    /// connection that simply never turns, when the test wants one).
    func startReading(answerPings: Bool) {
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                var poller = pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0)
                // A signal (a child process of another test ending) interrupts poll and read:
                // that is not the end of the connection, and must not stop this reader.
                let ready = poll(&poller, 1, 100)
                if ready < 0, errno == EINTR { continue }
                guard ready >= 0 else { lock.withLock { closedAt = closedAt ?? Date() }; break }
                if poller.revents == 0 { if lock.withLock({ closedAt != nil }) { break } else { continue } }
                let count = read(socket.fd, &buffer, buffer.count)
                if count < 0, errno == EINTR || errno == EAGAIN { continue }
                if count <= 0 { lock.withLock { closedAt = closedAt ?? Date() }; break }
                var pings: [UInt64] = []
                lock.withLock {
                    decoder.append(Array(buffer[0..<count]))
                    while let frame = try? decoder.nextFrame(), let message = try? WireCodec.decodeHostMessage(frame) {
                        received.append(message)
                        if case .ping(let nonce) = message { pings.append(nonce) }
                    }
                }
                if answerPings { for nonce in pings { send(.pong(nonce: nonce)) } }
            }
        }
        reader = thread
        thread.start()
    }

    var messages: [HostMessage] { lock.withLock { received } }
    var closed: Date? { lock.withLock { closedAt } }

    /// The `closing` the host sent, if any.
    var closing: (CloseReason, String)? {
        for case .closing(let reason, let text) in messages { return (reason, text) }
        return nil
    }

    /// Waits until the host closed the connection (or `timeout` passed); returns when it closed.
    func waitUntilClosed(timeout: Double) -> Date? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let closed { return closed }
            usleep(20_000)
        }
        return closed
    }

    /// Waits for a message matching `what`.
    func wait(timeout: Double, for what: (HostMessage) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if messages.contains(where: what) { return true }
            usleep(20_000)
        }
        return false
    }
}

extension RawSocket {
    /// Writes what the socket takes now; false once the peer has closed. Never blocks for
    /// long and never raises SIGPIPE, so a flood cannot hang or kill the test.
    func sendWithoutBlocking(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        let deadline = Date().addingTimeInterval(1)
        while offset < bytes.count {
            var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard poll(&poller, 1, 50) > 0 else {
                if Date() > deadline { return true }  // the host stopped reading: that is its business
                continue
            }
            if poller.revents & Int16(POLLERR | POLLHUP) != 0 { return false }
            let sent = bytes[offset...].withUnsafeBufferPointer {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if sent < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                return false
            }
            offset += sent
        }
        return true
    }
}

/// The peak resident memory of a running process, in MiB (VmHWM), or nil if it is gone.
func peakResidentMiB(_ pid: Int32) -> Double? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
          let kib = Double(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
    return kib / 1024
}
