import Foundation

extension FileHandle {
    /// Hands each chunk read to `receive` as it arrives, on a thread of its own that reads
    /// a `dup` of the descriptor with blocking `read`s until the end of the stream, then
    /// closes its copy. Its own copy: a handle closed while the thread still reads would
    /// free the number, and the next pipe given it would be read by the wrong thread.
    ///
    /// Not `readabilityHandler`: that arms a libdispatch read source, and tearing such
    /// sources down while others are set up on other threads can leave a freed epoll
    /// muxnote behind — the test process crashed now and again on libdispatch's manager
    /// thread in `_dispatch_event_loop_drain` ("Bad pointer dereference";
    /// swift-corelibs-libdispatch issue #949). A blocking read registers nothing with
    /// libdispatch.
    /// `ended`: called once the stream has ended (end of file or an error), after the last chunk.
    public func readChunks(ended: @escaping @Sendable () -> Void = {}, _ receive: @escaping @Sendable (Data) -> Void) {
        let descriptor = fcntl(fileDescriptor, F_DUPFD_CLOEXEC, 0)
        precondition(descriptor >= 0, "a copy of a pipe's read end: errno \(errno)")
        let reader = Thread {
            defer {
                Glibc.close(descriptor)
                ended()
            }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return }
                receive(Data(buffer[0..<count]))
            }
        }
        reader.name = "pipe reader"
        reader.start()
    }
}

extension Process {
    /// Kills the process if it still runs and waits for it. The wait is what lets the
    /// object go: Foundation's `Process` holds itself (through its run-loop source), and
    /// with it its pipes, until `waitUntilExit` — without it every child outlived its test.
    public func killAndWait() {
        if isRunning { kill(processIdentifier, SIGKILL) }
        waitUntilExit()
    }
}
