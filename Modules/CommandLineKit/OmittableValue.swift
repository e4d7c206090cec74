/// The value of an option that may end the command line without one (macOS `security`'s `-w`, which then
/// prompts): declare the property with this type and the option is required, its value optional at the end.
public enum OmittableValue<Value: Sendable>: Sendable {
    /// The value given.
    case given(Value)
    /// The option ended the command line with no value after it.
    case omitted
}

extension OmittableValue: Equatable where Value: Equatable {}
