#if GUI
import CSDL2
import Foundation
import Testing

/// The built `snap` with SDL's offscreen video driver and a sound driver that needs no
/// sound card: real windows, real rendering, no display.
func runWindowed(_ arguments: [String], audio: String = "dummy", extraEnvironment: [String: String] = [:],
                 timeout: Double = 60) throws -> (status: Int32, output: String) {
    let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    var binary = products.appendingPathComponent("snap")
    if !FileManager.default.fileExists(atPath: binary.path) {
        binary = products.deletingLastPathComponent().appendingPathComponent("snap")
    }
    let process = Process()
    process.executableURL = binary
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["SDL_VIDEODRIVER"] = "offscreen"
    environment["SDL_AUDIODRIVER"] = audio
    environment["SNAP_LAN"] = "off"  // the Join screen listens on no network: tests stay on this machine
    environment["XDG_RUNTIME_DIR"] = NSTemporaryDirectory() + "snap-ui-\(getpid())"
    environment["XDG_CONFIG_HOME"] = NSTemporaryDirectory() + "snap-ui-config-\(getpid())"
    for (key, value) in extraEnvironment { environment[key] = value }
    try? FileManager.default.createDirectory(atPath: environment["XDG_RUNTIME_DIR"]!, withIntermediateDirectories: true)
    process.environment = environment
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let deadline = Date().addingTimeInterval(timeout)
    var output = Data()
    while process.isRunning, Date() < deadline {
        output.append(pipe.fileHandleForReading.availableDataNonBlocking())
        usleep(20_000)
    }
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
    output.append(pipe.fileHandleForReading.readDataToEndOfFile())
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
}

extension FileHandle {
    func availableDataNonBlocking() -> Data {
        var poller = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) > 0 ? availableData : Data()
    }
}

func screenshotPath(_ name: String) -> String { NSTemporaryDirectory() + "snap-ui-\(getpid())-\(name).png" }

@Suite("Windows under SDL's offscreen driver", .serialized)
struct WindowTests {
    @Test("the main menu: the title cards settle and the felt shows")
    func menu() throws {
        let path = screenshotPath("menu")
        let run = try runWindowed(["menu", "--quit-after", "2.5", "--screenshot", path])
        #expect(run.status == 0, "\(run.output)")
        let shot = try Screenshot(path: path)
        #expect(shot.width >= 1024 && shot.height >= 768)
        #expect(shot.share(where: isFelt) > 0.4)
        // The title cards (white faces) sit in the top third once settled.
        #expect(shot.share(y: 0...0.4, where: isCardWhite) > 0.03)
        #expect(shot.colourVariety > 40)
    }

    @Test("the join and single-player screens render", arguments: ["join", "solo"])
    func setupScreens(scene: String) throws {
        let path = screenshotPath(scene)
        let run = try runWindowed(["menu", "--scene", scene, "--quit-after", "1.5", "--screenshot", path])
        #expect(run.status == 0, "\(run.output)")
        let shot = try Screenshot(path: path)
        #expect(shot.share(where: isFelt) > 0.3)
        #expect(shot.colourVariety > 30)
    }

    @Test("the host lobby renders while listening")
    func hostLobby() throws {
        let path = screenshotPath("lobby")
        let run = try runWindowed(["host", "--name", "Lobby", "--quit-after", "1.5", "--screenshot", path])
        #expect(run.status == 0, "\(run.output)")
        let shot = try Screenshot(path: path)
        #expect(shot.share(where: isFelt) > 0.3)
    }

    @Test("a single-player table mid-round: card backs at the seats, felt between")
    func tableMidRound() throws {
        let path = screenshotPath("table")
        let run = try runWindowed(["solo", "--opponents", "3", "--seed", "4", "--speed", "0.2", "--quit-after", "4",
                                   "--screenshot", path])
        #expect(run.status == 0, "\(run.output)")
        let shot = try Screenshot(path: path)
        #expect(shot.share(where: isFelt) > 0.35)
        // Every seat's closed pile: card backs near the bottom, top, left and right edges.
        #expect(shot.share(x: 0.25...0.75, y: 0.7...1.0, where: isCardBack) > 0.005, "bottom")
        #expect(shot.share(x: 0.25...0.75, y: 0.0...0.3, where: isCardBack) > 0.005, "top")
        #expect(shot.share(x: 0.0...0.3, y: 0.25...0.75, where: isCardBack) > 0.005, "left")
        #expect(shot.share(x: 0.7...1.0, y: 0.25...0.75, where: isCardBack) > 0.005, "right")
        // No dialog (its cream box) over the middle of the table: nobody was cut off.
        #expect(shot.share(x: 0.3...0.7, y: 0.4...0.6, where: isDialogCream) < 0.1)
    }

    @Test("a whole round played by scripted clicks against computer players, to the right winner",
          .timeLimit(.minutes(3)))
    func playThrough() throws {
        let run = try runWindowed(["solo", "--opponents", "1", "--seed", "2", "--speed", "0.05", "--turn-limit", "120",
                                   "--autoplay", "--quit-when-won", "--name", "Tess", "--mute"], timeout: 170)
        #expect(run.status == 0, "\(run.output)")
        let winner = run.output.split(separator: "\n").first { $0.hasPrefix("winner: ") }.map { String($0.dropFirst(8)) }
        #expect(winner == "Tess" || winner == "Ray", "\(run.output)")
        #expect(run.output.contains("statusline: Winner: \(winner ?? "?")") || run.output.contains("statusline: You win"),
                "the table shows the winner: \(run.output)")
    }

    @Test("sounds are really mixed: the disk audio driver records the dealing loop")
    func soundIsMixed() throws {
        let file = NSTemporaryDirectory() + "snap-ui-\(getpid())-audio.raw"
        let run = try runWindowed(["solo", "--seed", "1", "--quit-after", "2"], audio: "disk",
                                  extraEnvironment: ["SDL_DISKAUDIOFILE": file, "SDL_DISKAUDIODELAY": "0"])
        #expect(run.status == 0, "\(run.output)")
        let samples = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect(samples.count > 10_000)
        let loud = samples.filter { $0 != 0 && $0 != 0xFF }.count
        #expect(loud > samples.count / 20, "\(loud) non-silent bytes of \(samples.count)")
    }

    @Test("snap play opens a host window and a client window that joins it")
    func playLaunch() throws {
        let path = screenshotPath("play")
        let run = try runWindowed(["play", "--clients", "1", "--name", "Hana", "--quit-after", "3", "--screenshot", path])
        #expect(run.status == 0, "\(run.output)")
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test("no Assets folder to be found is a clear error, not a crash")
    func missingAssets() throws {
        // A copy of the binary far from any checkout, run from an empty directory.
        let lonely = NSTemporaryDirectory() + "snap-ui-lonely-\(getpid())"
        try? FileManager.default.removeItem(atPath: lonely)
        try FileManager.default.createDirectory(atPath: lonely, withIntermediateDirectories: true)
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        var original = products.appendingPathComponent("snap").path
        if !FileManager.default.fileExists(atPath: original) {
            original = products.deletingLastPathComponent().appendingPathComponent("snap").path
        }
        try FileManager.default.copyItem(atPath: original, toPath: lonely + "/snap")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: lonely + "/snap")
        process.arguments = ["menu", "--quit-after", "0.5"]
        process.currentDirectoryURL = URL(fileURLWithPath: lonely)
        var environment = ProcessInfo.processInfo.environment
        environment["SDL_VIDEODRIVER"] = "offscreen"
        environment["SDL_AUDIODRIVER"] = "dummy"
        environment["SNAP_ASSETS"] = nil
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        process.waitUntilExit()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 4)
        #expect(output.contains("no Assets folder found"), "\(output)")
    }
}
#endif
