import SnapBytes
import Testing

@testable import SnapProtocol

@Suite("Player names")
struct PlayerNameTests {
    @Test(
        "valid names are returned unchanged",
        arguments: [
            "A", "Ana", "Zoë", "O'Brien", "Jean-Luc", "mr_snap", "Dr. No", "R2 D2", "李小龙", "Ана",
            "ユーザー", "Ǆemal", "12345678901234567890", "a b c d e f g h i j",
            "Zo\u{00EB}",
        ])
    func valid(name: String) throws {
        #expect(try PlayerName.validate(name) == name)
        #expect(PlayerName.isValid(name))
    }

    @Test("empty")
    func empty() {
        #expect(throws: ProtocolError.badName(.empty)) { try PlayerName.validate("") }
    }

    @Test("21 scalars is one too many, counted in scalars not bytes or graphemes")
    func tooManyScalars() {
        #expect(throws: ProtocolError.badName(.tooManyCharacters(21))) {
            try PlayerName.validate(String(repeating: "a", count: 21))
        }
        #expect(throws: Never.self) { try PlayerName.validate(String(repeating: "ä", count: 20)) }
        // "e" + combining diaeresis is one grapheme but two scalars (and the mark is refused anyway).
        #expect(throws: ProtocolError.badName(.tooManyCharacters(22))) {
            try PlayerName.validate(String(repeating: "e\u{0308}", count: 11))
        }
    }

    @Test("more than 64 bytes of UTF-8, even within 20 scalars")
    func tooManyBytes() {
        // U+10400 DESERET CAPITAL LONG I: a letter, four bytes.
        let name = String(repeating: "\u{10400}", count: 17)
        #expect(throws: ProtocolError.badName(.tooManyBytes(68))) { try PlayerName.validate(name) }
        #expect(throws: Never.self) { try PlayerName.validate(String(repeating: "\u{10400}", count: 16)) }
    }

    @Test("leading or trailing whitespace", arguments: [" Ana", "Ana ", " ", "\tAna", "Ana\n", "\u{00A0}Ana"])
    func edges(name: String) {
        #expect(throws: ProtocolError.badName(.leadingOrTrailingWhitespace)) { try PlayerName.validate(name) }
    }

    @Test("two spaces in a row")
    func doubleSpace() {
        #expect(throws: ProtocolError.badName(.consecutiveSpaces)) { try PlayerName.validate("Ana  Bo") }
    }

    @Test(
        "control characters, symbols, emoji, marks and other whitespace are refused",
        arguments: [
            "\u{0}", "\u{7}", "\u{1B}", "\u{7F}", "\u{85}", "\t", "\n", "\u{00A0}", "\u{200B}", "\u{202E}",
            "🎉", "♠", "€", "$", "+", "@", "!", "?", "/", "\\", "\"", "<", ",", ":", "(", "\u{0308}", "½", "Ⅳ",
            "\u{FEFF}",
        ])
    func forbidden(scalarText: String) {
        let scalar = scalarText.unicodeScalars.first!
        #expect(throws: ProtocolError.badName(.forbiddenCharacter(scalar))) {
            try PlayerName.validate("a" + scalarText + "b")
        }
    }

    @Test("the allowed punctuation")
    func punctuation() throws {
        for mark in ["-", "_", ".", "'"] {
            #expect(try PlayerName.validate(mark) == mark)
        }
    }
}

@Suite("Closing message text")
struct CloseMessageTests {
    @Test("fitted replaces control characters and cuts at a whole scalar within 200 bytes")
    func fitted() throws {
        #expect(CloseMessage.fitted("line one\nline\ttwo") == "line one line two")
        let long = String(repeating: "ab", count: 99) + "é"  // 198 + 2 bytes
        #expect(CloseMessage.fitted(long) == long)
        let cut = CloseMessage.fitted(String(repeating: "a", count: 199) + "é")
        #expect(cut == String(repeating: "a", count: 199))
        let noisy = CloseMessage.fitted(String(repeating: "🎉\u{7}", count: 100))
        #expect(try CloseMessage.validate(noisy).utf8.count == 200)
    }
}
