import SnapJournal
import SnapProtocol

/// The story journal's one rewrite. Version 1 registered a name by its player's secret
/// key, kept as it was (`StoryRecord.oldKey`); the service's files are to hold no secret,
/// so a journal with such records is rewritten once, on start, with each key's SHA-256 in
/// its place (`StoryRecord.oldKeyDigest`): enough to recognise the key once more when its
/// player moves the name over to a key pair, useless to whoever reads the file.
public enum StoryJournal {
    public struct Rewrite: Equatable, Sendable {
        /// The new file: the same header and records, each old key replaced by its digest,
        /// then whatever followed the readable records (a torn tail, damage) byte for byte,
        /// so that the service finds and handles it as it would have.
        public var bytes: [UInt8]
        /// How many old keys were replaced.
        public var replaced: Int
    }

    /// The journal `bytes` (read as `contents`) without its old keys; nil when it holds none.
    public static func withoutOldKeys(_ bytes: [UInt8], _ contents: JournalContents,
                                      digest: ([UInt8]) -> [UInt8]) -> Rewrite? {
        // A cheap look first: the kind byte of a version 1 key record is 1.
        guard contents.records.contains(where: { $0.first == 1 }) else { return nil }
        var rewritten = Journal.header(kind: contents.kind)
        var replaced = 0
        for record in contents.records {
            if record.first == 1, case .oldKey(let name, let key)? = try? StoryRecord(record) {
                Journal.frame(StoryRecord.oldKeyDigest(name: name, digest: digest(key.bytes)).bytes, into: &rewritten)
                replaced += 1
            } else {
                Journal.frame(record, into: &rewritten)
            }
        }
        guard replaced > 0 else { return nil }
        rewritten += bytes[contents.intactLength...]
        return Rewrite(bytes: rewritten, replaced: replaced)
    }
}
