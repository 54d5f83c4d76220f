#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SnapBytes
import SnapFiles

/// A 128-bit secret kept on its own line in a file only its owner may read (0600, in
/// 0700 directories): a seat's token, a Story player's key.
public enum SecretFile {
    /// The secret in `path`: nil when there is no such file; an error when it holds none.
    public static func load(_ path: String) throws(SecretFileError) -> SeatToken? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var buffer = [UInt8](repeating: 0, count: SecretText.lineLimit)
        let count = fread(&buffer, 1, buffer.count, file)
        guard let secret = SecretText.secret(in: buffer[0..<count]) else {
            throw SecretFileError(path: path, problem: "it does not hold a key")
        }
        return secret
    }

    /// Writes `secret` to `path` (0600), making its directories (0700). `exclusive`: only
    /// if there is no such file yet (false, not an error, when there is). `note`: a second
    /// line (`load` reads only the first).
    @discardableResult
    public static func store(_ secret: SeatToken, at path: String, exclusive: Bool,
                             note: String? = nil) throws(SecretFileError) -> Bool {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if let failure = makePrivateDirectories(directory) {
            throw SecretFileError(path: failure.directory, problem: "cannot create it: \(String(cString: strerror(failure.errno)))")
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (exclusive ? O_EXCL : O_TRUNC), 0o600)
        guard descriptor >= 0 else {
            if exclusive, errno == EEXIST { return false }
            throw SecretFileError(path: path, problem: String(cString: strerror(errno)))
        }
        let line = Array((secret.hex + "\n" + (note.map { $0 + "\n" } ?? "")).utf8)
        let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == line.count else { throw SecretFileError(path: path, problem: "cannot write it") }
        return true
    }
}

public struct SecretFileError: Error, Equatable, CustomStringConvertible {
    public var path: String
    public var problem: String
    public var description: String { "\(path): \(problem)" }
}
