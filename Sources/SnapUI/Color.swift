#if GUI
import SnapTable

public struct Color: Hashable, Sendable {
    public var r: UInt8, g: UInt8, b: UInt8, a: UInt8
    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8 = 255) { self.r = r; self.g = g; self.b = b; self.a = a }
    public static let white = Color(255, 255, 255)
    public static let black = Color(0, 0, 0)
    public static let shadow = Color(0, 0, 0, 110)
    public static let ink = Color(30, 30, 30)
    public static let gold = Color(255, 214, 90)
    public static let dim = Color(0, 0, 0, 150)
}
#endif
