/// The few DNS message parts that multicast DNS service discovery needs (RFC 1035 §4,
/// RFC 6762, RFC 6763): questions and PTR, SRV, TXT and A records. Other record types
/// are carried as opaque bytes. Decoding is strict and bounded: names may use
/// compression pointers, but only backwards and at most 32 of them per name, so hostile
/// packets cannot loop or read outside the message.
public struct DNSName: Hashable, Sendable, CustomStringConvertible {
    public var labels: [String]

    public init(_ labels: [String]) { self.labels = labels }

    /// "a.b.local" (a trailing dot is ignored). Labels cannot contain dots this way.
    public init(_ dotted: String) {
        labels = dotted.split(separator: ".", omittingEmptySubsequences: true).map(String.init)
    }

    public var description: String { labels.joined(separator: ".") }

    /// DNS compares names ignoring ASCII case.
    public func matches(_ other: DNSName) -> Bool {
        labels.count == other.labels.count && zip(labels, other.labels).allSatisfy { $0.lowercased() == $1.lowercased() }
    }

    /// This name minus `suffix`'s labels, if it ends with them.
    public func dropping(suffix: DNSName) -> [String]? {
        guard labels.count >= suffix.labels.count else { return nil }
        let tail = DNSName(Array(labels.suffix(suffix.labels.count)))
        return tail.matches(suffix) ? Array(labels.prefix(labels.count - suffix.labels.count)) : nil
    }
}

public enum DNSType: UInt16, Sendable {
    case a = 1, ptr = 12, txt = 16, aaaa = 28, srv = 33, any = 255
}

public struct DNSQuestion: Hashable, Sendable {
    public var name: DNSName
    public var type: UInt16
    /// The QU bit (RFC 6762 §5.4): the asker would like a unicast answer.
    public var unicastResponse: Bool

    public init(name: DNSName, type: UInt16, unicastResponse: Bool = false) {
        self.name = name
        self.type = type
        self.unicastResponse = unicastResponse
    }
}

public enum DNSRecordData: Hashable, Sendable {
    case a([UInt8])
    case ptr(DNSName)
    case txt([String])
    case srv(priority: UInt16, weight: UInt16, port: UInt16, target: DNSName)
    case other(type: UInt16, bytes: [UInt8])

    public var type: UInt16 {
        switch self {
        case .a: DNSType.a.rawValue
        case .ptr: DNSType.ptr.rawValue
        case .txt: DNSType.txt.rawValue
        case .srv: DNSType.srv.rawValue
        case .other(let type, _): type
        }
    }
}

public struct DNSRecord: Hashable, Sendable {
    public var name: DNSName
    public var data: DNSRecordData
    public var ttl: UInt32
    /// The cache-flush bit (RFC 6762 §10.2), set on records only this host answers for.
    public var cacheFlush: Bool

    public init(name: DNSName, data: DNSRecordData, ttl: UInt32, cacheFlush: Bool = false) {
        self.name = name
        self.data = data
        self.ttl = ttl
        self.cacheFlush = cacheFlush
    }
}

public struct DNSMessage: Hashable, Sendable {
    public var id: UInt16 = 0
    public var isResponse: Bool
    public var questions: [DNSQuestion] = []
    public var answers: [DNSRecord] = []
    public var authorities: [DNSRecord] = []
    public var additionals: [DNSRecord] = []

    public init(id: UInt16 = 0, isResponse: Bool, questions: [DNSQuestion] = [], answers: [DNSRecord] = [],
                additionals: [DNSRecord] = []) {
        self.id = id
        self.isResponse = isResponse
        self.questions = questions
        self.answers = answers
        self.additionals = additionals
    }

    public struct DecodingError: Error, Equatable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// The most bytes a packet may have (RFC 6762 §17: 9000 including headers).
    public static let maxSize = 9000

    // MARK: - Encoding (no name compression: our packets are small)

    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.u16(id)
        // A response is authoritative (QR and AA set, RFC 6762 §18.2–18.4); a query is all zero.
        out.u16(isResponse ? 0x8400 : 0)
        out.u16(UInt16(questions.count))
        out.u16(UInt16(answers.count))
        out.u16(UInt16(authorities.count))
        out.u16(UInt16(additionals.count))
        for question in questions {
            out.name(question.name)
            out.u16(question.type)
            out.u16(1 | (question.unicastResponse ? 0x8000 : 0))
        }
        for record in answers + authorities + additionals {
            out.name(record.name)
            out.u16(record.data.type)
            out.u16(1 | (record.cacheFlush ? 0x8000 : 0))
            out.u32(record.ttl)
            var data: [UInt8] = []
            switch record.data {
            case .a(let address): data = address
            case .ptr(let name): data.name(name)
            case .txt(let strings):
                // An empty TXT record is one empty string (RFC 6763 §6.1).
                for string in strings.isEmpty ? [""] : strings {
                    let bytes = Array(string.utf8.prefix(255))
                    data.append(UInt8(bytes.count))
                    data += bytes
                }
            case .srv(let priority, let weight, let port, let target):
                data.u16(priority)
                data.u16(weight)
                data.u16(port)
                data.name(target)
            case .other(_, let bytes): data = bytes
            }
            out.u16(UInt16(data.count))
            out += data
        }
        return out
    }

    // MARK: - Decoding

    public static func decode(_ bytes: [UInt8]) throws(DecodingError) -> DNSMessage {
        guard bytes.count <= maxSize else { throw DecodingError("a packet of \(bytes.count) bytes") }
        var reader = DNSReader(bytes: bytes)
        let id = try reader.u16()
        let flags = try reader.u16()
        let counts = [try reader.u16(), try reader.u16(), try reader.u16(), try reader.u16()]
        // Each question takes at least 5 bytes and each record 11: counts beyond the packet are lies.
        guard Int(counts[0]) * 5 <= bytes.count,
              (Int(counts[1]) + Int(counts[2]) + Int(counts[3])) * 11 <= bytes.count
        else { throw DecodingError("counts larger than the packet") }
        var message = DNSMessage(id: id, isResponse: flags & 0x8000 != 0)
        for _ in 0..<counts[0] {
            let name = try reader.name()
            let type = try reader.u16()
            let klass = try reader.u16()
            message.questions.append(DNSQuestion(name: name, type: type, unicastResponse: klass & 0x8000 != 0))
        }
        var records: [DNSRecord] = []
        for _ in 0..<(Int(counts[1]) + Int(counts[2]) + Int(counts[3])) {
            let name = try reader.name()
            let type = try reader.u16()
            let klass = try reader.u16()
            let ttl = try reader.u32()
            let length = Int(try reader.u16())
            let end = reader.index + length
            guard end <= bytes.count else { throw DecodingError("record data past the end") }
            let data: DNSRecordData
            switch DNSType(rawValue: type) {
            case .a?:
                guard length == 4 else { throw DecodingError("an A record of \(length) bytes") }
                data = .a(Array(bytes[reader.index..<end]))
            case .ptr?:
                data = .ptr(try reader.name())
            case .txt?:
                var strings: [String] = []
                var at = reader.index
                while at < end {
                    let count = Int(bytes[at])
                    guard at + 1 + count <= end else { throw DecodingError("a TXT string past its record") }
                    strings.append(String(decoding: bytes[(at + 1)..<(at + 1 + count)], as: UTF8.self))
                    at += 1 + count
                }
                data = .txt(strings)
            case .srv?:
                let priority = try reader.u16()
                let weight = try reader.u16()
                let port = try reader.u16()
                data = .srv(priority: priority, weight: weight, port: port, target: try reader.name())
            default:
                data = .other(type: type, bytes: Array(bytes[reader.index..<end]))
            }
            guard reader.index <= end else { throw DecodingError("record data longer than its length") }
            reader.index = end
            records.append(DNSRecord(name: name, data: data, ttl: ttl, cacheFlush: klass & 0x8000 != 0))
        }
        message.answers = Array(records[0..<Int(counts[1])])
        message.authorities = Array(records[Int(counts[1])..<Int(counts[1]) + Int(counts[2])])
        message.additionals = Array(records[(Int(counts[1]) + Int(counts[2]))...])
        return message
    }
}

struct DNSReader {
    let bytes: [UInt8]
    var index = 0

    mutating func u8() throws(DNSMessage.DecodingError) -> UInt8 {
        guard index < bytes.count else { throw .init("truncated") }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func u16() throws(DNSMessage.DecodingError) -> UInt16 {
        UInt16(try u8()) << 8 | UInt16(try u8())
    }

    mutating func u32() throws(DNSMessage.DecodingError) -> UInt32 {
        UInt32(try u16()) << 16 | UInt32(try u16())
    }

    /// A name, following compression pointers (backwards only, at most 32).
    mutating func name() throws(DNSMessage.DecodingError) -> DNSName {
        var labels: [String] = []
        var at = index
        var jumps = 0
        var resume: Int?
        var total = 0
        while true {
            guard at < bytes.count else { throw .init("truncated name") }
            let length = Int(bytes[at])
            if length == 0 {
                at += 1
                break
            }
            if length & 0xC0 == 0xC0 {
                guard at + 1 < bytes.count else { throw .init("truncated pointer") }
                let target = (length & 0x3F) << 8 | Int(bytes[at + 1])
                guard target < at, jumps < 32 else { throw .init("a compression pointer that does not point back") }
                jumps += 1
                if resume == nil { resume = at + 2 }
                at = target
                continue
            }
            guard length <= 63 else { throw .init("a label of \(length) bytes") }
            guard at + 1 + length <= bytes.count else { throw .init("truncated label") }
            total += length + 1
            guard total <= 255 else { throw .init("a name longer than 255 bytes") }
            labels.append(String(decoding: bytes[(at + 1)..<(at + 1 + length)], as: UTF8.self))
            at += 1 + length
        }
        index = resume ?? at
        return DNSName(labels)
    }
}

extension [UInt8] {
    mutating func u16(_ value: UInt16) {
        append(UInt8(value >> 8))
        append(UInt8(value & 0xFF))
    }

    mutating func u32(_ value: UInt32) {
        u16(UInt16(value >> 16))
        u16(UInt16(value & 0xFFFF))
    }

    /// Labels cut to 63 bytes each.
    mutating func name(_ name: DNSName) {
        for label in name.labels {
            let bytes = Array(label.utf8.prefix(63))
            append(UInt8(bytes.count))
            self += bytes
        }
        append(0)
    }
}
