import Foundation
import SnapBytes
import SnapProtocol
import SnapTestSupport

/// A running `snapcards` process whose output is read as it comes.
final class SnapProcess: @unchecked Sendable {
    let process = Process()
    private let lock = NSLock()
    private var out = Data()
    private var err = Data()
    /// The pipes not yet read to their end (stdout, stderr).
    private var openPipes = 2

    /// `wrapper` runs snap through another command, e.g. `["/usr/sbin/ip", "netns", "exec", NS]`;
    /// with `runsSnap` false, the wrapper is the whole command (a helper script, not snap).
    /// `binary`: the built executable to run (`snapcards`, or `snap-bench`).
    init(_ arguments: [String], runtimeDirectory: String, environment extra: [String: String] = [:],
         wrapper: [String] = [], runsSnap: Bool = true, binary: URL = snapBinary()) throws {
        if let command = wrapper.first {
            process.executableURL = URL(fileURLWithPath: command)
            process.arguments = Array(wrapper.dropFirst()) + (runsSnap ? [binary.path] : []) + arguments
        } else {
            process.executableURL = binary
            process.arguments = arguments
        }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = runtimeDirectory
        // Journals go beside the sockets, never into the real home.
        environment["XDG_STATE_HOME"] = runtimeDirectory + "/state"
        environment.merge(extra) { $1 }
        process.environment = environment
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        outPipe.fileHandleForReading.readChunks(ended: { [weak self] in self?.lock.withLock { self?.openPipes -= 1 } }) {
            [weak self] data in self?.lock.withLock { self?.out.append(data) }
        }
        errPipe.fileHandleForReading.readChunks(ended: { [weak self] in self?.lock.withLock { self?.openPipes -= 1 } }) {
            [weak self] data in self?.lock.withLock { self?.err.append(data) }
        }
        try process.run()
    }

    /// Waits until everything the process wrote has been read: both pipes at their end, which
    /// comes once it has exited (and anything it left holding them: 10 s bound that).
    private func drained() {
        _ = eventually(10) { lock.withLock { openPipes == 0 } }
    }

    var output: String { lock.withLock { String(decoding: out, as: UTF8.self) } }
    var errors: String { lock.withLock { String(decoding: err, as: UTF8.self) } }
    var lines: [String] { output.split(separator: "\n").map(String.init) }
    var errorLines: [String] { errors.split(separator: "\n").map(String.init) }

    /// The first output line starting with `prefix`, waiting up to `timeout` seconds.
    func line(startingWith prefix: String, timeout: Double = 20) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let line = lines.first(where: { $0.hasPrefix(prefix) }) { return line }
            if !process.isRunning, !lines.contains(where: { $0.hasPrefix(prefix) }) {
                drained()
                return lines.first { $0.hasPrefix(prefix) }
            }
            usleep(20_000)
        }
        return nil
    }

    /// The exit status, or nil if still running after `timeout` seconds (then it is killed).
    func exitStatus(timeout: Double = 60) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning {
            process.terminate()
            return nil
        }
        drained()
        return process.terminationStatus
    }

    func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

    deinit {
        process.killAndWait()
    }
}

/// Waits until `condition` holds, up to `timeout` seconds (a hang's bound); whether it did.
func eventually(_ timeout: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(50_000)
    }
    return condition()
}

/// A built executable of the package (`snapcards`, `snap-bench`): beside the test bundle's
/// executable, or one folder up (swift-testing runs from inside the .xctest bundle on some setups).
func snapBinary(named name: String = "snapcards") -> URL {
    let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let binary = products.appendingPathComponent(name)
    if FileManager.default.fileExists(atPath: binary.path) { return binary }
    return products.deletingLastPathComponent().appendingPathComponent(name)
}

/// A short, private runtime directory (Unix socket paths are limited to 108 bytes).
/// A process's runtime directory, under the test process's scratch root (removed when it exits).
func makeRuntimeDirectory() -> String { scratchDirectory("t") }

/// A raw client socket: whatever bytes the test wants, nothing checked.
/// (The initializers connect a local descriptor and keep it only once connected: the
/// deinit runs after a failed init too, and must not close a number twice.)
final class RawSocket {
    let fd: Int32

    init?(unixPath path: String) {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        guard withUnixAddress(path, { connect(fd, $0, $1) }) == 0 else { close(fd); return nil }
        self.fd = fd
    }

    /// A TCP connection to 127.0.0.1:`port`.
    init?(loopbackPort port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if result != 0 { close(fd); return nil }
        self.fd = fd
    }

    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count) }
    }

    /// Everything received until the host closes the connection or `timeout` passes.
    func readUntilClosed(timeout: Double = 10) -> (bytes: [UInt8], closed: Bool) {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { return (received, true) }
            received += buffer[0..<count]
        }
        return (received, false)
    }

    deinit { close(fd) }
}

/// The host messages in a byte stream.
func hostMessages(_ bytes: [UInt8]) throws -> [HostMessage] {
    var decoder = FrameDecoder()
    decoder.append(bytes)
    var messages: [HostMessage] = []
    while let frame = try decoder.nextFrame() { messages.append(try WireCodec.decodeHostMessage(frame)) }
    return messages
}

/// A Unix socket that listens with a backlog of 1 and never accepts, its queue filled by
/// non-blocking connections until the kernel answers EAGAIN: a host too busy to let
/// anyone in.
final class BusyListener {
    let path: String
    private let listener: Int32
    private(set) var queued: [Int32] = []

    init?(path: String) {
        self.path = path
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { return nil }
        let bound = withUnixAddress(path) { bind(listener, $0, $1) }
        guard bound == 0, Glibc.listen(listener, 1) == 0 else { close(listener); return nil }
        self.listener = listener  // from here the deinit closes it
        for _ in 0..<64 {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            let result = withUnixAddress(path) { connect(fd, $0, $1) }
            if result != 0, errno == EAGAIN {
                close(fd)
                return
            }
            queued.append(fd)
        }
        return nil  // the queue never filled
    }

    /// One more connection attempt: EAGAIN while the queue stays full.
    func attempt() -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        defer { close(fd) }
        let result = withUnixAddress(path) { connect(fd, $0, $1) }
        return result == 0 ? 0 : errno
    }

    deinit {
        queued.forEach { close($0) }
        close(listener)
        unlink(path)
    }
}
