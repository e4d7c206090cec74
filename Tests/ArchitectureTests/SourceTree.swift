import Foundation

/// The checkout's files, read as text: the layering rules these tests hold are about where code is,
/// which the compiler's target graph cannot say on its own.
struct SourceTree {
    /// The checkout's top folder (the one holding Package.swift).
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("no Package.swift above \(#filePath)")
    }()

    /// One Swift file: its path below the top folder and its lines.
    struct File {
        let path: String
        let lines: [Substring]
    }

    /// Every Swift file below `folder` (a path below the top folder, such as `Modules/Domain`).
    static func swiftFiles(in folder: String) -> [File] {
        let base = root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        var files: [File] = []
        for case let url as URL in walker where url.pathExtension == "swift" {
            guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
            let path = String(url.path.dropFirst(root.path.count + 1))
            files.append(File(path: path, lines: text.split(separator: "\n", omittingEmptySubsequences: false)))
        }
        return files.sorted { $0.path < $1.path }
    }

    /// The code of `line` without a trailing `//` comment (a whole-line comment, a doc comment included,
    /// gives nothing). A `//` inside a string literal (a URL) is kept.
    static func code(of line: Substring) -> Substring {
        var inString = false
        var escaped = false
        var previous: Character = " "
        for index in line.indices {
            let character = line[index]
            if inString {
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inString = false
                }
            } else if character == "\"" {
                inString = true
            } else if character == "/" && previous == "/" {
                return line[line.startIndex..<line.index(before: index)]
            }
            previous = character
        }
        return line
    }

    /// The string literals on `line`'s code, their contents as written (interpolations included).
    static func stringLiterals(in line: Substring) -> [String] {
        var literals: [String] = []
        var current: String?
        var escaped = false
        for character in code(of: line) {
            if var text = current {
                if escaped {
                    text.append(character)
                    escaped = false
                    current = text
                } else if character == "\\" {
                    text.append(character)
                    escaped = true
                    current = text
                } else if character == "\"" {
                    literals.append(text)
                    current = nil
                } else {
                    text.append(character)
                    current = text
                }
            } else if character == "\"" {
                current = ""
            }
        }
        return literals
    }
}
