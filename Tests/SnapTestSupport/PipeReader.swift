import Foundation

extension FileHandle {
    /// Hands each chunk read to `receive` as it arrives, and at the end of the stream
    /// removes the handler. Removing it is what closes the descriptor Foundation's reader
    /// holds (its own `dup`): left installed, every child's output pipe stayed open for the
    /// rest of the test run (917 pipes at once in one run), and with that many descriptors
    /// `Process.run` could crash in swift-corelibs-foundation 6.3.1 (it copies 256 bytes of
    /// each `/proc/self/fd` entry's name; past about 1,350 entries the copy can run off the
    /// end of the heap — fixed upstream in swift-corelibs-foundation PR #5472).
    public func readChunks(_ receive: @escaping @Sendable (Data) -> Void) {
        readabilityHandler = { handle in
            let data = handle.availableData
            guard !data.isEmpty else {
                handle.readabilityHandler = nil
                return
            }
            receive(data)
        }
    }
}
