import Data
import Foundation
import TestSupport
import Testing

@testable import Gateway

/// `--static DIR`: a single-page app's files by their content types, `index.html` for a directory, and
/// nothing outside DIR (no `..` in any spelling, no symbolic link leading out, no dot-file, no listing).
@Suite struct StaticFilesTests {
    let directory = TemporaryDirectory()

    func site() throws -> StaticFiles {
        let root = directory.file("site")
        try FileManager.default.createDirectory(atPath: root + "/assets/empty", withIntermediateDirectories: true)
        try Data("<h1>app</h1>".utf8).write(to: URL(fileURLWithPath: root + "/index.html"))
        try Data("let a = 1".utf8).write(to: URL(fileURLWithPath: root + "/assets/app.js"))
        try Data("body{}".utf8).write(to: URL(fileURLWithPath: root + "/assets/app.css"))
        try Data("BLOB".utf8).write(to: URL(fileURLWithPath: root + "/assets/data.bin"))
        try Data("TOKEN=x".utf8).write(to: URL(fileURLWithPath: root + "/.env"))
        try Data("outside".utf8).write(to: URL(fileURLWithPath: directory.file("secret.txt")))
        try FileManager.default.createSymbolicLink(atPath: root + "/assets/out.txt", withDestinationPath: directory.file("secret.txt"))
        try FileManager.default.createSymbolicLink(atPath: root + "/up", withDestinationPath: directory.path)
        return StaticFiles(directory: root)
    }

    @Test(arguments: [
        ("/", "text/html; charset=utf-8", "<h1>app</h1>"), ("/index.html", "text/html; charset=utf-8", "<h1>app</h1>"),
        ("/assets/app.js", "text/javascript; charset=utf-8", "let a = 1"), ("/assets/app.css", "text/css; charset=utf-8", "body{}"),
        ("/assets/data.bin", "application/octet-stream", "BLOB"), ("/assets/../index.html", nil, nil),
    ])
    func filesAreServedByTheirType(_ path: String, _ type: String?, _ body: String?) throws {
        let answer = try site().response(for: path)
        guard let type, let body else {
            #expect(answer.status == 404)
            return
        }
        #expect(answer.status == 200 && answer.headers["Content-Type"] == type)
        #expect(answer.headers["X-Content-Type-Options"] == "nosniff")
        #expect(String(decoding: answer.body, as: UTF8.self) == body)
    }

    @Test(arguments: [
        "/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E%2Fsecret.txt", "/assets/%2e%2e/%2e%2e/secret.txt", "/.env",
        "/%2eenv", "/assets/out.txt", "/up/secret.txt", "/assets/empty", "/assets/", "/assets%5c..%5c..%5csecret.txt",
        "/a%00b", "/%ff%fe", "relative.txt", "/nothing-here.js",
    ])
    func nothingOutsideTheDirectoryNorAListingIsServed(_ path: String) throws {
        let answer = try site().response(for: path)
        #expect(answer.status == 404, "\(path)")
        #expect(!String(decoding: answer.body, as: UTF8.self).contains("outside"))
        #expect(!String(decoding: answer.body, as: UTF8.self).contains("TOKEN"))
    }
}
