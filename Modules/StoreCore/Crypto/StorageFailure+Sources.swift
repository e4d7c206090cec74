#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
package import Data

/// Store failures from the system and from libsodium, said in words.
extension StorageFailure {
    /// A system call's failure: `what` (which names no secret), the system's words for `code`, and the
    /// kind that `code` means.
    package static func posix(_ what: String, errno code: Int32) -> StorageFailure {
        StorageFailure(
            backend: "the file system", kind: kind(errno: code), message: "\(what): \(String(cString: strerror(code)))",
            detail: "errno \(code)")
    }

    /// The kind of failure an `errno` value means.
    package static func kind(errno code: Int32) -> Kind {
        switch code {
        case ENOSPC, EDQUOT: .full
        case EROFS: .readOnly
        case EACCES, EPERM: .permission
        case ENOMEM: .resources
        case ETIMEDOUT: .timedOut
        default: .other
        }
    }

    /// A libsodium call that returned `code` while doing `what`.
    package static func sodium(_ what: String, code: Int32, kind: Kind = .other) -> StorageFailure {
        StorageFailure(backend: "libsodium", kind: kind, message: what, detail: "libsodium returned \(code)")
    }
}
