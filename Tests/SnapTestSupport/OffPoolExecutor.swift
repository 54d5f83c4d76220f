import Dispatch

/// The tests' threads, off Swift's cooperative pool: a concurrent queue's, which grow when
/// one blocks. Tests that block run here (`BlocksThreads`, `waitOffPool`), so the pool's
/// thread a core stays free for the product's tasks in the test process.
public final class OffPoolExecutor: TaskExecutor, @unchecked Sendable {  // a queue is thread-safe
    public static let shared = OffPoolExecutor()
    private let queue = DispatchQueue(label: "snap.off-pool", attributes: .concurrent)

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
