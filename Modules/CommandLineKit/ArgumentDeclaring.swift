/// Anything that declares one argument: ``Flag``, ``Option``, ``Argument``, or a bare
/// ``ArgumentDeclaration``.
public protocol ArgumentDeclaring: Sendable {
    /// The argument as the parser and help see it.
    var declaration: ArgumentDeclaration { get }
}

extension ArgumentDeclaration: ArgumentDeclaring {
    /// Itself.
    public var declaration: ArgumentDeclaration { self }
}
