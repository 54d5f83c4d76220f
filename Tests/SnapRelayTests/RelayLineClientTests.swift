import NIOCore
import NIOEmbedded
import SnapRelayClient
import SnapRelayProtocol
import Testing

/// A host's data connection reading the relay's answer (docs/RELAY.md §3): the peer tag told
/// with `spliced`, and a relay (hostile, or broken) whose tag is not one.
@Suite("Relay: a host's data connection reads spliced TAG")
struct RelayLineClientTests {
    /// What one data connection's line client did: the tag it handed on, or its failure.
    final class Outcome {
        var spliced: [RelayPeerTag?] = []
        var failures: [String] = []
    }

    func dataConnection(_ outcome: Outcome) throws -> EmbeddedChannel {
        let client = RelayLineClient(.accept(connection: RelayID(String(repeating: "a", count: 32))!), relay: "192.0.2.1:7790",
                                     onSpliced: { _, tag in outcome.spliced.append(tag) },
                                     onFailure: { outcome.failures.append("\($0)") })
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(client)
        try channel.connect(to: SocketAddress(ipAddress: "192.0.2.1", port: 7790)).wait()
        return channel
    }

    @Test("spliced TAG hands the tag on; plain spliced (a relay of version 1) hands on none; the bytes after it are the player's")
    func tagHandedOn() throws {
        let tagged = Outcome(), plain = Outcome()
        let first = try dataConnection(tagged), second = try dataConnection(plain)
        try first.writeInbound(first.allocator.buffer(bytes: Array("spliced 0123456789abcdef\n".utf8) + [0x16, 0x03]))
        try second.writeInbound(second.allocator.buffer(bytes: Array("spliced\n".utf8)))
        #expect(tagged.spliced == [RelayPeerTag("0123456789abcdef")!] && tagged.failures.isEmpty)
        #expect(plain.spliced == [nil] && plain.failures.isEmpty)
        #expect(try first.readInbound(as: ByteBuffer.self).map { Array($0.readableBytesView) } == [0x16, 0x03])
        #expect(first.isActive && second.isActive)
    }

    @Test("a tag that is not one: that connection fails in words quoting the line, and closes; another beside it is spliced as usual",
          arguments: ["spliced 10.0.0.2", "spliced 0123456789ABCDEF", "spliced 0123456789abcdef0", "spliced \u{1b}[2J"])
    func malformedTag(_ line: String) throws {
        let hostile = Outcome(), honest = Outcome()
        let bad = try dataConnection(hostile), good = try dataConnection(honest)
        try bad.writeInbound(bad.allocator.buffer(bytes: Array((line + "\n").utf8)))
        try good.writeInbound(good.allocator.buffer(bytes: Array("spliced fedcba9876543210\n".utf8)))
        #expect(hostile.spliced.isEmpty, "never handed to the game")
        let shown = line.replacing("\u{1b}", with: "\\x1b")
        #expect(hostile.failures == ["the relay at 192.0.2.1:7790 does not speak the relay protocol (it said \"\(shown)\")"])
        #expect(!bad.isActive)
        #expect(honest.spliced == [RelayPeerTag("fedcba9876543210")!] && honest.failures.isEmpty && good.isActive)
    }
}
