#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

/// A real PostgreSQL server of the test process's own: `initdb` into a fresh temporary
/// directory, then `postgres` listening on a Unix socket in that directory and on
/// 127.0.0.1 at a free port, with trust authentication (nothing but this machine reaches
/// either). It is stopped and its directory removed when the test process exits, and by a
/// watchdog if the process dies without exiting.
///
/// initdb and postgres refuse to run as root: as root, both run as the `postgres` user the
/// Debian package creates (`runuser`), in a directory chowned to it, and the server's
/// superuser role is `postgres`; otherwise as the current user, with its name as the role.
///
/// Nothing here skips: if the server cannot start, `start()` throws the reason, with the
/// tail of the server's log.
public final class PostgresServer: @unchecked Sendable {
    /// What went wrong starting or driving the server, in words.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// The server's temporary directory: its data directory `data` and its Unix socket.
    public let directory: String
    public var socketDirectory: String { directory }
    public let port: Int
    /// The role tests connect as (the server's superuser).
    public let role: String
    let bin: String
    /// The OS user the server runs as, when this process is root (else nil: ourselves).
    let runAs: String?
    private let lock = NSLock()
    private var databases = 0

    /// One server for the whole test process, started on first use.
    public static func shared() throws -> PostgresServer {
        try sharedServer.get()
    }
    private static let sharedServer = Result { try PostgresServer.start() }

    /// A new server of its own (a test that stops and restarts it uses one).
    public static func start() throws -> PostgresServer {
        let server = try PostgresServer()
        try server.initialise()
        try server.startServer()
        return server
    }

    private init() throws {
        bin = try Self.binaries()
        let root = geteuid() == 0
        if root {
            guard getpwnam("postgres") != nil else {
                throw Failure("running as root, and there is no `postgres` user to run initdb as: install Debian's postgresql (scripts/install-deps test)")
            }
            runAs = "postgres"
            role = "postgres"
        } else {
            runAs = nil
            role = String(cString: getpwuid(geteuid()).pointee.pw_name)
        }
        // Not under the scratch root: that is 0700 and root's, and the server's user must
        // reach its own directory. /tmp keeps the socket's path well under 108 bytes.
        var template = Array("/tmp/snap-pg-\(getpid())-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw Failure("cannot make a temporary directory for PostgreSQL: \(String(cString: strerror(errno)))")
        }
        directory = String(cString: made)
        port = try Self.freePort()
        if let runAs, let user = getpwnam(runAs) {
            guard chown(directory, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
                throw Failure("cannot give \(directory) to \(runAs): \(String(cString: strerror(errno)))")
            }
        }
        Self.cleanup.register(self)
        startWatchdog()
    }

    /// `postgres://ROLE@/DB?host=SOCKETDIR&port=PORT`: the Unix-socket form.
    public func socketURL(_ database: String) -> String {
        "postgres://\(role)@/\(database)?host=\(socketDirectory)&port=\(port)"
    }

    /// `postgres://ROLE@127.0.0.1:PORT/DB`: the TCP form.
    public func tcpURL(_ database: String) -> String {
        "postgres://\(role)@127.0.0.1:\(port)/\(database)"
    }

    /// A new empty database, named `prefix_N`.
    public func createDatabase(_ prefix: String = "story") throws -> String {
        let name: String = lock.withLock {
            databases += 1
            return "\(prefix)_\(databases)"
        }
        try run(bin + "/createdb", ["-h", socketDirectory, "-p", String(port), "-U", role, name], as: nil)
        return name
    }

    /// Runs SQL through psql on `database` (for a test to set a database up by hand).
    @discardableResult
    public func psql(_ database: String, _ sql: String) throws -> String {
        try run(bin + "/psql", ["-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-h", socketDirectory, "-p", String(port),
                                "-U", role, "-d", database, "-c", sql], as: nil)
    }

    /// Stops the server (fast shutdown: connections are closed at once).
    public func stop() throws {
        try pgctl(["stop", "-m", "fast", "-w", "-t", "30"])
    }

    /// Starts the server again after `stop()`, on the same directory and port.
    public func restart() throws {
        try startServer()
    }

    private func initialise() throws {
        let auth = ["--auth=trust", "-U", role, "-E", "UTF8", "--locale=C", "--no-sync"]
        try run(bin + "/initdb", ["-D", directory + "/data"] + auth, as: runAs)
    }

    private func startServer() throws {
        let options = "-k \(socketDirectory) -h 127.0.0.1 -p \(port) -c fsync=off -c full_page_writes=off "
            + "-c max_connections=200 -c max_files_per_process=20000"
        do {
            try pgctl(["start", "-w", "-t", "300", "-l", directory + "/server.log", "-o", options])
        } catch {
            let log = (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? ""
            throw Failure("PostgreSQL did not start: \(error)\nserver.log ends:\n\(log.split(separator: "\n").suffix(15).joined(separator: "\n"))")
        }
    }

    private func pgctl(_ arguments: [String]) throws {
        try run(bin + "/pg_ctl", ["-D", directory + "/data"] + arguments, as: runAs)
    }

    /// Stops the server at once and removes its directory (at exit).
    fileprivate func destroy() {
        _ = try? run(bin + "/pg_ctl", ["-D", directory + "/data", "stop", "-m", "immediate", "-w", "-t", "10"], as: runAs)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A root shell that outlives this process only to stop the server and remove its
    /// directory once this process is gone, however it ended.
    private func startWatchdog() {
        let ctl = "\(bin)/pg_ctl -D \(directory)/data stop -m immediate -w -t 10"
        let stop = runAs.map { "\(Self.runuser) -u \($0) -- \(ctl)" } ?? ctl
        let script = "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(stop) >/dev/null 2>&1; rm -rf \(directory)"
        // Every descriptor it inherits is closed first: it lives as long as this process, and
        // a connection of another test's open at its start (NIO's accepted sockets are not
        // close-on-exec) would stay open in it after that test's host closed it: its reader
        // never saw the end (CI's back-pressure test, "a reader that is behind…", failed so).
        _ = try? spawn("/bin/bash", ["-c", Self.closeInherited + script], output: "/dev/null")
    }

    /// Bash closes every descriptor above stderr it inherited (posix_spawn's closefrom is not
    /// in Swift's Glibc): what `spawn` starts holds nothing of this process's.
    private static let closeInherited =
        "for fd in /proc/$$/fd/*; do n=${fd##*/}; [ \"$n\" -gt 2 ] 2>/dev/null && eval \"exec $n>&-\" 2>/dev/null; done; "

    /// Runs `path` (as `user` through runuser, when given) and returns its output; throws
    /// its exit status and output if it fails. (posix_spawn and waitpid: Foundation's
    /// Process waited for ever here once pg_ctl had left a server running.)
    @discardableResult
    private func run(_ path: String, _ arguments: [String], as user: String?) throws -> String {
        // From /, which the server's user can reach whatever this process's directory is.
        // The server would inherit this process's open descriptors (a full test run holds a
        // thousand) and count them against its own limit ("insufficient file descriptors
        // available to start server process"): bash closes every one above stderr first
        // (posix_spawn's closefrom is not in Swift's Glibc), and the limit is raised.
        let raise = "ulimit -n 65536 2>/dev/null || ulimit -n \"$(ulimit -Hn)\" 2>/dev/null; " + Self.closeInherited + "exec \"$@\""
        let command = ["/bin/bash", "-c", raise, "bash", "/usr/bin/env", "-C", "/"]
            + (user.map { [Self.runuser, "-u", $0, "--", path] + arguments } ?? [path] + arguments)
        let file = directory + "/out-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: file) }
        let pid = try spawn(command[0], Array(command.dropFirst()), output: file)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        guard exited && code == 0 else {
            throw Failure("\(command.joined(separator: " ")) failed (status \(exited ? code : -(status & 0x7f))): \(text)")
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Starts `path` with stdin from /dev/null and stdout and stderr to `output`.
    private func spawn(_ path: String, _ arguments: [String], output: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard result == 0 else { throw Failure("cannot run \(path): \(String(cString: strerror(result)))") }
        return pid
    }

    private static let runuser = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"]
        .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/sbin/runuser"

    /// The newest installed server's binaries (Debian: /usr/lib/postgresql/N/bin).
    static func binaries() throws -> String {
        let base = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: base)) ?? [])
            .compactMap(Int.init).sorted()
        for version in versions.reversed() where FileManager.default.isExecutableFile(atPath: "\(base)/\(version)/bin/initdb") {
            return "\(base)/\(version)/bin"
        }
        throw Failure("no PostgreSQL server is installed (no \(base)/N/bin/initdb): install Debian's postgresql (scripts/install-deps test)")
    }

    /// A TCP port on 127.0.0.1 nothing listens on now.
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw Failure("no free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Every server this process started, stopped and removed at exit.
    private final class Cleanup: @unchecked Sendable {
        private let lock = NSLock()
        private var servers: [PostgresServer] = []
        private var registered = false

        func register(_ server: PostgresServer) {
            lock.withLock {
                servers.append(server)
                if !registered {
                    registered = true
                    atexit { PostgresServer.cleanup.destroyAll() }
                }
            }
        }

        func destroyAll() {
            let all = lock.withLock { () -> [PostgresServer] in
                defer { servers = [] }
                return servers
            }
            for server in all { server.destroy() }
        }
    }
    private static let cleanup = Cleanup()
}
