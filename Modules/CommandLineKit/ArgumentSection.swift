/// Arguments that help lists under one title (`Options`, `Store options`), with a paragraph after them.
public struct ArgumentSection: Sendable {
    /// The title, without the colon.
    public let title: String
    /// The arguments, in help order.
    public let declarations: [ArgumentDeclaration]
    /// A paragraph help shows after the list, or `nil`.
    public let footer: String?

    /// Creates a section.
    public init(_ title: String, _ arguments: [any ArgumentDeclaring], footer: String? = nil) {
        self.title = title
        self.declarations = arguments.map(\.declaration)
        self.footer = footer
    }

    /// The arguments as a usage line shows them: required ones first, then the others in brackets
    /// (`-s SERVICE -a ACCOUNT [-l LABEL]`).
    public var synopsis: String {
        let required = declarations.filter(\.isRequired).map(\.usageSynopsis)
        let optional = declarations.filter { !$0.isRequired }.map(\.usageSynopsis)
        return (required + optional).joined(separator: " ")
    }
}
