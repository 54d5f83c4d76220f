import Foundation

/// Runs `body` on a thread of its own and awaits it. For a test that waits for product
/// work which runs on task executors of its own (the match index, a certificate check):
/// waiting there keeps the test off Swift's cooperative pool, whose few threads the
/// suite's synchronous tests may all be holding meanwhile, so the test's progress depends
/// on none of them.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (done: CheckedContinuation<T, Error>) in
        Thread { done.resume(with: Result { try body() }) }.start()
    }
}
