#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ArgumentParser
import SnapPlatform
import StoryStores
import Synchronization

/// The PostgreSQL driver this program links: snapcards-story-postgres sets it before it
/// reads its command line. snapcards links none: postgres-nio imports full Foundation, and
/// with it ICU's 34 MB of data, so `story serve` and `story import` run the helper in
/// snapcards' place for a postgres:// database (docs/ARCHITECTURE.md, "The PostgreSQL helper").
public let linkedPostgresDriver = Mutex<PostgresStoreOpener?>(nil)

/// The helper's file name.
public let postgresHelperName = "snapcards-story-postgres"

/// Where snapcards looks for the helper, in order: beside its own file (a build's products,
/// `.build/debug/`), then `../libexec/snapcards/` from there (`/usr/games/snapcards` →
/// `/usr/libexec/snapcards/`, as the Debian package and scripts/install lay it out: a
/// program the player never runs by name stays off PATH).
public func postgresHelperCandidates(executable: String = currentExecutablePath()) -> [String] {
    func parent(_ path: String) -> String? { path.lastIndex(of: "/").map { String(path[..<$0]) } }
    let directory = parent(executable) ?? "."
    let prefix = parent(directory) ?? (directory == "." ? ".." : ".")
    return [directory + "/" + postgresHelperName, prefix + "/libexec/snapcards/" + postgresHelperName]
}

/// For `story serve` and `story import`: the driver that opens `database`, nil when it is no
/// postgres:// URL. Where no driver is linked (snapcards), the helper takes this process's
/// place with the same arguments (execv: the same process id, so signals, systemd and a
/// test's kill reach the service), and this returns only if it cannot: exit 3, in words.
func postgresDriverOrHelper(_ database: String?) throws -> PostgresStoreOpener? {
    guard let database, PostgresURL.isPostgres(database) else { return nil }
    if let driver = linkedPostgresDriver.withLock({ $0 }) { return driver }
    let candidates = postgresHelperCandidates()
    guard let helper = candidates.first(where: { access($0, X_OK) == 0 }) else {
        printError("error: a postgres:// database is served by \(postgresHelperName), which is neither at \(candidates.joined(separator: " nor at "))")
        throw ExitCode(3)
    }
    let failure = replaceProcess(executable: helper, arguments: Array(CommandLine.arguments.dropFirst()))
    printError("error: a postgres:// database is served by \(postgresHelperName): \(failure)")
    throw ExitCode(3)
}
