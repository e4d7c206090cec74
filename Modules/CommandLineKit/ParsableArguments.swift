/// Arguments declared once, each by the property wrapper on the property it fills (``Flag``, ``Option``,
/// ``Argument``, ``OptionTable``, ``OptionGroup``): a command's (every ``Command`` is one) or a group's
/// that commands embed. Parsing, help, completion and decoding all come from those declarations, read by
/// reflection off the instance `init()` makes.
///
/// ```swift
/// struct DumpVerb: Command {
///     @Flag("--json", help: "Print one JSON object instead of text.") var json: Bool
///     @OptionGroup(title: "Global options") var store: StoreArguments
/// }
/// ```
public protocol ParsableArguments: Decodable, Sendable {
    /// The instance that only declares the arguments (every wrapper as declared, no value read).
    init()
    /// A paragraph help shows after the group's section when a command embeds it with a title.
    static var sectionFooter: String? { get }
    /// Checks what spans arguments (`give --all or --account, not both`), once every one is decoded.
    /// - Throws: ``UsageError`` (made with ``UsageError/init(_:)``; the parser names the command).
    func validate() throws(UsageError)
}

extension ParsableArguments {
    /// No paragraph after the group's section.
    public static var sectionFooter: String? { nil }

    /// Nothing to check beyond each argument's own rules.
    public func validate() throws(UsageError) {}

    /// Decodes the arguments from the values parsed off the command line, then ``validate()``s them.
    /// - Throws: ``UsageError`` for a value that does not convert or arguments that do not fit together.
    public init(from values: ParsedValues) throws(UsageError) {
        do {
            self = try Self(from: ArgumentDecoder(values: values, arguments: ArgumentSet(reflecting: Self())))
        } catch let error as UsageError {
            throw error
        } catch {
            preconditionFailure("\(Self.self) holds a stored property that is not an argument wrapper: \(error)")
        }
        do throws(UsageError) {
            try validate()
        } catch {
            throw UsageError(error.problem, commandPath: values.commandPath)
        }
    }

    /// The arguments declared outside titled groups, as a usage line shows them: required ones first,
    /// then the others in brackets (`-s SERVICE -a ACCOUNT [-l LABEL]`).
    public static var usageSynopsis: String {
        ArgumentSection("", ArgumentSet(reflecting: Self()).ownDeclarations).synopsis
    }
}
