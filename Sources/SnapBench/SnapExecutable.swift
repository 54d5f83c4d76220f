import Foundation

/// The `snapcards` whose process the story benchmark measures (`snapcards story serve`): the one
/// beside this executable, as `swift build` puts `snapcards` and `snap-bench`
/// in one folder. The benchmarks are not in the player's binary, so they start it.
public func snapExecutable() throws -> String {
    let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let snap = URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("snapcards").path
    guard FileManager.default.isExecutableFile(atPath: snap) else {
        throw SnapExecutableMissing(path: snap)
    }
    return snap
}

public struct SnapExecutableMissing: Error, CustomStringConvertible {
    public let path: String
    public var description: String {
        "no snapcards executable at \(path), beside this one: build it too (swift build --product snapcards, with the same -c)"
    }
}
