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
    /// Where the intact part ends (the length a repair truncates the file to).
    public var intactLength: Int
    /// Why the bytes after `intactLength` were not used, if there are any.
    public var damage: String?
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
    /// Reads every intact record. A header that is not a journal's is an error; damage
    /// after the header (a torn or corrupt record) ends the intact part and is reported.
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
        var damage: String?
        while offset < bytes.count {
            guard bytes.count - offset >= 8 else {
                damage = "a torn record header at byte \(offset)"
                break
            }
            let length = Int(be32(bytes, offset))
            let checksum = be32(bytes, offset + 4)
            guard (1...maxRecordLength).contains(length) else {
                damage = "a record length of \(length) at byte \(offset)"
                break
            }
            guard bytes.count - offset - 8 >= length else {
                damage = "a torn record at byte \(offset): \(length) bytes announced, \(bytes.count - offset - 8) present"
                break
            }
            let payload = Array(bytes[(offset + 8)..<(offset + 8 + length)])
            guard CRC32.checksum(payload) == checksum else {
                damage = "a record whose checksum does not match at byte \(offset)"
                break
            }
            records.append(payload)
            offset += 8 + length
        }
        return JournalContents(kind: kind, records: records, intactLength: offset, damage: damage)
    }

    public static func read(path: String) throws(JournalError) -> JournalContents {
        guard let file = fopen(path, "rb") else { throw .cannotRead(path, String(cString: strerror(errno))) }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count > 0 { bytes += chunk[0..<count] }
            if count < chunk.count { break }
        }
        return try read(bytes, path: path)
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

    public static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
