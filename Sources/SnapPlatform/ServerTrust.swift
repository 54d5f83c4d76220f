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
import NIOSSL
import SnapBytes
import SnapFiles
import X509

/// The certificates this player has seen, by address: `$XDG_STATE_HOME/snap/known_hosts`,
/// one `HOST:PORT SHA256:…` line per self-signed host (trusted on first use, as SSH does),
/// or `HOST:PORT authority` for a host whose certificate a certificate authority signed
/// (after which a self-signed one there is refused).
public struct KnownHosts: Sendable {
    public enum Entry: Equatable, Sendable {
        case fingerprint(CertificateFingerprint)
        case authority
    }

    public let path: String

    public init(path: String) { self.path = path }

    public static func standard(environment: [String: String] = currentEnvironment()) -> KnownHosts {
        KnownHosts(path: snapStateDirectory(environment: environment) + "/known_hosts")
    }

    /// Every entry. A line that is not an entry is an error naming it, never skipped: a
    /// skipped line would be a forgotten certificate, and the next one trusted blindly.
    public func entries() throws(TLSSetupError) -> [(address: String, entry: Entry)] {
        guard let text = try readSmallFile(path) else { return [] }
        var entries: [(String, Entry)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.isEmpty || fields[0].hasPrefix("#") { continue }
            guard fields.count == 2 else { throw malformed(index + 1) }
            if fields[1] == "authority" {
                entries.append((String(fields[0]), .authority))
            } else if let fingerprint = CertificateFingerprint(String(fields[1])) {
                entries.append((String(fields[0]), .fingerprint(fingerprint)))
            } else {
                throw malformed(index + 1)
            }
        }
        return entries
    }

    public func entry(for address: String) throws(TLSSetupError) -> Entry? {
        try entries().last { $0.address == address }?.entry
    }

    /// Remembers `entry` for `address`, replacing what was there. The file is written
    /// whole and renamed into place, so a crash leaves the old file or the new one.
    public func remember(_ entry: Entry, for address: String) throws(TLSSetupError) {
        var lines = try entries().filter { $0.address != address }.map { "\($0.address) \(Self.text($0.entry))" }
        lines.append("\(address) \(Self.text(entry))")
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if let failure = makePrivateDirectories(directory) {
            throw TLSSetupError(path: failure.directory, problem: "cannot create it: \(String(cString: strerror(failure.errno)))")
        }
        let temporary = try writePrivateFile(Array((lines.joined(separator: "\n") + "\n").utf8), besides: path)
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw TLSSetupError(path: path, problem: "cannot write it")
        }
    }

    private static func text(_ entry: Entry) -> String {
        switch entry {
        case .fingerprint(let fingerprint): fingerprint.description
        case .authority: "authority"
        }
    }

    private func malformed(_ line: Int) -> TLSSetupError {
        TLSSetupError(path: path, problem: "line \(line) is not `HOST:PORT SHA256:…` or `HOST:PORT authority`; correct or remove it")
    }
}

/// Why a client would not talk to a server's certificate. Nothing secret has been sent
/// when one of these is raised: the client checks before it says hello.
public enum TLSRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// A different certificate from the one remembered for this address.
    case changed(address: String, remembered: CertificateFingerprint, presented: CertificateFingerprint)
    /// Not the certificate the game's announcement on the local network named.
    case notAnnounced(address: String, announced: CertificateFingerprint, presented: CertificateFingerprint)
    /// A self-signed certificate where one from a certificate authority is expected.
    case selfSigned(address: String, presented: CertificateFingerprint)
    /// A certificate authority's certificate that does not hold: expired, for another
    /// name, or signed by no authority this machine trusts.
    case authority(address: String, reason: String)
    /// The other side does not speak TLS (an older snap, or not a Snap! server at all).
    case noTLS(address: String, detail: String)
    /// Not the certificate the invitation named (docs/RELAY.md §5): nothing was sent.
    case notInvited(address: String, invited: CertificateFingerprint, presented: CertificateFingerprint)
    /// The server closed (or reset) the connection before the handshake was done: a host
    /// past its connection caps does, when even its refusals in words are too many
    /// (PROTOCOL.md §10). Reported as a busy host, not as a TLS fault.
    case closedInHandshake(address: String, detail: String)
    /// The handshake failed for another reason.
    case handshake(address: String, detail: String)
    /// The known_hosts file could not be read or written.
    case knownHosts(String)

    public var description: String {
        switch self {
        case .changed(let address, let remembered, let presented):
            "WARNING: the certificate of \(address) has changed: it was \(remembered), it is now \(presented). "
                + "Someone may be between you and the host; or the host made a new certificate. "
                + "Nothing was sent. If the host confirms \(presented), accept it with --accept-certificate \(presented)"
        case .notAnnounced(let address, let announced, let presented):
            "the certificate of \(address) is \(presented), not \(announced) as its announcement on the local network said; "
                + "nothing was sent"
        case .notInvited(let address, let invited, let presented):
            "the host reached through the relay at \(address) shows the certificate \(presented), not \(invited) as the "
                + "invitation says: the invitation was changed, or someone is in between; nothing was sent"
        case .selfSigned(let address, let presented):
            "\(address) shows a self-signed certificate (\(presented)) where one from a certificate authority is expected; "
                + "nothing was sent"
        case .authority(let address, let reason):
            "the certificate of \(address) does not hold: \(reason); nothing was sent"
        case .noTLS(let address, let detail):
            "\(address) does not speak TLS (\(detail)): it runs a snap from before TLS, or is not a Snap! server"
        case .closedInHandshake(let address, let detail):
            "\(address) \(detail) before the encrypted connection was set up: the host is busy (more connections "
                + "than it takes), or stopping; try again later"
        case .handshake(let address, let detail):
            "the encrypted connection to \(address) could not be set up: \(detail)"
        case .knownHosts(let problem): "known hosts file \(problem)"
        }
    }

    /// A refusal a player may overrule, and the fingerprint they would accept.
    public var acceptable: CertificateFingerprint? {
        switch self {
        case .changed(_, _, let presented), .notAnnounced(_, _, let presented): presented
        default: nil
        }
    }
}

/// How a client decides whether to trust a server's certificate.
///
/// In order: a certificate the player has just accepted by its fingerprint; the one
/// remembered for the address (refusing any other); the one a LAN announcement named; a
/// certificate authority's chain (verified against the system's trust store, plus
/// `authorities`, and the host name, as any TLS client does); and otherwise, on first
/// use, a self-signed certificate, which is then remembered.
public struct ServerTrust: Sendable {
    public var knownHosts: KnownHosts
    /// The fingerprint the game's LAN announcement carried.
    public var announced: CertificateFingerprint?
    /// The fingerprint an invitation names (docs/RELAY.md §5): that certificate only, nothing
    /// remembered, no first use.
    public var invited: CertificateFingerprint?
    /// A new fingerprint the player accepts for this address (`--accept-certificate`).
    public var accepting: CertificateFingerprint?
    /// Only a certificate authority's certificate will do (`--require-authority`).
    public var requireAuthority = false
    /// Authorities trusted beyond the system's (`--tls-ca FILE`).
    public var authorities: [Certificate] = []
    /// Told once when a certificate is trusted on first use (a line for the player).
    public var onFirstUse: (@Sendable (String) -> Void)?
    /// No TLS at all: only for the baseline `snap-bench net` measures TLS against.
    package var plainTCPForBenchmarks = false

    public init(knownHosts: KnownHosts) { self.knownHosts = knownHosts }

    public static func standard(environment: [String: String] = currentEnvironment()) -> ServerTrust {
        ServerTrust(knownHosts: .standard(environment: environment))
    }

    /// Reads a PEM file of certificate authorities to trust besides the system's.
    public static func authorities(inPEMFile path: String) throws(TLSSetupError) -> [Certificate] {
        guard let text = try readSmallFile(path) else { throw TLSSetupError(path: path, problem: "no such file") }
        do {
            let end = "-----END CERTIFICATE-----"
            let certificates = try text.components(separatedBy: end).filter { $0.contains("-----BEGIN CERTIFICATE-----") }
                .map { try Certificate(pemEncoded: $0[$0.firstRange(of: "-----BEGIN CERTIFICATE-----")!.lowerBound...] + end) }
            guard !certificates.isEmpty else { throw TLSSetupError(path: path, problem: "it holds no certificate") }
            return certificates
        } catch let error as TLSSetupError { throw error } catch {
            throw TLSSetupError(path: path, problem: "not a PEM certificate file (\(error))")
        }
    }

    /// What to do with `chain` (leaf first) presented by `host`:`port`: a verdict now
    /// (nil: trusted, remembered), or a certificate authority's chain to verify.
    enum Verdict {
        case decided(TLSRefusal?)
        case verifyAuthority(leaf: Certificate, remembered: KnownHosts.Entry?)
    }

    /// Everything but the chain of an authority is decided here, at once, on the event
    /// loop: no task that a busy cooperative pool could keep from running.
    func verdict(_ chain: [[UInt8]], host: String, port: Int) -> Verdict {
        let address = formatHostPort(host, port)
        guard let leafDER = chain.first else { return .decided(.handshake(address: address, detail: "no certificate shown")) }
        let presented = CertificateFingerprint(certificateDER: leafDER)
        if let invited { return .decided(invited == presented ? nil : .notInvited(address: address, invited: invited, presented: presented)) }
        do {
            if let accepting, accepting == presented {
                try knownHosts.remember(.fingerprint(presented), for: address)
                return .decided(nil)
            }
            let remembered = try knownHosts.entry(for: address)
            if !requireAuthority, case .fingerprint(let known) = remembered {
                return .decided(known == presented ? nil : .changed(address: address, remembered: known, presented: presented))
            }
            if !requireAuthority, remembered == nil, let announced {
                guard announced == presented else {
                    return .decided(.notAnnounced(address: address, announced: announced, presented: presented))
                }
                try knownHosts.remember(.fingerprint(presented), for: address)
                return .decided(nil)
            }
            let leaf: Certificate
            do { leaf = try Certificate(derEncoded: leafDER) } catch {
                return .decided(.handshake(address: address, detail: "its certificate does not parse (\(error))"))
            }
            if leaf.issuer == leaf.subject {
                if requireAuthority || remembered == .authority { return .decided(.selfSigned(address: address, presented: presented)) }
                try knownHosts.remember(.fingerprint(presented), for: address)
                onFirstUse?("certificate of \(address) is new: \(presented); trusted from now on (remembered in \(knownHosts.path))")
                return .decided(nil)
            }
            return .verifyAuthority(leaf: leaf, remembered: remembered)
        } catch {
            return .decided(.knownHosts(error.description))
        }
    }

    /// An authority's chain, verified (swift-certificates' verifier is async).
    func verifyAuthority(leaf: Certificate, remembered: KnownHosts.Entry?, chain: [[UInt8]], host: String, port: Int) async -> TLSRefusal? {
        let address = formatHostPort(host, port)
        if let problem = await authorityProblem(leaf: leaf, intermediates: chain.dropFirst(), host: host) {
            return .authority(address: address, reason: problem)
        }
        do {
            if remembered != .authority { try knownHosts.remember(.authority, for: address) }
        } catch {
            return .knownHosts(error.description)
        }
        return nil
    }

    /// Why a CA-signed chain does not hold for `host`, in words; nil when it holds.
    private func authorityProblem(leaf: Certificate, intermediates: ArraySlice<[UInt8]>, host: String) async -> String? {
        let now = Date()
        if now > leaf.notValidAfter { return "it expired on \(leaf.notValidAfter)" }
        if now < leaf.notValidBefore { return "it is not valid before \(leaf.notValidBefore)" }
        let ip = isIPAddress(host)
        let identity = ServerIdentityPolicy(serverHostname: ip ? nil : host, serverIP: ip ? host : nil)
        let names = (try? leaf.extensions.subjectAlternativeNames) ?? nil
        if !(names.map { $0.contains { Self.name($0, matches: host) } } ?? false) {
            let listed: [String] = names?.compactMap { (name: GeneralName) -> String? in
                if case .dnsName(let dns) = name { return dns }
                return nil
            } ?? []
            return "it is for \(listed.isEmpty ? "other names" : listed.joined(separator: ", ")), not \(host)"
        }
        var roots = CertificateStore(Self.systemAuthorities)
        roots.append(contentsOf: authorities)
        let chain = CertificateStore(intermediates.compactMap { try? Certificate(derEncoded: $0) })
        var verifier = Verifier(rootCertificates: roots) {
            RFC5280Policy()  // against the current time, like the dates checked above
            identity
        }
        if case .couldNotValidate = await verifier.validate(leaf: leaf, intermediates: chain) {
            return "no certificate authority this machine trusts signed it (issuer: \(leaf.issuer))"
        }
        return nil
    }
}

extension ServerTrust {
    /// The system's trust store (Debian's ca-certificates bundle), read once and without a
    /// task: swift-certificates' own loader awaits a task on the shared pool.
    static let systemAuthorities: [Certificate] = {
        for path in ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem"] {
            if let found = try? authorities(inPEMFile: path) { return found }
        }
        return []
    }()

    /// RFC 6125's rule, the common part: a DNS name equal but for case, or a wildcard
    /// standing for exactly one leftmost label; an IP address byte for byte.
    static func name(_ name: GeneralName, matches host: String) -> Bool {
        switch name {
        case .dnsName(let dns):
            let want = host.lowercased().split(separator: ".", omittingEmptySubsequences: false)
            let have = dns.lowercased().split(separator: ".", omittingEmptySubsequences: false)
            guard want.count == have.count, !want.isEmpty else { return false }
            return zip(want, have).enumerated().allSatisfy { index, pair in
                pair.0 == pair.1 || (index == 0 && pair.1 == "*" && want.count > 2)
            }
        case .ipAddress(let bytes):
            var v4 = in_addr()
            if inet_pton(AF_INET, host, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } == Array(bytes.bytes) }
            var v6 = in6_addr()
            if inet_pton(AF_INET6, host, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } == Array(bytes.bytes) }
            return false
        default:
            return false
        }
    }
}

/// An IPv4 or IPv6 address rather than a host name (which gets SNI and a name check).
func isIPAddress(_ host: String) -> Bool {
    var v4 = in_addr()
    var v6 = in6_addr()
    return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
}
