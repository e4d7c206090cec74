import CommandLineKit

/// Options declared with static values that a group and its verb share.
struct StaticSharedOptions: StaticOptionGroup {
    static let store = Option<String>("--store", value: "PATH", help: "The store.", allowsEmpty: false)
    static let declarations: [any ArgumentDeclaring] = [store]

    let store: String?

    init(from values: ParsedValues) throws(UsageError) {
        store = try values.value(Self.store)
    }
}
