#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ArgumentParser
import Logging
import ServiceLifecycle
import SnapPlatform
import StoryLink

/// One line to standard output, at once: tests and tools read these lines while the
/// process runs, and a pipe would otherwise hold them back.
public func say(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { bytes in _ = write(1, bytes.baseAddress, bytes.count) }
}

/// One line to standard error, at once.
public func printError(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}

/// A warning on standard error, "warning: PROBLEM": the one way a command warns.
@Sendable public func warn(_ problem: String) {
    printError("warning: " + problem)
}

/// Logs go to standard error, so standard output keeps only the lines tools read.
public func makeLogger(_ label: String, verbose: Bool) -> Logger {
    var logger = Logger(label: label) { StreamLogHandler.standardError(label: $0) }
    logger.logLevel = verbose ? .info : .warning
    return logger
}

/// A HOST:PORT option, or a usage error (exit 64) naming the option.
public func validAddress(_ text: String, option: String, use: AddressUse) throws -> (host: String, port: Int) {
    do { return try parseHostPort(text, for: use) } catch {
        throw ValidationError("\(option): \(error)")
    }
}

/// Prints the error in plain words; exit 3 when the service cannot be reached, else 1.
public func storyFailure(_ error: Error) -> Error {
    if error is ValidationError || error is ExitCode { return error }
    printError("error: \(error)")
    if case StoryClientError.cannotConnect = error { return ExitCode(3) }
    if error is NetError { return ExitCode(3) }
    return ExitCode(1)
}

/// Runs `services` in one ServiceGroup until they end: SIGINT and SIGTERM shut it down
/// gracefully; any service ending ends the others. Returns the first error a service threw.
public func runServices(_ services: [any Service], logger: Logger) async throws {
    let group = ServiceGroup(configuration: .init(
        services: services.map {
            .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup,
                  failureTerminationBehavior: .gracefullyShutdownGroup)
        },
        gracefulShutdownSignals: [.sigterm, .sigint],
        logger: logger))
    try await group.run()
}

/// The certificate a TCP host or story service shows (PROTOCOL.md §2, docs/LAN.md).
public struct TLSServerOptions: ParsableArguments, Sendable {
    @Option(help: ArgumentHelp("TCP only: the TLS certificate chain to show (PEM, leaf first), e.g. from a public certificate authority (default: a self-signed one made on first use and kept in $XDG_STATE_HOME/snap/tls/).", valueName: "file"))
    public var tlsCert: String?
    @Option(help: ArgumentHelp("The private key of --tls-cert (PEM, mode 0600).", valueName: "file"))
    public var tlsKey: String?

    public init() {}

    public func validate() throws {
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
    }

    /// The identity to listen with; says `certificate: SHA256:…` for players to compare.
    public func identity() throws -> TLSIdentity {
        let identity = if let tlsCert, let tlsKey { try TLSIdentity.load(certificate: tlsCert, key: tlsKey) } else {
            try TLSIdentity.selfMade()
        }
        say("certificate: \(identity.fingerprint)")
        return identity
    }
}
