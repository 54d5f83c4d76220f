/// Where big-endian fields are written: a growing array (`ByteWriter`) or memory owned
/// elsewhere (`BufferWriter`, a journal ring's room). One encoder, generic over the sink,
/// serves both.
public protocol ByteSink {
    mutating func u8(_ value: UInt8)
    mutating func u16(_ value: UInt16)
    mutating func u32(_ value: UInt32)
    mutating func u64(_ value: UInt64)
    mutating func bytes(_ more: some Collection<UInt8>)
}

extension ByteSink {
    /// u8 byte length, then the UTF-8 bytes. The caller has checked the length.
    public mutating func string(_ text: String) {
        let utf8 = text.utf8
        precondition(utf8.count <= Int(UInt8.max), "string of \(utf8.count) bytes is too long for the wire")
        u8(UInt8(utf8.count))
        bytes(utf8)
    }
}

/// Appends big-endian integers and length-prefixed strings to an array of its own.
public struct ByteWriter: ByteSink {  // public for the story service's messages
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 64) {
        if capacity > 0 { bytes.reserveCapacity(capacity) }  // (reserving 0 still allocated)
    }

    public mutating func u8(_ value: UInt8) { bytes.append(value) }

    public mutating func u16(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    public mutating func u32(_ value: UInt32) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    public mutating func u64(_ value: UInt64) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    public mutating func bytes(_ more: some Collection<UInt8>) { bytes.append(contentsOf: more) }
}

/// Writes into memory owned elsewhere (a journal writer's ring: the record is encoded
/// where it will be written from, not into an array copied there after). Every field is
/// checked to fit: bytes past the room trap, as an oversized record always did.
public struct BufferWriter: ByteSink {
    private let start: UnsafeMutableRawPointer?
    private let capacity: Int
    /// How many bytes are written, from the room's start.
    public private(set) var count = 0

    public init(_ room: UnsafeMutableRawBufferPointer) {
        start = room.baseAddress
        capacity = room.count
    }

    // Always inlined: a call for each field cost more than the field's store.

    /// Where the next `size` bytes go, counted as written.
    @inline(__always) private mutating func take(_ size: Int) -> UnsafeMutableRawPointer {
        precondition(size <= capacity &- count, "a record over its \(capacity) bytes of room")
        defer { count &+= size }
        return start.unsafelyUnwrapped + count
    }

    @inline(__always) public mutating func u8(_ value: UInt8) { take(1).storeBytes(of: value, as: UInt8.self) }
    @inline(__always) public mutating func u16(_ value: UInt16) { take(2).storeBytes(of: value.bigEndian, as: UInt16.self) }
    @inline(__always) public mutating func u32(_ value: UInt32) { take(4).storeBytes(of: value.bigEndian, as: UInt32.self) }
    @inline(__always) public mutating func u64(_ value: UInt64) { take(8).storeBytes(of: value.bigEndian, as: UInt64.self) }

    public mutating func bytes(_ more: some Collection<UInt8>) {
        let size = more.count
        guard size > 0 else { return }
        UnsafeMutableRawBufferPointer(start: take(size), count: size).copyBytes(from: more)
    }
}

/// Reads big-endian fields from one message payload. Every read checks the bytes are
/// there first and throws `.truncatedPayload` otherwise, so no claimed length is
/// trusted before it is checked against what actually arrived.
public struct ByteReader<Failure: WireFailure> {  // throws each protocol's own error
    private let bytes: [UInt8]
    private var index = 0
    /// The message type, for error messages.
    public let type: UInt8

    public init(_ bytes: [UInt8], type: UInt8) {
        self.bytes = bytes
        self.type = type
    }

    public var remaining: Int { bytes.count - index }

    public mutating func bytes(_ count: Int) throws(Failure) -> [UInt8] { Array(try take(count)) }

    private mutating func take(_ count: Int) throws(Failure) -> ArraySlice<UInt8> {
        guard count <= remaining else { throw Failure.truncatedPayload(type: type) }
        defer { index += count }
        return bytes[index..<(index + count)]
    }

    public mutating func u8() throws(Failure) -> UInt8 {
        guard remaining >= 1 else { throw Failure.truncatedPayload(type: type) }
        defer { index += 1 }
        return bytes[index]
    }

    public mutating func u16() throws(Failure) -> UInt16 {
        try take(2).reduce(0) { $0 << 8 | UInt16($1) }
    }

    public mutating func u32() throws(Failure) -> UInt32 {
        try take(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    public mutating func u64() throws(Failure) -> UInt64 {
        try take(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// u8 byte length, then that many bytes of valid UTF-8.
    public mutating func string() throws(Failure) -> String {
        let length = Int(try u8())
        let utf8 = try take(length)
        guard let text = String(validating: utf8, as: UTF8.self) else { throw Failure.invalidUTF8 }
        return text
    }

    /// A string whose byte length is checked against `allowed` before its bytes are read.
    public mutating func string(_ what: Failure.Counted, in allowed: ClosedRange<Int>) throws(Failure) -> String {
        let length = try count8(what, in: allowed)
        guard let text = String(validating: try take(length), as: UTF8.self) else { throw Failure.invalidUTF8 }
        return text
    }

    /// A count byte (or two) checked against its range before anything is read for it.
    public mutating func count8(_ what: Failure.Counted, in allowed: ClosedRange<Int>) throws(Failure) -> Int {
        let count = Int(try u8())
        guard allowed.contains(count) else { throw Failure.countOutOfRange(what, count: count, allowed: allowed) }
        return count
    }

    public mutating func count16(_ what: Failure.Counted, in allowed: ClosedRange<Int>) throws(Failure) -> Int {
        let count = Int(try u16())
        guard allowed.contains(count) else { throw Failure.countOutOfRange(what, count: count, allowed: allowed) }
        return count
    }

    /// Throws `.trailingBytes` unless the whole payload has been read.
    public func finish() throws(Failure) {
        guard remaining == 0 else { throw Failure.trailingBytes(type: type, count: remaining) }
    }
}
