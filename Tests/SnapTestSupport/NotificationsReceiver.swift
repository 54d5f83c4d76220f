import CDBus
import SnapDBus
import Synchronization

/// One `Notify` call as it arrived on the bus.
public struct ReceivedNotification: Hashable, Sendable, CustomStringConvertible {
    public let sender: String
    public let appName: String
    public let replacesID: UInt32
    public let icon: String
    public let summary: String
    public let body: String
    public let expireTimeout: Int32
    /// The id this receiver answered with.
    public let id: UInt32

    public var description: String { "\(appName): \(summary) — \(body)" }
}

/// The smallest `org.freedesktop.Notifications` there is: it owns the name on a bus,
/// answers `Notify` with a fresh id, and keeps every call. For tests, which need a real
/// receiver on a real bus (a test bus has no desktop); its methods are safe from any thread.
/// Built on SnapDBus's own connection and message code (`package`), so it answers with the
/// same libdbus calls the notifier makes.
public final class NotificationsReceiver: Sendable {
    private let connection: Mutex<BusConnectionBox>
    private let received = Mutex<[ReceivedNotification]>([])

    /// Connects to the bus at `address` and takes the name; throws if another owns it.
    public init(address: String) throws(DesktopNotifierError) {
        let bus = try BusConnection(address: address)
        let error = BusError()
        let result = dbus_bus_request_name(bus.raw, DesktopNotifier.service, UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE), &error.raw)
        guard result == DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER else {
            throw .failed(name: error.name, message: "could not own \(DesktopNotifier.service) (\(result)): \(error.message)")
        }
        connection = Mutex(BusConnectionBox(bus))
    }

    public var calls: [ReceivedNotification] { received.withLock { $0 } }

    /// Reads and answers what arrived, waiting up to `milliseconds` for something.
    /// Returns false once the bus has closed the connection.
    @discardableResult
    public func handle(waitingMilliseconds milliseconds: Int32) -> Bool {
        connection.withLock { box in
            let raw = box.bus.raw
            guard dbus_connection_read_write(raw, milliseconds) != 0 else { return false }
            while let message = dbus_connection_pop_message(raw) {
                defer { dbus_message_unref(message) }
                guard dbus_message_get_type(message) == DBUS_MESSAGE_TYPE_METHOD_CALL else { continue }
                let reply: OpaquePointer?
                if dbus_message_is_method_call(message, DesktopNotifier.service, "Notify") != 0, let call = Self.read(message, id: box.nextID) {
                    box.nextID += 1
                    received.withLock { $0.append(call) }
                    reply = dbus_message_new_method_return(message)
                    if let reply {
                        var writer = MessageWriter(reply)
                        writer.uint32(call.id)
                    }
                } else if dbus_message_is_method_call(message, DesktopNotifier.service, "GetServerInformation") != 0 {
                    reply = dbus_message_new_method_return(message)
                    if let reply {
                        var writer = MessageWriter(reply)
                        for text in ["snap-test-notifications", "Snap!", "1", "1.2"] { writer.string(text) }
                    }
                } else {
                    reply = dbus_message_new_error(message, "org.freedesktop.DBus.Error.UnknownMethod", "only Notify is answered here")
                }
                if let reply {
                    dbus_connection_send(raw, reply, nil)
                    dbus_message_unref(reply)
                }
            }
            dbus_connection_flush(raw)
            return box.bus.isConnected
        }
    }

    private static func read(_ message: OpaquePointer, id: UInt32) -> ReceivedNotification? {
        var reader = MessageReader(message)
        guard let appName = reader.string(), let replacesID = reader.uint32(), let icon = reader.string(),
              let summary = reader.string(), let body = reader.string(), reader.skipArray(), reader.skipArray(),
              let expire = reader.int32()
        else { return nil }
        let sender = dbus_message_get_sender(message).map { String(cString: $0) } ?? ""
        return ReceivedNotification(sender: sender, appName: appName, replacesID: replacesID, icon: icon, summary: summary,
                                    body: body, expireTimeout: expire, id: replacesID != 0 ? replacesID : id)
    }
}

/// The receiver's connection and its id counter, only touched under its mutex.
final class BusConnectionBox: @unchecked Sendable {  // guarded by NotificationsReceiver's mutex
    let bus: BusConnection
    var nextID: UInt32 = 1
    init(_ bus: BusConnection) { self.bus = bus }
}
