#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// The platform's files without NIO: the process's environment, where Snap! keeps what
// outlives a run, and private directories. Knows no game's code; the state directory's
// parts that two modules share are named here (the match journals' is MatchJournal's).

/// The process's environment as a dictionary (what the directories below read).
public func currentEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var pointer = environ
    while let entry = pointer.pointee {
        let pair = String(cString: entry)
        if let equals = pair.firstIndex(of: "=") {
            result[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        pointer += 1
    }
    return result
}

/// `$XDG_STATE_HOME/snap` (else `~/.local/state/snap`): where Snap! keeps what outlives a
/// run (seat tokens, match journals, Story's keys and journal).
public func snapStateDirectory(environment: [String: String] = currentEnvironment()) -> String {
    let state = environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        ?? (environment["HOME"] ?? "/tmp") + "/.local/state"
    return state + "/snap"
}

/// `$XDG_STATE_HOME/snap/story` (else `~/.local/state/snap/story`): the journal and the keys.
public func storyStateDirectory(environment: [String: String] = currentEnvironment()) -> String {
    snapStateDirectory(environment: environment) + "/story"
}

/// `mkdir -p` with mode 0700 for every directory it creates; nil on success, else the
/// directory it could not create and why (errno).
public func makePrivateDirectories(_ path: String) -> (directory: String, errno: Int32)? {
    var current = ""
    for component in path.split(separator: "/") {
        current += "/" + component
        if mkdir(current, 0o700) == 0 {
            chmod(current, 0o700)
        } else if errno != EEXIST {
            return (current, errno)
        }
    }
    return nil
}
