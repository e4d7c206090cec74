import Foundation

/// Scenario 10: the test suite built and run under AddressSanitizer (with LeakSanitizer) and
/// ThreadSanitizer, the `hardtack` processes it starts instrumented too. Every process writes its
/// reports to files, which are counted: there must be none.
///
/// Quick mode runs AddressSanitizer over the whole suite; long mode runs both sanitizers over it.
/// Builds go to `.build-asan` and `.build-tsan`, so later runs are incremental.
enum SanitizerScenario {
    static let scenario = Scenario(
        number: 10, name: "sanitizers",
        title: "the test suite under swift test --sanitize=address (leaks too) and --sanitize=thread: no reports",
        run: run)

    /// Leaks that are not Hardtack's: libcurl's global state, which FoundationNetworking never frees;
    /// XCTest's test-run bookkeeping; the weak references Foundation's `Process.run()` and
    /// `waitUntilExit()` allocate and never free (the CLI tests start processes with them); and the
    /// weak references of URLSession's curl driver (the tests post to servers with it; on Linux the
    /// product itself goes through libcurl directly).
    static let leakSuppressions = """
        leak:libcurl.so
        leak:libXCTest.so
        leak:10Foundation7ProcessC3run
        leak:10Foundation7ProcessC13waitUntilExit
        leak:_MultiHandle
        """

    static func run(_ context: ScenarioContext) {
        guard FileManager.default.fileExists(atPath: context.package + "/Package.swift") else {
            context.fail("no Package.swift in \(context.package); run through Tools/torture")
            return
        }
        // Every suite, in both modes. (Quick mode used to skip six suites that failed under ASan: the
        // cause was a leak, not their time bounds: `hardtack signin --flow code` kept Foundation's `Process`
        // for the browser it never waits on, and LeakSanitizer failed the child; BrowserOpener now starts
        // the browser through a shell that detaches it.)
        let runs: [(sanitizer: String, skip: [String])] = context.mode.pick(
            [("address", [])], [("address", []), ("thread", [])])
        for run in runs {
            sanitize(context, run.sanitizer, skipping: run.skip)
        }
        if context.mode == .quick {
            context.say("thread: not in quick mode (about 4 minutes here, more on CI); Tools/torture --long runs it")
        }
    }

    private static func sanitize(_ context: ScenarioContext, _ sanitizer: String, skipping: [String]) {
        let scratch = context.package + "/.build-" + (sanitizer == "address" ? "asan" : "tsan")
        let logs = context.directory("\(sanitizer)-reports")
        let suppressions = logs + "/lsan.supp"
        writeFile(suppressions, Array(leakSuppressions.utf8))
        var environment = ProcessInfo.processInfo.environment
        environment["ASAN_OPTIONS"] = "log_path=\(logs)/asan:detect_leaks=1"
        // A leak report does not fail the process it ends (exitcode=0): every report is counted from its
        // file below, where OpenSSL's per-thread error state alone is told apart (``isOpenSSLThreadState``).
        environment["LSAN_OPTIONS"] = "suppressions=\(suppressions):print_suppressions=0:exitcode=0"
        environment["TSAN_OPTIONS"] = "log_path=\(logs)/tsan:halt_on_error=0"
        // As Tools/test runs the suite: a few tests at a time per core, so that a test's timing is its own.
        if environment["SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH"] == nil {
            environment["SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH"] = String(
                6 * ProcessInfo.processInfo.activeProcessorCount)
        }
        let runner = CommandRunner(scratch: makeDirectory(context.work + "/runs"), environment: environment)
        let buildStarted = Date()
        let build = runner.run(
            "/usr/bin/env",
            [
                "swift", "build", "--build-tests", "--sanitize=\(sanitizer)", "--scratch-path", scratch,
                "--package-path", context.package,
            ],
            timeout: 60 * 60)
        let buildSeconds = Date().timeIntervalSince(buildStarted)
        guard build.status == 0 else {
            context.fail("\(sanitizer): the build failed: \(build.err.suffix(400)) \(build.out.suffix(400))")
            return
        }
        let testStarted = Date()
        let skips = skipping.flatMap { ["--skip", $0] }
        // Under a throwaway PostgreSQL and the test OpenID provider of its own, as Tools/test runs the suite.
        let test = runner.run(
            context.package + "/Tools/postgres",
            [
                "run", "--", context.package + "/Tools/oauth-server", "run", "--", "swift", "test", "--skip-build", "--sanitize=\(sanitizer)", "--scratch-path", scratch,
                "--package-path", context.package,
            ]
                + skips,
            timeout: 90 * 60)
        let testSeconds = Date().timeIntervalSince(testStarted)
        let output = test.out + test.err
        writeFile(logs + "/swift-test.log", Array(output.utf8))
        let summary =
            output.split(separator: "\n").last { $0.contains("Test run with") }.map(String.init) ?? "no summary"
        let failed = output.split(separator: "\n").filter {
            $0.hasPrefix("✘ Test ") && $0.contains("recorded an issue")
        }
        var reports: [String] = []
        var known = 0
        for file in filesUnder(logs) where !file.hasSuffix(".supp") {
            let text = String(decoding: readFile(file), as: UTF8.self)
            if isOpenSSLThreadState(text) {
                known += 1
                continue
            }
            for line in text.split(separator: "\n")
            where line.contains("ERROR: AddressSanitizer") || line.contains("ERROR: LeakSanitizer")
                || line.contains("WARNING: ThreadSanitizer") || line.contains("SUMMARY: ")
            {
                reports.append("\(URL(fileURLWithPath: file).lastPathComponent): \(line)")
            }
        }
        let reportCount = reports.filter { !$0.contains("SUMMARY: ") }.count
        context.say(
            "\(sanitizer): built in " + String(format: "%.0f s", buildSeconds) + ", tests in "
                + String(format: "%.0f s", testSeconds)
                + (skipping.isEmpty ? "" : " (skipping \(skipping.joined(separator: ", ")))")
                + "; \(summary.trimmingCharacters(in: .whitespaces)); sanitizer reports \(reportCount)"
                + (known > 0 ? " (and \(known) of OpenSSL's per-thread error state, not counted)" : ""))
        for line in reports.prefix(6) { context.say("  \(line.prefix(200))") }
        for line in failed.prefix(5) { context.say("  \(line.prefix(200))") }
        context.check(test.status == 0 && summary.contains("passed"), "\(sanitizer): the test run failed (\(summary))")
        context.check(reportCount == 0, "\(sanitizer): \(reportCount) sanitizer reports")
    }

    /// Whether a LeakSanitizer report holds nothing but OpenSSL's per-thread error state: one
    /// 904-byte object (`sizeof(ERR_STATE)` in OpenSSL 3.0) allocated by `CRYPTO_zalloc`, libcrypto's
    /// frames unwound no further. OpenSSL keeps one per thread that touched its error queue (libcurl's
    /// threads do) and frees it when the thread stops; a thread still running when the process exits
    /// leaves it behind, which LeakSanitizer reports now and then (seen once in three quick runs here,
    /// never in isolation). Any other leak, or this one with any other frame or size, still counts.
    static func isOpenSSLThreadState(_ report: String) -> Bool {
        guard report.contains("ERROR: LeakSanitizer") else { return false }
        let lines = report.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let leaks = lines.filter { $0.hasPrefix("Direct leak") || $0.hasPrefix("Indirect leak") }
        let frames = lines.filter { $0.hasPrefix("#") }
        return !leaks.isEmpty && leaks.allSatisfy { $0.contains(" of 904 byte(s) in 1 object(s)") }
            && frames.count == 2 * leaks.count
            && frames.enumerated().allSatisfy { index, frame in
                index % 2 == 0 ? frame.contains(" in malloc ") : frame.contains(" in CRYPTO_zalloc ")
            }
    }
}
