/// What a secret file's bytes mean, without the file (`SecretFile.load` reads it; the
/// fuzzer, Fuzz/SecretFuzz.swift, feeds this any bytes): the secret is the file's first
/// line, 32 hex digits, read as at most `lineLimit` bytes and cut at a newline or a NUL.
public enum SecretText {
    /// The most bytes of a file that are looked at (what `fgets` into 64 bytes used to read).
    public static let lineLimit = 63

    /// The secret at the start of `contents`, or nil when its first line is not one.
    public static func secret(in contents: some Collection<UInt8>) -> SeatToken? {
        let line = contents.prefix(lineLimit).prefix { $0 != 0 && $0 != 10 }
        return SeatToken(hex: String(decoding: line, as: UTF8.self))
    }
}
