#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where hosts on this machine put their Unix sockets: `$XDG_RUNTIME_DIR/snap/`
/// (0700), or `/tmp/snap-<uid>/` when that variable is unset. One socket per host,
/// `<host-name>.sock`, mode 0600.
public struct SocketDirectory: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    public static func `default`(environment: [String: String] = currentEnvironment()) -> SocketDirectory {
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return SocketDirectory(path: runtime + "/snap")
        }
        return SocketDirectory(path: "/tmp/snap-\(getuid())")
    }

    public func socketPath(forHost name: String) -> String { path + "/" + name + ".sock" }

    /// Creates the directory (0700) if needed, and refuses one that others could write to.
    public func prepare() throws(NetError) {
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            throw .socketDirectory(path, "cannot create it: \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .socketDirectory(path, String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .socketDirectory(path, "it is not a directory") }
        guard info.st_uid == getuid() else { throw .socketDirectory(path, "it belongs to another user") }
        if info.st_mode & 0o077 != 0 { chmod(path, 0o700) }
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
}

public func currentEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var pointer = environ
    while let entry = pointer.pointee {
        let pair = String(cString: entry)
        if let equals = pair.firstIndex(of: "=") {
            result[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        pointer += 1
    }
    return result
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
    guard path.utf8.count < 108 else { throw .pathTooLong(path) }
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
    case badAddress(String)
    case noHost(String)

    public var description: String {
        switch self {
        case .socketDirectory(let path, let why): "socket directory \(path): \(why)"
        case .pathTooLong(let path): "socket path is too long for a Unix socket (108 bytes at most): \(path)"
        case .hostNameTaken(let path): "a host is already running at \(path): choose another --name"
        case .cannotListen(let where_, let why): "cannot listen on \(where_): \(why)"
        case .cannotConnect(let where_, let why): "no network: cannot connect to \(where_): \(why)"
        case .badAddress(let text): "not an address of the form HOST:PORT: \(text)"
        case .noHost(let why): why
        }
    }
}

/// "127.0.0.1:7777", "[::1]:7777", "localhost:0".
public func parseHostPort(_ text: String) throws(NetError) -> (host: String, port: Int) {
    guard let colon = text.lastIndex(of: ":") else { throw .badAddress(text) }
    var host = String(text[..<colon])
    if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    guard !host.isEmpty, let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else {
        throw .badAddress(text)
    }
    return (host, port)
}
