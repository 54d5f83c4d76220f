import Foundation
import SnapBytes
import SnapNet
import SnapPlatform
import SnapProtocol
import SnapTestSupport
import Testing

@Suite("seat tokens on disk: one file per game and name", .blocksThreads)
struct SeatTokenStoreTests {
    @Test("names that differ only in punctuation or spaces keep their own tokens")
    func punctuation() throws {
        let store = SeatTokenStore(directory: scratchDirectory("seats"))
        let game = Endpoint.unix("/run/user/1000/snap/Table.sock")
        let names = ["Ann B", "Ann.B", "Ann_B", "Ann-B", "AnnB", "Ann  B", "Ann/B", "Ann\u{00A0}B"]
        var tokens: [String: SeatToken] = [:]
        var generator = SystemRandomNumberGenerator()
        for name in names {
            let token = SeatToken.random(using: &generator)
            store.keep(token, for: game, name: name)
            tokens[name] = token
        }
        for name in names {
            #expect(store.token(for: game, name: name) == tokens[name], "\(name)")
        }
        // The same name at another game is another seat.
        #expect(store.token(for: .unix("/run/user/1000/snap/Other.sock"), name: "Ann B") == nil)
        store.forget(for: game, name: "Ann.B")
        #expect(store.token(for: game, name: "Ann.B") == nil)
        #expect(store.token(for: game, name: "Ann B") == tokens["Ann B"])
    }

    /// Written down from the OpenSSL build before SHA-256 moved to swift-crypto: a token
    /// kept by an older `snapcards` must still be found under the same file name.
    @Test("the file name: the readable part, then the SHA-256 of the endpoint, a zero byte and the name")
    func fileName() throws {
        let directory = scratchDirectory("seats")
        let store = SeatTokenStore(directory: directory)
        var generator = SystemRandomNumberGenerator()
        store.keep(SeatToken.random(using: &generator), for: .unix("/run/user/1000/snap/Table.sock"), name: "Ann B")
        store.keep(SeatToken.random(using: &generator), for: .tcp(host: "192.168.1.20", port: 7777), name: "Zoë")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(files == [
            "Ann_B-9249a78ea81b5a321a2ec23c42330f6965644a4a6c18143fe7d6a9b7cb6e8e48",
            "Zoë-4c0dc4da59ffef5cfdcb5bcca8303366c884cede89a649bf8df353b0fd2d359b",
        ])
    }

    @Test("a long socket path and a long name still make a file name the system takes")
    func longNames() throws {
        let store = SeatTokenStore(directory: scratchDirectory("seats"))
        let game = Endpoint.unix("/" + String(repeating: "d", count: 100) + "/T.sock")
        let name = String(repeating: "ü", count: 32)  // 64 bytes
        var generator = SystemRandomNumberGenerator()
        let token = SeatToken.random(using: &generator)
        store.keep(token, for: game, name: name)
        #expect(store.token(for: game, name: name) == token)
    }
}
