import Foundation
import SnapBytes
import SnapRelayProtocol
import Testing

/// Invitations (docs/RELAY.md §5): what the host prints is what the player's parser reads,
/// and anything else is refused with what is wrong.
@Suite("Relay: invitations")
struct RelayInvitationTests {
    static let fingerprint = CertificateFingerprint(digest: Array(0..<32))
    static let room = RelayID(bytes: Array(100..<116))

    @Test("an invitation prints and parses back, with and without a code, IPv4, a name and IPv6")
    func roundTrip() throws {
        for host in ["relay.example.org", "127.0.0.1", "::1"] {
            for code in ["ABCDEF", nil] as [String?] {
                let invitation = RelayInvitation(relayHost: host, relayPort: 7790, room: Self.room, code: code, certificate: Self.fingerprint)
                #expect(try RelayInvitation(parsing: invitation.description) == invitation)
            }
        }
        let text = RelayInvitation(relayHost: "::1", relayPort: 7790, room: Self.room, code: "ABCDEF", certificate: Self.fingerprint).description
        #expect(text == "snap://[::1]:7790/\(Self.room)#ABCDEF,\(Self.fingerprint)")
    }

    @Test("malformed invitations are refused, saying what is wrong", arguments: [
        ("http://relay:1/x#y", "must start with snap://"),
        ("snap://relay:7790", "no room"),
        ("snap://relay:7790/abc#ABCDEF,SHA256:x", "32 lowercase hexadecimal"),
        ("snap://relay/ROOM#x", "HOST:PORT"),
        ("snap://relay:0/ROOM#x", "1–65535"),
        ("snap://relay:7790/ROOM", "no #CODE"),
        ("snap://relay:7790/ROOM#ABCDEF,SHA256:short", "SHA256: and 43"),
        ("snap://relay:7790/ROOM#A0,FP", "join code"),
        ("snap://relay:7790/ROOM#A,B,C", "CODE,SHA256"),
    ])
    func malformed(_ text: String, _ problem: String) {
        let filled = text.replacingOccurrences(of: "ROOM", with: Self.room.text).replacingOccurrences(of: "FP", with: Self.fingerprint.description)
        #expect {
            try RelayInvitation(parsing: filled)
        } throws: { error in
            (error as? InvitationError)?.problem.contains(problem) == true
        }
    }

    @Test("one changed character of the fingerprint is another fingerprint, not a parse error: the TLS check refuses it")
    func tamperedStillParses() throws {
        let invitation = RelayInvitation(relayHost: "r", relayPort: 1, room: Self.room, code: nil, certificate: Self.fingerprint)
        var text = Array(invitation.description)
        text[text.count - 5] = text[text.count - 5] == "A" ? "B" : "A"
        let tampered = try RelayInvitation(parsing: String(text))
        #expect(tampered.certificate != Self.fingerprint)
    }
}
