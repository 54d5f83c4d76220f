#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

/// Where every test writes: one directory for the whole test process, removed when the
/// process exits, so a run leaves nothing in the system's temporary folder, however its
/// tests end. It is short (`/tmp/snap-test-PID`), because Unix socket paths under it must
/// stay within 108 bytes.
public let scratchRoot: String = {
    let root = "/tmp/snap-test-\(getpid())"
    mkdir(root, 0o700)
    atexit { removeScratchRoot() }
    return root
}()

private func removeScratchRoot() {
    try? FileManager.default.removeItem(atPath: "/tmp/snap-test-\(getpid())")
}

/// A fresh directory (0700) under the scratch root, named `prefix-XXXXXX`.
public func scratchDirectory(_ prefix: String) -> String {
    var template = Array("\(scratchRoot)/\(prefix)-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
}

/// A path under the scratch root, for a file or directory the caller makes.
public func scratchPath(_ name: String) -> String { "\(scratchRoot)/\(name)" }
