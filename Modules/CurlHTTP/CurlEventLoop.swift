import CCurl
import Foundation

/// One thread driving a client's transfers through curl's multi interface, as an event loop does: it
/// waits for any of their sockets (or a wake-up) in `curl_multi_poll`, lets curl move each one on, and
/// hands each finished one its result. A transfer costs no thread of its own, and a busy loop takes many
/// answers per wake-up instead of waking one thread per answer. The loop keeps the connections its
/// transfers leave open (up to its `idleConnections`) for the next ones; its thread runs while there are
/// transfers, and ends after ``linger`` seconds without any (the next transfer starts another).
///
/// Handles reach the loop through ``start(_:as:finished:)`` and are resumed after a pause through
/// ``resume(_:)``, from any thread; curl's calls on them (and their callbacks) happen on the loop's thread
/// only. A transfer's callbacks must never block: a body the reader is not ready for pauses it
/// (`CURL_WRITEFUNC_PAUSE`) instead.
///
/// Safety (`@unchecked Sendable`): `multi` is used by one thread at a time: the loop's thread while it
/// runs (a new one starts only after the last ended, both decided under `lock`), and `deinit` when no
/// thread holds the loop; `curl_multi_wakeup`, which libcurl allows from any thread, is the exception.
/// `incoming`, `resumptions`, `threadRuns` and `lastID` are read and written under `lock` only; `running`
/// is the running thread's alone. A transfer's `finished` closure (not `Sendable`: it holds the transfer's
/// curl callbacks' state) is handed from the starting thread to the loop's under `lock`, and called and
/// let go of there only, after curl's last callback for it.
final class CurlEventLoop: @unchecked Sendable {
    /// A transfer's handle while the loop has it, and what to call when it ends.
    private struct Transfer {
        let handle: UnsafeMutableRawPointer
        let id: ID
        let finished: (CURLcode) -> Void
    }

    /// One transfer, among all this loop ran: a resumption names it, not just its handle, which the
    /// transfers after it reuse.
    struct ID: Equatable, Sendable {
        fileprivate let handle: CurlHandlePool.Handle
        fileprivate let number: UInt64
    }

    /// Seconds the thread waits for a transfer before it ends.
    let linger: Double
    private let multi: UnsafeMutableRawPointer?
    private let lock = NSLock()
    private var incoming: [Transfer] = []
    private var resumptions: [ID] = []
    private var threadRuns = false
    private var lastID: UInt64 = 0
    private var running: [UnsafeMutableRawPointer: Transfer] = [:]

    /// A loop keeping at most `idleConnections` connections open between transfers, whose thread waits
    /// `linger` seconds for the next transfer before it ends.
    init(idleConnections: Int, linger: Double = 10) {
        self.linger = linger
        multi = CurlHandlePool.globalSetup == CURLE_OK ? curl_multi_init() : nil
        // 0 would mean curl's default (a few per transfer); a loop keeping none gets one, and its
        // transfers forbid reuse (``CurlTransfer``).
        guard let multi else { return }
        _ = hardtack_curl_multi_set_long(multi, CURLMOPT_MAXCONNECTS, max(1, idleConnections))
        // One transfer per connection, as each transfer had when it ran alone: no HTTP/2 multiplexing, whose
        // pauses and early ends (a stream reset, not a closed connection) this code does not rely on.
        _ = hardtack_curl_multi_set_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_NOTHING))
    }

    deinit {
        // No thread runs (it holds the loop), so no transfer is running: the connections kept are closed.
        if let multi { curl_multi_cleanup(multi) }
    }

    /// Whether the loop's thread runs now (it ends after ``linger`` seconds without a transfer).
    var threadIsRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return threadRuns
    }

    /// A new transfer's identity, for ``start(_:as:finished:)`` and ``resume(_:)``.
    func transferID(for handle: CurlHandlePool.Handle) -> ID {
        lock.lock()
        defer { lock.unlock() }
        lastID += 1
        return ID(handle: handle, number: lastID)
    }

    /// Runs the transfer set up on `id`'s handle; `finished` gets curl's result on the loop's thread once it
    /// is over (the handle then is the caller's again). `false` when the loop could not start (curl could
    /// not set up): nothing was run.
    func start(_ handle: CurlHandlePool.Handle, as id: ID, finished: @escaping (CURLcode) -> Void) -> Bool {
        guard let multi else { return false }
        lock.lock()
        incoming.append(Transfer(handle: handle.raw, id: id, finished: finished))
        let startsThread = !threadRuns
        threadRuns = true
        lock.unlock()
        if startsThread {
            let thread = Thread { [self] in run() }
            thread.name = "hardtack.curl"
            thread.start()
        } else {
            curl_multi_wakeup(multi)
        }
        return true
    }

    /// Resumes the paused transfer `id` (curl then hands its callbacks what it held back). Nothing happens
    /// when that transfer is over, or not paused.
    func resume(_ id: ID) {
        guard let multi else { return }
        lock.lock()
        resumptions.append(id)
        lock.unlock()
        curl_multi_wakeup(multi)
    }

    /// The thread's life: take what arrived, let curl work, hand over what finished, wait; end once idle
    /// for ``linger`` seconds.
    private func run() {
        guard let multi else { return }
        var idleSince = ContinuousClock.now
        while true {
            lock.lock()
            if incoming.isEmpty, running.isEmpty, ContinuousClock.now - idleSince > .seconds(linger) {
                threadRuns = false
                lock.unlock()
                return
            }
            let arrived = incoming
            let resumed = resumptions
            incoming.removeAll(keepingCapacity: true)
            resumptions.removeAll(keepingCapacity: true)
            lock.unlock()
            for transfer in arrived {
                if curl_multi_add_handle(multi, transfer.handle) == CURLM_OK {
                    running[transfer.handle] = transfer
                } else {
                    transfer.finished(CURLE_FAILED_INIT)
                }
            }
            for id in resumed where running[id.handle.raw]?.id == id { _ = hardtack_curl_unpause(id.handle.raw) }
            var active: Int32 = 0
            _ = curl_multi_perform(multi, &active)
            var handle: UnsafeMutableRawPointer?
            var result = CURLE_OK
            while hardtack_curl_multi_done(multi, &handle, &result) == 1 {
                guard let done = handle, let transfer = running.removeValue(forKey: done) else { continue }
                curl_multi_remove_handle(multi, done)
                transfer.finished(result)
            }
            if !running.isEmpty { idleSince = ContinuousClock.now }
            // Wakes for a socket, a wake-up, or curl's next timer (at most a second away: each transfer's
            // progress callback, which times it and sees it cancelled, is called at least that often). A
            // poll that fails (out of memory, say) is not retried at once, which would spin.
            if curl_multi_poll(multi, nil, 0, 1000, nil) != CURLM_OK { usleep(10_000) }
        }
    }
}
