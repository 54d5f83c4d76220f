import Glibc
import Logging
import NIOPosix
import SnapProtocol
import StoryEngine
import SnapTestSupport
import Testing
@testable import StoryService

/// The service over a real Unix socket, in this process.
@Suite("Story service over a socket", .serialized)
struct StoryServerTests {
    func withServer(_ body: (String, StoryServer) throws -> Void) throws {
        let directory = scratchDirectory("story")
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let server = try StoryServer(journalPath: directory + "/story.journal", loop: group.next(),
                                     logger: Logger(label: "test"), onWarning: { _ in })
        try server.listen(unixPath: directory + "/story.socket")
        defer { server.shutdown() }
        try body(directory + "/story.socket", server)
    }

    func key(_ byte: UInt8) -> SeatToken { SeatToken(bytes: Array(repeating: byte, count: 16))! }

    @Test("a watching participant is pushed every change to their matches, and only theirs")
    func watchers() throws {
        try withServer { socket, _ in
            let ann = try StoryClient(endpoint: .unix(socket), name: "Ann", key: key(1))
            let bobWatch = try StoryClient(endpoint: .unix(socket), name: "Bob", key: key(2))
            let cyWatch = try StoryClient(endpoint: .unix(socket), name: "Cy", key: key(3))
            try bobWatch.send(.watch)
            try cyWatch.send(.watch)
            try bobWatch.ping(1)  // the watch is in place once the pong is back
            try cyWatch.ping(1)
            let match = try ann.match(.create(others: ["Bob"], title: ""))
            guard case .update(let created) = try bobWatch.next() else { Issue.record("no update"); return }
            #expect(created.id == match.id)
            _ = try ann.match(.turn(match.id, text: "Once"))
            guard case .update(let turned) = try bobWatch.next() else { Issue.record("no update"); return }
            #expect(turned.text == "Once" && turned.currentName == "Bob")
            // Cy takes no part: nothing for Cy but the pong.
            try cyWatch.ping(2)
            #expect(cyWatch.pendingUpdates.isEmpty)
        }
    }

    @Test("a flood of requests is cut as over budget; the service serves others on")
    func budget() throws {
        try withServer { socket, _ in
            let flooder = try StoryClient(endpoint: .unix(socket), name: "Flood", key: key(9))
            for nonce in 0..<200 { try? flooder.send(.ping(UInt64(nonce))) }
            var refusal: String?
            while refusal == nil {
                guard let reply = try? flooder.next() else { break }
                if case .refused(.overBudget, let message) = reply { refusal = message }
            }
            #expect(refusal?.contains("over budget") == true)
            let other = try StoryClient(endpoint: .unix(socket), name: "Ann", key: key(1))
            try other.ping(5)
        }
    }

    /// Sends `bytes` on a fresh connection and returns the first reply (nil if the service
    /// closed without one).
    func firstReply(_ socket: String, _ bytes: [UInt8]) throws -> StoryReply? {
        let descriptor = try rawUnixSocket(socket)
        defer { close(descriptor) }
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var decoder = FrameDecoder(maxBodyLength: StoryWire.maxBodyLength)
        while true {
            if let frame = try decoder.nextFrame() { return try StoryReply.decode(frame) }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { return nil }
            decoder.append(buffer[0..<count])
        }
    }

    /// A hello laid out by hand as docs/PROTOCOL.md §16 gives it, not by the codec.
    func handMadeHello(name: String, key: [UInt8]) -> [UInt8] {
        let payload: [UInt8] = [0, 1, UInt8(name.utf8.count)] + Array(name.utf8) + key + [0]
        let length = UInt32(9 + payload.count)
        return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF),
                0x53, 0x4E, 0x41, 0x50, 0x80, 0, 0, 0, 0] + payload
    }

    @Test("§16's hello as the document lays it out: a zero key is refused in words, another key for a taken name with wrongKey (9)")
    func documentedSignIn() throws {
        try withServer { socket, _ in
            let zero = try firstReply(socket, handMadeHello(name: "Ann", key: Array(repeating: 0, count: 16)))
            guard case .refused(let why, let message) = zero else { Issue.record("no refusal: \(String(describing: zero))"); return }
            #expect(why == .signIn && why.rawValue == 10)
            #expect(message.hasPrefix("a key of sixteen zero bytes is not a key"), "\(message)")
            let first = try firstReply(socket, handMadeHello(name: "Ann", key: Array(1...16)))
            #expect(first == .welcome(version: 1, name: "Ann"))
            let other = try firstReply(socket, handMadeHello(name: "Ann", key: Array(2...17)))
            guard case .refused(let reason, let words) = other else { Issue.record("no refusal: \(String(describing: other))"); return }
            #expect(reason == .wrongKey && reason.rawValue == 9, "\(words)")
            #expect(words.contains("the name Ann belongs to someone else"))
        }
    }

    @Test("a sequence gap, a request before hello, and a Snap! hello are refused and cut")
    func violations() throws {
        try withServer { socket, _ in
            for bytes in [
                StoryRequest.list.encode(sequence: 0),  // before hello
                StoryRequest.hello(version: 1, name: "Ann", key: key(1).bytes, joinCode: "").encode(sequence: 3),  // gap
                [0, 0, 0, 9, 0x53, 0x4E, 0x41, 0x50, 0x01, 0, 0, 0, 0],  // Snap!'s type 0x01
            ] {
                let descriptor = try rawUnixSocket(socket)
                defer { close(descriptor) }
                _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
                var buffer = [UInt8](repeating: 0, count: 4096)
                var received: [UInt8] = []
                while true {
                    let count = recv(descriptor, &buffer, buffer.count, 0)
                    if count <= 0 { break }
                    received += buffer[0..<count]
                }
                var decoder = FrameDecoder(maxBodyLength: StoryWire.maxBodyLength)
                decoder.append(received)
                guard let frame = try decoder.nextFrame(), case .refused = try StoryReply.decode(frame) else {
                    Issue.record("no refusal before the cut for \(bytes.prefix(9))"); continue
                }
            }
            let fine = try StoryClient(endpoint: .unix(socket), name: "Ann", key: key(1))
            try fine.ping(1)
        }
    }
}

/// A plain blocking Unix-socket connection, for sending the service raw bytes.
func rawUnixSocket(_ path: String) throws -> Int32 {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
    }
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard result == 0 else {
        close(descriptor)
        throw StoryClientError.cannotConnect(path, String(cString: strerror(errno)))
    }
    return descriptor
}
