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
/// An append has its record encoded straight into a ring shared with the queue (on the
/// caller's thread), frames it — its length in front, its checksum left for the queue —
/// and publishes the ring's new end with one atomic store: no copy, no lock the queue
/// takes, no allocation, no syscall. Only an append that finds the queue idle dispatches a
/// turn. A turn copies out everything published, frees its room, checksums and writes it in
/// one `write`, and looks again a millisecond later until it finds nothing: a burst of
/// appends costs a few turns, not a thread woken every few records. An append never waits
/// (the appender is the host's event loop): when the ring lacks room for the largest record
/// (the disk 3 MiB behind), the record goes to the queue in an array of its own, after
/// everything in the ring, and so do the records after it until the queue has caught up;
/// nothing is dropped, and memory grows past the ring only while the disk is behind.
/// (Before: a full ring made the append wait on a semaphore; earlier, records encoded into
/// an array and copied in, and appends under a lock the queue also took; see
/// docs/PERFORMANCE.md.)
///
/// The queue's turns hold the `Drain` (the ring and the file), never the writer: the
/// writer's last reference goes on its owner's thread, whose `deinit` then writes
/// everything appended before returning.
public final class JournalWriter: @unchecked Sendable {  // one appender at a time; the queue holds the Drain, not this
    public let path: String
    private let drain: Drain

    /// The appender's own. Appends come from one thread at a time (the host's event loop):
    /// a lock here, uncontended, cost 0.1–0.2× the engine's time on the bench's game path.
    private struct Appender {
        /// The ring's end, and where the queue was when last looked.
        var end = 0
        var knownConsumed = 0
    }
    @exclusivity(unchecked) private var appender = Appender()  // its checks cost more than the rest
#if DEBUG
    private let appending = Atomic<Bool>(false)
#endif

    /// Creates a new journal (0600); it fails if the file exists.
    public init(creating path: String, kind: String, onError: @escaping @Sendable (String) -> Void) throws(JournalError) {
        self.path = path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .cannotRead(path, "cannot create it: " + String(cString: strerror(errno))) }
        if !Drain.writeAll(descriptor, Journal.header(kind: kind)) {
            let why = String(cString: strerror(errno))
            Glibc.close(descriptor)
            unlink(path)
            throw .cannotRead(path, "cannot write it: \(why)")
        }
        drain = Drain(path: path, descriptor: descriptor, onError: onError)
    }

    /// Continues an existing journal after its intact part (a torn tail is cut first).
    public init(continuing path: String, intactLength: Int, onError: @escaping @Sendable (String) -> Void) throws(JournalError) {
        self.path = path
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else { throw .cannotRead(path, "cannot open it for writing: " + String(cString: strerror(errno))) }
        guard ftruncate(descriptor, off_t(intactLength)) == 0 else {
            let why = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw .cannotRead(path, "cannot cut its torn tail: \(why)")
        }
        drain = Drain(path: path, descriptor: descriptor, onError: onError)
    }

    /// Queues one record; returns at once.
    public func append(_ payload: [UInt8]) {
        precondition(payload.count <= Journal.maxRecordLength, "a journal record of \(payload.count) bytes")
        append { room in
            room.copyBytes(from: payload)
            return payload.count
        }
    }

    /// Queues one record whose payload `encode` stores at the start of the room it is
    /// given (`Journal.maxRecordLength` bytes) and whose length it returns, on the
    /// caller's thread; returns at once. One thread at a time.
    public func append(_ encode: (UnsafeMutableRawBufferPointer) -> Int) {
#if DEBUG
        precondition(!appending.exchange(true, ordering: .acquiring), "JournalWriter.append from two threads at once")
        defer { appending.store(false, ordering: .releasing) }
#endif
        guard drain.overflowing.load(ordering: .acquiring) == 0, ringHasRoom() else { return overflow(encode) }
        let ring = drain.ring.baseAddress!
        let offset = appender.end & (Drain.capacity - 1)
        let length = encode(UnsafeMutableRawBufferPointer(start: ring + offset + 8, count: Journal.maxRecordLength))
        precondition(length >= 1 && length <= Journal.maxRecordLength, "a journal record of \(length) bytes")
        (ring + offset).storeBytes(of: UInt32(length).bigEndian, as: UInt32.self)
        (ring + offset).storeBytes(of: UInt32(0), toByteOffset: 4, as: UInt32.self)  // the checksum is the queue's to fill in
        let pastEnd = offset + 8 + length - Drain.capacity
        if pastEnd > 0 { ring.copyMemory(from: ring + Drain.capacity, byteCount: pastEnd) }
        appender.end += 8 + length
        // Sequentially consistent, as are the queue's `idle` store and its second look at
        // `published`: one of the two sides sees the other, so no record is left unwritten.
        drain.published.store(appender.end, ordering: .sequentiallyConsistent)
        if drain.idle.load(ordering: .sequentiallyConsistent) && drain.idle.exchange(false, ordering: .sequentiallyConsistent) {
            drain.dispatchTurn()
        }
    }

    /// Whether the ring has room for the largest record (looking at the queue's progress
    /// only when the last look says no).
    private func ringHasRoom() -> Bool {
        if appender.end + Drain.room - appender.knownConsumed <= Drain.capacity { return true }
        appender.knownConsumed = drain.consumed.load(ordering: .acquiring)
        return appender.end + Drain.room - appender.knownConsumed <= Drain.capacity
    }

    /// A record when the ring is full, or while records that overflowed it are still
    /// queued: framed in an array of its own, and written by the queue after everything
    /// published before it.
    private func overflow(_ encode: (UnsafeMutableRawBufferPointer) -> Int) {
        var record = [UInt8](repeating: 0, count: Drain.room)
        let length = record.withUnsafeMutableBytes { bytes in
            encode(UnsafeMutableRawBufferPointer(rebasing: bytes[8...]))
        }
        precondition(length >= 1 && length <= Journal.maxRecordLength, "a journal record of \(length) bytes")
        record.removeLast(Journal.maxRecordLength - length)
        withUnsafeBytes(of: UInt32(length).bigEndian) { record.replaceSubrange(0..<4, with: $0) }
        drain.overflowing.add(1, ordering: .sequentiallyConsistent)
        drain.writeOverflowed(record)
    }

    /// Writes what is queued, syncs it to disk and closes the file; returns once done.
    public func close() {
        drain.onQueue { $0.closeNow() }
    }

    /// `close()` without waiting: `done` is called on the writer's queue once the file is
    /// written, synced and closed (the host's loop never waits for the disk).
    public func close(then done: @escaping @Sendable () -> Void) {
        drain.closeLater(then: done)
    }

    /// Waits until everything queued so far is written (tests).
    public func flush() {
        drain.onQueue { $0.flushNow() }
    }

    /// `flush()` without waiting: `done` is called on the writer's queue once everything
    /// queued so far is written and synced (a round's end: the host's loop never waits).
    public func flush(then done: @escaping @Sendable () -> Void) {
        drain.flushLater(then: done)
    }

    deinit {
        close()
    }
}

/// A writer's ring and file, and the queue's turns that write one to the other.
private final class Drain: @unchecked Sendable {  // atomics shared; the rest the queue's alone
    let path: String
    private let queue = DispatchQueue(label: "snap.journal")
    private static let onQueueKey = DispatchSpecificKey<Bool>()

    // The ring: byte positions grow without end; a position's byte is at `position & (capacity - 1)`.
    static let capacity = 4 << 20  // a power of two, above the largest framed record
    /// Room for the largest framed record: an append always has that much free, in one piece.
    static let room = 8 + Journal.maxRecordLength
    /// A record that runs past the ring's end is encoded on into `room` bytes more, then
    /// the part past the end is copied to the ring's start: an encoder sees one buffer.
    let ring = UnsafeMutableRawBufferPointer.allocate(byteCount: Drain.capacity + Drain.room, alignment: 64)
    /// The end of what appenders have copied in; the queue reads up to it.
    let published = Atomic<Int>(0)
    /// The end of what the queue has copied out; appenders may overwrite up to it.
    let consumed = Atomic<Int>(0)
    /// No turn is queued, running or due: the next append must dispatch one.
    let idle = Atomic<Bool>(true)
    /// Records sent to the queue in arrays of their own (`overflow`) and not yet written:
    /// while any are, appenders send theirs the same way, so the order holds.
    let overflowing = Atomic<Int>(0)

    // The queue's alone.
    private var start = 0
    private var batch: [UInt8] = []
    private var descriptor: Int32
    private var failed = false
    private let onError: @Sendable (String) -> Void

    init(path: String, descriptor: Int32, onError: @escaping @Sendable (String) -> Void) {
        self.path = path
        self.descriptor = descriptor
        self.onError = onError
        queue.setSpecific(key: Self.onQueueKey, value: true)
    }

    /// Runs `body` on the queue and waits for it; at once if already there (a writer let
    /// go by `onError`, which runs on the queue: a `sync` from there would trap).
    func onQueue(_ body: (Drain) -> Void) {
        if DispatchQueue.getSpecific(key: Self.onQueueKey) == true { body(self) } else { queue.sync { body(self) } }
    }

    func dispatchTurn() {
        queue.async { self.turn() }
    }

    /// An overflowed record, written after everything published before it.
    func writeOverflowed(_ record: [UInt8]) {
        queue.async {
            _ = self.writePublished()
            self.batch = record
            self.writeBatch()
            self.overflowing.subtract(1, ordering: .sequentiallyConsistent)
        }
    }

    /// `flushNow` on the queue, then `done`.
    func flushLater(then done: @escaping @Sendable () -> Void) {
        queue.async {
            self.flushNow()
            done()
        }
    }

    /// `closeNow` on the queue, then `done`.
    func closeLater(then done: @escaping @Sendable () -> Void) {
        queue.async {
            self.closeNow()
            done()
        }
    }

    /// A turn of `queue`: writes what is published. While records keep coming it looks
    /// again a millisecond later instead of going idle.
    private func turn() {
        while true {
            if writePublished() {
                queue.asyncAfter(deadline: .now() + .milliseconds(1)) { self.turn() }
                return
            }
            idle.store(true, ordering: .sequentiallyConsistent)
            if published.load(ordering: .sequentiallyConsistent) == start { return }
            // Published meanwhile: go on, unless that append already dispatched a turn.
            if !idle.exchange(false, ordering: .sequentiallyConsistent) { return }
        }
    }

    /// On `queue`: copies out what is published, frees its room in the ring, then
    /// checksums and writes it. Returns whether there was anything.
    private func writePublished() -> Bool {
        let stop = published.load(ordering: .acquiring)
        guard stop != start else { return false }
        let offset = start & (Self.capacity - 1)
        let first = min(stop - start, Self.capacity - offset)
        batch.append(contentsOf: UnsafeRawBufferPointer(rebasing: ring[offset..<(offset + first)]))
        batch.append(contentsOf: UnsafeRawBufferPointer(rebasing: ring[0..<(stop - start - first)]))
        start = stop
        consumed.store(start, ordering: .sequentiallyConsistent)
        writeBatch()
        return true
    }

    /// On `queue`: checksums the framed records in `batch`, writes them, and empties it.
    private func writeBatch() {
        defer { batch.removeAll(keepingCapacity: true) }
        guard !failed, descriptor >= 0 else { return }
        Journal.checksumFramed(&batch)
        if !Self.writeAll(descriptor, batch) {
            failed = true
            onError("the journal \(path) could not be written (\(String(cString: strerror(errno)))); the game goes on without it")
        }
    }

    /// On `queue`: writes what is published, syncs it and closes the file (once).
    func closeNow() {
        _ = writePublished()  // what gathers for a turn not yet come
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        Glibc.close(descriptor)
        descriptor = -1
    }

    /// On `queue`: writes what is published and syncs it.
    func flushNow() {
        _ = writePublished()
        if descriptor >= 0 { fsync(descriptor) }
    }

    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
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

    deinit {
        ring.deallocate()
    }
}
