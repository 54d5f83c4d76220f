#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import SnapBytes
import SnapProtocol

/// A host that is only a Unix socket under the scratch root: it accepts one connection at
/// a time, reads what the client sends and sends what the test says, numbering each
/// connection's frames from 0. It exists so that a client's side of the protocol (a
/// window's link, a computer player) can be tested against exact host messages, with no
/// real host deciding them; SnapNetTests and SnapUITests share this one.
public final class ScriptedHost {
    public let path: String
    private let listener: Int32
    private var connection: Int32 = -1
    private var decoder = FrameDecoder()
    private var sequence: UInt32 = 0

    public init() throws {
        path = scratchPath("scripted-\(UInt32.random(in: 0...UInt32.max)).sock")
        unlink(path)
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let bound = withUnixAddress(path) { bind(listener, $0, $1) }
        guard bound == 0, listen(listener, 4) == 0 else { throw POSIXError(.EADDRINUSE) }
    }

    deinit {
        hangUp()
        close(listener)
        unlink(path)
    }

    /// The next connection, within 5 s (an earlier one is hung up first).
    public func accept() throws {
        hangUp()
        var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, 5000) == 1 else { throw POSIXError(.ETIMEDOUT) }
        #if canImport(Glibc)
        connection = Glibc.accept(listener, nil, nil)
        #else
        connection = Musl.accept(listener, nil, nil)
        #endif
        guard connection >= 0 else { throw POSIXError(.ECONNABORTED) }
        _ = fcntl(connection, F_SETFL, fcntl(connection, F_GETFL) | O_NONBLOCK)
        decoder = FrameDecoder()
        sequence = 0
    }

    /// Closes the current connection, with no goodbye.
    public func hangUp() {
        if connection >= 0 { close(connection) }
        connection = -1
    }

    /// Sends `messages` in order, each with the connection's next sequence number.
    public func send(_ messages: [HostMessage]) {
        for message in messages {
            let bytes = WireCodec.encode(message, sequence: sequence)
            sequence += 1
            _ = bytes.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
        }
    }

    /// The client's messages that arrived since the last call.
    public func read() -> [ClientMessage] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while connection >= 0 {
            #if canImport(Glibc)
            let count = Glibc.read(connection, &buffer, buffer.count)
            #else
            let count = Musl.read(connection, &buffer, buffer.count)
            #endif
            guard count > 0 else { break }
            decoder.append(buffer.prefix(count))
        }
        var messages: [ClientMessage] = []
        while let frame = try? decoder.nextFrame() {
            if let message = try? WireCodec.decodeClientMessage(frame) { messages.append(message) }
        }
        return messages
    }
}
