#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import NIOSSL
import SnapBytes
import SnapFiles
import X509

extension CertificateFingerprint {
    public init(certificateDER: [UInt8]) {
        self.init(digest: Array(SHA256.hash(data: certificateDER)))
    }
}

public struct TLSSetupError: Error, CustomStringConvertible, Equatable {
    public var path: String
    public var problem: String
    public var description: String { "\(path): \(problem)" }
}

/// What a host or story service shows TLS clients: a certificate chain and its key.
///
/// By default it is self-made: a P-256 key and a self-signed certificate made on first
/// use and kept in one file, `$XDG_STATE_HOME/snap/tls/identity.pem` (0600 in a 0700
/// directory), so the fingerprint players remember stays the same from game to game.
/// `--tls-cert`/`--tls-key` give one from a certificate authority instead.
public struct TLSIdentity: Sendable {
    public let certificateChain: [NIOSSLCertificate]
    public let privateKey: NIOSSLPrivateKey
    /// The leaf certificate's fingerprint: what clients remember (`known_hosts`).
    public let fingerprint: CertificateFingerprint
    /// Made here on first use (self-signed), not given.
    public let isSelfMade: Bool

    public static func directory(environment: [String: String] = currentEnvironment()) -> String {
        snapStateDirectory(environment: environment) + "/tls"
    }

    /// The identity kept in `directory`, made there (exclusively: two hosts starting at once
    /// end up with the same one) when there is none.
    public static func selfMade(in directory: String = directory()) throws(TLSSetupError) -> TLSIdentity {
        let path = directory + "/identity.pem"
        if let identity = try load(combined: path) { return identity }
        if let failure = makePrivateDirectories(directory) {
            throw TLSSetupError(path: failure.directory, problem: "cannot create it: \(String(cString: strerror(failure.errno)))")
        }
        let text: String
        do { text = try makeSelfSigned() } catch {
            throw TLSSetupError(path: path, problem: "cannot make a certificate: \(error)")
        }
        // Written whole under a private name, then linked into place: a reader never sees
        // half a file, and link() fails if another process got there first.
        let temporary = try writePrivateFile(Array(text.utf8), besides: path)
        defer { unlink(temporary) }
        if link(temporary, path) != 0, errno != EEXIST {
            throw TLSSetupError(path: path, problem: String(cString: strerror(errno)))
        }
        guard let identity = try load(combined: path) else { throw TLSSetupError(path: path, problem: "it vanished") }
        return identity
    }

    /// A certificate chain (PEM, leaf first) and its private key (PEM), e.g. from a public CA.
    public static func load(certificate: String, key: String) throws(TLSSetupError) -> TLSIdentity {
        let chain: [NIOSSLCertificate]
        do { chain = try NIOSSLCertificate.fromPEMFile(certificate) } catch {
            throw TLSSetupError(path: certificate, problem: "not a PEM certificate file (\(error))")
        }
        guard let leaf = chain.first else { throw TLSSetupError(path: certificate, problem: "it holds no certificate") }
        try requirePrivate(key)
        let privateKey: NIOSSLPrivateKey
        do { privateKey = try NIOSSLPrivateKey(file: key, format: .pem) } catch {
            throw TLSSetupError(path: key, problem: "not a PEM private key (\(error))")
        }
        let identity = TLSIdentity(certificateChain: chain, privateKey: privateKey,
                                   fingerprint: CertificateFingerprint(certificateDER: (try? leaf.toDERBytes()) ?? []),
                                   isSelfMade: false)
        do { _ = try identity.serverContext() } catch {
            throw TLSSetupError(path: key, problem: "it does not go with \(certificate) (\(error))")
        }
        return identity
    }

    /// A TLS 1.3 server context for this identity.
    public func serverContext() throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: certificateChain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
        configuration.minimumTLSVersion = .tlsv13
        return try NIOSSLContext(configuration: configuration)
    }

    // MARK: - The self-made identity's file

    private static func load(combined path: String) throws(TLSSetupError) -> TLSIdentity? {
        guard let text = try readSmallFile(path) else { return nil }
        try requirePrivate(path)
        guard let split = text.firstRange(of: "-----BEGIN CERTIFICATE-----") else {
            throw TLSSetupError(path: path, problem: "it holds no certificate; remove it to make a new one (players will see a new fingerprint)")
        }
        do {
            let key = try NIOSSLPrivateKey(bytes: Array(text[..<split.lowerBound].utf8), format: .pem)
            let chain = try NIOSSLCertificate.fromPEMBytes(Array(text[split.lowerBound...].utf8))
            guard let leaf = chain.first else { throw TLSSetupError(path: path, problem: "it holds no certificate") }
            return TLSIdentity(certificateChain: chain, privateKey: key,
                               fingerprint: CertificateFingerprint(certificateDER: try leaf.toDERBytes()), isSelfMade: true)
        } catch let error as TLSSetupError {
            throw error
        } catch {
            throw TLSSetupError(path: path, problem: "it is damaged (\(error)); remove it to make a new one (players will see a new fingerprint)")
        }
    }

    private static func makeSelfSigned() throws -> String {
        let key = P256.Signing.PrivateKey()
        let signer = Certificate.PrivateKey(key)
        var host = [UInt8](repeating: 0, count: 256)
        gethostname(&host, host.count - 1)
        let hostName = String(decoding: host.prefix { $0 != 0 }, as: UTF8.self)
        let name = try DistinguishedName { CommonName("Snap! on \(hostName)") }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: signer.publicKey,
            // Clients pin the fingerprint, not the dates: it is valid for as long as it is kept.
            notValidBefore: now - 86_400, notValidAfter: now + 100 * 365 * 86_400,
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                SubjectAlternativeNames([.dnsName("snap.invalid")])
            },
            issuerPrivateKey: signer)
        return key.pemRepresentation + "\n" + (try certificate.serializeAsPEM().pemString) + "\n"
    }

    /// A key file others can read is refused, not used: it may already be someone else's.
    private static func requirePrivate(_ path: String) throws(TLSSetupError) {
        var status = stat()
        guard stat(path, &status) == 0 else { throw TLSSetupError(path: path, problem: String(cString: strerror(errno))) }
        if status.st_mode & 0o077 != 0 {
            throw TLSSetupError(path: path, problem: "others can read it (mode \(String(status.st_mode & 0o777, radix: 8))); "
                + "chmod 600 it, and make a new key if it may have been copied")
        }
    }
}

/// Writes `bytes` whole (0600, synced) to a file named after `path` and this process, and
/// returns its path: the caller moves it into place in one step (link or rename), so a
/// reader sees the old file or the new one, never half of one.
func writePrivateFile(_ bytes: [UInt8], besides path: String) throws(TLSSetupError) -> String {
    let temporary = path + ".new-\(getpid())"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw TLSSetupError(path: temporary, problem: String(cString: strerror(errno))) }
    let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    let synced = fsync(descriptor) == 0
    close(descriptor)
    guard written == bytes.count, synced else {
        unlink(temporary)
        throw TLSSetupError(path: temporary, problem: "cannot write it")
    }
    return temporary
}

/// A small text file's contents; nil when it does not exist.
func readSmallFile(_ path: String, limit: Int = 1 << 20) throws(TLSSetupError) -> String? {
    guard let file = fopen(path, "r") else {
        if errno == ENOENT { return nil }
        throw TLSSetupError(path: path, problem: String(cString: strerror(errno)))
    }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count == 0 { break }
        bytes += buffer[0..<count]
        if bytes.count > limit { throw TLSSetupError(path: path, problem: "it is over \(limit) bytes") }
    }
    return String(decoding: bytes, as: UTF8.self)
}
