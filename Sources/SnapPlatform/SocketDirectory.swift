#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import NIOCore
import NIOPosix
import SnapFiles

/// Where hosts on this machine put their Unix sockets. One socket per host,
/// `<host-name>.sock`, mode 0600, in a directory that must be the user's own and 0700:
///
/// 1. `$XDG_RUNTIME_DIR/snap/`, or `/tmp/snap-<uid>/` when that variable is unset or empty;
/// 2. if that directory exists but is not private (another owner, a mode other than
///    0700, not a directory), or cannot be created, `$HOME/.local/state/snap/sockets/`.
///
/// Hosts and clients resolve the directory with the same function
/// (`resolve(environment:create:)`): the host creates, clients only look, so both land on
/// the same directory. A directory Snap! did not create is never chmod-ed: it is refused.
public struct SocketDirectory: Sendable, Equatable {
    public let path: String
    /// Why the preferred directory was passed over for the fallback (the host prints it).
    public let warning: String?

    public init(path: String) {
        self.init(path: path, warning: nil)
    }

    public init(path: String, warning: String?) {
        self.path = path
        self.warning = warning
    }

    /// Unix socket paths are at most 107 bytes (108 with the terminating zero).
    public static let maxSocketPathBytes = 107
    /// Below the home directory, used when the preferred directory cannot be trusted.
    public static let fallbackSuffix = "/.local/state/snap/sockets"

    /// The directory clients look in: never creates anything and never fails (a directory
    /// that cannot be used simply holds no games).
    public static func `default`(environment: [String: String] = currentEnvironment()) -> SocketDirectory {
        (try? resolve(environment: environment, create: false))
            ?? SocketDirectory(path: preferredPath(environment: environment))
    }

    /// The directory a host listens in: resolved as clients do, created when missing.
    public static func forHost(environment: [String: String] = currentEnvironment()) throws(NetError) -> SocketDirectory {
        try resolve(environment: environment, create: true)
    }

    /// `$XDG_RUNTIME_DIR/snap`, or `/tmp/snap-<uid>`.
    public static func preferredPath(environment: [String: String]) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty { return runtime + "/snap" }
        return "/tmp/snap-\(geteuid())"
    }

    /// The one resolution both sides use. The preferred directory is taken when it is
    /// private, or when it is absent and its parent lets this user create it; otherwise
    /// the fallback under the home directory, with a `warning` saying why.
    public static func resolve(environment: [String: String], create: Bool) throws(NetError) -> SocketDirectory {
        let preferred = preferredPath(environment: environment)
        var problem: String
        switch inspect(preferred) {
        case .privateDirectory:
            return SocketDirectory(path: preferred)
        case .absent(let creatable, let why):
            problem = why
            if creatable {
                guard create else { return SocketDirectory(path: preferred) }
                if mkdir(preferred, 0o700) == 0 {
                    chmod(preferred, 0o700)  // ours: a umask may have taken bits away
                    return SocketDirectory(path: preferred)
                }
                let code = errno
                if code == EEXIST, case .privateDirectory = inspect(preferred) { return SocketDirectory(path: preferred) }
                problem = code == EEXIST ? describeUnusable(preferred) : "cannot be created: \(plainErrno(code))"
            }
        case .unusable(let why):
            problem = why
        }
        let advice = "to choose, set XDG_RUNTIME_DIR to a private directory (yours, mode 0700)"
        guard let home = homeDirectory(environment: environment) else {
            throw .socketDirectory(preferred, "\(problem); and there is no home directory to fall back to; \(advice)")
        }
        let fallback = home + fallbackSuffix
        let warning = "socket directory \(preferred) \(problem); using \(fallback) instead; \(advice)"
        // The shortest socket name is "x.sock": the directory, "/" and 6 bytes must fit.
        guard fallback.utf8.count + 7 <= maxSocketPathBytes else {
            throw .socketDirectory(fallback, "is too long for Unix socket paths (\(maxSocketPathBytes) bytes at most, "
                                   + "socket name included); \(preferred) \(problem); \(advice), or pass --socket PATH")
        }
        if create { try makeDirectories(fallback) }
        switch inspect(fallback) {
        case .privateDirectory:
            return SocketDirectory(path: fallback, warning: warning)
        case .absent where !create:
            return SocketDirectory(path: fallback, warning: warning)
        case .absent(_, let why), .unusable(let why):
            throw .socketDirectory(fallback, "\(why) (fallback, because \(preferred) \(problem)); \(advice)")
        }
    }

    public func socketPath(forHost name: String) -> String { path + "/" + name + ".sock" }

    /// Creates this exact directory (0700) if it is missing, and refuses one that is not
    /// the user's own with mode 0700. Never changes the mode of a directory it did not create.
    public func prepare() throws(NetError) {
        if mkdir(path, 0o700) == 0 {
            chmod(path, 0o700)
            return
        }
        let code = errno
        guard code == EEXIST else { throw .socketDirectory(path, "cannot create it: \(plainErrno(code))") }
        if case .unusable(let why) = Self.inspect(path) { throw .socketDirectory(path, why) }
    }

    /// The socket files here, sorted by name.
    public func socketFiles() -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".sock") { names.append(path + "/" + name) }
        }
        return names.sorted()
    }

    // MARK: - Checking a directory

    enum Inspection {
        case privateDirectory
        /// Missing; `creatable` when its parent is a directory this user may write to.
        case absent(creatable: Bool, why: String)
        case unusable(String)
    }

    static func inspect(_ path: String) -> Inspection {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let code = errno
            guard code == ENOENT else { return .unusable("cannot be examined: \(plainErrno(code))") }
            let parent = parentPath(path)
            var parentInfo = stat()
            let creatable = stat(parent, &parentInfo) == 0 && parentInfo.st_mode & S_IFMT == S_IFDIR
                && access(parent, W_OK | X_OK) == 0
            return .absent(creatable: creatable, why: creatable ? "does not exist" : "cannot be created in \(parent)")
        }
        guard info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid(), info.st_mode & 0o777 == 0o700 else {
            return .unusable(describeUnusable(path, info))
        }
        return .privateDirectory
    }

    /// "is refused: it is owned by nobody (uid 65534) with mode 0700, and must be a directory
    /// of ann (uid 1000) with mode 0700".
    static func describeUnusable(_ path: String, _ known: stat? = nil) -> String {
        var info = stat()
        if let known { info = known } else if lstat(path, &info) != 0 { return "cannot be examined: \(plainErrno(errno))" }
        let kind: String
        switch info.st_mode & S_IFMT {
        case S_IFDIR: kind = ""
        case S_IFLNK: kind = "is a symbolic link, "
        default: kind = "is not a directory, "
        }
        let mode = String(info.st_mode & 0o7777, radix: 8)
        let octal = String(repeating: "0", count: max(0, 4 - mode.count)) + mode
        return "is refused: it \(kind)is owned by \(userName(info.st_uid)) (uid \(info.st_uid)) with mode \(octal), "
            + "and must be a directory of \(userName(geteuid())) (uid \(geteuid())) with mode 0700"
    }

    static func userName(_ uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "an unknown user" }
        return String(cString: name)
    }

    static func homeDirectory(environment: [String: String]) -> String? {
        if let home = environment["HOME"], home.hasPrefix("/") { return home.count > 1 && home.hasSuffix("/") ? String(home.dropLast()) : home }
        guard let entry = getpwuid(geteuid()), let directory = entry.pointee.pw_dir else { return nil }
        let home = String(cString: directory)
        return home.hasPrefix("/") ? home : nil
    }

    static func parentPath(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `mkdir -p` with mode 0700 for every directory it creates.
    static func makeDirectories(_ path: String) throws(NetError) {
        if let failed = makePrivateDirectories(path) {
            throw .socketDirectory(path, "cannot create \(failed.directory): \(plainErrno(failed.errno))")
        }
    }
}

/// A Unix stream socket bound at `path` and created 0600 (never, even for a moment, open
/// to other users), for a server bootstrap's `withBoundSocket` (NIO listens on it).
///
/// On Linux a socket file is made with the socket's own mode, less the umask, so the mode
/// is set on the socket before the bind. The umask is left alone: it is the whole
/// process's, and setting it around a bind took permissions from whatever another
/// thread created meanwhile (a 0700 directory came out 0600).
public func bindPrivateUnixSocket(_ path: String) throws -> CInt {
    let address = try SocketAddress(unixDomainSocketPath: path)
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw IOError(errnoCode: errno, reason: "socket") }
    guard fchmod(fd, 0o600) == 0 else {
        let failed = errno
        close(fd)
        throw IOError(errnoCode: failed, reason: "fchmod")
    }
    let bound = address.withSockAddr { pointer, size in bind(fd, pointer, socklen_t(size)) }
    guard bound == 0 else {
        let failed = errno
        close(fd)
        throw IOError(errnoCode: failed, reason: "bind")
    }
    return fd
}

/// What is at a socket path before a host binds it.
public enum SocketFileState: Equatable, Sendable {
    case absent
    /// A socket file nobody listens on: left by a host that crashed. Safe to remove.
    case stale
    /// A host is listening there.
    case live
    /// Something that is not a socket: never removed.
    case notASocket
}

public func socketFileState(_ path: String) -> SocketFileState {
    var info = stat()
    guard lstat(path, &info) == 0 else { return .absent }
    guard info.st_mode & S_IFMT == S_IFSOCK else { return .notASocket }
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return .live }
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return .live }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (index, byte) in bytes.enumerated() { raw[index] = byte }
    }
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    if result == 0 { return .live }
    return errno == ECONNREFUSED || errno == ENOENT ? .stale : .live
}

/// Makes `path` free for a new host: removes a stale socket, refuses a live one or a non-socket.
public func claimSocketPath(_ path: String) throws(NetError) {
    guard path.utf8.count <= SocketDirectory.maxSocketPathBytes else { throw .pathTooLong(path) }
    switch socketFileState(path) {
    case .absent: return
    case .stale:
        if unlink(path) != 0 { throw .cannotListen(path, "cannot remove the stale socket: \(String(cString: strerror(errno)))") }
    case .live: throw .hostNameTaken(path)
    case .notASocket: throw .cannotListen(path, "a file that is not a socket is in the way; not touching it")
    }
}

public enum NetError: Error, CustomStringConvertible, Equatable {
    case socketDirectory(String, String)
    case pathTooLong(String)
    case hostNameTaken(String)
    case cannotListen(String, String)
    case cannotConnect(String, String)
    /// The host's connection queue stayed full for the whole retry bound.
    case hostBusy(String, String)
    case badAddress(String)
    /// A port outside the range its use allows (0–65535 to listen, 1–65535 to connect).
    case badPort(String, ClosedRange<Int>)
    case noHost(String)
    /// Over TCP: the server's certificate was not trusted, or TLS could not be set up.
    case untrusted(TLSRefusal)

    public var description: String {
        switch self {
        case .socketDirectory(let path, let why): "socket directory \(path): \(why)"
        case .pathTooLong(let path):
            "socket path is too long for a Unix socket (\(SocketDirectory.maxSocketPathBytes) bytes at most): \(path); "
                + "choose a shorter --name, or pass a shorter --socket PATH"
        case .hostNameTaken(let path): "a host is already running at \(path): choose another --name"
        case .cannotListen(let where_, let why):
            "cannot listen on \(where_): \(plainReason(describing: why, listening: true, unix: where_.hasPrefix("/")))"
        case .cannotConnect(let where_, let why):
            "cannot connect to \(where_): \(plainReason(describing: why, listening: false, unix: where_.hasPrefix("unix:")))"
        case .hostBusy(let where_, let why): "host busy: \(where_) \(why)"
        case .badAddress(let text): "not an address of the form HOST:PORT (IPv6 in brackets, e.g. [::1]:7777): \(text)"
        case .badPort(let text, let range):
            "port must be \(range.lowerBound)–\(range.upperBound)\(range.lowerBound == 0 ? " (0 picks a free one)" : ""): \(text)"
        case .noHost(let why): why
        case .untrusted(let refusal): refusal.description
        }
    }
}

// MARK: - Plain words for socket errors

/// The one table from errno to words a player can act on, for listening and connecting.
public func plainErrno(_ code: Int32, listening: Bool = false, unix: Bool = false) -> String {
    switch code {
    case EADDRINUSE: return "the address is already in use"
    case EACCES, EPERM:
        return listening && !unix ? "permission denied (ports below 1024 need root)" : "permission denied"
    case EADDRNOTAVAIL: return "no such address on this machine"
    case ECONNREFUSED: return unix ? "nobody is listening there (a stale socket file)" : "nobody is listening there"
    case EAGAIN: return "the host is busy (its connection queue is full)"
    case ENOENT: return unix ? "no such socket file" : "no such file or directory"
    case ETIMEDOUT: return "no answer in time"
    case EHOSTUNREACH, ENETUNREACH: return "no route to that machine"
    case ECONNRESET: return "the connection was reset"
    case EAFNOSUPPORT: return "this machine does not support that kind of address"
    case ENAMETOOLONG: return "the path is too long"
    case ENOTDIR: return "a part of the path is not a directory"
    case EROFS: return "the file system is read-only"
    case ENOSPC: return "no space left on the device"
    default: return String(cString: strerror(code))
    }
}

/// Plain words for an error of listening or connecting (NIO's `IOError`, a failed
/// connection to a host name, a timeout, an unknown host).
public func plainReason(_ error: Error, listening: Bool, unix: Bool) -> String {
    switch error {
    case let error as IOError:
        return plainErrno(error.errnoCode, listening: listening, unix: unix)
    case let error as NIOConnectionError:
        if error.dnsAError != nil || error.dnsAAAAError != nil, error.connectionErrors.isEmpty {
            return "unknown host name \(error.host)"
        }
        if let first = error.connectionErrors.first { return plainReason(first.error, listening: listening, unix: unix) }
        return "no address found for \(error.host)"
    case ChannelError.connectTimeout: return "no answer in time"
    case let error as SocketAddressError.UnknownHost: return "unknown host name \(error.host)"
    case SocketAddressError.unixDomainSocketPathTooLong:
        return "the path is too long for a Unix socket (\(SocketDirectory.maxSocketPathBytes) bytes at most)"
    case let error as NetError: return error.description
    default: return plainReason(describing: "\(error)", listening: listening, unix: unix)
    }
}

/// The same words for an error already turned into text: NIO writes errno failures as
/// "bind(descriptor:ptr:bytes:): Permission denied (errno: 13)". Other text is kept.
public func plainReason(describing text: String, listening: Bool, unix: Bool) -> String {
    guard let marker = text.ranges(of: "(errno: ").last,
          let close = text[marker.upperBound...].firstIndex(of: ")"),
          let code = Int32(text[marker.upperBound..<close]) else { return text }
    return plainErrno(code, listening: listening, unix: unix)
}

// MARK: - Addresses

/// What an address on the command line is for: a host may listen on port 0 (the system
/// picks one); a client must name a real port.
public enum AddressUse: Sendable {
    case listen, connect

    public var ports: ClosedRange<Int> { self == .listen ? 0...65_535 : 1...65_535 }
}

/// "127.0.0.1:7777", "[::1]:7777", "localhost:0". An IPv6 address must be in brackets.
public func parseHostPort(_ text: String, for use: AddressUse) throws(NetError) -> (host: String, port: Int) {
    guard let colon = text.lastIndex(of: ":") else { throw .badAddress(text) }
    var host = String(text[..<colon])
    let portText = text[text.index(after: colon)...]
    if host.hasPrefix("["), host.hasSuffix("]") {
        host = String(host.dropFirst().dropLast())
        guard host.contains(":") else { throw .badAddress(text) }
    } else if host.contains(":") || host.contains("[") || host.contains("]") {
        throw .badAddress(text)
    }
    guard !host.isEmpty, !portText.isEmpty, portText.allSatisfy(\.isASCII), portText.allSatisfy(\.isNumber) else {
        throw .badAddress(text)
    }
    guard let port = Int(portText), use.ports.contains(port) else { throw .badPort(text, use.ports) }
    return (host, port)
}

/// The inverse of `parseHostPort`: brackets around a host that contains ':' (IPv6).
public func formatHostPort(_ host: String, _ port: Int) -> String {
    host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
}
