/// Turns the texts one argument was given into the value of the property that declares it, by the shape
/// of that property's type: exactly one value, at most one, every value given, or one the option may
/// leave out at the end of the command line.
struct ValueReader<Value: Sendable>: Sendable {
    /// How many values a property takes, from its type.
    enum Shape: Sendable, Equatable {
        /// Exactly one: a non-optional property, so the argument is required.
        case single
        /// At most one: an optional property.
        case optional
        /// Any number, in the order given: an array property.
        case repeated
        /// One, or none when the option ends the command line: an ``OmittableValue`` property (required).
        case omittable
    }

    /// Why the texts give no value.
    enum Failure: Error {
        /// A text does not convert.
        case invalid
        /// Nothing was given for an argument that needs a value.
        case absent
    }

    /// The shape of the property's type.
    let shape: Shape
    private let read: @Sendable (_ texts: [String], _ givenWithoutValue: Bool) throws(Failure) -> Value

    private init(
        _ shape: Shape,
        read: @escaping @Sendable (_ texts: [String], _ givenWithoutValue: Bool) throws(Failure) -> Value
    ) {
        self.shape = shape
        self.read = read
    }

    /// The value for the texts given (in order) and whether the option ended the command line without one.
    func value(texts: [String], givenWithoutValue: Bool) throws(Failure) -> Value {
        try read(texts, givenWithoutValue)
    }

    /// One value: the last text, converted.
    static func single(_ convert: @escaping @Sendable (String) -> Value?) -> ValueReader {
        ValueReader(.single) { texts, _ throws(Failure) in
            guard let text = texts.last else { throw .absent }
            guard let value = convert(text) else { throw .invalid }
            return value
        }
    }

    /// At most one value: `nil` when none was given.
    static func optional<Element>(_ convert: @escaping @Sendable (String) -> Element?) -> ValueReader
    where Value == Element? {
        ValueReader(.optional) { texts, _ throws(Failure) in
            guard let text = texts.last else { return nil }
            guard let value = convert(text) else { throw .invalid }
            return value
        }
    }

    /// Every value given, in order; empty when none was.
    static func repeated<Element>(_ convert: @escaping @Sendable (String) -> Element?) -> ValueReader
    where Value == [Element] {
        ValueReader(.repeated) { texts, _ throws(Failure) in
            var values: [Element] = []
            for text in texts {
                guard let value = convert(text) else { throw .invalid }
                values.append(value)
            }
            return values
        }
    }

    /// The value given, or ``OmittableValue/omitted`` when the option ended the command line without one.
    static func omittable<Element>(_ convert: @escaping @Sendable (String) -> Element?) -> ValueReader
    where Value == OmittableValue<Element> {
        ValueReader(.omittable) { texts, givenWithoutValue throws(Failure) in
            guard let text = texts.last else {
                if givenWithoutValue { return .omitted }
                throw .absent
            }
            guard let value = convert(text) else { throw .invalid }
            return .given(value)
        }
    }
}
