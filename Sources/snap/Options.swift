import ArgumentParser
import SnapBots
import SnapBytes
import SnapCommandLine
import SnapEngine
import SnapNet
import SnapPlatform

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
