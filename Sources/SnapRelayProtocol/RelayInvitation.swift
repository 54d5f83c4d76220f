import SnapBytes

/// An invitation to a game through a relay (docs/RELAY.md §5), one line a player pastes:
/// `snap://RELAYHOST:PORT/ROOM#CODE,SHA256:FINGERPRINT` (no `CODE,` for an open game).
/// The fingerprint is the trust: the player's end-to-end TLS accepts that certificate only.
public struct RelayInvitation: Equatable, Sendable, CustomStringConvertible {
    public static let scheme = "snap://"
    public var relayHost: String
    public var relayPort: Int
    public var room: RelayID
    /// The game's join code (normalized), nil for an open game.
    public var code: String?
    public var certificate: CertificateFingerprint

    public init(relayHost: String, relayPort: Int, room: RelayID, code: String?, certificate: CertificateFingerprint) {
        (self.relayHost, self.relayPort, self.room, self.code, self.certificate) = (relayHost, relayPort, room, code, certificate)
    }

    /// The relay as an address, an IPv6 one in brackets.
    public var relayAddress: String { (relayHost.contains(":") ? "[\(relayHost)]" : relayHost) + ":\(relayPort)" }

    public var description: String {
        Self.scheme + relayAddress + "/" + room.text + "#" + (code.map { $0 + "," } ?? "") + certificate.description
    }

    /// Parses an invitation; the error says what is wrong in it.
    public init(parsing text: String) throws(InvitationError) {
        func bad(_ why: String) -> InvitationError { InvitationError(invitation: text, problem: why) }
        guard text.hasPrefix(Self.scheme) else { throw bad("it must start with \(Self.scheme)") }
        let rest = text.dropFirst(Self.scheme.count)
        guard let slash = rest.firstIndex(of: "/") else { throw bad("no room after the relay's address (snap://HOST:PORT/ROOM#…)") }
        let address = rest[..<slash]
        let afterSlash = rest[rest.index(after: slash)...]
        guard let hash = afterSlash.firstIndex(of: "#") else { throw bad("no #CODE,FINGERPRINT after the room") }
        let roomText = afterSlash[..<hash], fragment = afterSlash[afterSlash.index(after: hash)...]
        // The address: HOST:PORT, or [IPv6]:PORT.
        let host: Substring, portText: Substring
        if address.hasPrefix("[") {
            guard let close = address.firstIndex(of: "]"), address[address.index(after: close)...].hasPrefix(":") else {
                throw bad("the relay's address must be HOST:PORT ([IPv6]:PORT)")
            }
            host = address[address.index(after: address.startIndex)..<close]
            portText = address[address.index(close, offsetBy: 2)...]
        } else {
            guard let colon = address.lastIndex(of: ":"), !address[..<colon].contains(":") else {
                throw bad("the relay's address must be HOST:PORT ([IPv6]:PORT)")
            }
            host = address[..<colon]
            portText = address[address.index(after: colon)...]
        }
        guard !host.isEmpty else { throw bad("the relay's address has no host") }
        guard let port = Int(portText), (1...65535).contains(port), portText.allSatisfy(\.isASCII) else {
            throw bad("the relay's port must be 1–65535")
        }
        guard let room = RelayID(roomText) else { throw bad("the room must be 32 lowercase hexadecimal digits") }
        let parts = fragment.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2 else { throw bad("after # comes CODE,SHA256:FINGERPRINT") }
        var code: String?
        if parts.count == 2 {
            if let problem = JoinCode.problem(String(parts[0])) { throw bad("the join code: \(problem)") }
            code = JoinCode.normalized(String(parts[0]))
        }
        guard let certificate = CertificateFingerprint(String(parts[parts.count - 1])) else {
            throw bad("the host's certificate must be SHA256: and 43 characters of base64")
        }
        self.init(relayHost: String(host), relayPort: port, room: room, code: code, certificate: certificate)
    }
}

public struct InvitationError: Error, Equatable, CustomStringConvertible {
    public var invitation: String
    public var problem: String
    public var description: String { "not a valid invitation (\(problem)): \(invitation)" }
}
