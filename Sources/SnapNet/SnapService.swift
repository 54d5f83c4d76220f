#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SnapProtocol

// The pure part of LAN discovery: no NIO, so that scripts/fuzz compiles it with
// DNSMessage.swift alone (Fuzz/DNSFuzz.swift feeds it every packet it makes).

/// A game found on the local network by its DNS-SD announcement (docs/LAN.md).
public struct LANGame: Hashable, Sendable {
    /// The DNS-SD instance label: "NAME on MACHINE".
    public var instance: String
    public var hostName: String
    /// The host computer's name (its SRV target without `.local`).
    public var machine: String
    /// An IPv4 address to connect to, and the TCP port.
    public var address: String
    public var port: Int
    public var players: UInt8
    public var maxPlayers: UInt8
    public var started: Bool
    public var needsCode: Bool

    public var info: HostInfo {
        HostInfo(hostName: hostName, players: players, maxPlayers: maxPlayers, started: started, needsCode: needsCode)
    }
}

/// The `_snap._tcp` DNS-SD service over multicast DNS: what a host announces, and how a
/// browser reads it back. Pure functions over `DNSMessage`; the sockets are in
/// `LANAnnouncer` and `LANBrowser`.
public enum SnapService {
    public static let serviceType = DNSName("_snap._tcp.local")
    /// DNS-SD's service enumeration name (RFC 6763 §9).
    public static let enumeration = DNSName("_services._dns-sd._udp.local")
    public static let group = "224.0.0.251"
    public static let port = 5353
    /// Every record lives this long: a host that stops announcing (crashed) leaves every
    /// list within `ttl` seconds of its last announcement.
    public static let ttl: UInt32 = 3

    /// The instance label, at most 63 bytes, cut at a character boundary.
    public static func instance(hostName: String, machine: String) -> String {
        var label = "\(hostName) on \(machine)"
        while label.utf8.count > 63 { label.removeLast() }
        return label
    }

    /// This computer's name, as one DNS label (for `MACHINE.local`).
    public static func machineName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "snap-host" }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        let name = String(decoding: bytes, as: UTF8.self).split(separator: ".").first.map(String.init) ?? ""
        let cleaned = String(name.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }.prefix(63))
        return cleaned.isEmpty ? "snap-host" : cleaned
    }

    /// The whole announcement: PTR, SRV, TXT and A records. The TXT record says what the
    /// Join list shows and no more: the name, seats taken and the most, open or
    /// started, and `code=1` when a code is needed. `ttl` 0 is the goodbye.
    public static func announcement(_ game: LANGame, addresses: [[UInt8]], ttl: UInt32 = ttl) -> DNSMessage {
        let instanceName = DNSName([game.instance] + serviceType.labels)
        let target = DNSName([game.machine, "local"])
        var txt = ["v=\(ProtocolVersion.current)", "name=\(game.hostName)", "seats=\(game.players)",
                   "max=\(game.maxPlayers)", "state=\(game.started ? "started" : "open")"]
        if game.needsCode { txt.append("code=1") }
        let answers = [
            DNSRecord(name: serviceType, data: .ptr(instanceName), ttl: ttl),
            DNSRecord(name: instanceName, data: .srv(priority: 0, weight: 0, port: UInt16(game.port), target: target),
                      ttl: ttl, cacheFlush: true),
            DNSRecord(name: instanceName, data: .txt(txt), ttl: ttl, cacheFlush: true),
        ]
        let additionals = addresses.map { DNSRecord(name: target, data: .a($0), ttl: ttl, cacheFlush: true) }
            + [DNSRecord(name: enumeration, data: .ptr(serviceType), ttl: ttl)]
        return DNSMessage(isResponse: true, answers: answers, additionals: additionals)
    }

    /// A query for the service (what `avahi-browse _snap._tcp` and `LANBrowser` send).
    public static var query: DNSMessage {
        DNSMessage(isResponse: false, questions: [DNSQuestion(name: serviceType, type: DNSType.ptr.rawValue)])
    }

    /// Whether a query asks for Snap! games (the service, or every service).
    public static func asksForGames(_ message: DNSMessage, instance: String) -> Bool {
        guard !message.isResponse else { return false }
        return message.questions.contains { question in
            let type = question.type
            return (question.name.matches(serviceType) && (type == DNSType.ptr.rawValue || type == DNSType.any.rawValue))
                || (question.name.matches(enumeration) && type == DNSType.ptr.rawValue)
                || question.name.matches(DNSName([instance] + serviceType.labels))
        }
    }

    /// The games a response announces (with their TTL; 0 for a goodbye). `source` is the
    /// packet's sender, used when no A record came with it.
    public static func games(in message: DNSMessage, source: String?) -> [(game: LANGame, ttl: UInt32)] {
        guard message.isResponse else { return [] }
        let records = message.answers + message.additionals
        var found: [(LANGame, UInt32)] = []
        for record in records {
            guard record.name.matches(serviceType), case .ptr(let instanceName) = record.data,
                  let labels = instanceName.dropping(suffix: serviceType), labels.count == 1 else { continue }
            let srv = records.lazy.compactMap { other -> (UInt16, DNSName)? in
                guard other.name.matches(instanceName), case .srv(_, _, let port, let target) = other.data else { return nil }
                return (port, target)
            }.first
            let txt = records.lazy.compactMap { other -> [String]? in
                guard other.name.matches(instanceName), case .txt(let strings) = other.data else { return nil }
                return strings
            }.first
            guard let (port, target) = srv, let txt else { continue }
            var fields: [String: String] = [:]
            for entry in txt {
                let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                if parts.count == 2 { fields[parts[0].lowercased()] = String(parts[1]) }
            }
            let address = records.lazy.compactMap { other -> String? in
                guard other.name.matches(target), case .a(let bytes) = other.data else { return nil }
                return bytes.map(String.init).joined(separator: ".")
            }.first ?? source
            guard let address, port > 0, let name = fields["name"], (try? PlayerName.validate(name)) != nil,
                  let max = fields["max"].flatMap(UInt8.init), (2...4).contains(max),
                  let seats = fields["seats"].flatMap(UInt8.init), seats <= max else { continue }
            let game = LANGame(instance: labels[0], hostName: name, machine: target.labels.first ?? "",
                               address: address, port: Int(port), players: seats, maxPlayers: max,
                               started: fields["state"] == "started", needsCode: fields["code"] == "1")
            found.append((game, record.ttl))
        }
        return found
    }
}

/// What a browser has heard, each game until its records expire (pure, for tests).
public struct LANGameTable: Sendable {
    private var entries: [String: (game: LANGame, expires: Duration)] = [:]

    public init() {}

    /// Takes in a response heard at `now`; a TTL of 0 (goodbye) removes the game at once.
    public mutating func update(_ message: DNSMessage, source: String?, now: Duration) {
        for (game, ttl) in SnapService.games(in: message, source: source) {
            let key = game.instance.lowercased()
            if ttl == 0 {
                entries[key] = nil
            } else {
                entries[key] = (game, now + .seconds(Int64(ttl)))
            }
        }
    }

    /// The games still alive at `now`, by name then machine.
    public mutating func games(now: Duration) -> [LANGame] {
        entries = entries.filter { $0.value.expires > now }
        return entries.values.map(\.game).sorted { ($0.hostName, $0.machine) < ($1.hostName, $1.machine) }
    }
}
