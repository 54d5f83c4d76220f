import Foundation

/// Runs iproute2's `ip` with `arguments`: its exit status and what it said on standard error.
/// For the tests that make network namespaces (LANTests, RelayNamespaceTests).
func runIP(_ arguments: [String]) -> (status: Int32, errors: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
    process.arguments = arguments
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    do { try process.run() } catch { return (-1, "\(error)") }
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
}
