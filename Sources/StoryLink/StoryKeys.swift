import Crypto
import SnapBytes
import StoryProtocol

/// A Story player's Ed25519 key pair. The private key never leaves the player's machine
/// (StoryKeyStore keeps it); the service sees the public key and signatures only.
public struct StoryKey: @unchecked Sendable {  // the private key is an immutable value
    private let privateKey: Curve25519.Signing.PrivateKey

    /// A new random key pair.
    public init() {
        privateKey = Curve25519.Signing.PrivateKey()
    }

    /// The key pair whose private key is these 32 bytes (a key file's; a test's or the
    /// benchmark's fixed keys). Nil unless exactly 32 bytes.
    public init?(privateKeyBytes bytes: [UInt8]) {
        guard bytes.count == 32, let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: bytes) else { return nil }
        privateKey = key
    }

    /// What a key file keeps: the private key's 32 bytes.
    var privateKeyBytes: [UInt8] { Array(privateKey.rawRepresentation) }

    /// The 32 bytes a hello carries and the service registers.
    public var publicKey: [UInt8] { Array(privateKey.publicKey.rawRepresentation) }

    /// The 64-byte Ed25519 signature of `message`.
    public func signature(for message: [UInt8]) -> [UInt8] {
        // Signing fails only when the library cannot allocate: nothing to go on without.
        guard let signature = try? privateKey.signature(for: message) else { fatalError("Ed25519 signing failed") }
        return Array(signature)
    }

    /// The answer to a challenge: this key's signature of the sign-in message (the nonce,
    /// the name and the channel binding), and the old key if one is to be carried over.
    public func proof(nonce: [UInt8], name: String, channelBinding: StoryChannelBinding, oldKey: SeatToken? = nil) -> StoryRequest {
        let message = StoryWire.signInMessage(nonce: nonce, name: name, channelBinding: channelBinding)
        return .proof(signature: signature(for: message), oldKey: oldKey?.bytes ?? [])
    }
}

extension StoryKeyChecks {
    /// SHA-256 and Ed25519 from swift-crypto.
    public static let live = StoryKeyChecks(
        digest: { Array(SHA256.hash(data: $0)) },
        verify: { publicKey, signature, message in
            guard signature.count == StoryWire.signatureBytes,
                  let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
            return key.isValidSignature(signature, for: message)
        })
}
