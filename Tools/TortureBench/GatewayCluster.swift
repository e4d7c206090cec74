import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `hardtack gateway` instances on one store, each on a port of its own that it keeps across restarts,
/// as the servers behind a load balancer. Used from the scenario's thread only; the load's workers get
/// the ports through ``balancer``.
final class GatewayCluster {
    private var children: [ChildProcess?]
    /// Every instance's port, in order.
    let ports: [UInt16]
    /// Round robin over the instances' ports.
    let balancer: RoundRobin
    private let hardtack: String
    private let arguments: [String]
    private let environment: [String: String]
    private let errors: String

    /// Starts `count` instances of `hardtack gateway ARGUMENTS --listen 127.0.0.1:0`, each logging to a
    /// file that starts with `errors`, and waits until each listens.
    init(count: Int, hardtack: String, arguments: [String], environment: [String: String], errors: String) throws {
        self.hardtack = hardtack
        self.arguments = arguments
        self.environment = environment
        self.errors = errors
        var started: [ChildProcess] = []
        var ports: [UInt16] = []
        for index in 0..<count {
            do {
                let (child, port) = try Self.start(
                    hardtack, arguments, port: 0, environment: environment, errors: "\(errors)-\(index)")
                started.append(child)
                ports.append(port)
            } catch {
                for child in started { _ = child.killAndReap() }
                throw error
            }
        }
        children = started
        self.ports = ports
        balancer = RoundRobin(ports)
    }

    /// The pids of the instances running now.
    var pids: [pid_t] { children.compactMap { $0?.pid } }

    /// The pid of instance `index`, when it is running.
    func pid(_ index: Int) -> pid_t? { children[index]?.pid }

    /// The instance running as `pid`, if any.
    func index(of pid: pid_t) -> Int? {
        children.firstIndex { $0?.pid == pid }
    }

    /// Kills instance `index` with SIGKILL (when something else has not already) and reaps it.
    func kill(_ index: Int) {
        _ = children[index]?.killAndReap()
        children[index] = nil
    }

    /// Starts instance `index` again on its port (retrying while the port is still held).
    func restart(_ index: Int) throws {
        var lastError: (any Error)?
        for _ in 0..<20 {
            do {
                let (child, _) = try Self.start(
                    hardtack, arguments, port: ports[index], environment: environment, errors: "\(errors)-\(index)")
                children[index] = child
                return
            } catch {
                lastError = error
                usleep(250_000)
            }
        }
        throw lastError ?? ChildProcess.SpawnError(description: "gateway \(index) did not start")
    }

    /// Stops every instance with SIGTERM (SIGKILL after 10 s).
    func stop() {
        for child in children.compactMap({ $0 }) {
            child.kill(SIGTERM)
            _ = child.wait(timeout: 10) ?? child.killAndReap()
        }
        children = children.map { _ in nil }
    }

    private static func start(
        _ hardtack: String, _ arguments: [String], port: UInt16, environment: [String: String], errors: String
    ) throws -> (ChildProcess, UInt16) {
        let child = try ChildProcess.spawn(
            hardtack, ["gateway"] + arguments + ["--listen", "127.0.0.1:\(port)"], environment: environment,
            stdout: .pipe, stderr: .file(errors + ".\(Int(Date().timeIntervalSince1970 * 1000))"))
        guard let (bound, _) = child.listeningPort(timeout: 30) else {
            _ = child.killAndReap()
            throw ChildProcess.SpawnError(description: "hardtack gateway did not say where it listens (see \(errors)*)")
        }
        return (child, bound)
    }
}
