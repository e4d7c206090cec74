import Data
import Foundation

/// A single-page app's files served from a directory: regular files only, by their extension's content
/// type, `index.html` for a directory, and never anything outside the directory (no `..`, no symbolic
/// link leading out, no listing).
struct StaticFiles {
    let directory: String

    /// The largest file served, in bytes.
    static let maximumBytes = 16 << 20

    private static let types: [String: String] = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8", "json": "application/json", "svg": "image/svg+xml", "png": "image/png",
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "ico": "image/x-icon", "webp": "image/webp",
        "txt": "text/plain; charset=utf-8", "map": "application/json", "woff2": "font/woff2", "woff": "font/woff",
        "wasm": "application/wasm",
    ]

    /// The answer for `path` (already without its query).
    func response(for path: String) -> HTTPResponse {
        guard let decoded = path.removingPercentEncoding, decoded.hasPrefix("/"), !decoded.contains("\0"),
            !decoded.contains("\\")
        else { return notFound }
        let segments = decoded.split(separator: "/")
        guard !segments.contains(where: { $0 == ".." || $0 == "." || $0.hasPrefix(".") }) else { return notFound }
        let root = URL(fileURLWithPath: directory).standardizedFileURL.resolvingSymlinksInPath()
        var file = segments.reduce(root) { $0.appendingPathComponent(String($1)) }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), isDirectory.boolValue {
            file.appendPathComponent("index.html")
        }
        // A symbolic link may not lead out of the directory.
        let resolved = file.resolvingSymlinksInPath()
        guard resolved.path.hasPrefix(root.path + "/"),
            let attributes = try? FileManager.default.attributesOfItem(atPath: resolved.path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let size = attributes[.size] as? Int, size <= Self.maximumBytes,
            let body = FileManager.default.contents(atPath: resolved.path)
        else { return notFound }
        let type = Self.types[resolved.pathExtension.lowercased()] ?? "application/octet-stream"
        return HTTPResponse(
            status: 200,
            headers: HTTPHeaders([
                ("Content-Type", type), ("X-Content-Type-Options", "nosniff"), ("Cache-Control", "no-cache"),
            ]), body: body)
    }

    private var notFound: HTTPResponse { GatewayReply.error(404, "not_found", "no such file") }
}
