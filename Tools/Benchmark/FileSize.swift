#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// File sizes, for the bytes-per-item figure.
enum FileSize {
    /// The size of the file at `path` in bytes, or 0 when it does not exist.
    static func of(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }
}
