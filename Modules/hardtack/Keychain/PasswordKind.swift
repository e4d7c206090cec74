import CommandLineKit
import Data

/// The two password classes the keychain verbs handle, and the options that name their attributes.
enum PasswordKind: Sendable {
    /// Generic passwords: `-s SERVICE -a ACCOUNT`.
    case generic
    /// Internet passwords: `-s SERVER -a ACCOUNT -r PROTOCOL -P PORT -p PATH`.
    case internet

    /// The item class.
    var itemClass: ItemClass {
        switch self {
        case .generic: .genericPassword
        case .internet: .internetPassword
        }
    }

    /// The noun in verb names: `generic-password`.
    var noun: String {
        switch self {
        case .generic: "generic-password"
        case .internet: "internet-password"
        }
    }

    /// The indefinite article for the class name: "a generic password", "an internet password".
    var article: String {
        switch self {
        case .generic: "a"
        case .internet: "an"
        }
    }

    /// The options that name attributes, in help order, each filed under the attribute it sets.
    var attributeOptions: [(key: AttributeName, option: Option<AttributeValue>)] {
        let account = Self.text("-a", "ACCOUNT", "The account name.")
        let label = Self.text("-l", "LABEL", "A label, for people.")
        let comment = Self.text("-j", "COMMENT", "A comment.")
        switch self {
        case .generic:
            return [
                (.service, Self.text("-s", "SERVICE", "The service (an app or host name, say).")),
                (.account, account), (.label, label), (.comment, comment),
            ]
        case .internet:
            return [
                (.server, Self.text("-s", "SERVER", "The server's host name or address.")), (.account, account),
                (.protocol, Self.protocolOption),
                (.port, Self.port),
                (.path, Self.text("-p", "PATH", "The path on the server, such as /login.")),
                (.label, label), (.comment, comment),
            ]
        }
    }

    /// The options that select items in find and delete: every attribute option but the comment.
    var selectorOptions: [(key: AttributeName, option: Option<AttributeValue>)] {
        attributeOptions.filter { $0.key != .comment }
    }

    /// The attributes that make an item's unique key (with its access group); one left out counts as empty.
    var uniqueKey: [AttributeName] {
        switch self {
        case .generic: [.service, .account]
        case .internet: [.server, .account, .protocol, .port, .path]
        }
    }

    /// The attributes `add` requires. macOS `security` requires none of an internet password's (a part
    /// of the unique key left out counts as empty); a generic password here keeps its service and
    /// account required, the two that name it.
    var requiredForAdd: [AttributeName] {
        switch self {
        case .generic: [.service, .account]
        case .internet: []
        }
    }

    /// The protocols `-r` takes, as Keychain Services names them (`kSecAttrProtocol…`), in lowercase.
    static let knownProtocols = [
        "afp", "appletalk", "daap", "eppc", "ftp", "ftpaccount", "ftpproxy", "ftps", "http", "httpproxy", "https",
        "httpsproxy", "imap", "imaps", "ipp", "irc", "ircs", "ldap", "ldaps", "nntp", "nntps", "pop3", "pop3s", "rtsp",
        "rtspproxy", "smb", "smtp", "socks", "ssh", "telnet", "telnets",
    ]

    /// macOS `security`'s four-character protocol codes (`kSecAttrProtocol…` values), lowercase and
    /// without their padding, for the names they stand for.
    static let macOSProtocolCodes: [String: String] = [
        "htps": "https", "htpx": "httpproxy", "htsx": "httpsproxy", "ftpa": "ftpaccount", "ftpx": "ftpproxy",
        "imps": "imaps", "ircs": "ircs", "ldps": "ldaps", "ntps": "nntps", "pops": "pop3s", "rtsx": "rtspproxy",
        "sox": "socks", "teln": "telnet", "tels": "telnets", "atlk": "appletalk", "eppc": "eppc", "http": "http",
        "ftp": "ftp", "ssh": "ssh", "smb": "smb", "smtp": "smtp", "imap": "imap", "ldap": "ldap", "nntp": "nntp",
        "pop3": "pop3", "rtsp": "rtsp", "ipp": "ipp", "irc": "irc", "afp": "afp", "daap": "daap",
    ]

    /// The attribute options as `add` declares them: those of ``requiredForAdd`` required.
    var addOptions: [(key: AttributeName, option: Option<AttributeValue>)] {
        attributeOptions.map { entry in
            (entry.key, requiredForAdd.contains(entry.key) ? entry.option.required() : entry.option)
        }
    }

    /// The item attributes for `values`.
    /// - Throws: ``CommandFailure/store(_:)`` when the class does not allow one of them.
    func attributes(_ values: [AttributeName: AttributeValue]) throws(CommandFailure) -> ItemAttributes {
        do throws(SecureStoreError) {
            return try ItemAttributes(itemClass, values)
        } catch {
            throw .store(error)
        }
    }

    /// `-P PORT`: a whole number from 0 to 65535.
    private static let port = Option<AttributeValue>(
        "-P", value: "PORT", help: "The port, 0 to 65535.",
        invalidValue: "the port (-P) must be a whole number from 0 to 65535",
        convert: { text in
            guard text.allSatisfy(\.isASCII), let port = Int64(text), (0...65_535).contains(port) else { return nil }
            return .integer(port)
        })

    /// `-r PROTOCOL`: one of ``knownProtocols``, in any case, kept in lowercase.
    private static let protocolOption = Option<AttributeValue>(
        "-r", value: "PROTOCOL", help: "The protocol, in any case: https, http, ftp, ssh, smtp, imap, ldap and the other Keychain names.",
        invalidValue: "the protocol (-r) must be one of: " + knownProtocols.joined(separator: ", "),
        convert: { text in
            let name = text.lowercased()
            if knownProtocols.contains(name) { return .string(name) }
            // macOS `security` takes the four-character codes (`htps`, `ftp `…) too.
            return macOSProtocolCodes[name].map { .string($0) }
        })

    /// An option whose text is the attribute's string value.
    private static func text(_ name: String, _ valueName: String, _ help: String) -> Option<AttributeValue> {
        Option(name, value: valueName, help: help, convert: { .string($0) })
    }
}
