import Composition
import Foundation

/// What a command that may create the store found missing before it began, so that on failure it can
/// remove what it created and leave nothing behind (a sign-in to a server that is down makes no store).
struct NewStoreCleanup {
    private let created: [String]
    private let directory: String?

    /// Notes which of the store's files (and its directory) do not exist yet for `configuration`.
    init(_ configuration: StoreConfiguration) {
        let manager = FileManager.default
        let path = configuration.storePath
        var candidates = [path, path + "-wal", path + "-shm", path + "-journal"]
        if case .keyFile(let keyPath) = configuration.key { candidates.append(keyPath) }
        created = manager.fileExists(atPath: path) ? [] : candidates.filter { !manager.fileExists(atPath: $0) }
        let parent = (path as NSString).deletingLastPathComponent
        directory = created.isEmpty || manager.fileExists(atPath: parent) ? nil : parent
    }

    /// Whether the store did not exist before the command (so that it made it, if it succeeded).
    var storeIsNew: Bool { !created.isEmpty }

    /// Removes what was created, unless the store now holds items: another process that made the store
    /// at the same moment and wrote to it keeps what it wrote.
    func removeWhatWasCreated(_ configuration: StoreConfiguration) async {
        guard !created.isEmpty else { return }
        if let handle = try? await configuration.open(), let health = try? await handle.verify(),
            health.soundItems + health.damagedItems > 0
        {
            return
        }
        removeWhatWasCreated()
    }

    /// Removes the files that did not exist before, and the directory if it is new and now empty.
    func removeWhatWasCreated() {
        for path in created { try? FileManager.default.removeItem(atPath: path) }
        if let directory, (try? FileManager.default.contentsOfDirectory(atPath: directory))?.isEmpty == true {
            try? FileManager.default.removeItem(atPath: directory)
        }
    }
}
