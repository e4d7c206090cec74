#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import TestSupport
import Testing

/// A core of a `hardtack` process that holds a secret it read holds no trace of it (issue 25's third
/// gap): the process is marked non-dumpable, so the kernel writes no core of it, and the secret's memory
/// is kept out of core dumps, so even a core taken with root's right to attach (gdb's `gcore`) lacks it.
/// The secret is large enough (150 KB) that writing it to a pipe nobody reads blocks the process with the
/// secret in its memory.
@Suite struct CoreDumpTests {
    let sandbox = CLISandbox()

    /// A secret made of one marker, repeated: any 36 bytes of it found in a core are a leak.
    static let marker = "core-marker-" + UUID().uuidString.prefix(24)
    static let secret = String(repeating: marker, count: 150_000 / marker.utf8.count)

    /// Whether this test process (and so the `hardtack` it runs) is built with a sanitizer: a core of such a
    /// process holds its shadow memory (terabytes, sparse), and its runtime catches the signals itself.
    /// The core-dump tests run in the plain build, which is what ships.
    static let underSanitizer: Bool = {
        let everything = dlopen(nil, RTLD_NOW)
        return dlsym(everything, "__asan_init") != nil || dlsym(everything, "__tsan_init") != nil
    }()

    /// Whether the kernel writes cores as files (in the process's directory), not to a program.
    static let kernelWritesCoreFiles =
        !((try? String(contentsOfFile: "/proc/sys/kernel/core_pattern", encoding: .utf8)) ?? "|").hasPrefix("|")

    @Test(.enabled(if: !CoreDumpTests.underSanitizer, "a sanitizer's shadow memory would fill the core"))
    func aCoreOfAProcessReadingASecretHoldsNoTraceOfIt() async throws {
        let reader = try await blockedReader()
        defer { reader.stop() }
        let prefix = sandbox.directory.file("core")
        // Bounded in time and size (a core of this process is a few hundred megabytes): a core that grew
        // without bound would fill the disk rather than fail the test.
        let gcore = try await sandbox.runProcess(
            "/usr/bin/prlimit",
            ["--fsize=2000000000", "/usr/bin/timeout", "120", "/usr/bin/gcore", "-o", prefix,
             String(reader.process.processIdentifier)],
            environment: ["PATH": "/usr/bin:/bin"])
        let corePath = "\(prefix).\(reader.process.processIdentifier)"
        guard FileManager.default.fileExists(atPath: corePath) else {
            // Only root may attach to a non-dumpable process: anyone else is refused, which is the protection.
            #expect(geteuid() != 0, "gcore made no core as root: \(gcore.stderr)")
            return
        }
        let core = FileBytes.read(corePath)
        // A real core of that process: its command line is on its stack.
        #expect(core.count > 1_000_000)
        #expect(Self.contains(core, "find-generic-password"))
        #expect(!Self.contains(core, Self.marker), "the secret is in the core")
    }

    /// The kernel writes no core of `hardtack`, even after root raises its core-size limit again (it
    /// lowers its own to zero at start): it has marked itself non-dumpable. The same limit, signal (SIGSEGV) and
    /// directory give a core of `sleep`, which shows that this machine writes cores where the test looks.
    /// Where the kernel hands cores to a program instead (`core_pattern` starting with `|`, as apport and
    /// systemd-coredump set it), there is no file to look for, and the test does not run.
    @Test(
        .enabled(if: CoreDumpTests.kernelWritesCoreFiles, "cores go to a program here, not to files"),
        .enabled(if: !CoreDumpTests.underSanitizer, "a sanitizer's runtime catches the signal itself"))
    func theKernelWritesNoCoreOfHardtack() async throws {
        let directory = sandbox.directory.file("cores")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        func cores() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix("core") }
        }
        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeper.arguments = ["30"]
        try await abortWithCoresAllowed(sleeper, in: directory)
        try #require(!cores().isEmpty, "no core of sleep in \(directory): this machine writes its cores elsewhere")
        for name in cores() { try FileManager.default.removeItem(atPath: directory + "/" + name) }

        let reader = try await blockedReader(in: directory)
        defer { reader.stop() }
        try await abortWithCoresAllowed(reader.process, in: directory)
        #expect(reader.process.terminationReason == .uncaughtSignal && reader.process.terminationStatus == SIGSEGV)
        #expect(cores().isEmpty, "the kernel wrote a core of hardtack: \(cores())")
    }

    /// `hardtack keychain find-generic-password -w` on the large secret, blocked writing it to a pipe
    /// that is never read (64 KiB fill it): a running process that holds the secret.
    private func blockedReader(in directory: String? = nil) async throws -> BlockedReader {
        let add = try await sandbox.keychain(["add-generic-password", "-s", "big", "-a", "a", "-w", "-"], input: Self.secret)
        try #require(add.status == 0, "\(add.stderr)")
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: try #require(HardtackExecutable.path))
        reader.arguments = ["keychain", "--store", sandbox.store, "find-generic-password", "-s", "big", "-w"]
        // Swift's backtracer would catch the signal and take its time to print a backtrace first.
        reader.environment = sandbox.baseEnvironment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
        if let directory { reader.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let pipe = Pipe()
        reader.standardOutput = pipe
        reader.standardError = FileHandle.nullDevice
        reader.standardInput = FileHandle.nullDevice
        try reader.run()
        let blocked = BlockedReader(process: reader, pipe: pipe)
        var waiting: Int32 = 0
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))  // only against a hang
        while waiting < 65536, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            _ = ioctl(pipe.fileHandleForReading.fileDescriptor, UInt(FIONREAD), &waiting)
        }
        guard waiting >= 65536 && reader.isRunning else {
            blocked.stop()
            Issue.record("the reader did not block on the full pipe")
            throw CancellationError()
        }
        return blocked
    }

    /// Starts `process` (unless it runs) in `directory`, raises its core-size limit to unlimited with
    /// `prlimit`, sends SIGSEGV and waits for it to end. (SIGSEGV, whose default action is a core, as
    /// SIGABRT's is: a test process's children inherit its blocked signals, SIGABRT and SIGQUIT among
    /// them, and nothing blocks SIGSEGV.)
    private func abortWithCoresAllowed(_ process: Process, in directory: String) async throws {
        if !process.isRunning {
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
            try process.run()
        }
        let pid = String(process.processIdentifier)
        _ = try await sandbox.runProcess(
            "/usr/bin/prlimit", ["--pid", pid, "--core=unlimited:unlimited"], environment: ["PATH": "/usr/bin:/bin"])
        kill(process.processIdentifier, SIGSEGV)
        process.waitUntilExit()
    }

    /// Whether `text`'s bytes occur in `bytes`, found with `memchr` and `memcmp` (a core is a few hundred
    /// megabytes; Swift's generic search in a debug build takes seconds).
    static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
        let needle = Array(text.utf8)
        return bytes.withUnsafeBytes { haystack in
            needle.withUnsafeBytes { needle in
                guard let base = haystack.baseAddress, let first = needle.first, needle.count <= haystack.count else {
                    return false
                }
                var offset = 0
                let last = haystack.count - needle.count
                while offset <= last {
                    guard let hit = memchr(base + offset, Int32(first), last - offset + 1) else { return false }
                    let at = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + at, needle.baseAddress!, needle.count) == 0 { return true }
                    offset = at + 1
                }
                return false
            }
        }
    }
}

/// A `hardtack` process blocked writing a secret to a pipe nobody reads.
private struct BlockedReader {
    let process: Process
    let pipe: Pipe

    /// Ends it, if it still runs, and waits for it.
    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
