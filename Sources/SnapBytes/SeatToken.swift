/// 128 random bits that prove who holds a seat (given in `welcome`, shown in `hello`).
public struct SeatToken: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// Nil unless exactly 16 bytes, not all zero (zero means "no token" on the wire).
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16, bytes.contains(where: { $0 != 0 }) else { return nil }
        self.bytes = bytes
    }

    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> SeatToken {
        var bytes: [UInt8] = []
        for _ in 0..<2 { withUnsafeBytes(of: generator.next() | 1) { bytes += $0 } }
        return SeatToken(bytes: bytes)!
    }

    public var hex: String { bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }
    /// Exactly 32 hex digits (either case); nothing else, not even the sign `UInt8(_:radix:)`
    /// would take ("+f" is not a hex digit pair; the fuzzer found secret files holding such).
    public init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count == 32, digits.allSatisfy({ $0.isHexDigit }) else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 32, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<(index + 2)], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        self.init(bytes: bytes)
    }

    /// Never printed in full: it is a secret.
    public var description: String { "token …" + String(hex.suffix(4)) }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool { (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self) }
}
