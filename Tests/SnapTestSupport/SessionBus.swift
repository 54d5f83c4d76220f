#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

/// A real D-Bus session bus for one test: its own `dbus-daemon` (Debian's `dbus`) on a
/// socket under the scratch root, with no service files, so nothing is started on demand:
/// a name is owned only if the test owns it. Stopped (SIGKILL) when `stop()` is called or
/// the value goes away.
public final class SessionBus: @unchecked Sendable {  // its process is only started and stopped
    public let address: String
    public let directory: String
    private let daemon = Process()

    public init() throws {
        directory = scratchDirectory("bus")
        let socket = directory + "/bus"
        address = "unix:path=" + socket
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>\(address)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        try config.write(toFile: directory + "/session.conf", atomically: true, encoding: .utf8)
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--config-file=" + directory + "/session.conf", "--nofork", "--nopidfile"]
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        // Ready once it accepts a connection: its socket file is there from the bind on, a
        // moment before it listens (a client in that moment is refused).
        let deadline = Date().addingTimeInterval(10)
        while !Self.accepts(socket) {
            guard daemon.isRunning, Date() < deadline else {
                stop()
                throw SessionBusError("dbus-daemon did not start listening on \(socket) within 10 s")
            }
            usleep(10_000)
        }
    }

    public var isRunning: Bool { daemon.isRunning }

    private static func accepts(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return withUnixAddress(path) { connect(fd, $0, $1) } == 0
    }

    public func stop() {
        // SIGKILL: under the test runner a SIGTERM was seen to leave it running for
        // seconds, and the bus keeps nothing worth a clean stop.
        daemon.killAndWait()
    }

    deinit { stop() }
}

/// `dbus-monitor --address ADDR` watching the notification interface: what it prints,
/// as it prints it. The method calls it shows are the ones the bus carried.
public final class BusMonitor: @unchecked Sendable {  // output guarded by its lock
    private let process = Process()
    private let lock = NSLock()
    private var text = Data()

    public init(address: String, rule: String = "type='method_call',interface='org.freedesktop.Notifications'") throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-monitor")
        process.arguments = ["--address", address, rule]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        pipe.fileHandleForReading.readChunks { [weak self] data in self?.lock.withLock { self?.text.append(data) } }
        try process.run()
        // Ready once it has become a monitor: the bus then takes its name back (NameLost).
        guard wait(for: "member=NameLost", timeout: 10) else {
            stop()
            throw SessionBusError("dbus-monitor did not start: \(output)")
        }
    }

    public var output: String { lock.withLock { String(decoding: text, as: UTF8.self) } }

    /// The `method call … member=Notify` blocks printed so far, each with its argument lines.
    public var notifyCalls: [String] {
        output.components(separatedBy: "\nmethod call ").dropFirst().filter { $0.contains("member=Notify") }.map { "method call " + $0 }
    }

    /// Waits until the output holds `words`.
    public func wait(for words: String, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if output.contains(words) { return true }
            usleep(20_000)
        }
        return output.contains(words)
    }

    public func stop() {
        process.killAndWait()
    }

    deinit { stop() }
}

public struct SessionBusError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
