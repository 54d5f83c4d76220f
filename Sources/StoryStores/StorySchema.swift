/// The story database's schema as one ordered list of numbered steps, which both stores
/// apply: a database at version N gets the steps after N, in order, in the transaction that
/// opens it, and `schema_version` records the last one applied. A database at a version
/// newer than the list's last step is refused (`StoryStoreError.newerSchema`).
///
/// To change the schema, append a step numbered one past the last; never edit a step
/// that has shipped: databases out there already ran it (docs/STORY.md, "Schema versions").
public struct StoryMigration: Sendable {
    /// The version a database is at once this step ran.
    public let version: Int
    /// What the step does, in words (for a reader of the list).
    public let summary: String
    /// The statements, in SQLite's dialect and in PostgreSQL's.
    public let sqlite: [String]
    public let postgres: [String]

    public init(version: Int, summary: String, sqlite: [String], postgres: [String]) {
        self.version = version
        self.summary = summary
        self.sqlite = sqlite
        self.postgres = postgres
    }
}

public enum StorySchema {
    /// Every step, oldest first. Step 1 is the schema snap wrote before steps existed, word
    /// for word, so a database made then is at version 1 and needs nothing.
    public static let migrations: [StoryMigration] = [
        StoryMigration(
            version: 1,
            summary: "matches (indexed for automatch and deadlines), who takes part in what, and the players' keys",
            sqlite: [
                "CREATE TABLE matches(id INTEGER PRIMARY KEY, open INTEGER NOT NULL, due_at INTEGER NULL, body BLOB NOT NULL)",
                "CREATE INDEX matches_open ON matches(open, id)",
                "CREATE INDEX matches_due ON matches(due_at) WHERE due_at IS NOT NULL",
                "CREATE TABLE members(name TEXT NOT NULL, match_id INTEGER NOT NULL, PRIMARY KEY(name, match_id)) WITHOUT ROWID",
                "CREATE TABLE keys(name TEXT PRIMARY KEY, kind INTEGER NOT NULL, bytes BLOB NOT NULL) WITHOUT ROWID",
            ],
            postgres: [
                "CREATE SEQUENCE IF NOT EXISTS story_match_ids AS integer",
                """
                CREATE TABLE IF NOT EXISTS story_matches (
                    id integer PRIMARY KEY, open boolean NOT NULL, due_at bigint NULL, body bytea NOT NULL)
                """,
                "CREATE INDEX IF NOT EXISTS story_matches_open ON story_matches (id) WHERE open",
                "CREATE INDEX IF NOT EXISTS story_matches_due ON story_matches (due_at) WHERE due_at IS NOT NULL",
                """
                CREATE TABLE IF NOT EXISTS story_members (
                    name text NOT NULL, match_id integer NOT NULL REFERENCES story_matches (id),
                    PRIMARY KEY (name, match_id))
                """,
                "CREATE TABLE IF NOT EXISTS story_keys (name text PRIMARY KEY, kind smallint NOT NULL, bytes bytea NOT NULL)",
            ]),
    ]

    /// The version this snap writes: the last step's.
    public static var version: Int { migrations.last?.version ?? 0 }

    /// The table that holds `schema_version` (and `imported`), made before any step: it is
    /// where a database says which steps it has had.
    static let sqliteMeta = "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID"
    package static let postgresMeta = "CREATE TABLE IF NOT EXISTS story_meta (key text PRIMARY KEY, value text NOT NULL)"

    /// The steps a database at `found` (nil: a new one) needs from `migrations`, in order.
    /// Throws `.newerSchema` for a database past the list's last step, naming `place`.
    package static func steps(from found: Int?, of migrations: [StoryMigration], place: String) throws -> [StoryMigration] {
        precondition(migrations.enumerated().allSatisfy { $0.element.version == $0.offset + 1 },
                     "the story schema's steps are numbered 1, 2, 3… in order")
        let supported = migrations.last?.version ?? 0
        let current = found ?? 0
        if current > supported {
            throw StoryStoreError.newerSchema(found: current, supported: supported, where: place)
        }
        return migrations.filter { $0.version > current }
    }
}
