#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SnapFiles
import SnapJournal
import SnapProtocol

/// Where matches are journaled: `$XDG_STATE_HOME/snap/matches/` (by default
/// `~/.local/state/snap/matches/`), one file per match, mode 0600 in a 0700 directory.
public enum MatchJournal {
    public static func directory(environment: [String: String] = currentEnvironment()) -> String {
        snapStateDirectory(environment: environment) + "/matches"
    }

    /// Creates the directory (and its parents, 0700) if needed.
    public static func prepare(_ directory: String) throws(DirectoryFailure) {
        if let failed = makePrivateDirectories(directory) {
            throw DirectoryFailure(directory: directory, reason: String(cString: strerror(failed.errno)))
        }
    }

    /// The journal directory could not be made. Its words are those the host has always
    /// said of it (they were SnapPlatform's `NetError.cannotListen`).
    public struct DirectoryFailure: Error, CustomStringConvertible {
        public var directory: String
        public var reason: String
        public var description: String { "cannot listen on \(directory): cannot create the journal directory: \(reason)" }
    }

    /// A new journal file for a match hosted as `hostName`, named by its UTC start time.
    public static func create(in directory: String, hostName: String,
                              onError: @escaping @Sendable (String) -> Void) throws -> JournalWriter {
        try prepare(directory)
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        let stamp = "\(parts.tm_year + 1900)-" + two(parts.tm_mon + 1) + "-" + two(parts.tm_mday)
            + "T" + two(parts.tm_hour) + two(parts.tm_min) + two(parts.tm_sec)
        let safeName = String(hostName.map { $0.isLetter || $0.isNumber ? $0 : "_" })
        var attempt = 0
        while true {
            let suffix = attempt == 0 ? "" : "-\(attempt)"
            let path = "\(directory)/\(stamp)-\(safeName)\(suffix).snapjournal"
            do {
                return try JournalWriter(creating: path, kind: MatchRecordCodec.kind, onError: onError)
            } catch {
                guard access(path, F_OK) == 0, attempt < 100 else { throw error }
                attempt += 1
            }
        }
    }

    /// The journal files in `directory`, oldest first (their names sort by start time).
    public static func files(in directory: String) -> [String] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".snapjournal") { names.append(directory + "/" + name) }
        }
        return names.sorted()
    }

    /// A match journal as read: the records up to the first that cannot be used, and why.
    public struct Contents: Sendable {
        public var records: [MatchRecord]
        /// A torn tail (a crash's trace) or damage; nil when the file was read whole.
        public var fault: JournalFault?
        /// Where the usable part ends: what a host continuing the file truncates it to.
        public var intactLength: Int
    }

    /// Reads a match journal. A record that is whole and checksummed but does not decode,
    /// or is out of sequence (duplicated, reordered), is damage at that record, as is the
    /// container's own damage; only a torn last record is a crash's trace.
    public static func read(path: String) throws -> Contents {
        let contents = try Journal.read(path: path)
        guard contents.kind == MatchRecordCodec.kind else {
            throw JournalError.notAJournal(path, "it holds \(contents.kind), not a Snap! match")
        }
        var records: [MatchRecord] = []
        for (index, payload) in contents.records.enumerated() {
            let problem: String
            do {
                let record = try MatchRecordCodec.decode(payload)
                if record.sequence == UInt64(index) {
                    records.append(record)
                    continue
                }
                problem = "it is numbered \(record.sequence) where \(index) was due"
            } catch {
                problem = "it cannot be decoded: \(error)"
            }
            let offset = contents.recordOffsets[index]
            let fault = JournalFault(kind: .damaged, offset: offset, record: index + 1,
                                     unreadableBytes: contents.fileLength - offset, reason: problem)
            return Contents(records: records, fault: fault, intactLength: offset)
        }
        return Contents(records: records, fault: contents.fault, intactLength: contents.intactLength)
    }

    private static func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
}

/// What a host keeps of the matches journaled before: the won counts its table shows,
/// and this match's rounds as they end. SnapHistory's index is the one; SnapNet knows no
/// database, so the host is handed it (and SnapHistory knows no network: this is here). Both calls return at once and do their work on the
/// history's own threads (never the caller's, never the cooperative pool a blocked thread
/// could starve).
public protocol MatchHistory: Sendable {
    /// Rounds won by each player name in the matches journaled in `directory`, except the
    /// journal at `excluding` (a name with none is absent), handed to `then`.
    func roundsWon(in directory: String, excluding: String, then: @escaping @Sendable (Result<[String: Int], any Error>) -> Void)
    /// The journal at `path` has grown by a round and is on disk: the history reads it.
    func journalGrew(_ path: String)
}

/// A journal that is damaged, not merely torn: refused unless the caller chose to go on
/// from its last good record.
public struct JournalDamaged: Error, CustomStringConvertible {
    public var path: String
    public var fault: JournalFault
    public var description: String { "the journal \(path) is \(fault)" }

    public init(path: String, fault: JournalFault) { (self.path, self.fault) = (path, fault) }
}
