#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A command that could not be started (posix_spawn or execv failed).
public struct ProcessStartFailure: Error, CustomStringConvertible, Equatable {
    public var path: String
    public var errno: Int32
    public var description: String { "cannot run \(path): \(String(cString: strerror(errno)))" }
}

/// The running executable's own file: /proc/self/exe (argv[0] may be a bare name found on
/// PATH, or a symbolic link); argv[0] where /proc is missing.
public func currentExecutablePath() -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard length > 0 else { return CommandLine.arguments[0] }
    return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// A command started beside this one, sharing its standard input, output and error (as
/// Foundation's `Process` ran it, without full Foundation in the binary: docs/PERFORMANCE.md).
public final class ChildProcess {
    public let pid: pid_t
    private var exited = false

    /// Starts `executable` (a path, never looked up on PATH) with `arguments` and this
    /// process's environment; its signal mask and dispositions start at the defaults.
    public init(executable: String, arguments: [String]) throws(ProcessStartFailure) {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var child = pid_t()
        let result = withCStrings([executable] + arguments) { argv in
            posix_spawn(&child, executable, nil, &attributes, argv, environ)
        }
        guard result == 0 else { throw ProcessStartFailure(path: executable, errno: result) }
        pid = child
    }

    /// False once the command has ended (and it is reaped then).
    public var isRunning: Bool {
        guard !exited else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { exited = true }
        return !exited
    }

    /// Asks it to stop (SIGTERM).
    public func terminate() {
        if isRunning { kill(pid, SIGTERM) }
    }
}

/// Runs `executable` in this process's place (execv: the same process id, environment and
/// open descriptors), with `arguments` after its own path. Returns only when it cannot.
public func replaceProcess(executable: String, arguments: [String]) -> ProcessStartFailure {
    _ = withCStrings([executable] + arguments) { argv in execv(executable, argv) }
    return ProcessStartFailure(path: executable, errno: errno)
}

/// `strings` as a NULL-terminated argv, alive for `body`.
private func withCStrings<T>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> T) -> T {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { for pointer in pointers { free(pointer) } }
    return body(pointers)
}
