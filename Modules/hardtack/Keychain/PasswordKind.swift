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

    /// The options that name attributes, in help order, each with the attribute it sets.
    var attributeOptions: [(spec: OptionSpec, attribute: AttributeName)] {
        let account = OptionSpec.value("-a", "ACCOUNT", "The account name.")
        let label = OptionSpec.value("-l", "LABEL", "A label, for people.")
        let comment = OptionSpec.value("-j", "COMMENT", "A comment.")
        switch self {
        case .generic:
            return [
                (.value("-s", "SERVICE", "The service (an app or host name, say)."), .service),
                (account, .account), (label, .label), (comment, .comment),
            ]
        case .internet:
            return [
                (.value("-s", "SERVER", "The server's host name or address."), .server), (account, .account),
                (.value("-r", "PROTOCOL", "The protocol: https, http, ftp, ssh, smtp, imap, ldap or another name."),
                 .protocol),
                (.value("-P", "PORT", "The port, 0 to 65535."), .port),
                (.value("-p", "PATH", "The path on the server, such as /login."), .path),
                (label, .label), (comment, .comment),
            ]
        }
    }

    /// The options that select items in find and delete: every attribute option but the comment.
    var selectorOptions: [OptionSpec] {
        attributeOptions.map(\.spec).filter { $0.name != "-j" }
    }

    /// The options `add` requires: the whole unique key.
    var requiredForAdd: [String] {
        switch self {
        case .generic: ["-s", "-a"]
        case .internet: ["-s", "-a", "-r", "-P", "-p"]
        }
    }

    /// The attributes the given options name, among `allowed`.
    /// - Throws: ``CommandFailure/usage(_:)`` for a bad port.
    func attributes(_ context: KeychainContext, allowed: [OptionSpec]) throws(CommandFailure) -> ItemAttributes {
        var values: [AttributeName: AttributeValue] = [:]
        for (spec, attribute) in attributeOptions where allowed.contains(where: { $0.name == spec.name }) {
            guard let text = context.options.value(spec.name) else { continue }
            if attribute == .port {
                guard text.allSatisfy(\.isASCII), let port = Int64(text), (0...65_535).contains(port) else {
                    throw context.usage("the port (-P) must be a whole number from 0 to 65535")
                }
                values[attribute] = .integer(port)
            } else {
                values[attribute] = .string(text)
            }
        }
        do throws(SecureStoreError) {
            return try ItemAttributes(itemClass, values)
        } catch {
            throw .store(error)
        }
    }
}
