#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// `snap-bench attack`: a host in its own process (`snap-bench host`, the `HostServer` of
/// `snapcards host --headless`), with a private runtime directory, and what /proc says about its
/// memory and CPU time.
public final class HostProcess: @unchecked Sendable {  // attack threads read only its addresses, fixed at start; sampling and stopping stay on the bench's thread
    let directory: String
    let socketPath: String
    private(set) var tcpPort: Int?
    private let process = Process()
    private(set) var peakRSSKiB = 0
    /// VmRSS at the last `sample()`.
    private(set) var rssKiB = 0
    private var stopped = false
    private var logs: [FileHandle?] = []

    /// Starts `executable host …` (`executable`: snap-bench) and waits until it listens (at most 10 s).
    /// `tls`: its TCP port speaks TLS (a certificate made in its own directory), for the
    /// TLS attacks; otherwise TCP is plain, for the raw-socket players.
    convenience init(executable: String, arguments: [String], tcp: Bool, tls: Bool = false) throws {
        try self.init(executable: executable, unix: true, tcp: tcp) { socketPath in
            // No journal, no join code, not announced: budgets are what the bench measures.
            ["host", "--socket", socketPath]
                // Its players are raw blocking sockets: plain TCP, on loopback only; the TLS
                // attacks hit a TLS port while the players play on the Unix socket.
                + (tcp ? ["--listen", "127.0.0.1:0"] : []) + (tcp && !tls ? ["--plain-tcp"] : [])
                + arguments
        }
    }

    /// A relay instead (`snapcards relay serve` on 127.0.0.1, a port of its own, its
    /// certificate made in the private directory); `tcpPort` is its port.
    convenience init(relay snapcards: String, arguments: [String]) throws {
        try self.init(executable: snapcards, unix: false, tcp: true) { _ in
            ["relay", "serve", "--listen", "127.0.0.1:0"] + arguments
        }
    }

    /// Starts `executable` with `arguments(socketPath)` and waits until it says it listens
    /// on the Unix socket (`unix`) and on TCP (`tcp`).
    private init(executable: String, unix: Bool, tcp: Bool, arguments: (String) -> [String]) throws {
        var template = Array("/tmp/snapk-XXXXXX".utf8CString)
        directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        socketPath = directory + "/h.sock"
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments(socketPath)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = directory
        environment["XDG_STATE_HOME"] = directory + "/state"
        // A crash ends the process at once (Swift's backtracer can take seconds to symbolicate).
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        _ = FileManager.default.createFile(atPath: directory + "/out", contents: nil)
        _ = FileManager.default.createFile(atPath: directory + "/err", contents: nil)
        logs = [FileHandle(forWritingAtPath: directory + "/out"), FileHandle(forWritingAtPath: directory + "/err")]
        process.standardOutput = logs[0]
        process.standardError = logs[1]
        process.standardInput = FileHandle.nullDevice
        try process.run()
        Self.live.withLock { $0[process.processIdentifier] = directory }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let out = output
            if let line = out.split(separator: "\n").first(where: { $0.hasPrefix("listening on tcp:") }) {
                tcpPort = Int(line.split(separator: ":").last ?? "")
            }
            if !unix || out.contains("listening on unix:"), !tcp || tcpPort != nil { return }
            guard process.isRunning else { break }
            usleep(10_000)
        }
        stop()
        throw BenchError.timedOut("the host to listen (\(errors.prefix(300)))")
    }

    var pid: Int32 { process.processIdentifier }
    var output: String { (try? String(contentsOfFile: directory + "/out", encoding: .utf8)) ?? "" }
    var errors: String { (try? String(contentsOfFile: directory + "/err", encoding: .utf8)) ?? "" }

    var isRunning: Bool {
        _ = sample()
        return process.isRunning
    }

    /// How the process ended, if it did: "exit N" or "signal N".
    var ending: String? {
        guard !process.isRunning else { return nil }
        switch process.terminationReason {
        case .exit: return "exit \(process.terminationStatus)"
        case .uncaughtSignal: return "signal \(process.terminationStatus)"
        @unknown default: return "ended"
        }
    }

    /// Reads VmHWM (kept as the peak seen) and VmRSS, and returns utime + stime in clock ticks.
    @discardableResult
    func sample() -> Int? {
        if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) {
            func kib(_ field: String) -> Int? {
                status.split(separator: "\n").first { $0.hasPrefix(field) }.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }
            }
            if let peak = kib("VmHWM:") { peakRSSKiB = max(peakRSSKiB, peak) }
            if let now = kib("VmRSS:") { rssKiB = now }
        }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // After "pid (comm)": state is field 3, utime field 14, stime field 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }

    /// Its open file descriptors now (sockets included); nil once it is gone.
    var openFiles: Int? { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count }

    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// SIGTERM, then SIGKILL after 2 s; removes the private directory.
    func stop() {
        guard !stopped else { return }
        stopped = true
        if process.isRunning {
            kill(pid, SIGTERM)
            let deadline = Date().addingTimeInterval(2)
            while process.isRunning, Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(pid, SIGKILL) }
            process.waitUntilExit()
        }
        Self.live.withLock { $0[pid] = nil }
        for log in logs { try? log?.close() }
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { stop() }

    private static let live = Locked<[Int32: String]>([:])

    /// Kills every host still running and removes its directory (the bench was interrupted).
    public static func killAll() {
        live.withLock { hosts in
            for (pid, directory) in hosts {
                kill(pid, SIGKILL)
                try? FileManager.default.removeItem(atPath: directory)
            }
        }
    }
}

final class Locked<Value>: @unchecked Sendable {  // every access goes through `lock`
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
