#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CDBus

/// Why a desktop notification could not be shown, in words a player can act on.
public enum DesktopNotifierError: Error, Equatable, Sendable, CustomStringConvertible {
    /// DBUS_SESSION_BUS_ADDRESS is not set, or nothing answers there.
    case noSessionBus(String)
    /// The bus is there, but nobody owns (or can be started as) org.freedesktop.Notifications.
    case noNotificationService
    /// The notification service did not answer within the time allowed.
    case timedOut(milliseconds: Int32)
    /// Any other D-Bus error: its name and message.
    case failed(name: String, message: String)

    public var description: String {
        switch self {
        case .noSessionBus(let why): "no session bus: \(why)"
        case .noNotificationService:
            "no notification service is running on this session bus (nothing owns \(DesktopNotifier.service)); start one (a desktop, or dunst, mako …)"
        case .timedOut(let milliseconds): "the notification service did not answer within \(milliseconds) ms"
        case .failed(let name, let message): "the notification service refused: \(message) (\(name))"
        }
    }
}

/// D-Bus type codes (dbus-protocol.h's `((int) 's')` macros do not reach Swift).
enum DBusType {
    static let string = Int32(UInt8(ascii: "s"))
    static let uint32 = Int32(UInt8(ascii: "u"))
    static let int32 = Int32(UInt8(ascii: "i"))
    static let array = Int32(UInt8(ascii: "a"))
    static let invalid = Int32(0)
}

/// A libdbus error, initialised and freed in one place. (`package`, as the connection and
/// the message code below: SnapTestSupport's NotificationsReceiver answers with them.)
package final class BusError {
    package var raw = DBusError()
    package init() { dbus_error_init(&raw) }
    deinit { dbus_error_free(&raw) }
    package var name: String { raw.name.map { String(cString: $0) } ?? "" }
    package var message: String { raw.message.map { String(cString: $0) } ?? "" }
}

/// A private connection to a D-Bus bus (libdbus-1), registered (it has a unique name).
/// Used from one thread at a time.
package final class BusConnection {
    package let raw: OpaquePointer

    /// Opens and registers; `noSessionBus` with libdbus's words if it cannot.
    package init(address: String) throws(DesktopNotifierError) {
        DesktopNotifier.initialiseThreads
        let error = BusError()
        guard let connection = dbus_connection_open_private(address, &error.raw) else {
            throw .noSessionBus("cannot connect to \(address): \(error.message)")
        }
        // A bus that goes away must not end the process (libdbus's default for the
        // session bus is to call _exit).
        dbus_connection_set_exit_on_disconnect(connection, 0)
        guard dbus_bus_register(connection, &error.raw) != 0 else {
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
            throw .noSessionBus("the bus at \(address) did not let this program in: \(error.message)")
        }
        raw = connection
    }

    package var isConnected: Bool { dbus_connection_get_is_connected(raw) != 0 }

    deinit {
        dbus_connection_close(raw)
        dbus_connection_unref(raw)
    }
}

/// Appends D-Bus values to a message being written.
package struct MessageWriter {
    var iterator = DBusMessageIter()
    package private(set) var ok = true

    package init(_ message: OpaquePointer) { dbus_message_iter_init_append(message, &iterator) }

    package mutating func string(_ value: String) {
        // D-Bus strings are UTF-8 without NUL: Swift's are UTF-8, and a NUL would cut them.
        let clean = value.contains("\0") ? value.replacingNUL() : value
        clean.withCString { text in
            var pointer: UnsafePointer<CChar>? = text
            ok = ok && dbus_message_iter_append_basic(&iterator, DBusType.string, &pointer) != 0
        }
    }

    package mutating func uint32(_ value: UInt32) {
        var value = value
        ok = ok && dbus_message_iter_append_basic(&iterator, DBusType.uint32, &value) != 0
    }

    package mutating func int32(_ value: Int32) {
        var value = value
        ok = ok && dbus_message_iter_append_basic(&iterator, DBusType.int32, &value) != 0
    }

    /// An empty array of elements of `signature` ("s", "{sv}").
    package mutating func emptyArray(of signature: String) {
        var inner = DBusMessageIter()
        ok = ok && dbus_message_iter_open_container(&iterator, DBusType.array, signature, &inner) != 0
        ok = ok && dbus_message_iter_close_container(&iterator, &inner) != 0
    }
}

/// Reads D-Bus values from a received message, in order.
package struct MessageReader {
    var iterator = DBusMessageIter()
    private var more: Bool

    package init(_ message: OpaquePointer) { more = dbus_message_iter_init(message, &iterator) != 0 }

    private mutating func advance() { more = dbus_message_iter_next(&iterator) != 0 }
    private var type: Int32 { mutating get { more ? dbus_message_iter_get_arg_type(&iterator) : DBusType.invalid } }

    package mutating func string() -> String? {
        guard type == DBusType.string else { return nil }
        var pointer: UnsafePointer<CChar>? = nil
        dbus_message_iter_get_basic(&iterator, &pointer)
        advance()
        return pointer.map { String(cString: $0) }
    }

    package mutating func uint32() -> UInt32? {
        guard type == DBusType.uint32 else { return nil }
        var value: UInt32 = 0
        dbus_message_iter_get_basic(&iterator, &value)
        advance()
        return value
    }

    package mutating func int32() -> Int32? {
        guard type == DBusType.int32 else { return nil }
        var value: Int32 = 0
        dbus_message_iter_get_basic(&iterator, &value)
        advance()
        return value
    }

    /// Skips an array (actions, hints) whatever it holds; false if the next value is not one.
    package mutating func skipArray() -> Bool {
        guard type == DBusType.array else { return false }
        advance()
        return true
    }
}

extension String {
    fileprivate func replacingNUL() -> String { String(String.UnicodeScalarView(unicodeScalars.filter { $0 != "\0" })) }
}

/// Posts desktop notifications through the freedesktop.org notification service:
/// `org.freedesktop.Notifications.Notify` on the session bus, called with libdbus-1 directly
/// (docs/ARCHITECTURE.md says why). One connection, opened on first use and again if the
/// bus dropped it; each call waits at most `timeoutMilliseconds` for the answer.
public final class DesktopNotifier {
    public static let service = "org.freedesktop.Notifications"
    public static let objectPath = "/org/freedesktop/Notifications"
    public static let appName = "Snap!"

    /// libdbus is told once, before any connection, that several threads may use it.
    static let initialiseThreads: Void = { _ = dbus_threads_init_default() }()

    public let address: String
    public let timeoutMilliseconds: Int32
    private var connection: BusConnection?

    /// The bus at `address`, by default DBUS_SESSION_BUS_ADDRESS's. Connects at once, so
    /// a missing bus is said at start; throws `noSessionBus`.
    public init(address: String? = nil, timeoutMilliseconds: Int32 = 5000) throws(DesktopNotifierError) {
        guard let address = address ?? getenv("DBUS_SESSION_BUS_ADDRESS").map({ String(cString: $0) }), !address.isEmpty else {
            throw .noSessionBus("DBUS_SESSION_BUS_ADDRESS is not set (run this inside a desktop session, or as a systemd user service)")
        }
        self.address = address
        self.timeoutMilliseconds = timeoutMilliseconds
        connection = try BusConnection(address: address)
    }

    /// Shows a notification; returns the id the service gave it (pass it as `replacing` to
    /// update that notification in place). `expireTimeout`: milliseconds, -1 the service's
    /// default, 0 never.
    @discardableResult
    public func notify(summary: String, body: String, replacing replacesID: UInt32 = 0, icon: String = "",
                       expireTimeout: Int32 = -1) throws(DesktopNotifierError) -> UInt32 {
        do {
            return try call(summary: summary, body: body, replacesID: replacesID, icon: icon, expireTimeout: expireTimeout)
        } catch .noSessionBus where connection == nil {
            // The bus dropped the old connection: one new one, one more try.
            connection = try BusConnection(address: address)
            return try call(summary: summary, body: body, replacesID: replacesID, icon: icon, expireTimeout: expireTimeout)
        }
    }

    private func call(summary: String, body: String, replacesID: UInt32, icon: String,
                      expireTimeout: Int32) throws(DesktopNotifierError) -> UInt32 {
        guard let connection, connection.isConnected else {
            self.connection = nil
            throw .noSessionBus("the session bus at \(address) closed the connection")
        }
        guard let message = dbus_message_new_method_call(Self.service, Self.objectPath, Self.service, "Notify") else {
            throw .failed(name: "", message: "out of memory")
        }
        defer { dbus_message_unref(message) }
        var writer = MessageWriter(message)
        writer.string(Self.appName)
        writer.uint32(replacesID)
        writer.string(icon)
        writer.string(summary)
        writer.string(body)
        writer.emptyArray(of: "s")  // actions
        writer.emptyArray(of: "{sv}")  // hints
        writer.int32(expireTimeout)
        guard writer.ok else { throw .failed(name: "", message: "out of memory") }
        let error = BusError()
        guard let reply = dbus_connection_send_with_reply_and_block(connection.raw, message, timeoutMilliseconds, &error.raw) else {
            let name = error.name
            if !connection.isConnected {
                // The bus itself went away (the user logged out, the test bus stopped).
                self.connection = nil
                throw .noSessionBus("the session bus at \(address) closed the connection")
            }
            switch name {
            case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
                throw .noNotificationService
            case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout", "org.freedesktop.DBus.Error.TimedOut":
                throw .timedOut(milliseconds: timeoutMilliseconds)
            case "org.freedesktop.DBus.Error.Disconnected":
                self.connection = nil
                throw .noSessionBus("the session bus at \(address) closed the connection")
            default:
                throw .failed(name: name, message: error.message)
            }
        }
        defer { dbus_message_unref(reply) }
        var reader = MessageReader(reply)
        guard let id = reader.uint32() else { throw .failed(name: "", message: "Notify answered without a notification id") }
        return id
    }
}
