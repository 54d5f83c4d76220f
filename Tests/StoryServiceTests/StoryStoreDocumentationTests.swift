import Foundation
import Testing
@testable import StoryLink
@testable import StoryProtocol
@testable import StoryService
@testable import StoryStores
@testable import StoryStoresPostgres

/// How docs/STORY.md writes a PostgreSQL store's name, as PostgresURL shows it (the service
/// prints "store: postgres " and this; the SQLite line is checked on the real binary in
/// StoryOutputDocumentationTests).
@Suite("STORY.md quotes the store's name")
struct StoryStoreDocumentationTests {
    @Test("store: postgres HOST/DB, for a socket SOCKETDIR/DB: never a user")
    func postgresStore() throws {
        let tcp = try PostgresURL("postgres://snap@db.example/story").description
        let socket = try PostgresURL("postgres://snap@/story?host=/run/postgresql").description
        #expect(!tcp.contains("snap") && !socket.contains("snap"))
        let tcpShown = tcp.replacingOccurrences(of: "db.example", with: "HOST").replacingOccurrences(of: "story", with: "DB")
        let socketShown = socket.replacingOccurrences(of: "/run/postgresql", with: "SOCKETDIR").replacingOccurrences(of: "story", with: "DB")
        let quote = "The service prints `store: postgres \(tcpShown)` (for a socket, `store: postgres \(socketShown)`), never a user or a password."
        #expect(try StoryQuotesTests.document("STORY.md").contains(quote), "STORY.md lacks: \(quote)")
    }

    @Test("PostgreSQL's tables and sequence, its NOTIFY channel and default port")
    func postgresSchema() throws {
        // The tables and the sequence the first process creates, and the channel of its NOTIFY.
        let made = ([StorySchema.postgresMeta] + StorySchema.migrations.flatMap(\.postgres)).compactMap { $0.firstMatch(of: #/CREATE (TABLE|SEQUENCE) IF NOT EXISTS ([a-z_]+)/#) }
        let tables = made.filter { $0.1 == "TABLE" }.map { "`\($0.2)`" }, sequences = made.filter { $0.1 == "SEQUENCE" }.map { "`\($0.2)`" }
        try #require(!tables.isEmpty && sequences.count == 1, "\(made.map(\.0))")
        try StoryQuotesTests().expect("STORY.md", quotes: "The first process to start creates the tables (\(tables[0]) with `schema_version`, "
                                      + tables.dropFirst().joined(separator: ", ") + ", the sequence \(sequences[0]))")
        try StoryQuotesTests().expect("STORY.md", quotes: "(`NOTIFY \(PostgresStoryStore.channel)`, sent when the transaction commits)")
        // The PostgreSQL section's first example names the default port.
        try StoryQuotesTests().expect("STORY.md", quotes: "snapcards story serve --database postgres://snap@db.example/story # TCP, port \(PostgresURL.defaultPort)")
    }
}
