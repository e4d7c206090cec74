/// A ring of bytes: appended at the back, taken from the front, its storage moved to a larger one on
/// request. Not thread-safe: ``HTTPBodyBuffer`` uses it only with its lock held. Noncopyable, and held inline
/// by its buffer: its storage is its own, and a buffer made at every request allocates no object for it.
struct ByteRing: ~Copyable {
    private var storage: UnsafeMutableRawBufferPointer
    /// Where the oldest byte held is.
    private var start = 0
    /// How many bytes are held.
    private(set) var count = 0

    /// An empty ring of `size` bytes.
    init(size: Int) {
        storage = .allocate(byteCount: max(1, size), alignment: 1)
    }

    deinit {
        storage.deallocate()
    }

    /// How many bytes the ring can hold.
    var size: Int { storage.count }

    /// Copies as many of `bytes` as there is room for behind the bytes held; how many.
    mutating func append(_ bytes: UnsafeRawBufferPointer) -> Int {
        let length = min(storage.count - count, bytes.count)
        guard length > 0 else { return 0 }
        let tail = (start + count) % storage.count
        let first = min(length, storage.count - tail)
        (storage.baseAddress! + tail).copyMemory(from: bytes.baseAddress!, byteCount: first)
        if first < length {
            storage.baseAddress!.copyMemory(from: bytes.baseAddress! + first, byteCount: length - first)
        }
        count += length
        return length
    }

    /// Copies the `length` oldest bytes (at most ``count``) into `buffer` and lets go of them.
    mutating func take(_ length: Int, into buffer: UnsafeMutableRawBufferPointer) {
        guard length > 0 else { return }
        let first = min(length, storage.count - start)
        buffer.baseAddress!.copyMemory(from: storage.baseAddress! + start, byteCount: first)
        if first < length {
            (buffer.baseAddress! + first).copyMemory(from: storage.baseAddress!, byteCount: length - first)
        }
        start = (start + length) % storage.count
        count -= length
    }

    /// Lets go of every byte held.
    mutating func removeAll() {
        count = 0
    }

    /// Moves the bytes held, oldest first, into new storage of `size` bytes (at least ``count``).
    mutating func resize(to size: Int) {
        let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, size, count), alignment: 1)
        let held = count
        take(held, into: larger)
        storage.deallocate()
        (storage, start, count) = (larger, 0, held)
    }
}
