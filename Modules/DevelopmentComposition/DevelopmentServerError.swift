/// Why the development server could not start.
public struct DevelopmentServerError: Error, Sendable, CustomStringConvertible {
    /// What failed, in one line.
    public let message: String
    /// The message.
    public var description: String { message }
}
