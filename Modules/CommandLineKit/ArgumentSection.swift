/// Arguments that help lists under one title (`Options`, `Store options`), with a paragraph after them.
struct ArgumentSection: Sendable {
    /// The title, without the colon.
    let title: String
    /// The arguments, in help order.
    let declarations: [ArgumentDeclaration]
    /// A paragraph help shows after the list, or `nil`.
    let footer: String?

    /// Creates a section.
    init(_ title: String, _ declarations: [ArgumentDeclaration], footer: String? = nil) {
        self.title = title
        self.declarations = declarations
        self.footer = footer
    }

    /// The arguments as a usage line shows them: required ones first, then the others in brackets
    /// (`-s SERVICE -a ACCOUNT [-l LABEL]`).
    var synopsis: String {
        let required = declarations.filter(\.isRequired).map(\.usageSynopsis)
        let optional = declarations.filter { !$0.isRequired }.map(\.usageSynopsis)
        return (required + optional).joined(separator: " ")
    }
}
