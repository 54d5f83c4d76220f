import Foundation
import SnapDBus
import SnapTestSupport
import Testing

/// A receiver answering on its own thread until stopped.
final class ReceiverThread: @unchecked Sendable {  // `running` is only read and cleared
    let receiver: NotificationsReceiver
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var running = true

    init(address: String) throws {
        receiver = try NotificationsReceiver(address: address)
        Thread.detachNewThread { [self] in
            while lock.withLock({ running }), receiver.handle(waitingMilliseconds: 50) {}
            done.signal()
        }
    }

    func stop() {
        lock.withLock { running = false }
        _ = done.wait(timeout: .now() + 5)
    }
}

@Suite("Desktop notifications on a real session bus", .blocksThreads, .serialized, .timeLimit(.minutes(5)))
struct DesktopNotifierTests {
    @Test("Notify reaches org.freedesktop.Notifications on the bus with every argument, as dbus-monitor sees it, and the id comes back")
    func notifyOnTheBus() throws {
        let bus = try SessionBus()
        defer { bus.stop() }
        let monitor = try BusMonitor(address: bus.address)
        defer { monitor.stop() }
        let receiver = try ReceiverThread(address: bus.address)
        defer { receiver.stop() }

        let notifier = try DesktopNotifier(address: bus.address, timeoutMilliseconds: 2000)
        let first = try notifier.notify(summary: "Your turn in 'The dragon'", body: "Ann wrote: Once upon a time — ü.")
        let second = try notifier.notify(summary: "1 h left in 'The dragon'", body: "Write your turn.", replacing: first)
        #expect(first == 1)
        #expect(second == first)  // replaced in place

        let calls = receiver.receiver.calls
        #expect(calls.count == 2)
        #expect(calls.first?.appName == "Snap!")
        #expect(calls.first?.summary == "Your turn in 'The dragon'")
        #expect(calls.first?.body == "Ann wrote: Once upon a time — ü.")
        #expect(calls.first?.replacesID == 0)
        #expect(calls.first?.expireTimeout == -1)
        #expect(calls.last?.replacesID == first)

        // The call as the bus carried it, seen by a monitor.
        #expect(monitor.wait(for: "string \"1 h left in 'The dragon'\"", timeout: 5), "\(monitor.output)")
        let seen = monitor.notifyCalls
        #expect(seen.count == 2, "\(monitor.output)")
        let lines = seen.first?.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) } ?? []
        #expect(lines.first?.contains("destination=org.freedesktop.Notifications") == true)
        #expect(lines.first?.contains("path=/org/freedesktop/Notifications; interface=org.freedesktop.Notifications; member=Notify") == true)
        #expect(Array(lines.dropFirst().prefix(5)) == [
            "string \"Snap!\"", "uint32 0", "string \"\"", "string \"Your turn in 'The dragon'\"",
            "string \"Ann wrote: Once upon a time — ü.\"",
        ], "\(lines)")
        #expect(lines.contains("int32 -1"))
    }

    @Test("no notification service on the bus: a clear error, no crash; the call was still seen on the bus")
    func noService() throws {
        let bus = try SessionBus()
        defer { bus.stop() }
        let monitor = try BusMonitor(address: bus.address)
        defer { monitor.stop() }
        let notifier = try DesktopNotifier(address: bus.address, timeoutMilliseconds: 2000)
        #expect(throws: DesktopNotifierError.noNotificationService) {
            try notifier.notify(summary: "Your turn", body: "")
        }
        #expect(DesktopNotifierError.noNotificationService.description.hasPrefix("no notification service is running on this session bus"))
        #expect(monitor.wait(for: "member=Notify", timeout: 5))
    }

    @Test("no session bus: not set, or nothing listening; a bus that goes away between notices is said plainly")
    func noBus() throws {
        #expect {
            try DesktopNotifier(address: "")
        } throws: { error in
            "\(error)".hasPrefix("no session bus:")
        }
        let nowhere = "unix:path=" + scratchPath("no-bus-here")
        #expect {
            try DesktopNotifier(address: nowhere)
        } throws: { error in
            "\(error)".hasPrefix("no session bus: cannot connect to \(nowhere)")
        }
        let bus = try SessionBus()
        let receiver = try ReceiverThread(address: bus.address)
        let notifier = try DesktopNotifier(address: bus.address, timeoutMilliseconds: 2000)
        #expect(try notifier.notify(summary: "One", body: "") == 1)
        receiver.stop()
        bus.stop()
        let started = Date()
        #expect {
            try notifier.notify(summary: "Two", body: "")
        } throws: { error in
            "\(error)".hasPrefix("no session bus:")
        }
        #expect(Date().timeIntervalSince(started) < 10)
    }

    @Test("a notification service that never answers: the call gives up after its time, with words that say so")
    func silentService() throws {
        let bus = try SessionBus()
        defer { bus.stop() }
        // Owns the name but never reads: the call waits for an answer that does not come.
        let silent = try NotificationsReceiver(address: bus.address)
        let notifier = try DesktopNotifier(address: bus.address, timeoutMilliseconds: 300)
        let started = Date()
        #expect(throws: DesktopNotifierError.timedOut(milliseconds: 300)) {
            try notifier.notify(summary: "Anyone?", body: "")
        }
        #expect(Date().timeIntervalSince(started) < 10)  // 300 ms, with room for a busy machine
        _ = silent
    }
}
