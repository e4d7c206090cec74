/// The process's arguments as bytes, and their checked conversion to strings: an argument that is not
/// valid UTF-8 is refused, never repaired with U+FFFD (which would silently change a secret or a path).
public enum ArgumentBytes {
    /// An argument that is not valid UTF-8.
    struct InvalidArgument: Error, Sendable, Equatable {
        /// Its position, 1 for the first argument after the program name.
        let position: Int
    }

    /// The arguments after the program name, as the kernel passed them.
    public static func process() -> [[UInt8]] {
        let argv = CommandLine.unsafeArgv
        return (1..<Int(CommandLine.argc)).map { index in
            guard let pointer = argv[index] else { return [] }
            var bytes: [UInt8] = []
            var offset = 0
            while pointer[offset] != 0 {
                bytes.append(UInt8(bitPattern: pointer[offset]))
                offset += 1
            }
            return bytes
        }
    }

    /// Every argument as a string, or the first that is not valid UTF-8.
    static func strings(_ arguments: [[UInt8]]) -> Result<[String], InvalidArgument> {
        var strings: [String] = []
        for (index, bytes) in arguments.enumerated() {
            guard let string = String(validating: bytes, as: UTF8.self) else {
                return .failure(InvalidArgument(position: index + 1))
            }
            strings.append(string)
        }
        return .success(strings)
    }
}
