/// The arguments a ``ParsableArguments`` type declares, read by reflection off the instance its `init()`
/// makes, in property order: what the parser, help, completion and decoding know of it.
struct ArgumentSet {
    /// One thing a property declares.
    enum Item {
        /// An argument listed with the type's own (in `Options`, or `Arguments` for a positional).
        case argument(ArgumentDeclaration)
        /// A titled group's arguments, listed in a section of their own.
        case section(title: String, footer: String?, [ArgumentDeclaration])
    }

    /// What the properties declare, in order; a group without a title is merged in where it stands.
    private(set) var items: [Item] = []
    /// The declaring property wrappers, by coding key (the property's name).
    private(set) var properties: [String: Any] = [:]

    /// Reads the arguments `instance` declares.
    init(reflecting instance: some ParsableArguments) {
        for child in Mirror(reflecting: instance).children {
            guard let property = child.value as? any DeclaringProperty, let label = child.label else { continue }
            // A wrapped property is stored as `_name`; its coding key is `name`.
            properties[label.hasPrefix("_") ? String(label.dropFirst()) : label] = child.value
            items += property.items
        }
    }

    /// Every argument, in help order.
    var declarations: [ArgumentDeclaration] { sections.flatMap(\.declarations) }

    /// The arguments listed with the type's own, outside titled sections, in order.
    var ownDeclarations: [ArgumentDeclaration] {
        items.compactMap { item in
            guard case .argument(let declaration) = item else { return nil }
            return declaration
        }
    }

    /// The help sections: the type's own options under `Options` and its positionals under `Arguments`,
    /// each section where its first argument stands, and each titled group's section where the group stands.
    var sections: [ArgumentSection] {
        var sections: [(title: String, footer: String?, declarations: [ArgumentDeclaration])] = []
        var own: [String: Int] = [:]
        for item in items {
            switch item {
            case .argument(let declaration):
                let title = declaration.kind == .positional ? "Arguments" : "Options"
                let index = own[title] ?? sections.count
                if index == sections.count {
                    sections.append((title, nil, []))
                    own[title] = index
                }
                sections[index].declarations.append(declaration)
            case .section(let title, let footer, let declarations):
                sections.append((title, footer, declarations))
            }
        }
        return sections.map { ArgumentSection($0.title, $0.declarations, footer: $0.footer) }
    }
}
