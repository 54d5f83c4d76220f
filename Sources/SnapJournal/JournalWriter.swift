import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Appends records to a journal file on its own queue, off the game's hot path. A
/// failure (an unwritable directory, a full disk) is reported once through `onError`
/// and the records after it are dropped: the game goes on without its journal.
///
/// An append only queues the payload's maker under a lock; the queue makes, frames and
/// writes everything queued since its last turn in one `write`. A host appending faster
/// than the disk takes it so costs one lock per record, not one dispatch and syscall.
public final class JournalWriter: @unchecked Sendable {  // the descriptor and `failed` are touched on `queue` only
    public let path: String
    private let queue = DispatchQueue(label: "snap.journal")
    private struct Pending {
        var makers: [@Sendable () -> [UInt8]] = []
        /// A drain is queued and will see what is appended now.
        var draining = false
    }
    private let pending = Mutex(Pending())
    private var descriptor: Int32
    private var failed = false
    private let onError: @Sendable (String) -> Void

    /// Creates a new journal (0600); it fails if the file exists.
    public init(creating path: String, kind: String, onError: @escaping @Sendable (String) -> Void) throws(JournalError) {
        self.path = path
        self.onError = onError
        descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .cannotRead(path, "cannot create it: " + String(cString: strerror(errno))) }
        if !Self.writeAll(descriptor, Journal.header(kind: kind)) {
            let why = String(cString: strerror(errno))
            Glibc.close(descriptor)
            unlink(path)
            throw .cannotRead(path, "cannot write it: \(why)")
        }
    }

    /// Continues an existing journal after its intact part (a torn tail is cut first).
    public init(continuing path: String, intactLength: Int, onError: @escaping @Sendable (String) -> Void) throws(JournalError) {
        self.path = path
        self.onError = onError
        descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else { throw .cannotRead(path, "cannot open it for writing: " + String(cString: strerror(errno))) }
        guard ftruncate(descriptor, off_t(intactLength)) == 0 else {
            let why = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw .cannotRead(path, "cannot cut its torn tail: \(why)")
        }
    }

    /// Queues one record; returns at once. The payload is made on the journal's queue too.
    public func append(_ payload: @escaping @Sendable () -> [UInt8]) {
        let startDrain = pending.withLock { pending in
            pending.makers.append(payload)
            defer { pending.draining = true }
            return !pending.draining
        }
        if startDrain { queue.async { [self] in drain() } }
    }

    /// On `queue`: writes batches until nothing is pending.
    private func drain() {
        while true {
            let makers = pending.withLock { pending in
                let taken = pending.makers
                pending.makers.removeAll(keepingCapacity: true)
                if taken.isEmpty { pending.draining = false }
                return taken
            }
            guard !makers.isEmpty else { return }
            guard !failed, descriptor >= 0 else { continue }
            var bytes: [UInt8] = []
            for make in makers { Journal.frame(make(), into: &bytes) }
            if !Self.writeAll(descriptor, bytes) {
                failed = true
                onError("the journal \(path) could not be written (\(String(cString: strerror(errno)))); the game goes on without it")
            }
        }
    }

    /// Writes what is queued, syncs it to disk and closes the file.
    public func close() {
        queue.sync {
            guard descriptor >= 0 else { return }
            fsync(descriptor)
            Glibc.close(descriptor)
            descriptor = -1
        }
    }

    /// Waits until everything queued so far is written (tests, a round's end).
    public func flush() {
        queue.sync { if descriptor >= 0 { fsync(descriptor) } }
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    deinit { close() }
}
