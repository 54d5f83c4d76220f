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
/// An append encodes its record under a lock straight into the bytes waiting for the next
/// write (its length in front, its checksum left for the queue); the queue takes everything
/// gathered since its last turn, checksums each record and writes them in one `write`. Only
/// the first record after a turn dispatches one; those appended while it is queued or
/// writing ride along, so a host appending faster than the disk takes it costs one lock and
/// the encoding per record: no allocation and no syscall. (The turn is dispatched at once.
/// A 1 ms pause to gather more, a `dispatch_after` per turn, was taken out when a test run
/// crashed on libdispatch's timer thread; the crash's likelier cause turned out to be the
/// tests' own `setenv`, so the pause may come back if it measures better.)
public final class JournalWriter: @unchecked Sendable {  // the descriptor, `failed` and `spare` are touched on `queue` only
    public let path: String
    private let queue = DispatchQueue(label: "snap.journal")
    private struct Pending {
        /// Framed records in order, each checksum still zero: the queue writes it.
        var bytes: [UInt8] = []
        /// A drain is queued and will see what is appended now.
        var draining = false
    }
    private let pending = Mutex(Pending())
    /// The buffer the queue last wrote, emptied, swapped in on its next turn (so neither
    /// side allocates once both have grown).
    private var spare: [UInt8] = []
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

    /// Queues one record; returns at once.
    public func append(_ payload: [UInt8]) {
        append(encoding: { $0.append(contentsOf: payload) })
    }

    /// Queues the record `payload` makes (now, on the caller's thread); returns at once.
    public func append(_ payload: () -> [UInt8]) {
        append(payload())
    }

    /// Queues one record whose payload `encode` appends to the bytes it is given (and
    /// touches nothing else of them); returns at once. It runs under the writer's lock.
    public func append(encoding encode: (inout [UInt8]) -> Void) {
        let startDrain = pending.withLock { pending in
            let start = pending.bytes.count
            // The length and the checksum, filled in below and by the queue.
            for _ in 0..<8 { pending.bytes.append(0) }
            encode(&pending.bytes)
            let length = pending.bytes.count - start - 8
            precondition(length >= 1 && length <= Journal.maxRecordLength, "a journal record of \(length) bytes")
            pending.bytes[start] = UInt8(truncatingIfNeeded: length >> 24)
            pending.bytes[start + 1] = UInt8(truncatingIfNeeded: length >> 16)
            pending.bytes[start + 2] = UInt8(truncatingIfNeeded: length >> 8)
            pending.bytes[start + 3] = UInt8(truncatingIfNeeded: length)
            defer { pending.draining = true }
            return !pending.draining
        }
        // Weak: the queue's turn must not be what keeps the writer alive (its deinit would
        // then run on the queue); a writer gone has written everything in its deinit.
        if startDrain { queue.async { [weak self] in self?.drain() } }
    }

    /// On `queue`: checksums and writes batches until nothing is pending.
    private func drain() {
        while true {
            var bytes = pending.withLock { pending in
                swap(&pending.bytes, &spare)
                if spare.isEmpty { pending.draining = false }
                return spare
            }
            spare = []  // `bytes` holds the batch alone: it is patched below without a copy
            guard !bytes.isEmpty else {
                spare = bytes
                return
            }
            defer {
                bytes.removeAll(keepingCapacity: true)
                spare = bytes
            }
            guard !failed, descriptor >= 0 else { continue }
            Journal.checksumFramed(&bytes)
            if !Self.writeAll(descriptor, bytes) {
                failed = true
                onError("the journal \(path) could not be written (\(String(cString: strerror(errno)))); the game goes on without it")
            }
        }
    }

    /// Writes what is queued, syncs it to disk and closes the file.
    public func close() {
        queue.sync { closeNow() }
    }

    /// On `queue` (or in `deinit`, when nothing else can touch the writer).
    private func closeNow() {
        drain()  // what gathers for a turn not yet come
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        Glibc.close(descriptor)
        descriptor = -1
    }

    /// Waits until everything queued so far is written (tests, a round's end).
    public func flush() {
        queue.sync {
            drain()
            if descriptor >= 0 { fsync(descriptor) }
        }
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

    // NB: not `close()`: the last reference may be dropped on `queue` itself (a drain
    // holding the writer while its owner lets go), and a `sync` onto it from there traps.
    deinit { closeNow() }
}
