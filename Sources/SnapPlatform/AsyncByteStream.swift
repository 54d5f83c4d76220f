import NIOCore
import NIOPosix
import NIOSSL
import SnapBytes

/// A byte stream for code that reads in a loop from a task (the story commands and window,
/// benchmark clients): the connection is NIO's, TLS on TCP like every other
/// (`connectLater`), as an `NIOAsyncChannel` read by a task of its own for as long as it is
/// open. What arrives is kept until read; a read that waits past its time limit gives
/// nothing and leaves the connection open.
package actor AsyncByteStream {
    /// The fingerprint of the certificate the server showed and the client trusted (TCP only).
    package nonisolated let serverFingerprint: CertificateFingerprint?
    private nonisolated let channel: Channel
    private var writer: NIOAsyncChannelOutboundWriter<ByteBuffer>?
    private var received: [UInt8] = []
    private var ended: String?
    /// The read waiting for bytes, an end or its time limit, and its number (a late timer's
    /// number is not the current one).
    private var waiting: CheckedContinuation<Void, Never>?
    private var waitNumber = 0

    private init(channel: Channel, serverFingerprint: CertificateFingerprint?) {
        self.channel = channel
        self.serverFingerprint = serverFingerprint
    }

    /// Connects (over TCP: TLS, the certificate checked by `trust`); throws `NetError`.
    package static func connect(endpoint: Endpoint, trust: ServerTrust? = nil,
                                group: EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws(NetError) -> AsyncByteStream {
        let connected: (NIOAsyncChannel<ByteBuffer, ByteBuffer>, CertificateFingerprint?)
        do {
            connected = try await connectLater(to: endpoint, on: group.next(), trust: trust) { channel in
                // On the loop, where the TLS handler is.
                let fingerprint = try? channel.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self).peerCertificate
                    .map { CertificateFingerprint(certificateDER: try $0.toDERBytes()) }
                return (try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel), fingerprint)
            }.get()
        } catch let error as NetError {
            throw error
        } catch {
            throw NetError.cannotConnect(endpoint.description, "\(error)")
        }
        let stream = AsyncByteStream(channel: connected.0.channel, serverFingerprint: connected.1)
        await stream.start(connected.0)
        return stream
    }

    /// Starts the task that reads the connection for as long as it is open (isolated to
    /// this actor, so what it reads is kept without a hop); returns once it can be written to.
    private func start(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async {
        await withCheckedContinuation { (ready: CheckedContinuation<Void, Never>) in
            Task {
                do {
                    try await connection.executeThenClose { inbound, outbound in
                        self.attach(outbound)
                        ready.resume()
                        for try await buffer in inbound { self.deliver(Array(buffer.readableBytesView), ended: nil) }
                    }
                    self.deliver([], ended: "the other side closed the connection")
                } catch {
                    self.deliver([], ended: "\(error)")
                }
            }
        }
    }

    private func attach(_ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
        writer = outbound
    }

    private func deliver(_ bytes: [UInt8], ended reason: String?) {
        received += bytes
        if let reason, ended == nil { ended = reason }
        wake()
    }

    private func wake() {
        waiting?.resume()
        waiting = nil
    }

    private func timeUp(_ number: Int) {
        if number == waitNumber { wake() }
    }

    /// Writes all of `bytes`; throws when the connection is gone.
    package func write(_ bytes: [UInt8]) async throws(NetError) {
        guard let writer, ended == nil else { throw NetError.cannotConnect("the connection", "it is closed") }
        do { try await writer.write(channel.allocator.buffer(bytes: bytes)) } catch {
            throw NetError.cannotConnect("the connection", "it is closed (\(error))")
        }
    }

    /// What has arrived, waiting up to `timeout` (nil: for ever) for something: empty when
    /// nothing came in time, nil once the connection is closed and everything was read (with why).
    package func read(timeout: Duration?) async -> (bytes: [UInt8], closed: String?) {
        if received.isEmpty, ended == nil {
            waitNumber += 1
            let number = waitNumber
            let timer = timeout.map { timeout in
                Task {
                    try? await Task.sleep(for: timeout)
                    self.timeUp(number)
                }
            }
            await withCheckedContinuation { waiting = $0 }
            timer?.cancel()
        }
        let bytes = received
        received = []
        // The end is told once everything before it was read.
        return (bytes, bytes.isEmpty ? ended : nil)
    }

    /// Closes the connection; a read waiting wakes with it closed.
    package nonisolated func close() {
        channel.close(promise: nil)
    }
}
