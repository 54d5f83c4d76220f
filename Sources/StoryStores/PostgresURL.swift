/// Opens the PostgreSQL store at a URL, with `PGPASSWORD`'s password (nil: none):
/// `PostgresStoryStore.opener`, in StoryStoresPostgres, which only snapcards-story-postgres
/// and snap-bench link (docs/ARCHITECTURE.md, "The PostgreSQL helper").
public typealias PostgresStoreOpener = @Sendable (_ url: PostgresURL, _ password: String?) async throws -> any StoryStore

/// Where a PostgreSQL story database is, as `snapcards story serve --database` takes it:
///
/// - `postgres://USER@HOST[:PORT]/DB` (TCP; `[::1]` for an IPv6 address), and
/// - `postgres://USER@/DB?host=/path/to/socketdir[&port=PORT]` (the server's Unix socket
///   `SOCKETDIR/.s.PGSQL.PORT`, as libpq names it),
///
/// `postgresql://` too. `sslmode=disable|prefer|require|verify-full` may follow (TCP:
/// `prefer` unless said). A password never goes in the URL, which is printed and kept in
/// shell histories and unit files: it comes from `PGPASSWORD`, and a URL carrying one is
/// refused without repeating it.
public struct PostgresURL: Hashable, Sendable, CustomStringConvertible {
    public enum Endpoint: Hashable, Sendable {
        case tcp(host: String, port: Int)
        /// The directory of the server's socket, and the port naming the socket's file.
        case socket(directory: String, port: Int)
    }

    public enum TLSMode: String, Hashable, Sendable {
        case disable, prefer, require
        case verifyFull = "verify-full"
    }

    /// A URL that is not one of the forms above, in words that say which part is wrong
    /// (never echoing a password).
    public struct Invalid: Error, Hashable, Sendable, CustomStringConvertible {
        public let description: String
        init(_ why: String) { description = why }
    }

    public static let defaultPort = 5432

    public var user: String
    public var database: String
    public var endpoint: Endpoint
    public var tls: TLSMode

    public init(user: String, database: String, endpoint: Endpoint, tls: TLSMode? = nil) {
        self.user = user
        self.database = database
        self.endpoint = endpoint
        if let tls {
            self.tls = tls
        } else if case .tcp = endpoint {
            self.tls = .prefer
        } else {
            self.tls = .disable
        }
    }

    /// The path of the server's socket file, for the socket form.
    public var socketPath: String? {
        guard case .socket(let directory, let port) = endpoint else { return nil }
        return (directory.hasSuffix("/") ? directory : directory + "/") + ".s.PGSQL.\(port)"
    }

    /// `HOST/DB` (`HOST:PORT/DB` off the default port), or `SOCKETDIR/DB`: what the service
    /// prints after "store: postgres ". It holds no user and no password.
    public var description: String {
        switch endpoint {
        case .tcp(let host, let port):
            let shownHost = host.contains(":") ? "[\(host)]" : host
            return port == Self.defaultPort ? "\(shownHost)/\(database)" : "\(shownHost):\(port)/\(database)"
        case .socket(let directory, let port):
            let shown = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
            return port == Self.defaultPort ? "\(shown)/\(database)" : "\(shown):\(port)/\(database)"
        }
    }

    /// Whether `text` is meant as a PostgreSQL URL (whatever else is wrong with it).
    public static func isPostgres(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    public init(_ text: String) throws(Invalid) {
        var rest: Substring
        if text.hasPrefix("postgres://") {
            rest = text.dropFirst("postgres://".count)
        } else if text.hasPrefix("postgresql://") {
            rest = text.dropFirst("postgresql://".count)
        } else {
            throw Invalid("a PostgreSQL database is named by a URL starting postgres:// or postgresql://, "
                + "such as postgres://USER@HOST/DB or postgres://USER@/DB?host=/run/postgresql")
        }
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        guard let slash = rest.firstIndex(of: "/") else {
            throw Invalid("the URL names no database: add /DB after the host, as in postgres://USER@HOST/DB")
        }
        let authority = rest[..<slash]
        let path = rest[rest.index(after: slash)...]
        guard let at = authority.lastIndex(of: "@") else {
            throw Invalid("the URL names no user: write it before the host, as in postgres://USER@HOST/DB")
        }
        let userInfo = authority[..<at]
        let hostPort = authority[authority.index(after: at)...]
        if userInfo.contains(":") {
            throw Invalid("the URL carries a password, which would be printed and kept in shell histories: "
                + "remove it from the URL and set PGPASSWORD instead")
        }
        let user = try Self.decode(userInfo, "user")
        guard !user.isEmpty else { throw Invalid("the URL's user is empty: postgres://USER@HOST/DB") }
        guard !path.isEmpty, !path.contains("/") else {
            throw Invalid("the URL's database must be one name after the host (postgres://USER@HOST/DB), not \"\(path)\"")
        }
        let database = try Self.decode(path, "database")

        var socketDirectory: String?
        var socketPort: Int?
        var tls: TLSMode?
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(parts[0])
            let value = try Self.decode(parts.count > 1 ? parts[1] : "", key)
            switch key {
            case "host":
                guard value.hasPrefix("/") else {
                    throw Invalid("?host= takes the absolute path of the server's socket directory (such as /run/postgresql), not \"\(value)\"")
                }
                socketDirectory = value
            case "port":
                socketPort = try Self.port(value)
            case "sslmode":
                guard let mode = TLSMode(rawValue: value) else {
                    throw Invalid("sslmode is disable, prefer, require or verify-full, not \"\(value)\"")
                }
                tls = mode
            case "password":
                throw Invalid("the URL carries a password, which would be printed and kept in shell histories: "
                    + "remove ?password= from the URL and set PGPASSWORD instead")
            default:
                throw Invalid("the URL's parameter \"\(key)\" is not one snap knows (host, port, sslmode)")
            }
        }

        if let socketDirectory {
            guard hostPort.isEmpty else {
                throw Invalid("the URL names both a host and a socket directory (?host=): leave the host out, as in postgres://USER@/DB?host=/run/postgresql")
            }
            self.init(user: user, database: database,
                      endpoint: .socket(directory: socketDirectory, port: socketPort ?? Self.defaultPort), tls: tls)
            return
        }
        guard !hostPort.isEmpty else {
            throw Invalid("the URL names no host: postgres://USER@HOST/DB over TCP, or postgres://USER@/DB?host=SOCKETDIR for a Unix socket")
        }
        var host: Substring
        var port: Int? = socketPort
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else { throw Invalid("the URL's IPv6 address has no closing ]") }
            host = hostPort[hostPort.index(after: hostPort.startIndex)..<close]
            let after = hostPort[hostPort.index(after: close)...]
            if after.hasPrefix(":") {
                port = try Self.port(String(after.dropFirst()))
            } else if !after.isEmpty {
                throw Invalid("the URL has \"\(after)\" after its IPv6 address")
            }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = hostPort[..<colon]
            port = try Self.port(String(hostPort[hostPort.index(after: colon)...]))
        } else {
            host = hostPort
        }
        guard !host.isEmpty else { throw Invalid("the URL's host is empty") }
        self.init(user: user, database: database,
                  endpoint: .tcp(host: try Self.decode(host, "host"), port: port ?? Self.defaultPort), tls: tls)
    }

    private static func port(_ text: String) throws(Invalid) -> Int {
        guard let port = Int(text), (1...65535).contains(port) else {
            throw Invalid("the URL's port must be a number from 1 to 65535, not \"\(text)\"")
        }
        return port
    }

    /// `%XX` escapes decoded; anything else malformed is refused.
    private static func decode(_ text: Substring, _ what: String) throws(Invalid) -> String {
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%") {
                guard utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) else {
                    throw Invalid("the URL's \(what) has a % not followed by two hexadecimal digits")
                }
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw Invalid("the URL's \(what) is not UTF-8 once decoded")
        }
        return decoded
    }
}
