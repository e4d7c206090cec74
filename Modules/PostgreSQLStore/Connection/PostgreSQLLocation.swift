internal import CLibPQ
import Foundation

/// Where a PostgreSQL server is: a `postgresql://` or `postgres://` URI, validated by libpq's own
/// parser (`PQconninfoParse`), whose text form never shows a password.
///
/// The password, when the URI has one (`user:password@` or `?password=`), is handed to libpq and
/// nowhere else; without one libpq reads `PGPASSWORD` or `~/.pgpass` itself, as `psql` does.
/// `description`, `debugDescription` and the mirror all show `redacted`.
@_spi(HardtackTools) public struct PostgreSQLLocation: Sendable, Equatable {
    /// The URI as given, for libpq only.
    let conninfo: String
    /// The URI with every password replaced by `***`.
    @_spi(HardtackTools) public let redacted: String
    /// The host (or hosts, comma-separated, or a socket directory) libpq will use, if the URI names one.
    @_spi(HardtackTools) public let host: String?
    /// The port the URI names, if any.
    @_spi(HardtackTools) public let port: String?
    /// The database the URI names, if any.
    @_spi(HardtackTools) public let database: String?
    /// The user the URI names, if any.
    @_spi(HardtackTools) public let user: String?
    /// Whether the URI itself carries a password (otherwise libpq may find one in `PGPASSWORD` or
    /// `~/.pgpass`).
    @_spi(HardtackTools) public let hasPassword: Bool
    /// The URI's settings that choose where and how securely to connect (`host`, `hostaddr`, `sslmode`,
    /// `requiressl`, `service`, `sslrootcert`), as libpq parsed them; never the password.
    let connectionSettings: [String: String]
    /// Every form of the password in the URI (as written and decoded), to scrub from messages.
    private let secrets: [String]

    /// Parses and validates `uri` as libpq does.
    /// - Throws: `PostgreSQLError` of kind `invalidLocation`, whose message never contains the password.
    @_spi(HardtackTools) public init(_ uri: String) throws(PostgreSQLError) {
        let (redacted, rawSecrets) = Self.redact(uri)
        let secrets = Self.expand(rawSecrets)
        guard uri.hasPrefix("postgresql://") || uri.hasPrefix("postgres://") else {
            throw PostgreSQLError(
                .invalidLocation, message: "a PostgreSQL location must be a postgresql:// or postgres:// URI")
        }
        var failure: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(uri, &failure) else {
            let said = failure.map { String(cString: $0) } ?? "out of memory"
            if let failure { PQfreemem(failure) }
            let message = Self.scrub(said.trimmingCharacters(in: .whitespacesAndNewlines), secrets)
            throw PostgreSQLError(.invalidLocation, message: "\(message) (in \(redacted))")
        }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var index = 0
        while let keyword = options[index].keyword {
            if let value = options[index].val { values[String(cString: keyword)] = String(cString: value) }
            index += 1
        }
        conninfo = uri
        self.redacted = redacted
        host = values["host"] ?? values["hostaddr"]
        port = values["port"]
        database = values["dbname"]
        user = values["user"]
        connectionSettings = values.filter { Self.connectionKeywords.contains($0.key) }
        let password = values["password"]
        hasPassword = password != nil
        // The decoded password as libpq will use it, besides the forms found in the text.
        self.secrets = Self.expand(rawSecrets + (password.map { [$0] } ?? []))
    }

    /// The keywords kept in ``connectionSettings``.
    private static let connectionKeywords: Set<String> = ["host", "hostaddr", "sslmode", "requiressl", "service", "sslrootcert"]

    /// `message` with every form of this location's password replaced by `***`.
    @_spi(HardtackTools) public func scrub(_ message: String) -> String { Self.scrub(message, secrets) }

    private static func scrub(_ message: String, _ secrets: [String]) -> String {
        // Longest first, so a password that contains another form of itself is replaced whole.
        secrets.sorted { $0.count > $1.count }.reduce(message) {
            $0.replacingOccurrences(of: $1, with: "***")
        }
    }

    /// The non-empty secrets with their percent-decoded forms added.
    private static func expand(_ secrets: [String]) -> [String] {
        var all = Set<String>()
        for secret in secrets where !secret.isEmpty {
            all.insert(secret)
            if let decoded = secret.removingPercentEncoding, !decoded.isEmpty { all.insert(decoded) }
        }
        return Array(all)
    }

    /// The URI with its passwords replaced by `***`, and the passwords as written.
    ///
    /// It finds them where libpq does: the user information ends at the first `@` or `/` after
    /// `://`, and its password follows its first `:`; a query parameter whose (percent-decoded) name
    /// is `password` carries one too. It works on text libpq would refuse, so that a refused URI can
    /// be named in an error without its password.
    static func redact(_ uri: String) -> (String, [String]) {
        guard let scheme = uri.range(of: "://") else { return (uri, []) }
        var secrets: [String] = []
        var result = String(uri[..<scheme.upperBound])
        var rest = uri[scheme.upperBound...]
        if let end = rest.firstIndex(where: { $0 == "@" || $0 == "/" }), rest[end] == "@" {
            let userInfo = rest[..<end]
            if let colon = userInfo.firstIndex(of: ":") {
                let password = userInfo[userInfo.index(after: colon)...]
                secrets.append(String(password))
                result += userInfo[...colon] + (password.isEmpty ? "" : "***")
            } else {
                result += userInfo
            }
            rest = rest[end...]
        }
        guard let question = rest.firstIndex(of: "?") else { return (result + rest, secrets) }
        result += rest[...question]
        let parameters = rest[rest.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false)
        result += parameters.map { parameter -> String in
            guard let equals = parameter.firstIndex(of: "=") else { return String(parameter) }
            let name = parameter[..<equals]
            guard (String(name).removingPercentEncoding ?? String(name)) == "password" else { return String(parameter) }
            secrets.append(String(parameter[parameter.index(after: equals)...]))
            return name + "=***"
        }.joined(separator: "&")
        return (result, secrets)
    }
}

extension PostgreSQLLocation: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The URI with its password replaced by `***`.
    @_spi(HardtackTools) public var description: String { redacted }
    /// The URI with its password replaced by `***`.
    @_spi(HardtackTools) public var debugDescription: String { "PostgreSQLLocation(\(redacted))" }
    /// Only the redacted URI, so `dump` and reflection cannot show the password.
    @_spi(HardtackTools) public var customMirror: Mirror { Mirror(self, children: ["redacted": redacted]) }
}
