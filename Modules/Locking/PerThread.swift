#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value kept once per thread: each thread reads and changes a copy of its own (found by its
/// ``ThreadNumber``), so that threads that all change it at every request, a server's event loops, never
/// wait for one another, nor pass a cache line back and forth. Each copy sits behind a pthread mutex of
/// its own, which another thread takes only to go through every copy (``forEach(_:)``: a total, a
/// removal), to come back to a copy it used elsewhere (``withLock(copy:_:)``), or when more threads use it
/// than there are copies and two share one (thread numbers are the lowest free, so a server's long-lived
/// loops, started early, share one only when more than `copies` threads asked before them).
///
/// The copies and their mutexes lie in one allocation, each on cache lines of its own.
///
/// Safety (`@unchecked Sendable`): a copy is read and written only while its mutex is held; `storage`,
/// `copies` and `stride` are immutable.
package final class PerThread<Value: Sendable>: @unchecked Sendable {
    @usableFromInline let storage: UnsafeMutableRawPointer
    @usableFromInline let copies: Int
    @usableFromInline let stride: Int

    /// Where a copy's value lies from the start of its slot, after its mutex.
    @usableFromInline static var valueOffset: Int {
        let alignment = MemoryLayout<Value>.alignment
        return (MemoryLayout<pthread_mutex_t>.size + alignment - 1) / alignment * alignment
    }

    /// The alignment and the granularity of the slots: two cache lines, as the CPU's adjacent-line
    /// prefetcher fetches them in pairs.
    private static var slotAlignment: Int { 128 }

    /// `copies` copies, each made by `initial` (at least one copy; 16 serve a server's loops and the few
    /// other threads that count).
    package init(copies: Int = 16, _ initial: () -> Value) {
        precondition(MemoryLayout<Value>.alignment <= Self.slotAlignment, "a value aligned past a slot's alignment")
        self.copies = max(1, copies)
        let bytes = Self.valueOffset + MemoryLayout<Value>.size
        stride = max(1, (bytes + Self.slotAlignment - 1) / Self.slotAlignment) * Self.slotAlignment
        storage = UnsafeMutableRawPointer.allocate(byteCount: self.copies * stride, alignment: Self.slotAlignment)
        for index in 0..<self.copies {
            let slot = storage + index * stride
            let mutex = slot.initializeMemory(as: pthread_mutex_t.self, repeating: pthread_mutex_t(), count: 1)
            pthread_mutex_init(mutex, nil)
            (slot + Self.valueOffset).initializeMemory(as: Value.self, to: initial())
        }
    }

    deinit {
        for index in 0..<copies {
            let slot = storage + index * stride
            (slot + Self.valueOffset).assumingMemoryBound(to: Value.self).deinitialize(count: 1)
            pthread_mutex_destroy(slot.assumingMemoryBound(to: pthread_mutex_t.self))
        }
        storage.deallocate()
    }

    /// Runs `body` with the calling thread's copy, no other thread holding it meanwhile.
    @inlinable
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        try withCopy(currentCopy, body)
    }

    /// Which copy the calling thread uses: to come back to it from another thread (``withLock(copy:_:)``).
    @inlinable
    package var currentCopy: Int { ThreadNumber.current % copies }

    /// Runs `body` with copy `copy` (one ``currentCopy`` gave, on this thread or another), held meanwhile.
    @inlinable
    package func withLock<Result, Failure: Error>(copy: Int, _ body: (inout Value) throws(Failure) -> Result)
        throws(Failure) -> Result
    {
        precondition((0..<copies).contains(copy), "no such copy")
        return try withCopy(copy, body)
    }

    /// Runs `body` with each copy in turn, each held while `body` has it.
    @inlinable
    package func forEach(_ body: (inout Value) -> Void) {
        for index in 0..<copies { withCopy(index, body) }
    }

    /// Runs `body` with copy `index`, held meanwhile.
    @inlinable
    func withCopy<Result, Failure: Error>(_ index: Int, _ body: (inout Value) throws(Failure) -> Result)
        throws(Failure) -> Result
    {
        let slot = storage + index * stride
        let mutex = slot.assumingMemoryBound(to: pthread_mutex_t.self)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&(slot + Self.valueOffset).assumingMemoryBound(to: Value.self).pointee)
    }
}
