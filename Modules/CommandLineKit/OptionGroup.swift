/// Arguments several commands share, declared once in a ``ParsableArguments`` type and embedded in each:
/// `@OptionGroup(title: "Store options") var store: StoreArguments`. With a title, help lists them in a
/// section of their own (followed by the group's ``ParsableArguments/sectionFooter``); without one,
/// among the embedding command's own arguments, where the property stands.
@propertyWrapper
public struct OptionGroup<Group: ParsableArguments>: Decodable, Sendable {
    /// The group, decoded from the command line.
    public var wrappedValue: Group
    /// The title of its help section, or `nil` to list its arguments with the command's own.
    let title: String?

    /// Embeds the group among the command's own arguments.
    public init() {
        wrappedValue = Group()
        title = nil
    }

    /// Embeds the group in a help section of its own, titled `title`.
    public init(title: String) {
        wrappedValue = Group()
        self.title = title
    }

    /// Decodes the group from the command line, its ``ParsableArguments/validate()`` included.
    /// - Throws: ``UsageError`` for a value that does not convert or arguments that do not fit together.
    public init(from decoder: any Decoder) throws {
        let (declared, values) = try PropertyDecoder.declared(Self.self, decoder)
        title = declared.title
        wrappedValue = try Group(from: values)
    }
}

extension OptionGroup: DeclaringProperty {
    var items: [ArgumentSet.Item] {
        let arguments = ArgumentSet(reflecting: wrappedValue)
        guard let title else { return arguments.items }
        return [.section(title: title, footer: Group.sectionFooter, arguments.declarations)]
    }
}
