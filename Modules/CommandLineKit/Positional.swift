/// The name of ``Argument`` in commands declared with static values (the API before property wrappers),
/// read with ``ParsedValues/value(_:)``; goes when the last such command is converted.
public typealias Positional = Argument
