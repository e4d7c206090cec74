#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import CProcessHardening
import CommandLineKit
import Foundation

// Before anything is read: no core dump of this process, and no other process of this user attaching to
// it or reading its memory (/proc/PID/mem), since it holds keys, passphrases and tokens. Secrets are also
// kept in memory marked out of core dumps (SecretMemory), for adopters' processes that stay dumpable.
_ = hardtack_forbid_core_dumps()

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
