import Foundation
import Glibc
import NIOCore
import SnapTestSupport
import SQLiteNIO
import StoryEngine
import Testing
@testable import StoryLink
@testable import StoryProtocol
@testable import StoryService
@testable import StoryStores

/// The SQLite store on real files: every command through `apply` (the rules'
/// dispatcher), refusals that change nothing, a reopen, and the faults it names.
@Suite("SQLite story store", .serialized)
struct SQLiteStoryStoreTests {
    func path() -> String { scratchDirectory("sqlite") + "/story.sqlite" }

    /// Runs `sql` on the file directly, as a damaged disk or a newer snap would have left it.
    func tamper(_ path: String, _ sql: String, _ binds: [SQLiteData] = []) async throws {
        let connection = try await SQLiteConnection.open(storage: .file(path: path))
        _ = try await connection.query(sql, binds)
        try await connection.close()
    }

    @Test("create, turn, decline, timeout, automatch, quit and rematch through apply; refusals change nothing; a reopen keeps everything")
    func commands() async throws {
        let file = path()
        let store = try await SQLiteStoryStore.open(path: file)
        #expect(store.description == "sqlite \(file)")
        let first = try await store.apply(.create(starter: "Ann", others: ["Bob", "Cy"], title: "The dragon", at: 100, turnSeconds: 60))
        #expect(first.id == StoryMatchID(1) && first.dueAt == 160)
        // Not Bob's turn: refused, and the stored match is as it was.
        await #expect(throws: StoryError.notYourTurn(first.id, current: "Ann")) {
            _ = try await store.apply(.turn(first.id, name: "Bob", text: "Mine", at: 101))
        }
        #expect(try await store.match(first.id) == first)
        let turned = try await store.apply(.turn(first.id, name: "Ann", text: "Once", at: 110))
        #expect(turned.currentName == "Bob" && turned.dueAt == 170)
        let declined = try await store.apply(.decline(first.id, name: "Cy", at: 111))
        #expect(declined.participants[2].declined)
        #expect(try await store.due(at: 169, limit: 10).isEmpty)
        #expect(try await store.due(at: 170, limit: 10) == [first.id])
        let passed = try await store.apply(.timeout(first.id, at: 170))
        #expect(passed.currentName == "Ann" && passed.participants[1].missed == 1 && passed.dueAt == 230)
        await #expect(throws: StoryError.notDue(first.id)) { _ = try await store.apply(.timeout(first.id, at: 171)) }

        // Automatch: Dan opens a match, Eve joins it, Dan again opens another.
        let opened = try await store.apply(.automatch(name: "Dan", at: 200, turnSeconds: 0))
        let joined = try await store.apply(.automatch(name: "Eve", at: 201, turnSeconds: 0))
        let another = try await store.apply(.automatch(name: "Dan", at: 202, turnSeconds: 0))
        #expect(opened.id == StoryMatchID(2) && joined.id == opened.id && joined.participants.map(\.name) == ["Dan", "Eve"])
        #expect(another.id == StoryMatchID(3))
        #expect(try await store.matches(of: "Dan").map(\.id) == [StoryMatchID(2), StoryMatchID(3)])
        #expect(try await store.matches(of: "Eve").map(\.id) == [StoryMatchID(2)])

        // Ann quits: with Cy declined only Bob is left, so it ends; a rematch without Cy.
        let over = try await store.apply(.quit(first.id, name: "Ann", at: 300))
        #expect(over.ended)
        let rematch = try await store.apply(.rematch(first.id, name: "Bob", at: 301))
        #expect(rematch.id == StoryMatchID(4) && rematch.participants.map(\.name) == ["Bob", "Ann"] && rematch.turnSeconds == 60)
        #expect(try await store.match(first.id)?.rematch == rematch.id)
        #expect(try await store.apply(.rematch(first.id, name: "Ann", at: 302)) == rematch)  // the same one, not a fifth
        await #expect(throws: StoryError.unknownMatch(StoryMatchID(9))) { _ = try await store.apply(.turn(StoryMatchID(9), name: "Ann", text: "x", at: 1)) }
        #expect(try await store.matchCount() == 4)

        try await store.register(.publicKey(Array(repeating: 7, count: 32)), for: "Ann")
        try await store.register(.oldKeyDigest(Array(repeating: 9, count: 32)), for: "Bob")
        var all: [StoryMatch] = []
        for id in 1...4 { all.append(try #require(try await store.match(StoryMatchID(UInt32(id))))) }
        await store.close()

        let again = try await SQLiteStoryStore.open(path: file)
        for match in all { #expect(try await again.match(match.id) == match) }
        #expect(try await again.matchCount() == 4)
        #expect(try await again.matches(of: "Ann").map(\.id) == [StoryMatchID(1), StoryMatchID(4)])
        #expect(try await again.registeredKey(of: "Ann") == .publicKey(Array(repeating: 7, count: 32)))
        #expect(try await again.registeredKey(of: "Bob") == .oldKeyDigest(Array(repeating: 9, count: 32)))
        #expect(try await again.registeredKey(of: "Cy") == nil)
        let raw = try await SQLiteConnection.open(storage: .file(path: file))
        let modes = try await raw.query("PRAGMA journal_mode")
        try await raw.close()
        #expect(modes.first?.column("journal_mode")?.string == "wal")
        await again.close()
    }

    @Test("importBook keeps ids and keys, in one transaction; the store says it imported")
    func importBook() async throws {
        var book = StoryBook()
        for index in 0..<1200 { try book.apply(.create(starter: "Ann", others: ["Bob"], title: "\(index)", at: 1)) }
        try book.apply(.turn(StoryMatchID(700), name: "Ann", text: "Hello", at: 2))
        let store = try await SQLiteStoryStore.open(path: path())
        #expect(try await StoryJournalImport.wanted(by: store))
        #expect(try await store.importBook(book.matches, keys: ["Ann": .publicKey(Array(repeating: 1, count: 32))]) == 1200)
        #expect(try await store.match(StoryMatchID(700))?.text == "Hello")
        #expect(try await store.matches(of: "Bob").count == 1200)
        #expect(try await store.registeredKey(of: "Ann") == .publicKey(Array(repeating: 1, count: 32)))
        #expect(try await !StoryJournalImport.wanted(by: store))
        // New matches number on from the imported ones.
        #expect(try await store.apply(.create(starter: "Cy", others: ["Dan"], title: "", at: 3)).id == StoryMatchID(1201))
        await store.close()
    }

    @Test("a schema from a newer snap is refused, naming the file and both versions")
    func newerSchema() async throws {
        let file = path()
        await (try await SQLiteStoryStore.open(path: file)).close()
        try await tamper(file, "UPDATE meta SET value = 99 WHERE key = 'schema_version'")
        await #expect(throws: StoryStoreError.newerSchema(found: 99, supported: 1, where: file)) {
            _ = try await SQLiteStoryStore.open(path: file)
        }
        let words = StoryStoreError.newerSchema(found: 99, supported: 1, where: file).description
        #expect(words.contains(file) && words.contains("99") && words.contains("upgrade snap"))
    }

    @Test("a row that does not read back is named as damaged, with its match; the others still read")
    func damagedRow() async throws {
        let file = path()
        let store = try await SQLiteStoryStore.open(path: file)
        _ = try await store.apply(.create(starter: "Ann", others: ["Bob"], title: "", at: 1))
        _ = try await store.apply(.create(starter: "Ann", others: ["Bob"], title: "", at: 1))
        await store.close()
        try await tamper(file, "UPDATE matches SET body = ? WHERE id = 2", [.blob(ByteBuffer(bytes: [1, 2, 3]))])
        let again = try await SQLiteStoryStore.open(path: file)
        do {
            _ = try await again.match(StoryMatchID(2))
            Issue.record("a damaged row was read")
        } catch let error as StoryStoreError {
            guard case .damaged(let what) = error else { Issue.record("\(error)"); return }
            #expect(what.contains("match 2") && what.contains(file), "\(what)")
        }
        #expect(try await again.match(StoryMatchID(1)) != nil)
        // A turn on it is refused in the same words, and nothing changes.
        await #expect(throws: StoryStoreError.self) { _ = try await again.apply(.turn(StoryMatchID(2), name: "Ann", text: "x", at: 2)) }
        await again.close()
    }

    @Test("a read-only database, and a file that is no database, are refused in plain words")
    func readOnly() async throws {
        let file = path()
        let store = try await SQLiteStoryStore.open(path: file)
        _ = try await store.apply(.create(starter: "Ann", others: ["Bob"], title: "", at: 1))
        await store.close()
        if getuid() != 0 {
            chmod(file, 0o444)
            do {
                await (try await SQLiteStoryStore.open(path: file)).close()
                Issue.record("a read-only file was opened for writing")
            } catch let error as StoryStoreError {
                #expect(error.description.contains("read-only"), "\(error)")
            }
            chmod(file, 0o644)
        }
        // Root writes any file it may: SQLite's own read-only mode stands in for the
        // permission, and gives the words a read-only disk would.
        do {
            await (try await SQLiteStoryStore.open(path: "file:\(file)?mode=ro")).close()
            Issue.record("a read-only database was opened for writing")
        } catch let error as StoryStoreError {
            #expect(error.description.contains("read-only"), "\(error)")
        }
        let garbage = scratchDirectory("sqlite") + "/garbage.sqlite"
        #expect(FileManager.default.createFile(atPath: garbage, contents: Data(repeating: 0x41, count: 4096)))
        await #expect(throws: StoryStoreError.damaged("\(garbage) is not an SQLite database")) {
            _ = try await SQLiteStoryStore.open(path: garbage)
        }
    }

    @Test("openStoryStore: a postgres URL opens PostgreSQL (here nothing listens: unreachable, in words); a malformed one is refused")
    func postgresURLs() async throws {
        do {
            _ = try await openStoryStore("postgres://snap@127.0.0.1:1/story")
            Issue.record("a postgres URL with no server was taken")
        } catch {
            #expect("\(error)".contains("the story service cannot reach its database (postgres 127.0.0.1:1/story"), "\(error)")
        }
        do {
            _ = try await openStoryStore("postgres://snap:secret@127.0.0.1/story")
            Issue.record("a URL with a password was taken")
        } catch {
            #expect("\(error)".contains("PGPASSWORD") && !"\(error)".contains("secret"), "\(error)")
        }
    }
}
