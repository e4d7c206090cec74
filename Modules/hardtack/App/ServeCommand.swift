#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Composition
import Dispatch
import Foundation

/// `hardtack serve`: the embedded auth server on a loopback port, until interrupted.
enum ServeCommand {
    static let port = OptionSpec.value("--port", "N", "The port on 127.0.0.1 (default: 8080; 0 picks a free one).")
    static let lifetime = OptionSpec.value(
        "--access-token-lifetime", "SECONDS", "How long access tokens live (default: 300).")
    static let refreshInBody = OptionSpec.flag(
        "--refresh-token-in-body", "Header style: send the refresh token as `refreshToken` in the JSON body.")
    static let bare = OptionSpec.flag(
        "--bare-authorization", "Header style: send the access token without the `Bearer ` prefix.")

    static let command = AppCommand(
        name: "serve",
        summary: "Run the embedded auth server on 127.0.0.1 over HTTP/1.1 (a development server).",
        options: [port, lifetime, refreshInBody, bare], operands: "", usesServer: false, usesStore: false,
        notes: [
            "A DEVELOPMENT server: plain HTTP on the loopback interface only, request heads up to 16 KiB and bodies "
                + "up to 64 KiB, users and tokens in memory (alice / wonderland; client id hardtack-cli). It speaks "
                + "both contracts: POST /oauth/token, /oauth/revoke, /auth/signin[/PROVIDER], /auth/refresh, "
                + "GET /api/me, and GET /debug/stats (counters, for tests). Never expose it to a network.",
            "It prints `listening on http://127.0.0.1:PORT` once ready and runs until SIGINT or SIGTERM.",
        ],
        run: { context, _ throws(CommandFailure) in
            let portNumber = try number(context, port, default: 8080, range: 0...65535)
            let seconds = try number(context, lifetime, default: 300, range: 1...86_400)
            let server: DevelopmentServer
            do throws(DevelopmentServerError) {
                server = try DevelopmentServer(
                    port: UInt16(portNumber), accessTokenLifetime: TimeInterval(seconds),
                    refreshTokenInBody: context.options.has(refreshInBody.name),
                    bareAuthorization: context.options.has(bare.name))
            } catch {
                throw .finding(.failure, "\(error). Choose another --port.")
            }
            Console.print("listening on \(server.baseURL.absoluteString)")
            await waitForTermination()
            await server.stop()
        })

    private static func number(_ context: AppContext, _ spec: OptionSpec, default value: Int, range: ClosedRange<Int>)
        throws(CommandFailure) -> Int
    {
        guard let text = context.options.value(spec.name) else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw context.usage("\(spec.name) takes a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// Suspends until SIGINT or SIGTERM arrives.
    private static func waitForTermination() async {
        let queue = DispatchQueue(label: "hardtack.serve.signals")
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            sources.append(DispatchSource.makeSignalSource(signal: signalNumber, queue: queue))
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let latch = SignalLatch(continuation)
            for source in sources {
                source.setEventHandler { latch.fire() }
                source.resume()
            }
        }
        for source in sources { source.cancel() }
    }
}

/// Resumes a continuation once, from whichever signal comes first. Guarded by a pthread mutex (an
/// `NSLock`) rather than Synchronization's `Mutex`, whose hand-off ThreadSanitizer cannot see on Linux.
private final class SignalLatch: Sendable {
    private let lock = NSLock()
    // Safety: read and written only while `lock` is held.
    private nonisolated(unsafe) var continuation: CheckedContinuation<Void, Never>?

    init(_ continuation: CheckedContinuation<Void, Never>) { self.continuation = continuation }

    func fire() {
        lock.lock()
        defer { lock.unlock() }
        continuation?.resume()
        continuation = nil
    }
}
