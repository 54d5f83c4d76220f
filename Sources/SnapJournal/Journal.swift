#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An append-only file of records, each checksummed, so that a torn tail (a `kill -9`
/// or a power cut in the middle of a write) is detected and cut, never misread. It knows
/// nothing of any game: a record is bytes. The format is in docs/JOURNAL.md.
///
///     file   = magic "SNAPJRNL" (8 bytes), u16 format version, u16 kind length,
///              kind (UTF-8, e.g. "snap-match"), then records
///     record = u32 payload length (1 … 1 MiB), u32 CRC-32 of the payload, payload
///
/// All integers big-endian.
public enum Journal {
    public static let magic = Array("SNAPJRNL".utf8)
    public static let formatVersion: UInt16 = 1
    public static let maxRecordLength = 1 << 20

    public static func header(kind: String) -> [UInt8] {
        var bytes = magic
        bytes += be16(formatVersion)
        let name = Array(kind.utf8)
        bytes += be16(UInt16(name.count))
        bytes += name
        return bytes
    }

    public static func frame(_ payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        frame(payload, into: &bytes)
        return bytes
    }

    /// Appends the framed record to `bytes` (a writer batches many into one write).
    public static func frame(_ payload: [UInt8], into bytes: inout [UInt8]) {
        precondition(!payload.isEmpty && payload.count <= maxRecordLength, "a journal record of \(payload.count) bytes")
        appendBE32(UInt32(payload.count), to: &bytes)
        appendBE32(CRC32.checksum(payload), to: &bytes)
        bytes.append(contentsOf: payload)
    }

    /// Fills in the checksum of each framed record in `bytes` (records end to end, each
    /// with its length written and its checksum still to come), as `frame` would have.
    static func checksumFramed(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBufferPointer { bytes in
            var offset = 0
            while offset + 8 <= bytes.count {
                let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8
                    | Int(bytes[offset + 3])
                let checksum = CRC32.checksum(UnsafeBufferPointer(rebasing: bytes[(offset + 8)..<(offset + 8 + length)]))
                bytes[offset + 4] = UInt8(truncatingIfNeeded: checksum >> 24)
                bytes[offset + 5] = UInt8(truncatingIfNeeded: checksum >> 16)
                bytes[offset + 6] = UInt8(truncatingIfNeeded: checksum >> 8)
                bytes[offset + 7] = UInt8(truncatingIfNeeded: checksum)
                offset += 8 + length
            }
        }
    }

    static func appendBE32(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 24))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    static func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (24 - 8 * $0)) & 0xFF) } }
}

/// What reading a journal found.
public struct JournalContents: Sendable {
    public var kind: String
    /// The intact records, in order.
    public var records: [[UInt8]]
    /// Where each of `records` starts in the file.
    public var recordOffsets: [Int]
    /// Where the intact part ends (the length a repair truncates the file to).
    public var intactLength: Int
    /// The whole file's length.
    public var fileLength: Int
    /// Why the bytes after `intactLength` were not used, if there are any.
    public var fault: JournalFault?
}

/// Where a journal stops being readable, and whether that is a crash's trace or damage.
///
/// A writer only ever appends, so a crash can leave exactly one kind of mess: the last
/// record cut short (or, after a power cut, the file's last bytes never written: zeros).
/// That is a **torn tail**; cutting it loses only what was never acknowledged. A bad
/// record with readable records after it, or one whose length is impossible, cannot come
/// from a crash: that is **damage**, and what follows it is lost unless someone looks.
public struct JournalFault: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable { case tornTail, damaged }
    public var kind: Kind
    /// The byte where the first unreadable record starts.
    public var offset: Int
    /// That record's number, counting the journal's records from 1.
    public var record: Int
    /// The bytes from `offset` to the end of the file.
    public var unreadableBytes: Int
    /// What is wrong with that record.
    public var reason: String

    public init(kind: Kind, offset: Int, record: Int, unreadableBytes: Int, reason: String) {
        (self.kind, self.offset, self.record, self.unreadableBytes, self.reason) = (kind, offset, record, unreadableBytes, reason)
    }

    public var isDamage: Bool { kind == .damaged }

    public var description: String {
        switch kind {
        case .tornTail:
            "the last record was cut short at byte \(offset) (\(reason)): a crash's trace, cut; "
                + "the \(record - 1) records before it are whole"
        case .damaged:
            "damaged at byte \(offset), record \(record) (\(reason)): \(record - 1) records read before it; "
                + "\(grouped(unreadableBytes)) bytes from there on cannot be read"
        }
    }
}

/// 5210 → "5,210": the figures a person reads.
public func grouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var out = ""
    for (index, digit) in digits.enumerated() {
        if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
        out.append(digit)
    }
    return value < 0 ? "-" + out : out
}

public enum JournalError: Error, Equatable, CustomStringConvertible {
    case cannotRead(String, String)
    case notAJournal(String, String)

    public var description: String {
        switch self {
        case .cannotRead(let path, let why): "cannot read the journal \(path): \(why)"
        case .notAJournal(let path, let why): "\(path) is not a Snap! journal: \(why)"
        }
    }
}

extension Journal {
    /// Reads every intact record. A header that is not a journal's is an error; the first
    /// record that cannot be read ends the intact part and is reported as a torn tail or as
    /// damage (`JournalFault`).
    public static func read(_ bytes: [UInt8], path: String = "journal") throws(JournalError) -> JournalContents {
        guard bytes.count >= 12, Array(bytes[0..<8]) == magic else {
            throw .notAJournal(path, "it does not start with SNAPJRNL")
        }
        let version = UInt16(bytes[8]) << 8 | UInt16(bytes[9])
        guard version == formatVersion else {
            throw .notAJournal(path, "format version \(version); this snap reads version \(formatVersion)")
        }
        let kindLength = Int(UInt16(bytes[10]) << 8 | UInt16(bytes[11]))
        guard bytes.count >= 12 + kindLength,
              let kind = String(validating: bytes[12..<(12 + kindLength)], as: UTF8.self) else {
            throw .notAJournal(path, "its header is cut short")
        }
        var offset = 12 + kindLength
        var records: [[UInt8]] = []
        var offsets: [Int] = []
        var fault: JournalFault?
        while offset < bytes.count {
            let problem: String
            var tornShaped = true
            if bytes.count - offset < 8 {
                problem = "its header is cut short"
            } else {
                let length = Int(be32(bytes, offset))
                let checksum = be32(bytes, offset + 4)
                if !(1...maxRecordLength).contains(length) {
                    problem = "a record length of \(length)"
                    tornShaped = false
                } else if bytes.count - offset - 8 < length {
                    problem = "\(length) bytes announced, \(bytes.count - offset - 8) present"
                } else if CRC32.checksum(bytes[(offset + 8)..<(offset + 8 + length)]) != checksum {
                    problem = "its checksum does not match"
                    // Whole but wrong, with more after it: no crash leaves that.
                    tornShaped = offset + 8 + length == bytes.count
                } else {
                    records.append(Array(bytes[(offset + 8)..<(offset + 8 + length)]))
                    offsets.append(offset)
                    offset += 8 + length
                    continue
                }
            }
            let zeros = bytes[offset...].allSatisfy { $0 == 0 }
            let torn = zeros || (tornShaped && !containsRecord(bytes, after: offset))
            fault = JournalFault(kind: torn ? .tornTail : .damaged, offset: offset, record: records.count + 1,
                                 unreadableBytes: bytes.count - offset, reason: zeros ? "zeros, never written" : problem)
            break
        }
        return JournalContents(kind: kind, records: records, recordOffsets: offsets, intactLength: offset,
                               fileLength: bytes.count, fault: fault)
    }

    /// Whether a whole record with a matching checksum starts anywhere after `start`: a torn
    /// write leaves only a prefix of one record, so finding one means the bytes were damaged.
    /// The checksums tried are bounded, so a hostile file cannot make this quadratic; past
    /// the bound the answer is "yes", which only ever calls a tail damage, never intact.
    static func containsRecord(_ bytes: [UInt8], after start: Int) -> Bool {
        var budget = 64 << 20
        var candidate = start + 1
        while candidate + 8 <= bytes.count {
            let length = Int(be32(bytes, candidate))
            if (1...maxRecordLength).contains(length), bytes.count - candidate - 8 >= length {
                budget -= length
                if budget < 0 { return true }
                if CRC32.checksum(bytes[(candidate + 8)..<(candidate + 8 + length)]) == be32(bytes, candidate + 4) {
                    return true
                }
            }
            candidate += 1
        }
        return false
    }

    public static func read(path: String) throws(JournalError) -> JournalContents {
        try read(bytes(atPath: path), path: path)
    }

    /// A file's whole contents.
    public static func bytes(atPath path: String) throws(JournalError) -> [UInt8] {
        guard let file = fopen(path, "rb") else { throw .cannotRead(path, String(cString: strerror(errno))) }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count > 0 { bytes += chunk[0..<count] }
            if count < chunk.count { break }
        }
        return bytes
    }

    /// Copies a damaged journal to `PATH.damaged` (or `PATH.damaged-N`) before anything
    /// cuts it, so that what could not be read is never lost; returns the copy's path.
    public static func keepDamagedCopy(of path: String) throws(JournalError) -> String {
        let contents = try bytes(atPath: path)
        var attempt = 0
        while true {
            let copy = path + ".damaged" + (attempt == 0 ? "" : "-\(attempt)")
            let descriptor = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if descriptor < 0 {
                if errno == EEXIST, attempt < 100 {
                    attempt += 1
                    continue
                }
                throw .cannotRead(copy, "cannot keep a copy of the damaged journal: \(String(cString: strerror(errno)))")
            }
            defer { close(descriptor) }
            var written = 0
            while written < contents.count {
                let count = contents[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else {
                    throw .cannotRead(copy, "cannot keep a copy of the damaged journal: \(String(cString: strerror(errno)))")
                }
                written += count
            }
            guard fsync(descriptor) == 0 else {
                throw .cannotRead(copy, "cannot keep a copy of the damaged journal: \(String(cString: strerror(errno)))")
            }
            return copy
        }
    }

    /// Replaces the file at `path` with `bytes` whole or not at all: they are written to
    /// `PATH.rewrite` (0600), synced, renamed over `path`, and the directory synced, so a
    /// crash at any point leaves either the old file or the new one.
    public static func replace(_ path: String, with bytes: [UInt8]) throws(JournalError) {
        let temporary = path + ".rewrite"
        func failure(_ what: String) -> JournalError {
            .cannotRead(path, "cannot rewrite it (\(what)): \(String(cString: strerror(errno)))")
        }
        unlink(temporary)  // a crash's leftover, never the journal itself
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("creating \(temporary)") }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let error = failure("writing \(temporary)")
                close(descriptor)
                unlink(temporary)
                throw error
            }
            written += count
        }
        guard fsync(descriptor) == 0 else {
            let error = failure("syncing \(temporary)")
            close(descriptor)
            unlink(temporary)
            throw error
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else {
            let error = failure("renaming \(temporary)")
            unlink(temporary)
            throw error
        }
        // The rename itself is on disk only once the directory is.
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }

    private static func be32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 << 8 | UInt32(bytes[offset + $1]) }
    }
}

/// CRC-32 (IEEE 802.3, the one zlib and PNG use).
public enum CRC32 {
    static let table: [UInt32] = (0..<256).map { index in
        (0..<8).reduce(UInt32(index)) { crc, _ in crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
    }

    public static func checksum(_ bytes: [UInt8]) -> UInt32 { checksum(bytes[...]) }

    static func checksum(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        return crc ^ 0xFFFF_FFFF
    }

    public static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
