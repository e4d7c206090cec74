#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation

/// The memory ``SecretBytes`` live in: pages kept out of core dumps (`MADV_DONTDUMP`, on Linux), locked
/// in RAM so they are not swapped where the system's limit allows (`mlock`), with an inaccessible guard
/// page either side of each mapping, as libsodium's `sodium_malloc` keeps keys.
///
/// `sodium_malloc` itself maps at least three pages per allocation, too much for the many short-lived
/// secrets of a busy server (a token per call), so small secrets share mappings: each of eight size
/// classes (32 bytes to 4 KiB) carves 64 KiB mappings into slots, and a freed slot (wiped by its owner)
/// goes on the class's free list for the next secret of that class. A secret over 4 KiB has a mapping of
/// its own, unmapped when it is freed. Slots are reused, never returned to the system, as `malloc` does.
///
/// Locking is best effort: past `RLIMIT_MEMLOCK` the pages are still kept out of core dumps, only not
/// locked.
enum SecretMemory {
    /// The slot sizes, smallest first: a secret takes the smallest that holds it.
    static let slotSizes = [32, 64, 128, 256, 512, 1024, 2048, 4096]
    /// The usable bytes of each shared mapping, between its guard pages.
    static let chunkBytes = 64 * 1024

    /// Per class: the address of the first free slot, 0 for none (each free slot holds the next one's
    /// address in its first bytes), and the part of the newest mapping not handed out yet. Addresses are
    /// kept as integers, which cross into the lock as plain values.
    private struct State: ~Copyable {
        var freeSlots = [UInt](repeating: 0, count: slotSizes.count)
        var unusedStart = [UInt](repeating: 0, count: slotSizes.count)
        var unusedCount = [Int](repeating: 0, count: slotSizes.count)
    }

    /// Guards `state`: a pthread mutex (`NSLock`), whose hand-offs ThreadSanitizer sees, where
    /// Synchronization's `Mutex` had every secret's allocation reported as a race on Linux.
    private static let lock = NSLock()
    // Safety: read and written only in ``withState(_:)``, while `lock` is held.
    private nonisolated(unsafe) static var state = State()
    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// `byteCount` bytes (at least one) of secret memory, aligned to 16 bytes. Their contents are
    /// undefined; the caller wipes them before ``deallocate(_:)``.
    static func allocate(byteCount: Int) -> UnsafeMutableRawBufferPointer {
        let size = max(byteCount, 1)
        guard let slotClass = slotSizes.firstIndex(where: { $0 >= size }) else {
            let pages = mapGuarded(byteCount: size)
            return UnsafeMutableRawBufferPointer(start: pages.baseAddress, count: size)
        }
        let slotSize = slotSizes[slotClass]
        let address = withState { state -> UInt in
            let free = state.freeSlots[slotClass]
            if free != 0 {
                state.freeSlots[slotClass] = UnsafeRawPointer(bitPattern: free)!.load(as: UInt.self)
                return free
            }
            if state.unusedCount[slotClass] < slotSize {
                let pages = mapGuarded(byteCount: chunkBytes)
                state.unusedStart[slotClass] = UInt(bitPattern: pages.baseAddress)
                state.unusedCount[slotClass] = pages.count
            }
            let slot = state.unusedStart[slotClass]
            state.unusedStart[slotClass] += UInt(slotSize)
            state.unusedCount[slotClass] -= slotSize
            return slot
        }
        return UnsafeMutableRawBufferPointer(start: UnsafeMutableRawPointer(bitPattern: address), count: size)
    }

    /// Gives back memory from ``allocate(byteCount:)`` (with the same count), already wiped.
    static func deallocate(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress else { return }
        let size = max(buffer.count, 1)
        guard let slotClass = slotSizes.firstIndex(where: { $0 >= size }) else {
            // Unmapping also unlocks.
            munmap(base - pageSize, roundedToPages(size) + 2 * pageSize)
            return
        }
        let address = UInt(bitPattern: base)
        withState { state in
            UnsafeMutableRawPointer(bitPattern: address)!.storeBytes(of: state.freeSlots[slotClass], as: UInt.self)
            state.freeSlots[slotClass] = address
        }
    }

    /// Runs `body` with the free lists, no other thread holding them meanwhile.
    private static func withState<Result>(_ body: (inout State) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }

    /// `byteCount` rounded up to whole pages.
    private static func roundedToPages(_ byteCount: Int) -> Int {
        (byteCount + pageSize - 1) / pageSize * pageSize
    }

    /// A fresh mapping of `byteCount` bytes (rounded up to pages) between two inaccessible guard pages,
    /// kept out of core dumps, and locked in RAM when the limit allows.
    private static func mapGuarded(byteCount: Int) -> UnsafeMutableRawBufferPointer {
        let length = roundedToPages(byteCount)
        let total = length + 2 * pageSize
        guard let mapping = mmap(nil, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), Int(bitPattern: mapping) != -1,
            mprotect(mapping + pageSize, length, PROT_READ | PROT_WRITE) == 0
        else {
            // As `malloc` failing would: there is no memory left to hold a secret in.
            fatalError("out of memory: cannot map \(total) bytes for secrets")
        }
        let pages = mapping + pageSize
        #if os(Linux)
            // The guard pages too: nothing of the mapping is worth a core's space.
            _ = madvise(mapping, total, MADV_DONTDUMP)
        #endif
        _ = mlock(pages, length)
        return UnsafeMutableRawBufferPointer(start: pages, count: length)
    }
}
