import COpenSSL

/// SHA-256 from OpenSSL's libcrypto: a maintained implementation, not a hand-written one.
public enum SHA256 {
    public static let byteCount = 32

    public static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        // EVP_Digest fails only when the library cannot allocate or lacks SHA-256: nothing a game can go on without.
        precondition(ok == 1 && length == UInt32(byteCount), "OpenSSL's SHA-256 failed")
        return digest
    }
}
