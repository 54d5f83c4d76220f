/// A line of the relay's line phase (docs/RELAY.md §3): a word, optionally one space and
/// one argument, a line feed; printable ASCII, at most `maxLength` bytes in all.
public enum RelayRequest: Equatable, Sendable {
    /// A host asks for a room (its control connection).
    case register
    /// A host asks for its room again, by its id (the relay restarted, or the control
    /// connection dropped): granted if no one holds it.
    case reregister(room: RelayID)
    /// A player asks for the game in a room.
    case connect(room: RelayID)
    /// A host's data connection takes a waiting player's connection.
    case accept(connection: RelayID)
    /// `register` (`room` nil) or `register ROOM`, and each player's peer tag told to the host's
    /// data connection with `spliced` (since version 2, docs/RELAY.md §3): `register-peers`.
    case registerPeers(room: RelayID?)
}

/// The relay's answers.
public enum RelayReply: Equatable, Sendable {
    case room(RelayID)
    case incoming(RelayID)
    case spliced
    /// `spliced TAG`: to the host's data connection in a room registered with
    /// `register-peers`: spliced, with a player whose own address the relay tags `TAG`.
    case splicedPeer(RelayPeerTag)
    case error(RelayErrorCode)
}

/// Why the relay refuses (docs/RELAY.md §6); it closes right after saying so.
public enum RelayErrorCode: String, Equatable, Sendable, CaseIterable {
    case noSuchRoom = "no-such-room"
    case noSuchConnection = "no-such-connection"
    case hostDidNotAnswer = "host-did-not-answer"
    case tooManyRooms = "too-many-rooms"
    case roomFull = "room-full"
    case roomTaken = "room-taken"
    case malformed = "malformed"
    case busy = "busy"
}

/// A room id or a connection id: 32 lowercase hexadecimal digits (128 bits).
public struct RelayID: Hashable, Sendable, CustomStringConvertible {
    public let text: String
    public static let length = 32

    /// Nil unless `text` is exactly 32 lowercase hexadecimal digits.
    public init?(_ text: some StringProtocol) {
        guard text.utf8.count == Self.length, text.utf8.allSatisfy(isLowercaseHexDigit) else { return nil }
        self.text = String(text)
    }

    /// From 16 random bytes (the caller's generator: the system's secure one in the relay).
    public init(bytes: [UInt8]) {
        precondition(bytes.count == Self.length / 2, "a relay id is 16 bytes")
        text = lowercaseHex(bytes)
    }

    public var description: String { text }
}

/// What the relay tells a host of one player's own address (docs/RELAY.md §3): 16 lowercase
/// hexadecimal digits, the same for the same address in the same room while the relay runs,
/// and not the address (a keyed hash of it, the key the relay's own secret). The host counts wrong join
/// codes by it, so a player who guesses codes is locked out alone, not every invitee of the
/// room (all of whom reach the host from the relay's address).
public struct RelayPeerTag: Hashable, Sendable, CustomStringConvertible {
    public let text: String
    public static let length = 16

    /// Nil unless `text` is exactly 16 lowercase hexadecimal digits.
    public init?(_ text: some StringProtocol) {
        guard text.utf8.count == Self.length, text.utf8.allSatisfy(isLowercaseHexDigit) else { return nil }
        self.text = String(text)
    }

    /// From 8 bytes (the relay's: the first 8 of an HMAC-SHA256 of the room and the address).
    public init(bytes: some Collection<UInt8>) {
        precondition(bytes.count == Self.length / 2, "a peer tag is 8 bytes")
        text = lowercaseHex(bytes)
    }

    public var description: String { text }
}

private func isLowercaseHexDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) }

private func lowercaseHex(_ bytes: some Collection<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: out, as: UTF8.self)
}

public enum RelayLine {
    /// The longest line, line feed included.
    public static let maxLength = 80
    /// What a player may send after its `connect` line before `spliced` (its TLS hello is
    /// about 1.5 KiB); more is a violation.
    public static let maxEarlyBytes = 8192
    static let lineFeed: UInt8 = 0x0A

    public static func encode(_ request: RelayRequest) -> [UInt8] {
        switch request {
        case .register: line("register")
        case .reregister(let room): line("register \(room)")
        case .connect(let room): line("connect \(room)")
        case .accept(let connection): line("accept \(connection)")
        case .registerPeers(let room?): line("register-peers \(room)")
        case .registerPeers(nil): line("register-peers")
        }
    }

    public static func encode(_ reply: RelayReply) -> [UInt8] {
        switch reply {
        case .room(let room): line("room \(room)")
        case .incoming(let connection): line("incoming \(connection)")
        case .spliced: line("spliced")
        case .splicedPeer(let tag): line("spliced \(tag)")
        case .error(let code): line("error \(code.rawValue)")
        }
    }

    private static func line(_ text: String) -> [UInt8] { Array(text.utf8) + [lineFeed] }

    /// Splits one line (without its line feed) into its word and argument; nil if it
    /// breaks §3's rules.
    static func words(_ line: ArraySlice<UInt8>) -> (String, String?)? {
        guard !line.isEmpty, line.count < maxLength else { return nil }
        var spaces = 0
        for byte in line {
            if byte == 0x20 { spaces += 1; continue }
            guard (0x21...0x7E).contains(byte) else { return nil }
        }
        guard spaces <= 1 else { return nil }
        let text = String(decoding: line, as: UTF8.self)
        guard let space = text.firstIndex(of: " ") else { return (text, nil) }
        let word = String(text[..<space]), argument = String(text[text.index(after: space)...])
        guard !word.isEmpty, !argument.isEmpty else { return nil }
        return (word, argument)
    }

    public static func decodeRequest(_ line: ArraySlice<UInt8>) -> RelayRequest? {
        guard let (word, argument) = words(line) else { return nil }
        switch (word, argument) {
        case ("register", nil): return .register
        case ("register", let argument?): return RelayID(argument).map { .reregister(room: $0) }
        case ("connect", let argument?): return RelayID(argument).map { .connect(room: $0) }
        case ("accept", let argument?): return RelayID(argument).map { .accept(connection: $0) }
        case ("register-peers", nil): return .registerPeers(room: nil)
        case ("register-peers", let argument?): return RelayID(argument).map { .registerPeers(room: $0) }
        default: return nil
        }
    }

    public static func decodeReply(_ line: ArraySlice<UInt8>) -> RelayReply? {
        guard let (word, argument) = words(line) else { return nil }
        switch (word, argument) {
        case ("room", let argument?): return RelayID(argument).map { .room($0) }
        case ("incoming", let argument?): return RelayID(argument).map { .incoming($0) }
        case ("spliced", nil): return .spliced
        case ("spliced", let argument?): return RelayPeerTag(argument).map { .splicedPeer($0) }
        case ("error", let argument?): return RelayErrorCode(rawValue: argument).map { .error($0) }
        default: return nil
        }
    }
}

/// Cuts lines off a byte stream: feed it what arrived, take lines until it needs more.
/// A line over `RelayLine.maxLength` is a violation (`nextLine` throws); the bytes after a
/// line stay in `rest`, for whoever reads the stream after the line phase.
public struct RelayLineBuffer: Sendable {
    private var buffer: [UInt8] = []
    public init() {}

    public mutating func append(_ bytes: some Sequence<UInt8>) { buffer.append(contentsOf: bytes) }

    /// The next line without its line feed, nil if it has not all arrived.
    public mutating func nextLine() throws(RelayLineTooLong) -> ArraySlice<UInt8>? {
        guard let end = buffer.firstIndex(of: RelayLine.lineFeed) else {
            if buffer.count >= RelayLine.maxLength { throw RelayLineTooLong() }
            return nil
        }
        guard end < RelayLine.maxLength else { throw RelayLineTooLong() }
        let line = buffer[..<end]
        buffer.removeFirst(end + 1)
        return ArraySlice(Array(line))
    }

    /// Bytes held that are not a line taken.
    public var count: Int { buffer.count }

    /// What came after the lines taken (the other end's first bytes, after `spliced`).
    public mutating func takeRest() -> [UInt8] {
        defer { buffer = [] }
        return buffer
    }
}

public struct RelayLineTooLong: Error, Equatable {}
