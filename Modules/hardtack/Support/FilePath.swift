import Foundation

/// Paths as the commands compare them: two names of one file are one file.
enum FilePath {
    /// `path` with its directory's links resolved, and its own if it is one.
    static func resolved(_ path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().resolvingSymlinksInPath().path
        let leaf = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)).map {
            URL(fileURLWithPath: $0, relativeTo: url.deletingLastPathComponent()).resolvingSymlinksInPath().path
        }
        return leaf ?? directory + "/" + url.lastPathComponent
    }
}
