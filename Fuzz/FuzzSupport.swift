// Shared by the libFuzzer targets scripts/fuzz builds besides the decoder (compiled into
// each target's module). Not part of the SwiftPM package.
//
// Seeds: each target defines `fuzzSeeds()`, sample inputs made by the real encoders. When
// SNAP_FUZZ_SEEDS names a directory, libFuzzer's initialization hook writes them there
// (scripts/fuzz does this with -runs=0 before fuzzing), so the seeds never drift from
// the formats.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A property failed: a finding. fatalError rather than precondition, whose message -O drops.
func fail(_ message: @autoclosure () -> String) -> Never {
    fatalError(message())
}

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutableRawPointer?) -> CInt {
    guard let raw = getenv("SNAP_FUZZ_SEEDS") else { return 0 }
    let directory = String(cString: raw)
    for (name, bytes) in fuzzSeeds() {
        guard let file = fopen(directory + "/" + name, "wb") else { fail("cannot write the seed \(name) in \(directory)") }
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
    }
    return 0
}

/// The input as an array; a fresh copy so nothing keeps libFuzzer's buffer.
func inputBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}
