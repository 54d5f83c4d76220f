/// One frame of the stream, without its length prefix: the header fields and the
/// still-undecoded payload. On the wire (all integers big-endian):
///
///     u32 length | "SNAP" | u8 type | u32 sequence | payload
///     └ prefix ┘ └──────────── body: `length` bytes ───────────┘
///
/// The frame layer knows nothing about message types; `WireCodec` turns a frame into a
/// `ClientMessage` or `HostMessage` and back.
public struct Frame: Hashable, Sendable {
    public var type: UInt8
    public var sequence: UInt32
    public var payload: [UInt8]

    /// The largest body (magic, type, sequence and payload) a receiver accepts.
    public static let maxBodyLength = 4096
    /// Magic, type and sequence: a body with an empty payload.
    public static let minBodyLength = 9
    /// The largest payload that fits.
    public static let maxPayloadLength = maxBodyLength - minBodyLength
    /// "SNAP".
    public static let magic: [UInt8] = [0x53, 0x4E, 0x41, 0x50]
    /// Bytes before the body: the u32 length.
    public static let prefixLength = 4

    public init(type: UInt8, sequence: UInt32, payload: [UInt8] = []) {
        self.type = type
        self.sequence = sequence
        self.payload = payload
    }

    /// The complete frame as sent: length prefix, magic, type, sequence, payload.
    /// A payload over `maxPayloadLength` is a programming error.
    public var bytes: [UInt8] { bytes(maxBodyLength: Self.maxBodyLength) }

    /// The complete frame for a stream whose bodies may be up to `maxBodyLength` bytes
    /// (the story service's are longer than Snap!'s: a story is up to 4096 bytes itself).
    public func bytes(maxBodyLength: Int) -> [UInt8] {
        precondition(
            payload.count <= maxBodyLength - Self.minBodyLength,
            "frame payload of \(payload.count) bytes is over the limit of \(maxBodyLength - Self.minBodyLength)")
        var writer = ByteWriter(capacity: Self.prefixLength + Self.minBodyLength + payload.count)
        writer.u32(UInt32(Self.minBodyLength + payload.count))
        writer.bytes(Self.magic)
        writer.u8(type)
        writer.u32(sequence)
        writer.bytes(payload)
        return writer.bytes
    }
}

/// Splits a byte stream into frames. Feed it whatever the socket delivered with
/// `append`, then call `nextFrame()` until it returns nil (it needs more bytes).
///
/// It checks the length prefix as soon as its four bytes are in (so an oversized or
/// undersized frame is refused before its body arrives) and the magic as soon as each
/// of its bytes is in. It buffers at most one incomplete frame beyond what the caller
/// appended, and copies each payload once.
///
/// After it has thrown, the decoder is spent: every later `nextFrame()` throws the same
/// error and `append` drops its input. The connection is to be cut.
public struct FrameDecoder: Sendable {
    private var buffer: [UInt8] = []
    /// Where the next unread frame starts in `buffer`.
    private var readIndex = 0
    private var failure: Fault?

    /// Compact once this many consumed bytes sit at the front (and they are at least
    /// half the buffer), so the amortized cost per byte stays constant.
    private static let compactionThreshold = 4096

    /// The largest body accepted: `Frame.maxBodyLength` for Snap!, more for the story service.
    private let maxBodyLength: Int

    public init(maxBodyLength: Int = Frame.maxBodyLength) {
        self.maxBodyLength = maxBodyLength
    }

    /// Bytes received but not yet returned as frames.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// True once the decoder has thrown.
    public var hasFailed: Bool { failure != nil }

    public mutating func append(_ bytes: some Sequence<UInt8>) {
        guard failure == nil else { return }
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readIndex = 0
        } else if readIndex >= Self.compactionThreshold, readIndex * 2 >= buffer.count {
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame, nil if more bytes are needed, or an error if the bytes
    /// buffered so far cannot be the start of a valid frame (thrown as the caller's
    /// protocol's error: Snap!'s `nextFrame()` is SnapProtocol's).
    public mutating func nextFrame<Failure: WireFailure>(failing: Failure.Type) throws(Failure) -> Frame? {
        if let failure { throw failure.thrown(as: Failure.self) }
        do {
            return try decodeFrame()
        } catch {
            failure = error
            buffer = []
            readIndex = 0
            throw error.thrown(as: Failure.self)
        }
    }

    /// What was wrong with the bytes, kept so that every later call throws it again.
    private enum Fault: Error, Sendable {
        case tooLong(UInt32), tooShort(UInt32), badMagic

        func thrown<Failure: WireFailure>(as: Failure.Type) -> Failure {
            switch self {
            case .tooLong(let length): .frameTooLong(length: length)
            case .tooShort(let length): .frameTooShort(length: length)
            case .badMagic: .badMagic
            }
        }
    }

    private mutating func decodeFrame() throws(Fault) -> Frame? {
        let available = buffer.count - readIndex
        guard available >= Frame.prefixLength else { return nil }
        let length = UInt32(buffer[readIndex]) << 24 | UInt32(buffer[readIndex + 1]) << 16
            | UInt32(buffer[readIndex + 2]) << 8 | UInt32(buffer[readIndex + 3])
        guard length <= UInt32(maxBodyLength) else { throw .tooLong(length) }
        guard length >= UInt32(Frame.minBodyLength) else { throw .tooShort(length) }

        let bodyStart = readIndex + Frame.prefixLength
        let magicAvailable = min(Frame.magic.count, buffer.count - bodyStart)
        for offset in 0..<magicAvailable where buffer[bodyStart + offset] != Frame.magic[offset] {
            throw .badMagic
        }

        let bodyEnd = bodyStart + Int(length)
        guard buffer.count >= bodyEnd else { return nil }
        let type = buffer[bodyStart + 4]
        let sequence = UInt32(buffer[bodyStart + 5]) << 24 | UInt32(buffer[bodyStart + 6]) << 16
            | UInt32(buffer[bodyStart + 7]) << 8 | UInt32(buffer[bodyStart + 8])
        let payload = Array(buffer[(bodyStart + Frame.minBodyLength)..<bodyEnd])
        readIndex = bodyEnd
        return Frame(type: type, sequence: sequence, payload: payload)
    }
}

/// Checks that the frames of one direction of one connection arrive numbered 0, 1, 2, …
/// (wrapping after 2³²−1). Anything else — a gap, a duplicate — throws `.sequenceGap`.
public struct SequenceChecker: Hashable, Sendable {
    /// The sequence number the next frame must carry.
    public private(set) var expected: UInt32 = 0

    public init() {}

    public mutating func check<Failure: WireFailure>(_ sequence: UInt32, failing: Failure.Type) throws(Failure) {
        guard sequence == expected else { throw Failure.sequenceGap(expected: expected, got: sequence) }
        expected &+= 1
    }
}

/// Numbers the frames a sender writes: 0, 1, 2, … (wrapping after 2³²−1).
public struct SequenceCounter: Hashable, Sendable {
    /// The number the next frame will carry.
    public private(set) var upcoming: UInt32 = 0

    public init() {}

    public mutating func next() -> UInt32 {
        defer { upcoming &+= 1 }
        return upcoming
    }
}
