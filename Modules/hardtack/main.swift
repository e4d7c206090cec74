#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation

// Everything happens in `Hardtack.run`; the store is closed (and its log checkpointed) before exit.
let status = await Hardtack.run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
exit(status.rawValue)
