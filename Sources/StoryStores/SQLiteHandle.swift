import NIOCore
import SQLiteNIO
import VaporCSQLite

/// One SQLite connection, driven synchronously through the C API of the SQLite that
/// sqlite-nio bundles (its `VaporCSQLite` module), on one thread at a time: its owner's.
///
/// Why under sqlite-nio: sqlite-nio runs each statement as its own thread-pool job and
/// hands the result back to the caller's thread after each, and offers no way to run
/// several in one job. A turn's transaction is four statements (`BEGIN IMMEDIATE`, the
/// match's `SELECT`, its `UPDATE`, `COMMIT`), so it crossed threads eight times; on a
/// loaded machine each crossing can wait a scheduler slice, and that was the turn's tail
/// (docs/PERFORMANCE.md, the Story service's turn). Here a store runs a whole transaction
/// as one job. Statements are prepared once and kept (`SQLITE_PREPARE_PERSISTENT`).
final class SQLiteHandle {  // not Sendable: its owner's thread alone uses it
    let path: String
    private var db: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    /// Prepared statements kept at most; dynamic ones (an import's batches) come and go.
    private static let kept = 64

    private static let initialized: Void = { _ = sqlite_nio_sqlite3_initialize() }()

    /// Opens (or creates) the database at `path` (a `file:` URI is SQLite's).
    init(path: String) throws(SQLiteFault) {
        Self.initialized
        self.path = path
        let flags = SQLITE_OPEN_CREATE | SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_URI | SQLITE_OPEN_EXRESCODE
        let opened = sqlite_nio_sqlite3_open_v2(path, &db, flags, nil)
        guard opened == SQLITE_OK else {
            let fault = SQLiteFault(code: opened, message: db.flatMap { sqlite_nio_sqlite3_errmsg($0) }.map { String(cString: $0) }
                                    ?? sqlite_nio_sqlite3_errstr(opened).map { String(cString: $0) } ?? "error \(opened)")
            sqlite_nio_sqlite3_close_v2(db)
            db = nil
            throw fault
        }
        // As sqlite-nio: a lock another connection holds is waited for, not an error.
        sqlite_nio_sqlite3_busy_handler(db, { _, _ in 1 }, nil)
    }

    deinit { close() }

    /// Runs `sql` with `binds`; its rows.
    @discardableResult
    func rows(_ sql: String, _ binds: [SQLiteData] = []) throws(SQLiteFault) -> [SQLiteValues] {
        let statement = try prepared(sql)
        defer {
            sqlite_nio_sqlite3_reset(statement)
            sqlite_nio_sqlite3_clear_bindings(statement)
        }
        for (index, bind) in binds.enumerated() {
            let at = Int32(index + 1)
            let bound: Int32 = switch bind {
            case .integer(let value): sqlite_nio_sqlite3_bind_int64(statement, at, Int64(value))
            case .float(let value): sqlite_nio_sqlite3_bind_double(statement, at, value)
            case .text(let value):
                sqlite_nio_sqlite3_bind_text64(statement, at, value, UInt64(value.utf8.count), transient, UInt8(SQLITE_UTF8))
            case .blob(let value):
                value.withUnsafeReadableBytes { sqlite_nio_sqlite3_bind_blob64(statement, at, $0.baseAddress, UInt64($0.count), transient) }
            case .null: sqlite_nio_sqlite3_bind_null(statement, at)
            }
            guard bound == SQLITE_OK else { throw fault(bound) }
        }
        let count = sqlite_nio_sqlite3_column_count(statement)
        let names = (0..<count).map { sqlite_nio_sqlite3_column_name(statement, $0).map { String(cString: $0) } ?? "" }
        var rows: [SQLiteValues] = []
        while true {
            let stepped = sqlite_nio_sqlite3_step(statement)
            if stepped == SQLITE_DONE { return rows }
            guard stepped == SQLITE_ROW else { throw fault(stepped) }
            rows.append(SQLiteValues(names: names, values: (0..<count).map { value(statement, $0) }))
        }
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction, committed before this returns;
    /// rolled back if it throws.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try rows("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try rows("COMMIT")
            return value
        } catch {
            _ = try? rows("ROLLBACK")
            throw error
        }
    }

    func close() {
        for statement in statements.values { sqlite_nio_sqlite3_finalize(statement) }
        statements = [:]
        if let db { sqlite_nio_sqlite3_close_v2(db) }
        db = nil
    }

    private func prepared(_ sql: String) throws(SQLiteFault) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        guard db != nil else { throw SQLiteFault(code: SQLITE_MISUSE, message: "\(path) is closed") }
        var statement: OpaquePointer?
        let made = sqlite_nio_sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard made == SQLITE_OK, let statement else { throw fault(made) }
        if statements.count >= Self.kept {
            for old in statements.values { sqlite_nio_sqlite3_finalize(old) }
            statements = [:]
        }
        statements[sql] = statement
        return statement
    }

    private func value(_ statement: OpaquePointer, _ column: Int32) -> SQLiteData {
        switch sqlite_nio_sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(Int(sqlite_nio_sqlite3_column_int64(statement, column)))
        case SQLITE_FLOAT: return .float(sqlite_nio_sqlite3_column_double(statement, column))
        case SQLITE_TEXT: return .text(sqlite_nio_sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "")
        case SQLITE_BLOB:
            let count = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
            guard count > 0, let bytes = sqlite_nio_sqlite3_column_blob(statement, column) else { return .blob(ByteBuffer()) }
            return .blob(ByteBuffer(bytes: UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }

    private func fault(_ code: Int32) -> SQLiteFault {
        SQLiteFault(code: code, message: db.flatMap { sqlite_nio_sqlite3_errmsg($0) }.map { String(cString: $0) } ?? sqlite_nio_sqlite3_errstr(code).map { String(cString: $0) } ?? "error \(code)")
    }
}

/// SQLite's `SQLITE_TRANSIENT`: the bytes bound are copied before the bind returns.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One row: its columns' names and values.
struct SQLiteValues {
    let names: [String]
    let values: [SQLiteData]

    func column(_ name: String) -> SQLiteData? {
        names.firstIndex(of: name).map { values[$0] }
    }
}

/// A fault SQLite reported: its (extended) result code and its words.
struct SQLiteFault: Error, CustomStringConvertible {
    let code: Int32
    let message: String

    /// The primary result code (`SQLITE_FULL`, `SQLITE_READONLY`, …) of an extended one.
    var primary: Int32 { code & 0xff }
    var description: String { message }
}
