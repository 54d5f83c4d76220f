#if canImport(Glibc)
import Glibc
#endif
import Crypto
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
@testable import SnapNet
@testable import SnapPlatform
import SnapBytes
import SnapProtocol
import SnapSession
import SnapTestSupport
import Testing
import X509

/// TLS on TCP (PROTOCOL.md §2): real sockets on 127.0.0.1, real handshakes.
// Serialized: the stalled-handshake test times a 5 s deadline, and in clean-clone runs it
// saw its close only after more than 20 s while the storm tests (72 clients, 8 held
// sign-ins) ran beside it in this suite, even with a loop of its own. The cause is not
// established (descriptors at the test process's limit of 1,300, so an accept that waits,
// is the lead); until it is, the suite's tests do not overlap.
@Suite("TLS: certificates, trust on first use, and what is refused", .blocksThreads, .serialized)
struct TLSTests {
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// A host listening on TCP with `identity`; its port.
    func host(_ identity: TLSIdentity) async throws -> (HostServer, Int) {
        let server = HostServer(HostConfiguration(hostName: "Host"), loop: Self.group.next(), logger: Logger(label: "test"))
        return (server, try await server.listenLater(host: "127.0.0.1", port: 0, identity: identity).get())
    }

    func trust(_ directory: String) -> ServerTrust { ServerTrust(knownHosts: KnownHosts(path: directory + "/known_hosts")) }

    @Test("the self-made certificate is made once, kept 0600, and the same afterwards")
    func selfMade() throws {
        let directory = scratchDirectory("tls") + "/tls"
        let first = try TLSIdentity.selfMade(in: directory)
        let again = try TLSIdentity.selfMade(in: directory)
        #expect(first.fingerprint == again.fingerprint)
        #expect(first.isSelfMade)
        var status = stat()
        #expect(stat(directory + "/identity.pem", &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        // Readable by others: refused, not used.
        chmod(directory + "/identity.pem", 0o644)
        #expect(throws: TLSSetupError.self) { try TLSIdentity.selfMade(in: directory) }
        // A fingerprint reads back from its text.
        #expect(CertificateFingerprint(first.fingerprint.description) == first.fingerprint)
        #expect(CertificateFingerprint("SHA256:short") == nil)
    }

    @Test("first use remembers the certificate; the next connection must show the same")
    func firstUse() async throws {
        let directory = scratchDirectory("tofu")
        let identity = try TLSIdentity.selfMade(in: directory + "/tls")
        let (server, port) = try await host(identity)
        defer { server.shutdown(reason: "test over") }
        let notices = NIOLockedValueBox<[String]>([])
        var trust = trust(directory)
        trust.onFirstUse = { line in notices.withLockedValue { $0.append(line) } }
        let stream = try await AsyncByteStream.connect(endpoint: .tcp(host: "127.0.0.1", port: port), trust: trust)
        #expect(stream.serverFingerprint == identity.fingerprint)
        stream.close()
        #expect(try trust.knownHosts.entry(for: "127.0.0.1:\(port)") == .fingerprint(identity.fingerprint))
        #expect(notices.withLockedValue { $0.count } == 1)
        // The file is the user's alone, one `HOST:PORT SHA256:…` line (PROTOCOL.md §2, known_hosts).
        var status = stat()
        #expect(stat(trust.knownHosts.path, &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(try String(contentsOfFile: trust.knownHosts.path, encoding: .utf8) == "127.0.0.1:\(port) \(identity.fingerprint)\n")
        // Again: known, so no new notice.
        try await AsyncByteStream.connect(endpoint: .tcp(host: "127.0.0.1", port: port), trust: trust).close()
        #expect(notices.withLockedValue { $0.count } == 1)
    }

    @Test("a man in the middle with its own certificate is refused before anything is sent, and can be accepted by fingerprint")
    func manInTheMiddle() async throws {
        let directory = scratchDirectory("mitm")
        let real = try TLSIdentity.selfMade(in: directory + "/real")
        let impostor = try TLSIdentity.selfMade(in: directory + "/impostor")
        // The player met the real host at this address before.
        let recorder = try RecordingTLSServer(identity: impostor, on: Self.group.next())
        defer { recorder.close() }
        let trust = trust(directory)
        let address = "127.0.0.1:\(recorder.port)"
        try trust.knownHosts.remember(.fingerprint(real.fingerprint), for: address)
        // A bot with a join code and a seat token: none of it may reach the impostor.
        let bot = BotConnection(name: "Ann", joinCode: "ABCDEF", bot: BotClient(level: .normal, seed: 1, timeScale: 0),
                                loop: Self.group.next(), logger: Logger(label: "test"))
        bot.trust = trust
        let refusal: NetError?
        do {
            _ = try await bot.run(.tcp(host: "127.0.0.1", port: recorder.port)).get()
            refusal = nil
        } catch {
            refusal = error as? NetError
        }
        guard case .untrusted(.changed(let at, let remembered, let presented))? = refusal else {
            Issue.record("expected a changed-certificate refusal, got \(String(describing: refusal))")
            return
        }
        #expect(at == address && remembered == real.fingerprint && presented == impostor.fingerprint)
        #expect(refusal!.description.contains(real.fingerprint.description))
        #expect(refusal!.description.contains(impostor.fingerprint.description))
        #expect(refusal!.description.contains("--accept-certificate"))
        try await Task.sleep(for: .milliseconds(200))
        #expect(recorder.plaintext.isEmpty, "the impostor read \(recorder.plaintext.count) bytes")
        // Still remembered as the real one.
        #expect(try trust.knownHosts.entry(for: address) == .fingerprint(real.fingerprint))

        // The player accepts the new certificate by its fingerprint: it replaces the old.
        var accepting = trust
        accepting.accepting = impostor.fingerprint
        let stream = try await AsyncByteStream.connect(endpoint: .tcp(host: "127.0.0.1", port: recorder.port), trust: accepting)
        try await stream.write([1, 2, 3])
        stream.close()
        #expect(try trust.knownHosts.entry(for: address) == .fingerprint(impostor.fingerprint))
    }

    @Test("a LAN announcement's fingerprint is checked on first use")
    func announced() async throws {
        let directory = scratchDirectory("announced")
        let identity = try TLSIdentity.selfMade(in: directory + "/tls")
        let other = try TLSIdentity.selfMade(in: directory + "/other")
        let (server, port) = try await host(identity)
        defer { server.shutdown(reason: "test over") }
        var trust = trust(directory)
        trust.announced = other.fingerprint
        await #expect {
            try await AsyncByteStream.connect(endpoint: .tcp(host: "127.0.0.1", port: port), trust: trust)
        } throws: { error in
            if case NetError.untrusted(.notAnnounced) = error { return true }
            return false
        }
        #expect(try trust.knownHosts.entry(for: "127.0.0.1:\(port)") == nil)
        trust.announced = identity.fingerprint
        try await AsyncByteStream.connect(endpoint: .tcp(host: "127.0.0.1", port: port), trust: trust).close()
    }

    @Test("a plain client reaching a TLS port reads a closing frame that says why")
    func plainClient() async throws {
        let directory = scratchDirectory("plain")
        let (server, port) = try await host(try TLSIdentity.selfMade(in: directory + "/tls"))
        defer { server.shutdown(reason: "test over") }
        let bytes = try rawExchange(port: port, send: WireCodec.encode(ClientMessage.hello(Hello(name: "Old")), sequence: 0))
        var decoder = FrameDecoder()
        decoder.append(bytes)
        let frame = try #require(try decoder.nextFrame())
        guard case .closing(let reason, let message) = try WireCodec.decodeHostMessage(frame) else {
            Issue.record("expected closing")
            return
        }
        #expect(reason == .versionUnsupported)
        #expect(message.contains("TLS"))
    }

    @Test("a TLS client reaching a plain server is told it does not speak TLS")
    func plainServer() async throws {
        let server = HostServer(HostConfiguration(hostName: "Old"), loop: Self.group.next(), logger: Logger(label: "test"))
        defer { server.shutdown(reason: "test over") }
        let port = try await server.listenLater(host: "127.0.0.1", port: 0, tls: nil).get()
        await #expect {
            try await AsyncByteStream.connect(endpoint: .tcp(host: "127.0.0.1", port: port), trust: trust(scratchDirectory("plain")))
        } throws: { error in
            guard case NetError.untrusted(let refusal) = error else { return false }
            if case .noTLS = refusal { return true }
            Issue.record("refusal: \(refusal)")
            return false
        }
    }

    @Test("a client that opens a handshake and stalls is closed after the deadline", .timeLimit(.minutes(5)))
    func stalledHandshake() throws {
        // A loop of its own: this test times what its deadline timer does, whatever the
        // suite's shared loop is busy with.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let server = HostServer(HostConfiguration(hostName: "Host"), loop: group.next(), logger: Logger(label: "test"))
        let port = try server.listenLater(host: "127.0.0.1", port: 0, identity: try TLSIdentity.selfMade(in: scratchDirectory("stall") + "/tls")).wait()
        defer { server.shutdown(reason: "test over") }
        let started = ContinuousClock.now
        // One byte of a handshake record, then nothing.
        let bytes = try rawExchange(port: port, send: [0x16], timeoutSeconds: 20)
        let waited = ContinuousClock.now - started
        #expect(bytes.isEmpty)
        // Closed by the deadline, not at once; the read's own limit (20 s) was not reached.
        #expect(waited >= .seconds(4) && waited < .seconds(20), "closed after \(waited)")
    }

    /// §2's decisions: the sign-in deadline counts from the TCP accept, the handshake inside
    /// it; a connection that never starts its handshake is closed without a word. Compared
    /// by order, not by time: one accepted 3 s before another but handshaking 1 s after it,
    /// then silent, is cut first (counted from the handshake, it would be cut second).
    @Test("the 5 s for hello count from the TCP accept, the handshake inside them; a silent TCP connection is closed without a word",
          .timeLimit(.minutes(5)))
    func signInDeadlineFromAccept() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { group.shutdownGracefully { _ in } }  // last, after the server's shutdown below
        let directory = scratchDirectory("accept")
        let server = HostServer(HostConfiguration(hostName: "Host"), loop: group.next(), logger: Logger(label: "test"))
        let port = try await server.listenLater(host: "127.0.0.1", port: 0, identity: try TLSIdentity.selfMade(in: directory + "/tls")).get()
        defer { server.shutdown(reason: "test over") }
        // Early: TCP now, its handshake in 4 s. Silent: TCP now, never a byte. Late: TCP and
        // handshake in 3 s, a second before the early one's handshake.
        let early = try await ClientBootstrap(group: Self.group).connect(host: "127.0.0.1", port: port).get()
        let silent = try #require(loopbackSocket(port: port, readTimeout: 30))
        defer { close(silent) }
        try await Task.sleep(for: .seconds(3))
        let late = try await AsyncByteStream.connect(endpoint: .tcp(host: "127.0.0.1", port: port), trust: trust(directory))
        defer { late.close() }
        try await Task.sleep(for: .seconds(1))
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        let context = try NIOSSLContext(configuration: configuration)
        let heard = HeardBytes()
        try await early.eventLoop.submit {
            try early.pipeline.syncOperations.addHandlers([NIOSSLClientHandler(context: context, serverHostname: nil), heard])
        }.get()
        let lateClosing = try await closing(from: late)
        // By the time the late one is cut, the early one was cut already, with the same words.
        #expect(lateClosing?.0 == .timedOut && lateClosing?.1.hasPrefix("no hello within") == true, "\(String(describing: lateClosing))")
        #expect(heard.firstBytes != nil, "the early connection was not cut before the late one")
        let earlyClosing = try heard.message()
        #expect(earlyClosing == lateClosing.map { HostMessage.closing($0.0, message: $0.1) }, "\(String(describing: earlyClosing))")
        // Never a handshake: closed without a byte (there is no channel to say why in), by now
        // (at its 5 s); end of file, not the read's own 30 s.
        var byte: UInt8 = 0
        let count = read(silent, &byte, 1)
        #expect(count == 0, "read \(count), errno \(errno)")
        try? await early.close().get()
    }

    /// §2's close: after its last frame the host sends close_notify and waits for the client's
    /// (or its end of file) up to 5 s before it closes TCP; a refusal made before the
    /// handshake, only up to its 2 s. Two clients that never answer close_notify: one signing
    /// in (cut for silence at 5 s, then waited for), one past the caps 2 s later (refused). By
    /// order: the refused one is closed before the other is even cut; the other, no sooner
    /// than 4 s after its closing frame.
    @Test("after its last frame the host waits for close_notify: up to 5 s, a refusal before the handshake up to its 2 s",
          .timeLimit(.minutes(5)))
    func closeNotify() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let directory = scratchDirectory("notify")
        let server = HostServer(HostConfiguration(hostName: "Host"), loop: group.next(), logger: Logger(label: "test"))
        let port = try server.listenLater(host: "127.0.0.1", port: 0, identity: try TLSIdentity.selfMade(in: directory + "/tls")).wait()
        defer { server.shutdown(reason: "test over") }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        let context = try NIOSSLContext(configuration: configuration)
        func mutedClient() throws -> (Channel, HeardBytes) {
            let heard = HeardBytes()
            let channel = try ClientBootstrap(group: Self.group).channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let mute = MuteAfterHandshake()
                    try channel.pipeline.syncOperations.addHandlers([mute, NIOSSLClientHandler(context: context, serverHostname: nil),
                                                                     MuteAfterHandshake.Trigger(mute), heard])
                }
            }.connect(host: "127.0.0.1", port: port).wait()
            return (channel, heard)
        }
        let (signingIn, waited) = try mutedClient()
        let others = try silentConnections(HostConfiguration(hostName: "Host").maxSigningIn - 1, port: port)
        defer { others.forEach { close($0) } }
        // 2 s later: refused at 2 s, closed by 4 s, before the other is cut (5 s); had it
        // waited the 5 s for close_notify, at 7 s, after.
        Thread.sleep(forTimeInterval: 2)
        let (pastTheCaps, refused) = try mutedClient()
        defer { signingIn.close(promise: nil); pastTheCaps.close(promise: nil) }
        let deadline = ContinuousClock.now + .seconds(30)
        while waited.closed == nil, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.05) }
        guard case .closing(.full, _)? = try refused.message() else { Issue.record("refused: \(String(describing: try? refused.message()))"); return }
        guard case .closing(.timedOut, _)? = try waited.message() else { Issue.record("cut: \(String(describing: try? waited.message()))"); return }
        let refusedClosed = try #require(refused.closed, "the refused connection was never closed")
        let cut = try #require(waited.firstBytes), cutClosed = try #require(waited.closed, "never closed")
        #expect(refusedClosed < cut, "the refusal waited longer than its 2 s for close_notify")
        #expect(cutClosed - cut >= .seconds(4), "closed \(cutClosed - cut) after its last frame, without waiting for close_notify")
    }

    @Test("certificates from an authority: verified with the host name and dates; self-signed refused where one is required")
    func authority() async throws {
        let directory = scratchDirectory("ca")
        let ca = try TestAuthority()
        let good = try ca.issue(for: "localhost", in: directory, name: "good")
        let expired = try ca.issue(for: "localhost", in: directory, name: "expired", expired: true)
        var trust = trust(directory)
        trust.authorities = [ca.certificate]

        let (server, port) = try await host(try TLSIdentity.load(certificate: good.certificate, key: good.key))
        defer { server.shutdown(reason: "test over") }
        try await AsyncByteStream.connect(endpoint: .tcp(host: "localhost", port: port), trust: trust).close()
        #expect(try trust.knownHosts.entry(for: "localhost:\(port)") == .authority)
        // The certificate names localhost, not 127.0.0.1.
        #expect(await refusal(trust, "127.0.0.1", port)?.contains("not 127.0.0.1") == true)
        // Without the authority trusted, the chain does not hold.
        var untrusting = self.trust(scratchDirectory("ca-none"))
        untrusting.requireAuthority = true
        #expect(await refusal(untrusting, "localhost", port)?.contains("no certificate authority") == true)

        let (stale, stalePort) = try await host(try TLSIdentity.load(certificate: expired.certificate, key: expired.key))
        defer { stale.shutdown(reason: "test over") }
        #expect(await refusal(trust, "localhost", stalePort)?.contains("expired") == true)

        let (plain, plainPort) = try await host(try TLSIdentity.selfMade(in: directory + "/tls"))
        defer { plain.shutdown(reason: "test over") }
        var requiring = trust
        requiring.requireAuthority = true
        #expect(await refusal(requiring, "localhost", plainPort)?.contains("self-signed") == true)
    }

    @Test("a damaged known_hosts line is an error naming it, never skipped")
    func damagedKnownHosts() throws {
        let directory = scratchDirectory("known")
        let known = KnownHosts(path: directory + "/known_hosts")
        try "a:1 SHA256:nope\n".write(toFile: known.path, atomically: true, encoding: .utf8)
        #expect(throws: TLSSetupError.self) { try known.entries() }
        do { _ = try known.entries() } catch { #expect(error.description.contains("line 1")) }
        // Comments and empty lines are skipped; the last line for an address counts; remembering
        // rewrites the file with every entry and without the comments.
        let fingerprint = CertificateFingerprint(certificateDER: [1])
        let other = CertificateFingerprint(certificateDER: [2])
        try "# mine\n\n[::1]:7777 authority\nhost:1 \(fingerprint)\nhost:1   \(other)\n".write(toFile: known.path, atomically: true, encoding: .utf8)
        #expect(try known.entry(for: "[::1]:7777") == .authority && known.entry(for: "host:1") == .fingerprint(other))
        try known.remember(.authority, for: "b:2")
        #expect(try String(contentsOfFile: known.path, encoding: .utf8) == "[::1]:7777 authority\nhost:1 \(fingerprint)\nhost:1 \(other)\nb:2 authority\n")
    }

    @Test("past the caps over TCP: the 9th TLS client reads closing(full) inside TLS; a plain client, the plain refusal",
          .timeLimit(.minutes(5)))
    func pastTheCaps() async throws {
        let directory = scratchDirectory("caps")
        let (server, port) = try await host(try TLSIdentity.selfMade(in: directory + "/tls"))
        defer { server.shutdown(reason: "test over") }
        let signingIn = try silentConnections(HostConfiguration(hostName: "Host").maxSigningIn, port: port)
        defer { signingIn.forEach { close($0) } }
        let ninth = try await AsyncByteStream.connect(endpoint: .tcp(host: "127.0.0.1", port: port), trust: trust(directory))
        defer { ninth.close() }
        let refused = try await closing(from: ninth)
        #expect(refused?.0 == .full && refused?.1.hasPrefix("the host is busy: ") == true, "\(String(describing: refused))")
        // A plain client past the caps could not read `full` inside TLS: it reads the plain refusal.
        let plain = try rawExchange(port: port, send: WireCodec.encode(ClientMessage.hello(Hello(name: "Old")), sequence: 0))
        var decoder = FrameDecoder()
        decoder.append(plain)
        #expect(try decoder.nextFrame().map(WireCodec.decodeHostMessage) == HostServer.plainRefusalMessage)
    }

    @Test("past the caps and 8 refusals at once: a bare close, which the client reports as a busy host, not a TLS fault",
          .timeLimit(.minutes(5)))
    func pastTheRefusals() async throws {
        let directory = scratchDirectory("refusals")
        let (server, port) = try await host(try TLSIdentity.selfMade(in: directory + "/tls"))
        defer { server.shutdown(reason: "test over") }
        // 8 signing in, then 8 refused that never start their handshake: they hold every refusal.
        let silent = try silentConnections(HostConfiguration(hostName: "Host").maxSigningIn + TLSRefusals.allowance, port: port)
        defer { silent.forEach { close($0) } }
        await #expect {
            try await AsyncByteStream.connect(endpoint: .tcp(host: "127.0.0.1", port: port), trust: trust(directory))
        } throws: { error in
            guard case NetError.hostBusy(_, let why) = error else {
                Issue.record("not busy: \(error)")
                return false
            }
            // Said as busy, in the words a refusal inside TLS has too, and not as a TLS fault.
            return why == closedInHandshakeText("closed the connection") || why == closedInHandshakeText("reset the connection")
        }
        // The refused ones that never handshook are closed without a word (there is no channel for one).
        for fd in silent.suffix(TLSRefusals.allowance) { #expect(readUntilClosed(fd).isEmpty) }
    }

    @Test("a storm of 64 TLS and 8 plain clients past the caps: each told busy in words, or closed bare and called busy",
          .timeLimit(.minutes(5)))
    func stormPastTheCaps() async throws {
        let directory = scratchDirectory("storm")
        let (server, port) = try await host(try TLSIdentity.selfMade(in: directory + "/tls"))
        defer { server.shutdown(reason: "test over") }
        let trust = trust(directory)
        try await AsyncByteStream.connect(endpoint: .tcp(host: "127.0.0.1", port: port), trust: trust).close()  // remembered before the storm
        let signingIn = try silentConnections(HostConfiguration(hostName: "Host").maxSigningIn, port: port)
        defer { signingIn.forEach { close($0) } }
        // The plain clients read raw sockets, which block: each on a thread of its own. The
        // TLS clients are tasks.
        let seen = await withTaskGroup(of: String.self) { group in
            for index in 0..<72 {
                group.addTask {
                    if index % 9 == 8 {
                        let hello = WireCodec.encode(ClientMessage.hello(Hello(name: "Old")), sequence: 0)
                        let bytes = (try? await offThePool { try self.rawExchange(port: port, send: hello) }) ?? []
                        var decoder = FrameDecoder()
                        decoder.append(bytes)
                        let message = try? decoder.nextFrame().map(WireCodec.decodeHostMessage)
                        return bytes.isEmpty ? "plain: bare"
                            : message == HostServer.plainRefusalMessage ? "plain: refused" : "plain: \(bytes.count) bytes"
                    }
                    do {
                        let stream = try await AsyncByteStream.connect(endpoint: .tcp(host: "127.0.0.1", port: port), trust: trust)
                        let refused = try? await self.closing(from: stream)
                        stream.close()
                        // A late one may find the silent eight cut (5 s): it is let in, and cut in turn for its silence.
                        return refused?.0 == .full && refused!.1.hasPrefix("the host is busy: ") ? "tls: words"
                            : refused?.0 == .timedOut ? "tls: let in" : "tls: \(String(describing: refused))"
                    } catch NetError.hostBusy {
                        return "tls: busy"
                    } catch {
                        return "tls: \(error)"
                    }
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        let counts = Dictionary(grouping: seen, by: { $0 }).mapValues(\.count)
        print("storm past the caps: \(counts.sorted { $0.key < $1.key })")
        #expect(seen.count == 72)
        #expect(Set(seen).isSubset(of: ["tls: words", "tls: busy", "tls: let in", "plain: refused", "plain: bare"]), "\(counts)")
        #expect(seen.contains("tls: words"))
    }

    // MARK: - Helpers

    func refusal(_ trust: ServerTrust, _ host: String, _ port: Int) async -> String? {
        do {
            try await AsyncByteStream.connect(endpoint: .tcp(host: host, port: port), trust: trust).close()
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// `count` TCP connections to the host that send nothing (the caller closes them).
    func silentConnections(_ count: Int, port: Int) throws -> [Int32] {
        try (0..<count).map { _ in try #require(loopbackSocket(port: port)) }
    }

    /// The first frame a stream reads, if it is a `closing` (within 10 s).
    func closing(from stream: AsyncByteStream) async throws -> (CloseReason, String)? {
        var decoder = FrameDecoder()
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let frame = try decoder.nextFrame() {
                guard case .closing(let reason, let message) = try WireCodec.decodeHostMessage(frame) else { return nil }
                return (reason, message)
            }
            let (bytes, closed) = await stream.read(timeout: .seconds(1))
            if closed != nil { return nil }
            decoder.append(bytes)
        }
        return nil
    }

    /// Sends `send` over a plain TCP connection and reads until the server closes it.
    func rawExchange(port: Int, send bytes: [UInt8], timeoutSeconds: Int = 10) throws -> [UInt8] {
        let fd = try #require(loopbackSocket(port: port, readTimeout: timeoutSeconds))
        defer { close(fd) }
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        return readUntilClosed(fd)
    }
}

/// What a client connection decrypted, when its first bytes came, and when it was closed.
final class HeardBytes: ChannelInboundHandler, @unchecked Sendable {  // `box` guards the state
    typealias InboundIn = ByteBuffer
    private let box = NIOLockedValueBox<(bytes: [UInt8], first: ContinuousClock.Instant?, closed: ContinuousClock.Instant?)>(([], nil, nil))
    var bytes: [UInt8] { box.withLockedValue { $0.bytes } }
    var firstBytes: ContinuousClock.Instant? { box.withLockedValue { $0.first } }
    var closed: ContinuousClock.Instant? { box.withLockedValue { $0.closed } }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        box.withLockedValue {
            if $0.first == nil { $0.first = .now }
            $0.bytes += buffer.readableBytesView
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        box.withLockedValue { $0.closed = .now }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {}

    /// The first frame heard, decoded.
    func message() throws -> HostMessage? {
        var decoder = FrameDecoder()
        decoder.append(bytes)
        return try decoder.nextFrame().map(WireCodec.decodeHostMessage)
    }
}

/// Below TLS: once its handshake is done (TLS has written its last flight by then), nothing
/// more goes out and the client never closes: a peer that never answers close_notify.
final class MuteAfterHandshake: ChannelDuplexHandler, @unchecked Sendable {  // touched on its loop only
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny
    private var muted = false

    /// Above TLS: tells `mute` when the handshake is done.
    final class Trigger: ChannelInboundHandler, @unchecked Sendable {  // touched on its loop only
        typealias InboundIn = NIOAny
        let mute: MuteAfterHandshake
        init(_ mute: MuteAfterHandshake) { self.mute = mute }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case TLSUserEvent.handshakeCompleted = event { mute.muted = true }
            context.fireUserInboundEventTriggered(event)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if muted { promise?.succeed(()) } else { context.write(data, promise: promise) }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if muted { promise?.succeed(()) } else { context.close(mode: mode, promise: promise) }
    }
}

/// A TLS server that records every byte it decrypts: the impostor in the middle.
final class RecordingTLSServer: @unchecked Sendable {
    let channel: Channel
    private let received = NIOLockedValueBox<[UInt8]>([])
    var port: Int { channel.localAddress!.port! }
    var plaintext: [UInt8] { received.withLockedValue { $0 } }

    init(identity: TLSIdentity, on loop: EventLoop) throws {
        let context = try identity.serverContext()
        let received = self.received
        channel = try ServerBootstrap(group: loop)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try TLSTransport.addServer(to: channel, context: context, plainRefusal: [])
                    try channel.pipeline.syncOperations.addHandler(Recorder(received))
                }
            }
            .bind(host: "127.0.0.1", port: 0).wait()
    }

    func close() { try? channel.close().wait() }

    final class Recorder: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let received: NIOLockedValueBox<[UInt8]>
        init(_ received: NIOLockedValueBox<[UInt8]>) { self.received = received }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = Array(unwrapInboundIn(data).readableBytesView)
            received.withLockedValue { $0 += bytes }
        }
    }
}

/// A certificate authority of the test's own, and certificates it signs.
struct TestAuthority {
    let key = P256.Signing.PrivateKey()
    let certificate: Certificate
    let name: DistinguishedName

    init() throws {
        name = try DistinguishedName { CommonName("Snap! test authority") }
        let signer = Certificate.PrivateKey(key)
        certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: signer.publicKey,
            notValidBefore: Date() - 3600, notValidAfter: Date() + 86_400, issuer: name, subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: signer)
    }

    /// A leaf for `host`, written as PEM files (key 0600) in `directory`.
    func issue(for host: String, in directory: String, name file: String, expired: Bool = false) throws -> (certificate: String, key: String) {
        let leafKey = P256.Signing.PrivateKey()
        let subject = try DistinguishedName { CommonName(host) }
        let now = Date()
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: Certificate.PublicKey(leafKey.publicKey),
            notValidBefore: expired ? now - 7200 : now - 3600, notValidAfter: expired ? now - 3600 : now + 3600,
            issuer: name, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                SubjectAlternativeNames([.dnsName(host)])
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
        let certificatePath = directory + "/\(file).crt"
        let keyPath = directory + "/\(file).key"
        try (try leaf.serializeAsPEM().pemString + "\n").write(toFile: certificatePath, atomically: true, encoding: .utf8)
        #expect(FileManager.default.createFile(atPath: keyPath, contents: Data(leafKey.pemRepresentation.utf8),
                                               attributes: [.posixPermissions: 0o600]))
        return (certificatePath, keyPath)
    }
}
