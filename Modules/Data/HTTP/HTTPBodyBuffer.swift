import Foundation
import Locking

/// The bytes between an ``HTTPBodyWriter`` and its ``HTTPBodyStream``: a ring of up to `capacity` bytes,
/// never more, that the writer fills (waiting while it is full) and the reader empties (told to wait while
/// it is empty), and the stream's state: open, finished by the writer, failed, or given up by the reader.
///
/// Safety (`@unchecked Sendable`): every mutable field, `ring` and its bytes included, is read and
/// written with `condition` locked; the ring is this buffer's alone.
final class HTTPBodyBuffer: @unchecked Sendable {
    /// Where the stream is.
    enum State {
        /// The writer may write more.
        case open
        /// The writer wrote its last byte.
        case finished
        /// The stream failed: the writer's transfer, its limit, or the reader's server stopping.
        case failed(HTTPClientError)
        /// The reader wants no more.
        case cancelled
    }

    /// The most bytes held at once.
    let capacity: Int
    /// The most bytes written in all, if bounded.
    let limit: Int?
    private let condition = ConditionLock()
    private var ring: ByteRing
    private var written = 0
    private var delivered = 0
    private var highWater = 0
    private var state = State.open
    private var waker: (@Sendable () -> Void)?
    private var roomWaiter: (@Sendable () -> Void)?
    /// The room the writer told to wait needs (what it could not write).
    private var roomNeeded = 0
    /// The waker, the writer's room callback and the end's observer, taken under the lock, to be called once
    /// it is let go of: each may run the other side's code at once (an event loop's, or a job on this
    /// thread), which may come back here.
    private var dueWaker: (@Sendable () -> Void)?
    private var dueRoom: (@Sendable () -> Void)?
    private var dueEnding: (() -> Void)?
    private var observer: (@Sendable (HTTPBodyStream.Ending, Int) -> Void)?
    private var ending: HTTPBodyStream.Ending?

    init(capacity: Int, limit: Int?) {
        self.capacity = max(1, capacity)
        self.limit = limit
        // Small at first, grown as bytes wait in it: most bodies are small, and a large block allocated and
        // freed for each of them costs the allocator more than the copy of a rare growth.
        ring = ByteRing(size: min(self.capacity, Self.firstRingBytes))
    }

    /// The most bytes that were held at once so far.
    var highWaterMark: Int { locked { highWater } }

    /// Whether the writer should stop: the reader went away or the stream ended.
    var isClosed: Bool {
        locked {
            if case .open = state { return false }
            return true
        }
    }

    /// Copies `bytes` in, waiting while the ring is full; `false` (nothing more is wanted) once the reader
    /// went away, the stream failed, or `bytes` would take it past `limit` (it then fails with
    /// ``HTTPClientError/responseTooLarge(limit:)``).
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        condition.lock()
        defer { unlockCalling() }
        guard admits(bytes.count) else { return false }
        var done = 0
        while done < bytes.count {
            while ring.count >= capacity, case .open = state {
                // The reader may be waiting for what was just put: woken before this writer waits.
                if dueWaker != nil || dueRoom != nil {
                    unlockCalling()
                    condition.lock()
                    continue
                }
                condition.wait()
            }
            guard case .open = state else { return false }
            done += put(UnsafeRawBufferPointer(rebasing: bytes[done...]))
        }
        return true
    }

    /// Copies all of `bytes` in if they fit now, without waiting (`.written`); when they do not, copies
    /// nothing, and `whenRoom` is called once (not under the lock) as soon as the reader has taken every byte
    /// held, or the stream closed (`.full`): a writer a slow reader holds back goes on for a whole buffer each
    /// time, not for a chunk (each pause of a curl transfer copies the chunk it refused, and a chunk's
    /// worth of room came back far more often than a buffer's). `.closed` where ``write(_:)`` gives `false`. Bytes more than ``capacity`` fit once the ring
    /// is empty: it holds them, over its capacity, until they are read.
    func write(_ bytes: UnsafeRawBufferPointer, whenRoom: @escaping @Sendable () -> Void) -> HTTPBodyWriter.Attempt {
        condition.lock()
        defer { unlockCalling() }
        guard admits(bytes.count) else { return .closed }
        guard hasRoom(for: bytes.count) else {
            (roomWaiter, roomNeeded) = (whenRoom, max(bytes.count, capacity))
            return .full
        }
        if ring.size - ring.count < bytes.count { ring.resize(to: max(ring.size, ring.count + bytes.count)) }
        _ = put(bytes)
        return .written
    }

    /// Whether `length` bytes fit now: within the capacity, or (more than it) into an empty ring. With
    /// `condition` locked.
    private func hasRoom(for length: Int) -> Bool {
        ring.count == 0 || capacity - ring.count >= length
    }

    /// Whether `length` more bytes may be written: the stream is open and stays within `limit` (past it
    /// the stream fails). With `condition` locked.
    private func admits(_ length: Int) -> Bool {
        guard case .open = state else { return false }
        if let limit, written + length > limit {
            close(.failed(.responseTooLarge(limit: limit)), keepingBytes: true)
            return false
        }
        return true
    }

    /// Copies as many of `bytes` as there is room for behind the bytes held (the ring grown toward
    /// ``capacity`` first if they do not fit in it), and wakes the reader; how many. With `condition` locked.
    private func put(_ bytes: UnsafeRawBufferPointer) -> Int {
        if ring.size - ring.count < bytes.count, ring.size < capacity {
            ring.resize(to: min(capacity, max(2 * ring.size, ring.count + bytes.count)))
        }
        let length = ring.append(bytes)
        written += length
        highWater = max(highWater, ring.count)
        wake()
        return length
    }

    /// The writer wrote its last byte: the reader gets what is held, then the end.
    func finish() {
        condition.lock()
        close(.finished, keepingBytes: true)
        unlockCalling()
    }

    /// The stream fails with `error`: from the writer's side the reader still gets the bytes held first;
    /// from the reader's side (its server stopping) they are dropped. A waiting writer is released.
    func fail(_ error: HTTPClientError, keepingBytes: Bool) {
        condition.lock()
        close(.failed(error), keepingBytes: keepingBytes)
        unlockCalling()
    }

    /// Copies up to `buffer.count` bytes out. When there are none yet, calls `suspend` (with the buffer
    /// locked) and keeps `waker` to call once when bytes or the end arrive (after the writer unlocked it).
    func read(
        into buffer: UnsafeMutableRawBufferPointer, suspend: () -> Void, wake waker: @escaping @Sendable () -> Void
    ) -> HTTPBodyStream.Read {
        condition.lock()
        if ring.count > 0 {
            let length = min(ring.count, buffer.count)
            take(length, into: buffer)
            releaseWriter()
            unlockCalling()
            return .bytes(length)
        }
        let outcome: HTTPBodyStream.Read
        let ending: HTTPBodyStream.Ending
        switch state {
        case .open:
            suspend()
            self.waker = waker
            unlockCalling()
            return .waiting
        case .finished: (outcome, ending) = (.end, .complete)
        case .failed(let error): (outcome, ending) = (.failed(error), .failed(error))
        case .cancelled: (outcome, ending) = (.failed(.transport("the body was cancelled")), .cancelled)
        }
        settle(ending)
        unlockCalling()
        return outcome
    }

    /// Every byte of the body, when the writer has finished it and the reader has read none: taken, so that
    /// the reader has had it all (and the stream ended complete). `nil` otherwise, changing nothing.
    func takeWhole() -> Data? {
        condition.lock()
        guard case .finished = state, delivered == 0, ring.count == written else {
            unlockCalling()
            return nil
        }
        var whole = Data(count: ring.count)
        whole.withUnsafeMutableBytes { take(ring.count, into: $0) }
        settle(.complete)
        unlockCalling()
        return whole
    }

    /// Calls `observer` once the reader has seen the end or a failure, or gave up (at once if it has).
    func whenEnded(_ observer: @escaping @Sendable (HTTPBodyStream.Ending, Int) -> Void) {
        condition.lock()
        guard let ending else {
            self.observer = observer
            unlockCalling()
            return
        }
        let delivered = delivered
        unlockCalling()
        observer(ending, delivered)
    }

    /// The reader gives up: the bytes held are dropped, a waiting writer released, a waiting reader woken.
    func cancel() {
        condition.lock()
        var ending = HTTPBodyStream.Ending.cancelled
        switch state {
        case .open: state = .cancelled
        case .finished: if ring.count > 0 { state = .cancelled } else { ending = .complete }
        case .failed(let error): ending = .failed(error)
        case .cancelled: break
        }
        ring.removeAll()
        releaseWriter()
        wake()
        settle(ending)
        unlockCalling()
    }

    /// The ring's first size (one of curl's writes).
    static let firstRingBytes = 512

    /// Copies the `length` oldest bytes held into `buffer` and lets go of them: the reader has had them.
    /// With `condition` locked.
    private func take(_ length: Int, into buffer: UnsafeMutableRawBufferPointer) {
        ring.take(length, into: buffer)
        delivered += length
    }

    /// Ends the stream, the first time. With `condition` locked.
    private func close(_ ending: State, keepingBytes: Bool) {
        guard case .open = state else { return }
        state = ending
        if !keepingBytes { ring.removeAll() }
        releaseWriter()
        wake()
    }

    /// Lets a writer waiting for room go on: one blocked in ``write(_:)``, or the one told to wait by
    /// ``write(_:whenRoom:)`` once there is room for what it could not write, or the stream closed. With
    /// `condition` locked; the callback is called once it is unlocked.
    private func releaseWriter() {
        condition.broadcast()
        guard let roomWaiter else { return }
        if case .open = state, !hasRoom(for: roomNeeded) { return }
        self.roomWaiter = nil
        dueRoom = roomWaiter
    }

    /// Calls the reader's waker, once, when `condition` is unlocked. With `condition` locked.
    private func wake() {
        guard let waker else { return }
        self.waker = nil
        dueWaker = waker
    }

    /// Unlocks `condition`, then calls the waker, room callback and end's observer taken while it was locked.
    private func unlockCalling() {
        let (waker, room, ended) = (dueWaker, dueRoom, dueEnding)
        (dueWaker, dueRoom, dueEnding) = (nil, nil, nil)
        condition.unlock()
        waker?()
        room?()
        ended?()
    }

    /// Notes how the stream ended for the reader, the first time; its observer is told once `condition` is
    /// unlocked. With `condition` locked.
    private func settle(_ ending: HTTPBodyStream.Ending) {
        guard self.ending == nil else { return }
        self.ending = ending
        guard let observer else { return }
        self.observer = nil
        let delivered = delivered
        dueEnding = { observer(ending, delivered) }
    }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { unlockCalling() }
        return body()
    }
}
