#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SnapProtocol

/// Seat tokens kept between runs in `$XDG_STATE_HOME/snap/seats/` (directory 0700,
/// files 0600), one per game and name, so that a crashed window or bot started again
/// with the same name against the same game takes its seat back.
public struct SeatTokenStore: Sendable {
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    public static func `default`(environment: [String: String] = currentEnvironment()) -> SeatTokenStore {
        SeatTokenStore(directory: snapStateDirectory(environment: environment) + "/seats")
    }

    func path(for endpoint: Endpoint, name: String) -> String {
        let key = "\(endpoint)-\(name)".map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" }
        return directory + "/" + String(key.suffix(200))
    }

    /// A damaged file is as good as none: the seat is taken fresh.
    public func token(for endpoint: Endpoint, name: String) -> SeatToken? {
        (try? SecretFile.load(path(for: endpoint, name: name))) ?? nil
    }

    /// Best effort: a token that cannot be kept only means no rejoin after a crash.
    public func keep(_ token: SeatToken, for endpoint: Endpoint, name: String) {
        _ = try? SecretFile.store(token, at: path(for: endpoint, name: name), exclusive: false)
    }

    public func forget(for endpoint: Endpoint, name: String) {
        unlink(path(for: endpoint, name: name))
    }
}
