#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import CommandLineKit
import Foundation

// Everything happens in the command that runs; the store is closed (and its log checkpointed) before exit.
// The arguments are read as bytes, so one that is not valid UTF-8 is refused instead of altered.
let status = await Hardtack.program.run(
    argumentBytes: ArgumentBytes.process(), environment: ProcessInfo.processInfo.environment, output: Console.output)
// Output that could not be written (`find -w > /dev/full`) is a failure, whatever the command found.
if let failure = Console.outputFailure {
    Console.error(failure)
    exit(status == 0 ? ExitStatus.failure.rawValue : status)
}
exit(status)
