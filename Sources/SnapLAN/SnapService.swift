#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SnapBytes
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
    /// The fingerprint of the host's TLS certificate (`fp=`): checked on first use.
    public var fingerprint: CertificateFingerprint?

    public init(instance: String, hostName: String, machine: String, address: String, port: Int, players: UInt8,
                maxPlayers: UInt8, started: Bool, needsCode: Bool, fingerprint: CertificateFingerprint? = nil) {
        self.fingerprint = fingerprint
        self.instance = instance
        self.hostName = hostName
        self.machine = machine
        self.address = address
        self.port = port
        self.players = players
        self.maxPlayers = maxPlayers
        self.started = started
        self.needsCode = needsCode
    }

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
        if let fingerprint = game.fingerprint { txt.append("fp=\(fingerprint)") }
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

    /// At most this many games are read out of one packet (a real host announces one):
    /// a packet of hundreds of PTR records costs no more than a few games.
    public static let maxGamesPerPacket = 4
    /// The most characters of a host computer's name that a list shows.
    public static let maxMachineCharacters = 20

    /// The games a response announces (with their TTL; 0 for a goodbye). `source` is the
    /// packet's sender, used when no A record came with it.
    ///
    /// Everything is checked, since any neighbour can send anything (docs/LAN.md, "Trust"):
    /// the name must be a valid player name (`PlayerName`) or the game is ignored; seats
    /// must be 0...max with max 2...4; the port non-zero; the address a unicast IPv4
    /// address, and a loopback one only from a packet sent on this machine. The host
    /// computer's name is made printable (`printableMachine`). The work per packet is
    /// linear in its records, and at most `maxGamesPerPacket` games are read from it.
    public static func games(in message: DNSMessage, source: String?) -> [(game: LANGame, ttl: UInt32)] {
        guard message.isResponse else { return [] }
        let records = message.answers + message.additionals
        // One pass: the first SRV, TXT and A record of each name (names compared without case).
        var srvs: [[String]: (UInt16, DNSName)] = [:]
        var txts: [[String]: [String]] = [:]
        var addresses: [[String]: [UInt8]] = [:]
        var pointers: [(DNSName, UInt32)] = []
        for record in records {
            switch record.data {
            case .ptr(let instanceName) where pointers.count < maxGamesPerPacket && record.name.matches(serviceType):
                pointers.append((instanceName, record.ttl))
            case .srv(_, _, let port, let target):
                let key = record.name.folded
                if srvs[key] == nil { srvs[key] = (port, target) }
            case .txt(let strings):
                let key = record.name.folded
                if txts[key] == nil { txts[key] = strings }
            case .a(let bytes):
                let key = record.name.folded
                if addresses[key] == nil { addresses[key] = bytes }
            default:
                break
            }
        }
        let fromThisMachine = source.map { $0.hasPrefix("127.") || $0 == "::1" } ?? true
        var found: [(LANGame, UInt32)] = []
        for (instanceName, ttl) in pointers {
            guard let labels = instanceName.dropping(suffix: serviceType), labels.count == 1,
                  let (port, target) = srvs[instanceName.folded], let txt = txts[instanceName.folded] else { continue }
            var fields: [String: String] = [:]
            for entry in txt.prefix(16) {
                let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                if parts.count == 2 { fields[parts[0].lowercased()] = String(parts[1]) }
            }
            let address: String?
            if let bytes = addresses[target.folded] {
                address = isReachable(bytes, fromThisMachine: fromThisMachine)
                    ? bytes.map(String.init).joined(separator: ".") : nil
            } else {
                address = source
            }
            guard let address, port > 0, let name = fields["name"], (try? PlayerName.validate(name)) != nil,
                  let max = fields["max"].flatMap(UInt8.init), playerCounts.contains(max),
                  let seats = fields["seats"].flatMap(UInt8.init), seats <= max else { continue }
            let game = LANGame(instance: labels[0], hostName: name, machine: printableMachine(target.labels.first ?? ""),
                               address: address, port: Int(port), players: seats, maxPlayers: max,
                               started: fields["state"] == "started", needsCode: fields["code"] == "1",
                               fingerprint: fields["fp"].flatMap(CertificateFingerprint.init))
            found.append((game, ttl))
        }
        return found
    }

    /// Whether an announced IPv4 address is one a player could connect to: not 0.x,
    /// multicast, reserved or broadcast; loopback (127.x) only when the announcement
    /// itself came from this machine (a neighbour pointing at our own 127.0.0.1 is a lie).
    static func isReachable(_ bytes: [UInt8], fromThisMachine: Bool) -> Bool {
        guard bytes.count == 4, bytes[0] != 0, bytes[0] < 224 else { return false }
        return bytes[0] != 127 || fromThisMachine
    }

    /// A host computer's name as a list shows it: the letters, digits, `-` and `_` of
    /// ASCII that a host name is made of (`machineName()` sends nothing else); anything
    /// else (control characters, bidi overrides, invalid UTF-8, other scripts) becomes
    /// `?`, and a name longer than `maxMachineCharacters` is cut and ends with `…`. So it
    /// can break neither a line of `snapcards list` nor the Join screen's layout.
    /// The `max` a game may announce: Snap! is for 2 to 4 players.
    public static let playerCounts: ClosedRange<UInt8> = 2...4

    public static func printableMachine(_ label: String) -> String {
        var shown = ""
        for scalar in label.unicodeScalars {
            if shown.count == maxMachineCharacters {
                shown.removeLast()
                shown.append("…")
                break
            }
            let plain = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                                           || scalar == "-" || scalar == "_")
            shown.append(plain ? Character(scalar) : "?")
        }
        return shown.isEmpty ? "?" : shown
    }
}

extension DNSName {
    /// The labels in lower case (DNS compares names without ASCII case), as a dictionary key.
    var folded: [String] { labels.map { $0.lowercased() } }
}

/// What a browser has heard, each game until its records expire (pure, for tests).
///
/// Bounded whatever arrives (docs/LAN.md, "Limits"): at most `maxGames` games, at most
/// `maxGamesPerSource` of them from one sender address, each kept at most `maxTTL`
/// seconds past its last announcement. A game heard again at least `confirmGap` after
/// it was first heard is *confirmed* (it keeps announcing, as a real host does every
/// second); a confirmed game is never pushed out by a newcomer, only by its own expiry or
/// goodbye. When there is no room, the newcomer takes the place of an unconfirmed game
/// of the sender holding the most (`fairVictim`), or of its own sender when that has
/// its 8 already, or is dropped if every game is confirmed. Only the sender that
/// announced a game may change it or say goodbye for it.
public struct LANGameTable: Sendable {
    /// The most games kept (and so listed by `snapcards list --lan` and the Join screen).
    public static let maxGames = 64
    /// The most games kept from one sender address (a computer hosts one or two).
    public static let maxGamesPerSource = 8
    /// The longest a game is kept after its last announcement, whatever TTL it claims
    /// (hosts use `SnapService.ttl`, 3 s).
    public static let maxTTL: UInt32 = 10
    /// Heard again at least this long after the first time: confirmed.
    public static let confirmGap: Duration = .milliseconds(500)

    struct Entry {
        var game: LANGame
        var source: String
        var expires: Duration
        var firstHeard: Duration
        var lastHeard: Duration
        var confirmed: Bool
    }

    private var entries: [String: Entry] = [:]

    public init() {}

    /// How many games are kept (expired ones included until the next `games(now:)`).
    public var count: Int { entries.count }

    /// Takes in a response heard at `now` from `source`; a TTL of 0 (goodbye) removes the game at once.
    public mutating func update(_ message: DNSMessage, source: String?, now: Duration) {
        let sender = source ?? ""
        for (game, ttl) in SnapService.games(in: message, source: source) {
            let key = game.instance.lowercased()
            let lifetime = Duration.seconds(Int64(min(ttl, Self.maxTTL)))
            if var entry = entries[key], entry.expires > now {
                // Another sender may neither change this game nor say goodbye for it.
                guard entry.source == sender else { continue }
                if ttl == 0 {
                    entries[key] = nil
                    continue
                }
                entry.game = game
                entry.expires = now + lifetime
                entry.lastHeard = now
                if now - entry.firstHeard >= Self.confirmGap { entry.confirmed = true }
                entries[key] = entry
                continue
            }
            entries[key] = nil
            guard ttl > 0 else { continue }
            var fromSender = entries.values.count { $0.source == sender }
            if entries.count >= Self.maxGames || fromSender >= Self.maxGamesPerSource {
                // Expired games make room first.
                entries = entries.filter { $0.value.expires > now }
                fromSender = entries.values.count { $0.source == sender }
            }
            if fromSender >= Self.maxGamesPerSource {
                guard let victim = leastRecentUnconfirmed(from: sender) else { continue }
                entries[victim] = nil
            }
            if entries.count >= Self.maxGames {
                guard let victim = fairVictim(for: sender) else { continue }
                entries[victim] = nil
            }
            entries[key] = Entry(game: game, source: sender, expires: now + lifetime, firstHeard: now, lastHeard: now,
                                 confirmed: false)
        }
    }

    private func leastRecentUnconfirmed(from sender: String) -> String? {
        entries.filter { !$0.value.confirmed && $0.value.source == sender }
            .min { $0.value.lastHeard < $1.value.lastHeard }?.key
    }

    /// The game that gives up its place when the table is full: an unconfirmed one of the
    /// sender holding the most unconfirmed games (the newcomer's own sender when it holds
    /// as many as any), the least recently heard of those. So a flood from fewer than
    /// `maxGames` senders cannot push out a game whose sender has only one or two.
    private func fairVictim(for sender: String) -> String? {
        var held: [String: Int] = [:]
        for entry in entries.values where !entry.confirmed { held[entry.source, default: 0] += 1 }
        guard let most = held.values.max() else { return nil }
        let biggest: Set<String> = held[sender] == most ? [sender] : Set(held.filter { $0.value == most }.keys)
        return entries.filter { !$0.value.confirmed && biggest.contains($0.value.source) }
            .min { $0.value.lastHeard < $1.value.lastHeard }?.key
    }

    /// The games still alive at `now`: confirmed ones first (a game that keeps announcing
    /// stays near the top whatever a flood of one-off announcements adds), each part by
    /// name then machine.
    public mutating func games(now: Duration) -> [LANGame] {
        entries = entries.filter { $0.value.expires > now }
        return entries.values.sorted {
            ($0.confirmed ? 0 : 1, $0.game.hostName, $0.game.machine) < ($1.confirmed ? 0 : 1, $1.game.hostName, $1.game.machine)
        }.map(\.game)
    }
}
