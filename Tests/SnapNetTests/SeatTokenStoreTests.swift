import SnapNet
import SnapProtocol
import SnapTestSupport
import Testing

@Suite("seat tokens on disk: one file per game and name")
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
