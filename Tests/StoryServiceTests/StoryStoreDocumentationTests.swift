import Foundation
import Testing
@testable import StoryLink
@testable import StoryProtocol
@testable import StoryService
@testable import StoryStores

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
}
