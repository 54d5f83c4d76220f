import Foundation

/// The tests' threads, off Swift's cooperative pool: a thread of its own for every job.
/// Tests that block run here (`BlocksThreads`, `waitOffPool`), so the pool's thread a core
/// stays free for the product's tasks in the test process. Not a dispatch queue: libdispatch
/// on Linux gives a queue about a thread a core and adds more only when its monitor notices
/// the blocked ones, so a blocked test held up quick ones behind it (a regex test once
/// "took" 51 s). `BlocksThreads`' gate is what bounds how many blocking tests run at once.
public final class OffPoolExecutor: TaskExecutor, @unchecked Sendable {  // no state
    public static let shared = OffPoolExecutor()

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        Thread { job.runSynchronously(on: executor) }.start()
    }
}
