import Foundation
import NIOCore
import NIOSSL
@testable import SnapNet
@testable import SnapLAN
@testable import SnapPlatform
import SnapBytes
import SnapProtocol
import SnapSession
import SnapTestSupport
import Testing

/// The numbers and words of the network layer that docs/PROTOCOL.md (§2, §10, §14) and
/// docs/LAN.md quote, as the code has them: a change to either side that makes a document
/// wrong fails here. Line breaks do not matter: runs of white space compare as one space.
@Suite("PROTOCOL.md and LAN.md quote the network layer", .blocksThreads)
struct NetDocumentationTests {
    static func document(_ name: String) throws -> String { try Documents.text(name) }

    static func oneLine(_ text: String) -> String { Documents.oneLine(text) }

    func expect(_ name: String, quotes text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try Self.document(name).contains(Self.oneLine(text)), "\(name) lacks: \(text)", sourceLocation: sourceLocation)
    }

    func seconds(_ amount: TimeAmount) -> String {
        let value = Double(amount.nanoseconds) / 1e9
        return value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    @Test("§2's handshake deadline, the bound on refusals, the close, and the plain clients' refusals")
    func tls() throws {
        let handshake = Int(TLSTransport.handshakeDeadline.nanoseconds / 1_000_000_000)
        try expect("PROTOCOL.md", quotes: "**\(handshake) seconds from the TCP accept**")
        try expect("PROTOCOL.md", quotes: "at most **\(TLSRefusals.allowance)** such refusals at once, each closed once it is "
                   + "said, and at the latest **\(seconds(TLSRefusals.deadline))** after it began")
        try expect("PROTOCOL.md", quotes: "(past the caps, at its refusal's \(seconds(TLSRefusals.deadline)), below)")
        try expect("PROTOCOL.md", quotes: "Past those \(TLSRefusals.allowance) a connection past the caps is closed at once")
        try expect("PROTOCOL.md", quotes: "at most 8 connections signing in and \(TLSRefusals.allowance) being refused")
        // What snapcards join says of a bare close: busy, in the words of a refusal inside TLS.
        let bare = NetError.hostBusy("…", closedInHandshakeText("closed the connection")).description
        #expect(bare.contains("the host is busy"))
        try expect("PROTOCOL.md", quotes: "`\(bare)` (exit 3)")
        // NIOSSL's default, which the host's server configuration keeps (as every configuration does).
        let shutdown = TLSConfiguration.makeClientConfiguration().shutdownTimeout
        try expect("PROTOCOL.md", quotes: "up to \(seconds(shutdown)) before it closes TCP; for a refusal made before the "
                   + "handshake, up to that refusal's \(seconds(TLSRefusals.deadline))")
        try expect("PROTOCOL.md", quotes: "at most \(TLSRefusals.allowance) refusals past the caps handshaking at once, "
                   + "each for at most \(seconds(TLSRefusals.deadline))")
        try expect("PROTOCOL.md", quotes: "(§2: \(TLSRefusals.allowance) at once, \(seconds(TLSRefusals.deadline)) each)")
        guard case .closing(let reason, let words) = HostServer.plainRefusalMessage else { Issue.record("not a closing"); return }
        try expect("PROTOCOL.md", quotes: "`\(reason)`, \"\(words)\"")
        #expect(TLSRefusal.noTLS(address: "a:1", detail: "d").description.contains("does not speak TLS"))
        try expect("PROTOCOL.md", quotes: "A TLS client reaching a plain server is told \"… does not speak TLS …\"")
    }

    @Test("§2's known_hosts: the fingerprint's length and the two forms of a line")
    func knownHosts() throws {
        let fingerprint = CertificateFingerprint(certificateDER: [1, 2, 3]).description
        #expect(fingerprint.hasPrefix("SHA256:"))
        try expect("PROTOCOL.md", quotes: "`SHA256:` and the certificate's fingerprint (\(fingerprint.count - 7) characters of unpadded base64")
        try expect("PROTOCOL.md", quotes: "`$XDG_STATE_HOME/snap/known_hosts`, mode 0600")
        #expect(KnownHosts.standard(environment: ["XDG_STATE_HOME": "/s"]).path == "/s/snap/known_hosts")
    }

    @Test("§10's bound on what waits to be sent")
    func outbound() throws {
        let limits = OutboundLimits()
        try expect("PROTOCOL.md", quotes: "Past **\(limits.highWater / 1024) KiB** for **\(limits.slowLimit.secondsText)** in a row, "
                   + "or past **\(limits.hardCap / 1024) KiB** at any moment")
        try expect("PROTOCOL.md", quotes: "| waiting to be sent | \(limits.highWater / 1024) KiB for \(limits.slowLimit.secondsText), "
                   + "or \(limits.hardCap / 1024) KiB at once")
    }

    @Test("LAN.md's announcement, its limits and the join code")
    func lan() throws {
        #expect(SnapService.interval == .seconds(1))
        try expect("LAN.md", quotes: "One packet, at start, then **every second**")
        try expect("LAN.md", quotes: "All with a **TTL of \(SnapService.ttl) seconds**")
        try expect("LAN.md", quotes: "Answers to queries are rate-limited (\(Int(LANAnnouncer.answerBurst)) at once, then one per "
                   + "\(Int(LANAnnouncer.answerRefill / .milliseconds(1))) ms)")
        try expect("LAN.md", quotes: "`v=\(ProtocolVersion.current)`, `name=NAME`")
        try expect("LAN.md", quotes: "At most **\(LANGameTable.maxGames) games** are kept (`LANGameTable.maxGames`)")
        try expect("LAN.md", quotes: "at most **\(LANGameTable.maxGamesPerSource) from one sender address** (`maxGamesPerSource`), "
                   + "each for at most **\(LANGameTable.maxTTL) s**")
        try expect("LAN.md", quotes: "At most **\(SnapService.maxGamesPerPacket) games are read from one packet**")
        try expect("LAN.md", quotes: "an address that does not answer fails after the \(seconds(tcpConnectTimeout)) connect timeout")
        try expect("PROTOCOL.md", quotes: "A socket path is at most \(SocketDirectory.maxSocketPathBytes) bytes")
        try expect("LAN.md", quotes: "**\(SenderBudgets.burst) packets at once, then \(Int(SenderBudgets.perSecond)) a second**")
        try expect("LAN.md", quotes: "At most **\(SenderBudgets.maxSenders) sender addresses** are")
        try expect("LAN.md", quotes: "one silent for \(SenderBudgets.idleAfter.secondsText) gives its place to a newcomer")
        try expect("LAN.md", quotes: "\(DNSMessage.maxSize) bytes (`DNSMessage.maxSize`)")
        try expect("LAN.md", quotes: "A game heard again at least \(LANGameTable.confirmGap.secondsText) after it was")
        try expect("LAN.md", quotes: "a code of six characters from `\(String(JoinCode.alphabet))`")
        #expect(JoinCode.length == 6)
        try expect("LAN.md", quotes: "\(JoinCode.alphabet.count)⁶ ≈ 887 million codes")
        #expect(Int(pow(Double(JoinCode.alphabet.count), 6)) / 1_000_000 == 887)
        // The announcement's checked fields, and the machine's name as shown.
        try expect("LAN.md", quotes: "at most \(PlayerName.maxScalars) characters and \(PlayerName.maxBytes) bytes), `max` is "
                   + "\(SnapService.playerCounts.lowerBound)–\(SnapService.playerCounts.upperBound)")
        let long = SnapService.printableMachine(String(repeating: "m", count: 40))
        #expect(long.hasSuffix("…"))
        try expect("LAN.md", quotes: "shows as `\(SnapService.printableMachine("\t"))`, and it is cut to \(long.count) characters ending with `…`")
        // mDNS's port: a one-shot querier is one from another port; Avahi shares it.
        try expect("LAN.md", quotes: "A one-shot querier (source port other than \(SnapService.port))")
        try expect("LAN.md", quotes: "`avahi-daemon` (sharing port \(SnapService.port))")
        // What joining a listed game says when nobody listens, or nobody answers.
        try expect("LAN.md", quotes: "A port nobody listens on fails at once (`\(plainErrno(ECONNREFUSED))`)")
        try expect("LAN.md", quotes: "fails after the \(seconds(tcpConnectTimeout)) connect timeout (`\(plainErrno(ETIMEDOUT))`)")
    }
}
