import Foundation
import SnapTestSupport
import Testing

/// How the tests read their children's output (`FileHandle.readChunks`): many pipes at
/// once, on many threads, some read ends closed by their owner while the reader still
/// runs — as processes come and go across a parallel test run.
@Suite("Reading children's output", .blocksThreads)
struct PipeReaderTests {
    private final class Received: @unchecked Sendable {
        let lock = NSLock()
        var bytes = Data()
        let enough = DispatchSemaphore(value: 0)
        let wanted: Int
        init(wanted: Int) { self.wanted = wanted }

        func append(_ data: Data) {
            let full = lock.withLock {
                bytes.append(data)
                return bytes.count == wanted
            }
            if full { enough.signal() }
        }
    }

    private final class Failures: @unchecked Sendable {
        let lock = NSLock()
        var list: [String] = []
    }

    @Test("every pipe's bytes reach its own reader, whole and in order, while other pipes open and close",
          .timeLimit(.minutes(5)))
    func manyPipes() {
        let threads = 8, pipesEach = 300
        let failures = Failures()
        let finished = DispatchSemaphore(value: 0)
        for thread in 0..<threads {
            // Threads of their own: the waits below would hold the test pool's few threads.
            Thread {
                var found: [String] = []
                for index in 0..<pipesEach {
                    let message = Data("pipe \(thread).\(index) ".utf8) + Data(repeating: UInt8(index & 0xFF), count: index * 37)
                    let pipe = Pipe()
                    let received = Received(wanted: message.count)
                    pipe.fileHandleForReading.readChunks { received.append($0) }
                    pipe.fileHandleForWriting.write(message)
                    // Half the writers stay open until the pipe goes; a third of the read ends
                    // are closed by their owner while the reader still waits for the end.
                    if index.isMultiple(of: 2) { try? pipe.fileHandleForWriting.close() }
                    if received.enough.wait(timeout: .now() + 10) == .timedOut {
                        found.append("pipe \(thread).\(index): \(received.lock.withLock { received.bytes.count }) of \(message.count) bytes")
                        break  // one stuck pipe tells; waiting on the rest would only hold the run
                    }
                    if index % 3 == 0 { try? pipe.fileHandleForReading.close() }
                    if received.lock.withLock({ received.bytes }) != message {
                        found.append("pipe \(thread).\(index): other bytes than were written")
                    }
                }
                failures.lock.withLock { failures.list += found }
                finished.signal()
            }.start()
        }
        for _ in 0..<threads { finished.wait() }
        #expect(failures.list.isEmpty, "\(failures.list.prefix(5))")
    }
}
