import Foundation
import NIOCore
import SnapNet
import SnapPlatform
import SnapTestSupport
import Testing

/// A fresh directory, removed by the caller (or with the test process's scratch root).
private func temporaryDirectory() -> String { scratchDirectory("socketdir") }

private func mode(_ path: String) -> mode_t? {
    var info = stat()
    return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
}

private func owner(_ path: String) -> uid_t? {
    var info = stat()
    return lstat(path, &info) == 0 ? info.st_uid : nil
}

private func userName(_ uid: uid_t) -> String {
    guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "an unknown user" }
    return String(cString: name)
}

/// XDG_RUNTIME_DIR and HOME both inside a scratch directory.
private struct Scratch {
    let root = temporaryDirectory()
    var runtime: String { root + "/run" }
    var home: String { root + "/home" }
    var preferred: String { runtime + "/snap" }
    var fallback: String { home + "/.local/state/snap/sockets" }
    var environment: [String: String] { ["XDG_RUNTIME_DIR": runtime, "HOME": home] }

    init() {
        mkdir(runtime, 0o700)
        mkdir(home, 0o700)
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }
}

@Suite("the socket directory: private or refused, with a fallback both sides agree on", .blocksThreads)
struct SocketDirectoryTests {
    @Test("a missing preferred directory is created 0700 by the host; clients resolve to it without creating it")
    func createsPreferred() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let client = try SocketDirectory.resolve(environment: scratch.environment, create: false)
        #expect(client == SocketDirectory(path: scratch.preferred))
        #expect(mode(scratch.preferred) == nil)  // a client only looks
        let host = try SocketDirectory.forHost(environment: scratch.environment)
        #expect(host == SocketDirectory(path: scratch.preferred))
        #expect(host.warning == nil)
        #expect(mode(scratch.preferred) == 0o700)
        #expect(SocketDirectory.default(environment: scratch.environment) == host)
    }

    @Test("a preferred directory with mode 0755 is refused, not chmod-ed; the host and clients both use the fallback")
    func looseModeFallsBack() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        #expect(mkdir(scratch.preferred, 0o755) == 0)
        chmod(scratch.preferred, 0o755)
        // Before the host ran: a client already names the fallback (which does not exist yet).
        let before = SocketDirectory.default(environment: scratch.environment)
        #expect(before.path == scratch.fallback)
        #expect(mode(scratch.fallback) == nil)

        let host = try SocketDirectory.forHost(environment: scratch.environment)
        #expect(host.path == scratch.fallback)
        #expect(mode(scratch.fallback) == 0o700)
        #expect(mode(scratch.preferred) == 0o755)  // refused, left alone
        let warning = try #require(host.warning)
        let me = geteuid()
        #expect(warning.hasPrefix("socket directory \(scratch.preferred) is refused"))
        #expect(warning.contains("owned by \(userName(me)) (uid \(me)) with mode 0755"))
        #expect(warning.contains("mode 0700"))
        #expect(warning.contains("using \(scratch.fallback) instead"))
        #expect(warning.contains("XDG_RUNTIME_DIR"))
        #expect(SocketDirectory.default(environment: scratch.environment).path == host.path)
        #expect(host.socketPath(forHost: "Ann") == scratch.fallback + "/Ann.sock")
    }

    @Test("a preferred directory owned by another user (uid 65534) is refused by name and uid",
          .enabled(if: geteuid() == 0, "only root can give a directory to another user"))
    func otherOwnerFallsBack() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        #expect(mkdir(scratch.preferred, 0o700) == 0)
        #expect(chown(scratch.preferred, 65_534, 65_534) == 0)
        let host = try SocketDirectory.forHost(environment: scratch.environment)
        #expect(host.path == scratch.fallback)
        let warning = try #require(host.warning)
        #expect(warning.contains("\(scratch.preferred) is refused: it is owned by \(userName(65_534)) (uid 65534) with mode 0700"))
        #expect(warning.contains("XDG_RUNTIME_DIR"))
        #expect(owner(scratch.preferred) == 65_534)
        #expect(mode(scratch.preferred) == 0o700)
        #expect(SocketDirectory.default(environment: scratch.environment).path == scratch.fallback)
    }

    @Test("/tmp/snap-UID is the preferred directory without XDG_RUNTIME_DIR")
    func tmpWithoutRuntimeDirectory() {
        #expect(SocketDirectory.preferredPath(environment: ["HOME": "/nowhere"]) == "/tmp/snap-\(geteuid())")
        #expect(SocketDirectory.preferredPath(environment: ["XDG_RUNTIME_DIR": ""]) == "/tmp/snap-\(geteuid())")
    }

    @Test("a symbolic link in place of the preferred directory is refused")
    func symlinkRefused() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let target = scratch.root + "/elsewhere"
        mkdir(target, 0o700)
        #expect(symlink(target, scratch.preferred) == 0)
        let host = try SocketDirectory.forHost(environment: scratch.environment)
        #expect(host.path == scratch.fallback)
        #expect(host.warning?.contains("symbolic link") == true)
    }

    @Test("a fallback that is not private is an error naming both directories, never chmod-ed")
    func looseFallbackIsAnError() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        mkdir(scratch.preferred, 0o755)
        chmod(scratch.preferred, 0o755)
        try FileManager.default.createDirectory(atPath: scratch.fallback, withIntermediateDirectories: true)
        chmod(scratch.fallback, 0o755)
        #expect {
            try SocketDirectory.forHost(environment: scratch.environment)
        } throws: { error in
            guard case .socketDirectory(let path, let why) = error as? NetError else { return false }
            return path == scratch.fallback && why.contains("mode 0755") && why.contains(scratch.preferred)
                && why.contains("XDG_RUNTIME_DIR")
        }
        #expect(mode(scratch.fallback) == 0o755)
    }

    @Test("a home so deep that no socket path would fit is a clear error")
    func fallbackTooLong() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        mkdir(scratch.preferred, 0o755)
        chmod(scratch.preferred, 0o755)
        let deepHome = scratch.home + "/" + String(repeating: "h", count: 80)
        #expect {
            try SocketDirectory.forHost(environment: ["XDG_RUNTIME_DIR": scratch.runtime, "HOME": deepHome])
        } throws: { error in
            guard case .socketDirectory(_, let why) = error as? NetError else { return false }
            return why.contains("too long") && why.contains("--socket")
        }
    }

    @Test("prepare() on an explicit directory refuses a loose mode instead of changing it")
    func prepareRefuses() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        mkdir(scratch.preferred, 0o755)
        chmod(scratch.preferred, 0o755)
        #expect(throws: NetError.self) { try SocketDirectory(path: scratch.preferred).prepare() }
        #expect(mode(scratch.preferred) == 0o755)
        let fresh = scratch.root + "/fresh"
        try SocketDirectory(path: fresh).prepare()
        #expect(mode(fresh) == 0o700)
    }

    @Test("bindPrivateUnixSocket: the socket file is 0600 from the bind on, and the umask is left as it was")
    func privateSocket() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let umaskBefore = try processUmask()
        let path = scratch.root + "/s.sock"
        let fd = try bindPrivateUnixSocket(path)
        defer { close(fd) }
        #expect(mode(path) == 0o600)
        #expect(try processUmask() == umaskBefore)
        // A plain bind, for contrast, gets what the umask leaves of 0777: group and others
        // keep every bit the umask does not take (write, which connecting needs, under 002).
        let plain = scratch.root + "/p.sock"
        let other = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(other) }
        #expect(withUnixAddress(plain) { bind(other, $0, $1) } == 0)
        #expect(mode(plain) == 0o777 & ~umaskBefore)
        #expect(mode(plain) != 0o600)
        // A path that is taken is refused with the system's reason, the file left alone.
        #expect(throws: IOError.self) { try bindPrivateUnixSocket(plain) }
        #expect(mode(plain) == 0o777 & ~umaskBefore)
    }

    /// The umask, read without setting it (`umask(2)` can only swap it, for every thread).
    func processUmask() throws -> mode_t {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") })
        return try #require(mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8))
    }
}

@Suite("addresses and error words", .blocksThreads)
struct AddressTests {
    @Test("HOST:PORT parsing: brackets for IPv6, port 0 only to listen")
    func parsing() throws {
        #expect(try parseHostPort("127.0.0.1:7777", for: .connect) == ("127.0.0.1", 7777))
        #expect(try parseHostPort("[::1]:7777", for: .connect) == ("::1", 7777))
        #expect(try parseHostPort("localhost:0", for: .listen) == ("localhost", 0))
        #expect(throws: NetError.badPort("localhost:0", 1...65_535)) { try parseHostPort("localhost:0", for: .connect) }
        #expect(throws: NetError.badPort("h:65536", 0...65_535)) { try parseHostPort("h:65536", for: .listen) }
        for bad in ["nonsense", "::1:7777", "::1", "[::1]", ":7777", "h:", "h:+80", "h:-1", "[host]:1", "h: 80"] {
            #expect(throws: NetError.badAddress(bad)) { try parseHostPort(bad, for: .listen) }
        }
        #expect(NetError.badPort("h:0", 1...65_535).description == "port must be 1–65535: h:0")
        #expect(NetError.badPort("h:70000", 0...65_535).description == "port must be 0–65535 (0 picks a free one): h:70000")
    }

    @Test("printing an address puts an IPv6 host in brackets")
    func printing() {
        #expect(formatHostPort("::1", 7777) == "[::1]:7777")
        #expect(formatHostPort("127.0.0.1", 7777) == "127.0.0.1:7777")
        #expect(Endpoint.tcp(host: "::1", port: 7777).description == "tcp:[::1]:7777")
        #expect(Endpoint.tcp(host: "localhost", port: 1).description == "tcp:localhost:1")
    }

    @Test("NIO's errno text becomes plain words, for listening and connecting")
    func plainWords() {
        let bind = "bind(descriptor:ptr:bytes:): Permission denied (errno: 13)"
        #expect(NetError.cannotListen("0.0.0.0:80", bind).description
                == "cannot listen on 0.0.0.0:80: permission denied (ports below 1024 need root)")
        #expect(NetError.cannotListen("127.0.0.1:7777", "bind(descriptor:ptr:bytes:): Address already in use (errno: 98)")
            .description == "cannot listen on 127.0.0.1:7777: the address is already in use")
        #expect(NetError.cannotListen("10.9.9.9:7777", "bind(descriptor:ptr:bytes:): Cannot assign requested address (errno: 99)")
            .description == "cannot listen on 10.9.9.9:7777: no such address on this machine")
        let refused = "connect(descriptor:addr:size:): Connection refused (errno: 111)"
        #expect(NetError.cannotConnect("tcp:127.0.0.1:1", refused).description
                == "cannot connect to tcp:127.0.0.1:1: nobody is listening there")
        #expect(plainErrno(EAGAIN, unix: true) == "the host is busy (its connection queue is full)")
        #expect(plainErrno(ENOENT, unix: true) == "no such socket file")
        #expect(plainReason(describing: "something else", listening: true, unix: false) == "something else")
    }
}
