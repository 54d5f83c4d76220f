import Foundation

/// The `snap` whose process the story benchmark measures (`snap story serve`): the one
/// beside this executable, as `swift build` puts `snap` and `snap-bench`
/// in one folder. The benchmarks are not in the player's binary, so they start it.
public func snapExecutable() throws -> String {
    let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let snap = URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("snap").path
    guard FileManager.default.isExecutableFile(atPath: snap) else {
        throw SnapExecutableMissing(path: snap)
    }
    return snap
}

public struct SnapExecutableMissing: Error, CustomStringConvertible {
    public let path: String
    public var description: String {
        "no snap executable at \(path), beside this one: build it too (swift build --product snap, with the same -c)"
    }
}
