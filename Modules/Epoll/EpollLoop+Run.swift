internal import CEpoll
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The loop's thread: started when work comes, running it, the timers and the ready descriptors' handlers,
/// ended once idle for the linger.
extension EpollLoop {
    func startThread() {
        guard isWorking else {
            // No descriptors, no loop: what was handed over runs on Dispatch's threads, one at a time.
            return DispatchQueue.global().async { [self] in fallback() }
        }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let started = pthread_create(
            &thread, nil,
            { raw in
                // The thread's reference, taken at its start and let go of when it ends.
                let loop = Unmanaged<EpollLoop>.fromOpaque(raw!).takeRetainedValue()
                loop.run()
                return nil
            }, context)
        if started == 0 {
            pthread_detach(thread)
        } else {
            // No thread to be had: the loop runs whole on one of Dispatch's, its descriptors and timers
            // included (work alone would leave a watch made meanwhile unheard).
            Unmanaged<EpollLoop>.fromOpaque(context).release()
            DispatchQueue.global().async { [self] in run(naming: false) }
        }
    }

    /// Runs what was handed over, without a loop (the system gave it no descriptors), and what that work
    /// queues in turn.
    func fallback() {
        pthread_setspecific(Self.currentKey, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(Self.currentKey, nil) }
        while true {
            takeInbound()
            runLocal(rounds: .max)
            runPassEnd()
            if local.isEmpty, endIfNothingHandedOver() { return }
        }
    }

    /// Ends this turn of the loop (its thread, or a fallback's run) when nothing waits to be taken in:
    /// `true` then, and the next work starts another. Under `lock`, so that work handed over meanwhile
    /// either is seen here or starts that next turn.
    private func endIfNothingHandedOver() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard inbound.isEmpty else { return false }
        threadRuns = false
        return true
    }

    /// The thread's life: run the work handed over, the timers due and the handlers of ready descriptors,
    /// then wait for more; end once idle for the linger.
    func run(naming: Bool = true) {
        pthread_setspecific(Self.currentKey, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(Self.currentKey, nil) }
        if naming { hardtack_name_thread(name) }
        var readyDescriptors = [Int32](repeating: -1, count: 128)
        var readyEvents = [UInt32](repeating: 0, count: 128)
        var idleSince = Self.now()
        while true {
            takeInbound()
            runLocal(rounds: 8)
            let now = Self.now()
            while let body = timers.takeDue(now: now) { body() }
            runLocal(rounds: 8)
            runPassEnd()
            var timeout: Int32 = -1
            if !local.isEmpty {
                timeout = 0
            } else if let deadline = timers.nextDeadline() {
                timeout = Self.milliseconds(from: now, to: deadline)
            }
            if holds == 0, timeout != 0 {
                let idle = now &- idleSince
                if idle >= lingerNanoseconds {
                    if endIfNothingHandedOver() { return }
                    continue
                }
                let left = Self.milliseconds(from: now, to: idleSince &+ lingerNanoseconds)
                timeout = timeout < 0 ? left : min(timeout, left)
            }
            lock.lock()
            if !inbound.isEmpty { timeout = 0 }
            sleeping = timeout != 0
            lock.unlock()
            let count = readyDescriptors.withUnsafeMutableBufferPointer { descriptors in
                readyEvents.withUnsafeMutableBufferPointer { events in
                    hardtack_epoll_wait(
                        epoll, descriptors.baseAddress, events.baseAddress, Int32(descriptors.count), timeout)
                }
            }
            if timeout != 0 {
                lock.lock()
                sleeping = false
                woken = false
                lock.unlock()
            }
            if count > 0 {
                // A handler may close a descriptor whose number a new one then takes within this batch: that
                // number's event, if any, goes to the new one's handler as a spurious readiness, which every
                // handler here tolerates (its reads and writes do not block).
                for index in 0..<Int(count) {
                    let descriptor = readyDescriptors[index]
                    let ready = Events(rawValue: readyEvents[index])
                    if descriptor == wake {
                        var value: UInt64 = 0
                        _ = read(wake, &value, 8)
                    } else if Int(descriptor) < watchers.count, let watcher = watchers[Int(descriptor)] {
                        watcher.handler(ready)
                    }
                }
            }
            if holds > 0 || count > 0 || !local.isEmpty { idleSince = Self.now() }
        }
    }

    /// Runs the work asked for at the end of this pass (``atEndOfPass(key:_:)``).
    func runPassEnd() {
        guard !passEnd.isEmpty else { return }
        let due = passEnd
        passEnd.removeAll(keepingCapacity: true)
        for (_, body) in due { body() }
    }

    /// Moves the work handed over from other threads to the local queue.
    func takeInbound() {
        lock.lock()
        swap(&inbound, &spareInbound)
        lock.unlock()
        guard !spareInbound.isEmpty else { return }
        local.append(contentsOf: spareInbound)
        spareInbound.removeAll(keepingCapacity: true)
    }

    /// Runs the local queue, and what that work queues, for up to `rounds` rounds (the rest waits for the
    /// next pass, so that the descriptors are not starved).
    func runLocal(rounds: Int) {
        var round = 0
        while !local.isEmpty, round < rounds {
            round += 1
            swap(&local, &running)
            let executor = asUnownedTaskExecutor()
            for work in running {
                switch work {
                case .job(let job): job.runSynchronously(on: executor)
                case .closure(let body): body()
                }
            }
            running.removeAll(keepingCapacity: true)
        }
    }

    /// The thread's loop, for ``current``.
    static let currentKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
}
