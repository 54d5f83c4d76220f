import Logging

#if canImport(Glibc)
import Glibc
#endif

// The two output helpers the benchmarks share with `snapcards` (Sources/snap/Network.swift),
// copied rather than put in a library: a few lines, and no library of the game's needs them.

/// One line to standard output, at once: tests and tools read these lines while the
/// process runs, and a pipe would otherwise hold them back.
func say(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { bytes in _ = write(1, bytes.baseAddress, bytes.count) }
}

/// Logs go to standard error, so standard output keeps only the lines tools read.
func makeLogger(_ label: String, verbose: Bool) -> Logger {
    var logger = Logger(label: label) { StreamLogHandler.standardError(label: $0) }
    logger.logLevel = verbose ? .info : .warning
    return logger
}
