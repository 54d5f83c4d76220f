#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension String {
    /// C's printf formatting (`vsnprintf`), e.g. `String(printf: "%.1f", 2.25)`: the text
    /// Foundation's `String(format:)` gave for the numeric conversions the commands and the
    /// window print, without linking full Foundation, and ICU's 34 MB of data with it, into
    /// `snapcards` (docs/PERFORMANCE.md, "The player's binary"). The decimal point is C's:
    /// nothing sets LC_NUMERIC.
    public init(printf format: String, _ arguments: any CVarArg...) {
        var capacity = 64
        while true {
            var buffer = [CChar](repeating: 0, count: capacity)
            let length = Int(withVaList(arguments) { vsnprintf(&buffer, capacity, format, $0) })
            precondition(length >= 0, "String(printf:): the format \"\(format)\" does not fit its arguments")
            if length < capacity {
                self = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                return
            }
            capacity = length + 1
        }
    }
}
