import Testing
import StoryEngine

@Suite("Story durations")
struct StoryDurationTests {
    @Test("a number with s, m, h or d; anything else is refused in words")
    func parse() {
        #expect(StoryDuration.parse("2s") == .success(2))
        #expect(StoryDuration.parse("30m") == .success(1800))
        #expect(StoryDuration.parse("72h") == .success(259_200))
        #expect(StoryDuration.parse("3d") == .success(259_200))
        for bad in ["", "h", "0h", "-1h", "1.5h", "72", "72H", "1w", "١h", " 2s", "99999999999d"] {
            guard case .failure(let error) = StoryDuration.parse(bad) else { Issue.record("\(bad) was read"); continue }
            #expect(error.description.contains("\"\(bad)\""))
        }
        guard case .failure(let long) = StoryDuration.parse("367d") else { Issue.record("367d was read"); return }
        #expect(long.tooLong)
    }

    @Test("time left reads in its two largest units, rounded down")
    func describe() {
        #expect(StoryDuration.describe(0) == "0 s")
        #expect(StoryDuration.describe(59) == "59 s")
        #expect(StoryDuration.describe(61) == "1 min")
        #expect(StoryDuration.describe(5 * 3600) == "5 h")
        #expect(StoryDuration.describe(5 * 3600 - 1) == "4 h 59 min")
        #expect(StoryDuration.describe(3 * 86_400 - 1) == "2 d 23 h")
        #expect(StoryDuration.describe(86_400 + 59 * 60) == "1 d")
    }
}
