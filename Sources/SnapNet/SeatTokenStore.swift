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
        let state = environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? "/tmp") + "/.local/state"
        return SeatTokenStore(directory: state + "/snap/seats")
    }

    func path(for endpoint: Endpoint, name: String) -> String {
        let key = "\(endpoint)-\(name)".map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" }
        return directory + "/" + String(key.suffix(200))
    }

    public func token(for endpoint: Endpoint, name: String) -> SeatToken? {
        guard let file = fopen(path(for: endpoint, name: name), "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 64)
        guard fgets(&buffer, 64, file) != nil else { return nil }
        let text = String(decoding: buffer.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return SeatToken(hex: text)
    }

    /// Best effort: a token that cannot be kept only means no rejoin after a crash.
    public func keep(_ token: SeatToken, for endpoint: Endpoint, name: String) {
        guard makePrivateDirectories(directory) == nil else { return }
        let target = self.path(for: endpoint, name: name)
        let descriptor = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return }
        let line = Array((token.hex + "\n").utf8)
        _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }

    public func forget(for endpoint: Endpoint, name: String) {
        unlink(path(for: endpoint, name: name))
    }
}
