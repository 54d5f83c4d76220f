#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SnapBytes
import SnapFiles
import SnapPlatform
import Crypto
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

    /// One file per game and name, and never one for two: a readable part for people
    /// looking in the folder, then the SHA-256 of the endpoint and the name, so that
    /// "Ann B", "Ann.B" and "Ann_B" (once all `Ann_B`) cannot share a token.
    func path(for endpoint: Endpoint, name: String) -> String {
        let readable = String(name.map { $0.isLetter || $0.isNumber ? $0 : "_" }.prefix(40))
        let digest = SHA256.hash(data: Array("\(endpoint)".utf8) + [0] + Array(name.utf8))
        return directory + "/" + readable + "-" + digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// A damaged file is as good as none: the seat is taken fresh.
    public func token(for endpoint: Endpoint, name: String) -> SeatToken? {
        (try? SecretFile.load(path(for: endpoint, name: name))) ?? nil
    }

    /// Best effort: a token that cannot be kept only means no rejoin after a crash.
    /// The name goes on the file's second line, so a window opened again under another
    /// name can find the seat (`keptNames`).
    public func keep(_ token: SeatToken, for endpoint: Endpoint, name: String) {
        _ = try? SecretFile.store(token, at: path(for: endpoint, name: name), exclusive: false, note: name)
    }

    /// The names this machine keeps a seat token for in the game at `endpoint`.
    public func keptNames(for endpoint: Endpoint) -> [String] {
        guard let folder = opendir(directory) else { return [] }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            let file = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard !file.hasPrefix("."), let name = Self.note(in: directory + "/" + file),
                  path(for: endpoint, name: name) == directory + "/" + file, token(for: endpoint, name: name) != nil
            else { continue }
            names.append(name)
        }
        return names.sorted()
    }

    /// A token file's second line: the name it was kept for (nil in files kept before names were).
    private static func note(in path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 256)
        guard fgets(&buffer, 256, file) != nil, fgets(&buffer, 256, file) != nil else { return nil }
        let line = String(decoding: buffer.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return line.isEmpty ? nil : line
    }

    public func forget(for endpoint: Endpoint, name: String) {
        unlink(path(for: endpoint, name: name))
    }
}
