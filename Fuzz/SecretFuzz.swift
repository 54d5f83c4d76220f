// libFuzzer target for secret files (scripts/fuzz --target secret): a seat's token
// (SeatTokenStore) and a Story player's version 1 key (StoryKeyStore) are files that SecretFile.load
// reads through SecretText, built against the SnapBytes module (SecretText, SeatToken),
// whole.
//
// Input: the file's bytes. Properties (a trap is a finding):
//   - nothing traps or overflows; parsing is deterministic and reads only the first
//     SecretText.lineLimit bytes;
//   - a secret is read only from a first line of exactly 32 hex digits, and it is that
//     line (its `hex`, what SecretFile.store writes, equals the line in lower case);
//   - what SecretFile.store writes (hex and a newline) reads back as the same secret,
//     whatever follows it;
//   - for one input in 16, the same bytes in a real file read with fgets, as
//     SecretFile.load did before SecretText, give the same secret.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SnapBytes

private var inputCount = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = inputBytes(data, size)
    let secret = SecretText.secret(in: input)
    if SecretText.secret(in: input) != secret { fail("SecretText.secret is not deterministic") }
    if SecretText.secret(in: input.prefix(SecretText.lineLimit)) != secret { fail("a secret depends on bytes past the limit") }

    if let secret {
        let line = input.prefix(SecretText.lineLimit).prefix { $0 != 0 && $0 != 10 }
        let hexDigits = Set("0123456789abcdefABCDEF".utf8)
        guard line.count == 32, line.allSatisfy(hexDigits.contains) else {
            fail("a secret read from \(String(decoding: line, as: UTF8.self).debugDescription), not 32 hex digits")
        }
        if secret.hex != String(decoding: line, as: UTF8.self).lowercased() { fail("the secret is not its line") }
    }

    if let token = SeatToken(bytes: Array(input.prefix(16))) {
        let stored = Array((token.hex + "\n").utf8) + input
        if SecretText.secret(in: stored) != token { fail("a stored secret does not read back") }
    }

    inputCount += 1
    if inputCount % 16 == 0 { checkAgainstFgets(input, secret) }
    return 0
}

/// The reading SecretFile.load did before SecretText: fgets into 64 bytes, cut at a NUL or newline.
private func checkAgainstFgets(_ input: [UInt8], _ expected: SeatToken?) {
    var template = Array("/tmp/snap-fuzz-secret-XXXXXX".utf8CString)
    let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard descriptor >= 0 else { fail("mkstemp: \(String(cString: strerror(errno)))") }
    let path = String(cString: template)
    defer { unlink(path) }
    let written = input.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
    guard written == input.count, let file = fopen(path, "r") else { fail("could not write \(path)") }
    defer { fclose(file) }
    var buffer = [CChar](repeating: 0, count: 64)
    let old: SeatToken? = fgets(&buffer, 64, file) == nil ? nil
        : SeatToken(hex: String(decoding: buffer.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    if old != expected { fail("fgets reads \(String(describing: old)), SecretText \(String(describing: expected))") }
}

func fuzzSeeds() -> [(String, [UInt8])] {
    let token = SeatToken(bytes: Array(200...215))!
    return [
        ("stored", Array((token.hex + "\n").utf8)),
        ("no-newline", Array(token.hex.utf8)),
        ("upper-case", Array((token.hex.uppercased() + "\r\n").utf8)),
        ("zero", Array((String(repeating: "0", count: 32) + "\n").utf8)),
        ("long-line", Array((token.hex + token.hex + "\n").utf8)),
        ("empty", []),
    ]
}
