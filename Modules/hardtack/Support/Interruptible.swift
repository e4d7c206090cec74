#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Dispatch

/// Runs a long wait for the user (a browser or device sign-in) in a task that Ctrl-C (SIGINT) or
/// SIGTERM cancels, instead of ending the process where it stands: the work sees the cancellation,
/// stops waiting and stores nothing, and the command can say so. The signals' default actions come
/// back when the work ends.
enum Interruptible {
    /// The signals that cancel the work.
    static let signals = [SIGINT, SIGTERM]

    /// `body`'s result, or its error (a cancellation among them).
    static func run<Value: Sendable, Failure: Error>(
        _ body: @escaping @Sendable () async throws(Failure) -> Value
    ) async -> Result<Value, Failure> {
        let task = Task { () -> Result<Value, Failure> in
            do throws(Failure) {
                return .success(try await body())
            } catch {
                return .failure(error)
            }
        }
        let queue = DispatchQueue(label: "hardtack.interrupt")
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in signals {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler { task.cancel() }
            source.resume()
            sources.append(source)
        }
        let result = await task.value
        for source in sources { source.cancel() }
        for signalNumber in signals { signal(signalNumber, SIG_DFL) }
        return result
    }
}
