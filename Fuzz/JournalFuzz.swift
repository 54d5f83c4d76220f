// libFuzzer target for journal files (scripts/fuzz --target journal): a journal is a file
// a friend can hand you for `snapcards replay`. Built against the
// SnapJournal module, SnapProtocol (MatchRecordCodec) and SnapEngine, each whole.
//
// Input: byte 0 chooses the mode. Even: bytes 1… are the file, as they are. Odd: the
// file is a "snap-match" header and bytes 1… cut into records (u16 length, then that
// many bytes; a short tail is left torn), each framed with its right checksum, so that
// the match records inside get fuzzed too. Properties (a trap is a finding):
//   - nothing traps, hangs or overflows, and errors are JournalError;
//   - reading is deterministic, and reading the file from disk (Journal.read(path:), for
//     one input in 32) gives what reading its bytes gives;
//   - the header and the intact records, framed again, are exactly the file's first
//     `intactLength` bytes, each at its `recordOffsets`; a fault is reported exactly when
//     bytes follow them, and it covers exactly those bytes; reading just the intact part
//     finds the same records and no fault (what a repair leaves);
//   - a torn tail stays a torn tail when the file is cut shorter (a crash can only have
//     written less), and damage stays damage when bytes are added after it;
//   - every record MatchRecordCodec decodes re-encodes to exactly its bytes, and
//     decoding is deterministic.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SnapBytes
import SnapEngine
import SnapJournal
import SnapProtocol

private var inputCount = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = inputBytes(data, size)
    guard let mode = input.first else { return 0 }
    let rest = input[1...]
    let file: [UInt8]
    if mode & 1 == 0 {
        file = Array(rest)
    } else {
        var bytes = Journal.header(kind: MatchRecordCodec.kind)
        var at = rest.startIndex
        while rest.endIndex - at >= 2 {
            let length = Int(rest[at]) << 8 | Int(rest[at + 1])
            guard length > 0, rest.endIndex - at - 2 >= length else { break }
            Journal.frame(Array(rest[(at + 2)..<(at + 2 + length)]), into: &bytes)
            at += 2 + length
        }
        bytes += rest[at...]
        file = bytes
    }
    check(file)
    return 0
}

private func read(_ bytes: [UInt8]) -> Result<JournalContents, JournalError> {
    Result { () throws(JournalError) in try Journal.read(bytes) }
}

private func same(_ a: Result<JournalContents, JournalError>, _ b: Result<JournalContents, JournalError>) -> Bool {
    switch (a, b) {
    case (.success(let x), .success(let y)):
        x.kind == y.kind && x.records == y.records && x.intactLength == y.intactLength && x.fault == y.fault
            && x.recordOffsets == y.recordOffsets
    case (.failure(let x), .failure(let y)): x == y
    default: false
    }
}

private func check(_ file: [UInt8]) {
    let first = read(file)
    if !same(first, read(file)) { fail("Journal.read is not deterministic") }
    inputCount += 1
    if inputCount % 32 == 0 { checkFromDisk(file, first) }
    guard case .success(let contents) = first else { return }

    var again = Journal.header(kind: contents.kind)
    if contents.recordOffsets.count != contents.records.count { fail("\(contents.recordOffsets.count) offsets for \(contents.records.count) records") }
    for (record, offset) in zip(contents.records, contents.recordOffsets) {
        if !(1...Journal.maxRecordLength).contains(record.count) { fail("a record of \(record.count) bytes") }
        if offset != again.count { fail("a record said to start at \(offset), framed at \(again.count)") }
        Journal.frame(record, into: &again)
    }
    if again.count != contents.intactLength || !file[0..<min(file.count, again.count)].elementsEqual(again) {
        fail("the intact part (\(contents.intactLength) bytes) is not the header and records framed again")
    }
    if (contents.fault == nil) != (contents.intactLength == file.count) {
        fail("fault \(contents.fault.map { "\($0)" } ?? "none") with \(contents.intactLength) of \(file.count) bytes intact")
    }
    guard let fault = contents.fault else { return checkRecords(contents) }
    if fault.offset != contents.intactLength || fault.offset + fault.unreadableBytes != file.count
        || fault.record != contents.records.count + 1 || contents.fileLength != file.count {
        fail("the fault \(fault) does not cover the \(file.count - contents.intactLength) bytes after the intact part")
    }
    guard case .success(let repaired) = read(Array(file[0..<contents.intactLength])),
          repaired.records == contents.records, repaired.fault == nil else { fail("the intact part reads differently") }
    switch fault.kind {
    case .tornTail:
        let cut = contents.intactLength + (file.count - contents.intactLength) / 2
        if case .success(let shorter) = read(Array(file[0..<cut])), shorter.fault?.kind == .damaged {
            fail("a torn tail cut shorter (at \(cut)) reads as damage")
        }
    case .damaged:
        if case .success(let longer) = read(file + [0x5A, 0, 0, 0, 1]), longer.fault?.kind != .damaged {
            fail("damage followed by more bytes no longer reads as damage")
        }
    }
    checkRecords(contents)
}

private func checkRecords(_ contents: JournalContents) {
    for record in contents.records {
        let decoded = Result { () throws(ProtocolError) in try MatchRecordCodec.decode(record) }
        if decoded != Result(catching: { () throws(ProtocolError) in try MatchRecordCodec.decode(record) }) {
            fail("MatchRecordCodec.decode is not deterministic")
        }
        if case .success(let match) = decoded, MatchRecordCodec.encode(match) != record {
            fail("match record \(match) re-encodes differently")
        }
    }
}

/// The same bytes in a file, read from disk.
private func checkFromDisk(_ file: [UInt8], _ expected: Result<JournalContents, JournalError>) {
    var template = Array("/tmp/snap-fuzz-journal-XXXXXX".utf8CString)
    let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard descriptor >= 0 else { fail("mkstemp: \(String(cString: strerror(errno)))") }
    let path = String(cString: template)
    defer { unlink(path) }
    let written = file.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
    guard written == file.count else { fail("could not write \(path)") }
    let fromDisk = Result { () throws(JournalError) in try Journal.read(path: path) }
    // The error names the path; compare what it says otherwise.
    switch (fromDisk, expected) {
    case (.failure(.notAJournal(_, let a)), .failure(.notAJournal(_, let b))) where a == b: return
    default: if !same(fromDisk, expected) { fail("Journal.read(path:) differs from Journal.read(bytes)") }
    }
}

func fuzzSeeds() -> [(String, [UInt8])] {
    let seats: [Seat] = [.bottom, .left, .top]
    var game = Game(seats: seats, rules: Rules(turnLimit: 40))
    var records: [MatchRecord] = [MatchRecord(sequence: 0, timeMicros: 5, entry: .started(MatchStart(
        hostName: "Zoë", seed: 1, rules: Rules(turnLimit: 40),
        players: [SeatedPlayer(seat: .bottom, name: "Ann"), SeatedPlayer(seat: .left, name: "Bo"), SeatedPlayer(seat: .top, name: "Cy")],
        startedAt: 1_790_000_000, tokens: [.left: SeatToken(bytes: Array(1...16))!], rounds: 3, botLevel: 2)))]
    records.append(MatchRecord(sequence: 1, timeMicros: 6, entry: .committed(DealCommitment(round: 1, digest: Array(repeating: 7, count: 32)),
                                                                           salt: Array(repeating: 9, count: 16))))
    var commands: [Command] = [.deal(seed: 5), .finishDeal]
    while commands.count < 12, let seat = game.active { commands += [.turn(seat), .activateNext] }
    game = Game(seats: seats, rules: Rules(turnLimit: 40))
    for command in commands + [.snap(.left), .leave(.top), .absent(.left), .returned(.left)] {
        guard let events = try? game.apply(command) else { continue }
        records.append(MatchRecord(sequence: UInt64(records.count), timeMicros: 10, entry: .applied(command, events)))
    }
    records.append(MatchRecord(sequence: UInt64(records.count), timeMicros: 11,
                               entry: .revealed(DealReveal(round: 1, seed: 5, salt: Array(repeating: 9, count: 16)))))
    records.append(MatchRecord(sequence: UInt64(records.count), timeMicros: 12, entry: .ended(reason: "all done")))

    let payloads = records.map(MatchRecordCodec.encode)
    var file = Journal.header(kind: MatchRecordCodec.kind)
    for payload in payloads { Journal.frame(payload, into: &file) }
    var structured: [UInt8] = [1]
    for payload in payloads { structured += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload }
    return [
        ("match-journal", [0] + file),
        ("match-journal-torn", [0] + file.dropLast(3)),
        ("match-records", structured),
        ("story-journal", [0] + Journal.header(kind: "snap-story") + Journal.frame([1, 3, 65, 110, 110] + Array(1...16))),
    ]
}
