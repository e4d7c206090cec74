/// The timers of one ``EpollLoop``: a binary min-heap of deadlines, each naming the work to run then, used
/// by the loop's thread only. A cancelled timer leaves its heap entry behind, skipped when it comes due.
struct TimerHeap {
    /// A timer's identity, to cancel it.
    typealias ID = UInt64

    private struct Entry {
        let deadline: UInt64
        let id: ID
    }

    private var heap: [Entry] = []
    private var work: [ID: () -> Void] = [:]
    private var lastID: ID = 0

    /// Whether no timer is pending.
    var isEmpty: Bool { work.isEmpty }

    /// Adds a timer due at `deadline` (monotonic nanoseconds) that runs `body`.
    mutating func add(at deadline: UInt64, _ body: @escaping () -> Void) -> ID {
        lastID += 1
        work[lastID] = body
        heap.append(Entry(deadline: deadline, id: lastID))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { break }
            heap.swapAt(child, parent)
            child = parent
        }
        return lastID
    }

    /// Cancels timer `id`; nothing happens when it ran or was cancelled already.
    mutating func cancel(_ id: ID) {
        work[id] = nil
        if work.isEmpty { heap.removeAll(keepingCapacity: true) }
    }

    /// The earliest deadline of a pending timer, or `nil`.
    mutating func nextDeadline() -> UInt64? {
        while let first = heap.first {
            if work[first.id] != nil { return first.deadline }
            popFirst()
        }
        return nil
    }

    /// Takes out the work of the next timer due at or before `now`, or `nil` when none is.
    mutating func takeDue(now: UInt64) -> (() -> Void)? {
        while let first = heap.first, first.deadline <= now {
            popFirst()
            if let body = work.removeValue(forKey: first.id) { return body }
        }
        return nil
    }

    private mutating func popFirst() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            let right = left + 1
            let smaller = right < heap.count && heap[right].deadline < heap[left].deadline ? right : left
            guard heap[smaller].deadline < heap[parent].deadline else { return }
            heap.swapAt(smaller, parent)
            parent = smaller
        }
    }
}
