import Dispatch

/// Where work that may block runs (an SQLite statement waiting for another process's lock,
/// a journal's flush): a concurrent queue's threads, never Swift's cooperative pool, which
/// has a thread a core and which a blocking caller (a test, a benchmark's driver) may be
/// holding, nor an event loop. The story store and the match index both run their tasks here.
/// (A thread that waits for such a task is a test's or a benchmark's, never the product's:
/// SnapTestSupport's `waitOffPool` and SnapBench's `blockingAwait(on:)` do the waiting.)
public final class OffPoolExecutor: TaskExecutor, @unchecked Sendable {  // a queue is thread-safe
    public static let shared = OffPoolExecutor()
    private let queue = DispatchQueue(label: "snap.off-pool", attributes: .concurrent)

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
