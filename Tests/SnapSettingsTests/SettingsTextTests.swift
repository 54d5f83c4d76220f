import SnapSettings
import Testing

@Suite("The settings file's text")
struct SettingsTextTests {
    @Test("what is saved reads back")
    func roundTrip() {
        let text = SettingsText.render(name: "Zoë", other: [("volume", "7"), ("theme", "green=dark")])
        let parsed = SettingsText.parse(text)
        #expect(parsed.name == "Zoë")
        #expect(parsed.other.map(\.key) == ["volume", "theme"] && parsed.other.map(\.value) == ["7", "green=dark"])
    }

    // Found by scripts/fuzz --target settings (Fuzz/seeds/settings/hash-after-blanks): the
    // line " #x=1" was kept as the key "#x", which the next save wrote as a comment.
    @Test("a line whose first non-blank is # is a comment")
    func indentedComment() {
        let parsed = SettingsText.parse("  # note=1\n\t#x=2\nkey=3\n")
        #expect(parsed.other.map(\.key) == ["key"])
    }

    // Fuzz/seeds/settings/many-short-keys: each key used to be looked for in a list of
    // the keys before it, seconds for a 64 KiB file (which Settings.load reads each time).
    // The time is printed, not limited (a busy machine's say; scripts/fuzz runs that seed
    // under libFuzzer's -timeout).
    @Test("64 KiB of short keys reads back every key (time printed)")
    func manyKeys() {
        var text = ""
        var index = 0
        while text.utf8.count < 65_000 {
            text += String(index, radix: 36) + "=\n"
            index += 1
        }
        let clock = ContinuousClock()
        var parsed: (name: String?, other: [SettingsText.Entry]) = (nil, [])
        let elapsed = clock.measure { parsed = SettingsText.parse(text) }
        #expect(parsed.other.count == index)
        print("settings text: \(index) short keys (\(text.utf8.count) bytes) parsed in \(elapsed)")
    }
}
