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
/// An append encodes its record (on the caller's thread, into bytes only appenders touch),
/// copies it framed — its length in front, its checksum left for the queue — into a ring
/// shared with the queue, and publishes the ring's new end with one atomic store: no lock
/// the queue takes, no allocation, no syscall. Only an append that finds the queue idle
/// dispatches a turn. A turn copies out everything published, frees its room, checksums and
/// writes it in one `write`, and looks again a millisecond later until it finds nothing: a
/// burst of appends costs a few turns, not a thread woken every few records. A ring full of
/// unwritten records (the disk 4 MiB behind) makes the next append wait for the queue, so
/// memory stays bounded and nothing is dropped. (Before: appends under a lock the queue
/// also took, and a dispatch whenever it had caught up; see docs/PERFORMANCE.md.)
public final class JournalWriter: @unchecked Sendable {
    public let path: String
    private let queue = DispatchQueue(label: "snap.journal")

    // The ring: byte positions grow without end; a position's byte is at `position & (capacity - 1)`.
    private static let capacity = 4 << 20  // a power of two, above the largest framed record
    private let ring = UnsafeMutableRawBufferPointer.allocate(byteCount: JournalWriter.capacity, alignment: 64)
    /// The end of what appenders have copied in; the queue reads up to it.
    private let published = Atomic<Int>(0)
    /// The end of what the queue has copied out; appenders may overwrite up to it.
    private let consumed = Atomic<Int>(0)
    /// No turn is queued, running or due: the next append must dispatch one.
    private let idle = Atomic<Bool>(true)
    /// An appender waits on `spaceFreed` for the queue to make room.
    private let waitingForSpace = Atomic<Bool>(false)
    private let spaceFreed = DispatchSemaphore(value: 0)

    /// The appender's own. Appends come from one thread at a time (the host's event loop):
    /// a lock here, uncontended, cost 0.1–0.2× the engine's time on the bench's game path.
    private struct Appender {
        /// Records are encoded here first; emptied now and then, not per record (an
        /// emptying costs as much as the rest of an append's bookkeeping).
        var scratch: [UInt8] = []
        /// The ring's end, and where the queue was when last looked.
        var end = 0
        var knownConsumed = 0
    }
    private static let scratchLimit = 64 << 10
    @exclusivity(unchecked) private var appender = Appender()  // its checks cost more than the rest
#if DEBUG
    private let appending = Atomic<Bool>(false)
#endif

    // The queue's alone (or `deinit`'s, when nothing else can touch the writer).
    private var start = 0
    private var batch: [UInt8] = []
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

    /// Queues one record; returns at once unless the ring is full.
    public func append(_ payload: [UInt8]) {
        append(encoding: { $0.append(contentsOf: payload) })
    }

    /// Queues one record whose payload `encode` appends to the bytes it is given (and
    /// touches nothing else of them), on the caller's thread; returns at once unless the
    /// ring is full. One thread at a time.
    public func append(encoding encode: (inout [UInt8]) -> Void) {
#if DEBUG
        precondition(!appending.exchange(true, ordering: .acquiring), "JournalWriter.append from two threads at once")
        defer { appending.store(false, ordering: .releasing) }
#endif
        if appender.scratch.count > Self.scratchLimit { appender.scratch.removeAll(keepingCapacity: true) }
        let payloadStart = appender.scratch.count
        encode(&appender.scratch)
        let length = appender.scratch.count - payloadStart
        precondition(length >= 1 && length <= Journal.maxRecordLength, "a journal record of \(length) bytes")

        let framed = 8 + length
        if appender.end + framed - appender.knownConsumed > Self.capacity { waitForSpace(framed) }
        var header = (UInt32(length).bigEndian, UInt32(0))  // the checksum is the queue's to fill in
        withUnsafeBytes(of: &header) { Self.copy($0, into: ring, at: appender.end) }
        appender.scratch.withUnsafeBytes {
            Self.copy(UnsafeRawBufferPointer(rebasing: $0[payloadStart...]), into: ring, at: appender.end + 8)
        }
        appender.end += framed
        // Sequentially consistent, as are the queue's `idle` store and its second look at
        // `published`: one of the two sides sees the other, so no record is left unwritten.
        published.store(appender.end, ordering: .sequentiallyConsistent)
        let dispatch = idle.load(ordering: .sequentiallyConsistent) && idle.exchange(false, ordering: .sequentiallyConsistent)
        // Weak: the queue's turn must not be what keeps the writer alive (its deinit would
        // then run on the queue); a writer gone has written everything in its deinit.
        if dispatch { queue.async { [weak self] in self?.turn() } }
    }

    /// An appender, when `count` more bytes do not fit: waits until the queue frees them.
    private func waitForSpace(_ count: Int) {
        while true {
            waitingForSpace.store(true, ordering: .sequentiallyConsistent)
            appender.knownConsumed = consumed.load(ordering: .sequentiallyConsistent)
            if appender.end + count - appender.knownConsumed <= Self.capacity {
                // The queue may have seen the flag and signalled already: take that signal.
                if !waitingForSpace.exchange(false, ordering: .sequentiallyConsistent) { spaceFreed.wait() }
                return
            }
            spaceFreed.wait()  // a turn is queued, running or due: the ring holds records
        }
    }

    private static func copy(_ bytes: UnsafeRawBufferPointer, into ring: UnsafeMutableRawBufferPointer, at position: Int) {
        let offset = position & (capacity - 1)
        let first = min(bytes.count, capacity - offset)
        (ring.baseAddress! + offset).copyMemory(from: bytes.baseAddress!, byteCount: first)
        if first < bytes.count {
            ring.baseAddress!.copyMemory(from: bytes.baseAddress! + first, byteCount: bytes.count - first)
        }
    }

    /// A turn of `queue`: writes what is published. While records keep coming it looks
    /// again a millisecond later instead of going idle.
    private func turn() {
        while true {
            if writePublished() {
                queue.asyncAfter(deadline: .now() + .milliseconds(1)) { [weak self] in self?.turn() }
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
        if waitingForSpace.exchange(false, ordering: .sequentiallyConsistent) { spaceFreed.signal() }
        defer { batch.removeAll(keepingCapacity: true) }
        guard !failed, descriptor >= 0 else { return true }
        Journal.checksumFramed(&batch)
        if !Self.writeAll(descriptor, batch) {
            failed = true
            onError("the journal \(path) could not be written (\(String(cString: strerror(errno)))); the game goes on without it")
        }
        return true
    }

    /// Writes what is queued, syncs it to disk and closes the file.
    public func close() {
        queue.sync { closeNow() }
    }

    /// On `queue` (or in `deinit`, when nothing else can touch the writer).
    private func closeNow() {
        _ = writePublished()  // what gathers for a turn not yet come
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        Glibc.close(descriptor)
        descriptor = -1
    }

    /// Waits until everything queued so far is written (tests, a round's end).
    public func flush() {
        queue.sync {
            _ = writePublished()
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
    deinit {
        closeNow()
        ring.deallocate()
    }
}
