/// What a command declared with static values (the API before property wrappers) needs of a group
/// declared with property wrappers; goes when the last such command is converted.
extension ParsableArguments {
    /// Every argument, in help order, to list in a ``StaticOptionGroup``'s declarations.
    public static var declarations: [any ArgumentDeclaring] { ArgumentSet(reflecting: Self()).declarations }

    /// The arguments as a help section titled `title`, followed by ``sectionFooter``.
    public static func section(_ title: String) -> ArgumentSection {
        ArgumentSection(title, declarations, footer: sectionFooter)
    }
}
