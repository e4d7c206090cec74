import CommandLineKit

/// The static-declaration twin of ``SharedOptions`` (the API before property wrappers).
struct StaticSharedOptions: StaticOptionGroup {
    static let store = Option<String>("--store", value: "PATH", help: "The store.", allowsEmpty: false)
    static let group = Option<String>("--group", value: "G", help: "A group; repeat for more.", isRepeatable: true)
    static let declarations: [any ArgumentDeclaring] = [store, group]

    let store: String?
    let groups: [String]

    init(from values: ParsedValues) throws(UsageError) {
        store = try values.value(Self.store)
        groups = try values.values(Self.group)
    }
}
