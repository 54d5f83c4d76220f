// libFuzzer target for the settings file (scripts/fuzz --target settings): its text is
// read by SnapUI's Settings through SettingsText (the SnapSettings module, built whole,
// against SnapBytes for PlayerName).
//
// Input: the file's bytes (Settings reads at most 64 KiB, decoded as UTF-8 with
// replacement; scripts/fuzz gives at most 4 KiB, for speed: the 64 KiB seeds are cut,
// and SnapTableTests times a whole 64 KiB file). Properties (a trap is a finding):
//   - nothing traps, hangs or overflows; parsing is deterministic;
//   - the name, if any, is a valid player name; every other key is non-empty, unique,
//     not "name", without "=", line breaks or surrounding blanks; no value has a line break;
//   - saving what was read and reading it back gives the same settings (a load/save
//     cycle loses nothing the first load kept).

import SnapBytes
import SnapSettings

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = inputBytes(data, size)
    guard input.count <= 65_536 else { return 0 }
    let text = String(decoding: input, as: UTF8.self)
    let first = SettingsText.parse(text)
    if !same(first, SettingsText.parse(text)) { fail("SettingsText.parse is not deterministic") }

    if let name = first.name, !PlayerName.isValid(name) { fail("an invalid name was read: \(name.debugDescription)") }
    var keys: Set<String> = []
    for (key, value) in first.other {
        if key.isEmpty || key == "name" || key.contains("=") || key.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
            || key.first == " " || key.first == "\t" || key.last == " " || key.last == "\t" {
            fail("a bad key: \(key.debugDescription)")
        }
        if !keys.insert(key).inserted { fail("the key \(key.debugDescription) was read twice") }
        if value.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) { fail("a value with a line break: \(value.debugDescription)") }
    }

    let name = first.name ?? "Player"
    let saved = SettingsText.render(name: name, other: first.other)
    let reread = SettingsText.parse(saved)
    if !same(reread, (name, first.other)) {
        fail("settings \(first) saved as \(saved.debugDescription) read back as \(reread)")
    }
    return 0
}

private func same(_ a: (name: String?, other: [SettingsText.Entry]), _ b: (name: String?, other: [SettingsText.Entry])) -> Bool {
    a.name == b.name && a.other.map(\.key) == b.other.map(\.key) && a.other.map(\.value) == b.other.map(\.value)
}

func fuzzSeeds() -> [(String, [UInt8])] {
    var many = "# Snap! settings\nname=Zoë\n"
    for index in 0..<4_000 { many += "key\(index) = value \(index)\n" }
    return [
        ("saved", Array(SettingsText.render(name: "Zoë", other: [("volume", "7"), ("theme", "green=dark")]).utf8)),
        ("hand-written", Array("# mine\r\n  name=Ann\r\nname=not valid!\rcolour\t= blue \n=x\nnoequals\n\n".utf8)),
        ("many-keys", Array(many.utf8)),
    ]
}
