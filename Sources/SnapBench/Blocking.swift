import Dispatch

/// Waits on this thread for `body`, run on Swift's concurrency pool. Benchmarks only: they
/// drive hosts from plain threads (snap-bench's commands run on the main thread; the tests
/// that call them, on threads off the pool) and time them; the product never blocks a
/// thread so.
package func blockingAwait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = BlockingOutcome<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { outcome.result = .success(try await body()) } catch { outcome.result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try outcome.result!.get()
}

private final class BlockingOutcome<T>: @unchecked Sendable {  // written before `done` is signalled, read after
    var result: Result<T, Error>?
}
