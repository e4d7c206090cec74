/// A property wrapper that declares arguments (``Flag``, ``Option``, ``Argument``, ``OptionTable``,
/// ``OptionGroup``), as reflection finds it in the instance a ``ParsableArguments`` type makes with
/// `init()`.
protocol DeclaringProperty {
    /// What the property declares, in help order.
    var items: [ArgumentSet.Item] { get }
}
