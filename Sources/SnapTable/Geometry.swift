/// A point in logical pixels (the 1024×768 table, whatever the window's real size).
public struct Point: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public init(_ x: Double, _ y: Double) { self.x = x; self.y = y }
    public static func + (a: Point, b: Point) -> Point { Point(a.x + b.x, a.y + b.y) }
    public static func - (a: Point, b: Point) -> Point { Point(a.x - b.x, a.y - b.y) }
    public static func * (a: Point, k: Double) -> Point { Point(a.x * k, a.y * k) }
}

public struct Size: Hashable, Sendable {
    public var width: Double
    public var height: Double
    public init(_ width: Double, _ height: Double) { self.width = width; self.height = height }
}

public struct Rect: Hashable, Sendable {
    public var x: Double, y: Double, width: Double, height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    public init(center: Point, size: Size) {
        self.init(x: center.x - size.width / 2, y: center.y - size.height / 2, width: size.width, height: size.height)
    }
    public var center: Point { Point(x + width / 2, y + height / 2) }
    public func contains(_ p: Point) -> Bool { p.x >= x && p.x < x + width && p.y >= y && p.y < y + height }
    public func insetBy(_ d: Double) -> Rect { Rect(x: x + d, y: y + d, width: width - 2 * d, height: height - 2 * d) }
    public func scaled(_ k: Double) -> Rect { Rect(center: center, size: Size(width * k, height * k)) }
}

/// The logical size every scene draws in; SDL letterboxes it into the window.
public let logicalSize = Size(1024, 768)
/// A card's logical size; assets are rendered at twice this.
public let cardSize = Size(67, 99)
