#if GUI
import NIOConcurrencyHelpers

/// The one way work off the window's thread hands the window something (a game made, a list
/// of hosts found, the statistics read, a reply from the story service): posted from any
/// thread under a lock, the window woken (`WindowWake`), taken on the window's thread in a
/// scene's `update`. The window's loop is no Swift executor (it runs SDL's loop on the main
/// thread), so nothing is awaited there: the scene looks in its inbox each pass. A message is
/// handed over whole: whoever posts it keeps no use of it (a `GameClient` made on a task is
/// used on the window's thread only from then on), so it need not be `Sendable` itself.
final class WindowInbox<Message>: @unchecked Sendable {  // `messages` and `closed` only under `lock`
    private let lock = NIOLock()
    private var messages: [Message] = []
    private var closed = false

    init() {}

    /// Hands `message` to the window and wakes it; false (nothing posted) once the inbox is closed.
    @discardableResult
    func post(_ message: Message) -> Bool {
        let posted = lock.withLock {
            guard !closed else { return false }
            messages.append(message)
            return true
        }
        if posted { WindowWake.wake() }
        return posted
    }

    /// Everything posted since the last take, oldest first.
    func takeAll() -> [Message] {
        lock.withLock {
            defer { messages = [] }
            return messages
        }
    }

    /// The newest message posted since the last take; the older ones are dropped (stale lists).
    func takeLatest() -> Message? { takeAll().last }

    /// Everything posted since the last take, left in the inbox (an outcome the scene reads
    /// until it moves on).
    var pending: [Message] { lock.withLock { messages } }

    /// The first message posted, left in the inbox.
    var first: Message? { lock.withLock { messages.first } }

    /// Nothing is posted after this (the scene stopped waiting); returns what was posted and not taken.
    func close() -> [Message] {
        lock.withLock {
            closed = true
            defer { messages = [] }
            return messages
        }
    }
}
#endif
