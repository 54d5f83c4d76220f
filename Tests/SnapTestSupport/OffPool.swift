import Dispatch
import SnapPlatform

/// Runs `body` on `OffPoolExecutor`'s threads and waits for it on this one: for the
/// synchronous tests that drive a service through a blocking client, and set it up or look
/// into its store meanwhile. Tests only (the product awaits). An `async` test awaits instead.
public func waitOffPool<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = Outcome<T>()
    let done = DispatchSemaphore(value: 0)
    Task(executorPreference: OffPoolExecutor.shared) {
        do { outcome.result = .success(try await body()) } catch { outcome.result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try outcome.result!.get()
}

private final class Outcome<T>: @unchecked Sendable {  // written before `done` is signalled, read after
    var result: Result<T, any Error>?
}
