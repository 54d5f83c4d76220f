#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Apart from TLSIdentity.swift (which computes it) so that the LAN announcement's parser,
// which carries one, builds alone for its fuzz target.
/// A certificate's SHA-256 fingerprint, written as SSH writes key fingerprints:
/// `SHA256:` and the digest in unpadded base64.
public struct CertificateFingerprint: Hashable, Sendable, CustomStringConvertible {
    public static let prefix = "SHA256:"
    public let digest: [UInt8]

    /// `digest`: the SHA-256 of the certificate's DER (`init(certificateDER:)` computes it).
    public init(digest: [UInt8]) {
        self.digest = digest
    }

    /// Parses `SHA256:` and 43 characters of unpadded base64; nil for anything else.
    public init?(_ text: String) {
        guard text.hasPrefix(Self.prefix) else { return nil }
        let encoded = String(text.dropFirst(Self.prefix.count))
        guard encoded.count == 43, let data = Data(base64Encoded: encoded + "=") else { return nil }
        digest = Array(data)
        guard digest.count == 32 else { return nil }
    }

    public var description: String {
        var text = Data(digest).base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return Self.prefix + text
    }

    /// The first 11 characters of the digest (66 bits): enough to compare by eye in a lobby.
    public var short: String { String(description.prefix(Self.prefix.count + 11)) }
}
