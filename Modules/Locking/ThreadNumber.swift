#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation

/// A small number for the calling thread: the lowest one no other live thread that asked holds, kept
/// for the thread's life and given back when it ends (a pthread key's destructor). So a process's few
/// long-lived threads, a server's event loops, hold distinct numbers from 0 up, and a ``PerThread``
/// value gives each of them a copy of its own.
package enum ThreadNumber {
    /// The numbers given back by threads that ended, and the next never given.
    private struct Numbers {
        var free: [Int] = []
        var next = 0
    }

    private static let numbers = Locked(Numbers())
    /// Holds each thread's number plus one (a thread that never asked holds null).
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let created = pthread_key_create(&key) { held in
            guard let held else { return }
            ThreadNumber.giveBack(Int(bitPattern: held) - 1)
        }
        precondition(created == 0, "no thread-specific key is left for ThreadNumber")
        return key
    }()

    /// The calling thread's number.
    package static var current: Int {
        if let held = pthread_getspecific(key) { return Int(bitPattern: held) - 1 }
        let number = numbers.withLock { numbers -> Int in
            if let lowest = numbers.free.min(), let index = numbers.free.firstIndex(of: lowest) {
                numbers.free.remove(at: index)
                return lowest
            }
            numbers.next += 1
            return numbers.next - 1
        }
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: number + 1))
        return number
    }

    private static func giveBack(_ number: Int) {
        numbers.withLock { $0.free.append(number) }
    }
}
