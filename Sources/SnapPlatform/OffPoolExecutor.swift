import Dispatch

/// Where work that may block runs (an SQLite statement waiting for another process's lock,
/// a journal's flush): a concurrent queue's threads, never Swift's cooperative pool, which
/// has a thread a core and which a blocking caller (a test, a benchmark's driver) may be
/// holding, nor an event loop. The story store and the match index both run their tasks here.
public final class OffPoolExecutor: TaskExecutor, @unchecked Sendable {  // a queue is thread-safe
    public static let shared = OffPoolExecutor()
    private let queue = DispatchQueue(label: "snap.off-pool", attributes: .concurrent)

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// Runs `body` to its end from a thread that may wait (a test's or a benchmark's; never
    /// an event loop's, and no command's: they await).
    public static func wait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<T, any Error>?
        Task(executorPreference: shared) {
            do { result = .success(try await body()) } catch { result = .failure(error) }
            done.signal()
        }
        done.wait()
        return try result!.get()
    }
}
