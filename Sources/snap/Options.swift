import ArgumentParser
import SnapBots
import SnapBytes
import SnapEngine
import SnapNet

extension BotLevel: ExpressibleByArgument {}

/// Rule options shared by every command that plays.
struct RuleOptions: ParsableArguments {
    @Option(name: .customLong("turn-limit"),
            help: "End a round after this many turned cards; the player with most cards wins it (default: the original rule, play on until one player holds all 52).")
    var turnLimit: Int?

    func validate() throws {
        if let turnLimit, turnLimit < 1 { throw ValidationError("--turn-limit must be at least 1") }
    }

    var rules: Rules { Rules(turnLimit: turnLimit) }
}

/// The certificate a TCP host or story service shows (PROTOCOL.md §2, docs/LAN.md).
struct TLSServerOptions: ParsableArguments {
    @Option(help: ArgumentHelp("TCP only: the TLS certificate chain to show (PEM, leaf first), e.g. from a public certificate authority (default: a self-signed one made on first use and kept in $XDG_STATE_HOME/snap/tls/).", valueName: "file"))
    var tlsCert: String?
    @Option(help: ArgumentHelp("The private key of --tls-cert (PEM, mode 0600).", valueName: "file"))
    var tlsKey: String?

    func validate() throws {
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
    }

    /// The identity to listen with; says `certificate: SHA256:…` for players to compare.
    func identity() throws -> TLSIdentity {
        let identity = if let tlsCert, let tlsKey { try TLSIdentity.load(certificate: tlsCert, key: tlsKey) } else {
            try TLSIdentity.selfMade()
        }
        say("certificate: \(identity.fingerprint)")
        return identity
    }
}

/// How a client checks a TCP server's certificate (PROTOCOL.md §2, docs/LAN.md).
struct TLSClientOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Accept this new certificate for the address (SHA256:…, as the refusal printed it) once its host has confirmed it; it replaces the one remembered in $XDG_STATE_HOME/snap/known_hosts.", valueName: "fingerprint"))
    var acceptCertificate: String?
    @Flag(help: "Over TCP, accept only a certificate from a certificate authority (checked against the system's trust store and the host name), never a self-signed one.")
    var requireAuthority = false
    @Option(help: ArgumentHelp("Also trust the certificate authorities in this PEM file.", valueName: "file"))
    var tlsCa: String?

    func validate() throws {
        if let acceptCertificate, CertificateFingerprint(acceptCertificate) == nil {
            throw ValidationError("--accept-certificate: not a fingerprint of the form SHA256: and 43 characters of base64")
        }
    }

    func trust() throws -> ServerTrust {
        var trust = ServerTrust.standard()
        trust.accepting = acceptCertificate.flatMap(CertificateFingerprint.init)
        trust.requireAuthority = requireAuthority
        if let tlsCa { trust.authorities = try ServerTrust.authorities(inPEMFile: tlsCa) }
        trust.onFirstUse = { line in printError("note: \(line)") }
        return trust
    }
}
