import CCurl
import Epoll
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One curl multi handle driven by one ``EpollLoop`` through curl's socket interface: the loop watches
/// exactly the sockets curl names (`CURLMOPT_SOCKETFUNCTION`) and runs the timer curl asks for
/// (`CURLMOPT_TIMERFUNCTION`), and tells curl which socket is ready (`curl_multi_socket_action`); a
/// finished transfer's result is handed over on the loop's thread. A transfer costs no thread, and one
/// started by a handler running on the loop (a server's) never leaves that thread.
///
/// The multi keeps the connections its transfers leave open (up to its `idleConnections`) for the next
/// ones. The socket of a kept connection stays watched for reading when curl lets go of it after a
/// transfer, so that the next transfer on it costs no `epoll_ctl`; if the server closes it meanwhile, the
/// loop stops watching it, and curl sees the close when it next reuses it. curl closes such a socket only
/// through the close-socket callback (``closeSocket``), which the loop hears of first; any other socket
/// curl lets go of (a connection attempt that lost, its resolver's) is unwatched at once, since curl may
/// close it without a word and its number be reused. Once a second while transfers run (more often when a
/// transfer asks), each is asked whether to stop (cancelled, its reader gone, or late: the sink decides),
/// and stopped if so.
///
/// Transfers reach the multi through ``start(_:as:checkEvery:stopIf:finished:)`` and are resumed after a pause
/// through ``resume(_:)``, from any thread; curl's calls on the multi and its handles happen on the loop's
/// thread only. A transfer's callbacks must never block: a body the reader is not ready for pauses it.
///
/// The fields are internal, not private, for curl's callbacks in `CurlMulti+Callbacks.swift`.
///
/// Safety (`@unchecked Sendable`): `pendingTimeout` is set in `init`, before the multi is shared, and only
/// read after; every other mutable field but `lastID`, and curl's `multi`, are used on the loop's thread only (the methods hop there with ``EpollLoop/execute(_:)``, which hands closures over under the
/// loop's lock); `lastID` is read and written under `lock`. A transfer's closures (not `Sendable`: they
/// hold the transfer's curl callbacks' state) are handed from the starting thread to the loop's through
/// that same hop, and called and let go of there only, after curl's last callback for the transfer.
final class CurlMulti: @unchecked Sendable {
    /// A transfer's handle while the multi has it, and what to call when it ends.
    struct Transfer {
        let handle: UnsafeMutableRawPointer
        let id: ID
        let checkEvery: Duration
        let stopIf: () -> Bool
        let finished: (CURLcode) -> Void
    }

    /// One transfer, among all this multi ran: a resumption names it, not just its handle, which the
    /// transfers after it reuse.
    struct ID: Equatable, Sendable {
        fileprivate let handle: CurlHandlePool.Handle
        fileprivate let number: UInt64
    }

    /// The loop that drives the multi.
    let loop: EpollLoop
    let multi: UnsafeMutableRawPointer?
    let lock = NSLock()
    var lastID: UInt64 = 0
    var running: [UnsafeMutableRawPointer: Transfer] = [:]
    /// What curl waits for on each socket it named, and not let go of since.
    var wanted: [Int32: EpollLoop.Events] = [:]
    /// The loop's timer for curl's, and when it fires: moved only when curl wants its action sooner (a
    /// later wish is found when it fires, and it is set again), so that curl's many changes of its
    /// timeout cost no timer each.
    var timer: (id: UInt64, at: UInt64)?
    /// When curl wants its timeout action, in the loop's nanoseconds (`nil`: never).
    var curlDue: UInt64?
    var timeoutPending = false
    /// What a timer of 0 ms hands the loop: made once in `init`, not a closure per transfer.
    var pendingTimeout: @Sendable () -> Void = {}
    var tick: UInt64?
    /// How often the running transfers are checked: a second, or less when one of them asked.
    var tickInterval: Duration = .seconds(1)
    var closing = false
    /// Whether curl's multi was cleaned up (``close()``): `multi` is then never used again.
    var cleanedUp = false

    /// A multi on `loop`, keeping at most `idleConnections` connections open between transfers.
    init(loop: EpollLoop, idleConnections: Int) {
        self.loop = loop
        // A loop without its descriptors runs no timer and watches nothing: its transfers would never end.
        multi = CurlHandlePool.globalSetup == CURLE_OK && loop.isWorking ? curl_multi_init() : nil
        guard let multi else { return }
        // 0 would mean curl's default (a few per transfer); a multi keeping none keeps one, and its
        // transfers forbid reuse (``CurlTransfer``).
        _ = hardtack_curl_multi_set_long(multi, CURLMOPT_MAXCONNECTS, max(1, idleConnections))
        // One transfer per connection, as each transfer had when it ran alone: no HTTP/2 multiplexing, whose
        // pauses and early ends (a stream reset, not a closed connection) this code does not rely on.
        _ = hardtack_curl_multi_set_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_NOTHING))
        // curl reaches this multi through these pointers while it exists: ``close()`` cleans curl's multi
        // up, on the loop, before the last reference goes (the loop's closures hold one until then).
        pendingTimeout = { [weak self] in
            guard let self, timeoutPending else { return }
            timedOut()
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = hardtack_curl_multi_set_socket_function(multi, Self.socketCallback, context)
        _ = hardtack_curl_multi_set_timer_function(multi, Self.timerCallback, context)
    }

    /// Whether curl's multi handle exists (it does unless curl could not start).
    var isWorking: Bool { multi != nil }

    /// A new transfer's identity, for ``start(_:as:checkEvery:stopIf:finished:)`` and ``resume(_:)``.
    func transferID(for handle: CurlHandlePool.Handle) -> ID {
        lock.lock()
        defer { lock.unlock() }
        lastID += 1
        return ID(handle: handle, number: lastID)
    }

    /// The context a handle's close-socket callback gets (``closeSocket``), so that a socket curl closes
    /// is forgotten by the loop first.
    var closeSocketContext: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Runs the transfer set up on `handle`; `stopIf` is asked at least every `checkEvery` (at most a
    /// second) while it runs (true stops it, with `CURLE_ABORTED_BY_CALLBACK`), and `finished` gets curl's
    /// result on the loop's thread once it is over (the handle then is the caller's again). `false` when
    /// curl could not start: nothing was run. From any thread.
    func start(
        _ handle: CurlHandlePool.Handle, as id: ID, checkEvery: Duration = .seconds(1), stopIf: @escaping () -> Bool,
        finished: @escaping (CURLcode) -> Void
    ) -> Bool {
        guard multi != nil else { return false }
        let transfer = Transfer(
            handle: handle.raw, id: id, checkEvery: max(.milliseconds(10), checkEvery), stopIf: stopIf,
            finished: finished)
        if loop.isCurrent {
            add(transfer)
        } else {
            let handOver = UncheckedTransfer(transfer)
            loop.execute { [self] in add(handOver.transfer) }
        }
        return true
    }

    /// Resumes the paused transfer `id` (curl then hands its callbacks what it held back). Nothing happens
    /// when that transfer is over, or not paused. From any thread.
    func resume(_ id: ID) {
        guard multi != nil else { return }
        if loop.isCurrent { return unpause(id) }
        loop.execute { [self] in unpause(id) }
    }

    /// Cleans curl's multi up (its kept connections closed) once no transfer runs: at once when none does,
    /// else after the last. From any thread.
    func close() {
        loop.execute { [self] in
            closing = true
            cleanUpIfIdle()
        }
    }

    private func add(_ transfer: Transfer) {
        guard let multi, !cleanedUp, !closing else { return transfer.finished(CURLE_FAILED_INIT) }
        if running.isEmpty { loop.hold() }
        guard curl_multi_add_handle(multi, transfer.handle) == CURLM_OK else {
            if running.isEmpty { loop.release() }
            return transfer.finished(CURLE_FAILED_INIT)
        }
        running[transfer.handle] = transfer
        if transfer.checkEvery < tickInterval {
            tickInterval = transfer.checkEvery
            if let tick { loop.cancel(tick) }
            tick = nil
        }
        if tick == nil { tick = loop.schedule(after: tickInterval) { [self] in ticked() } }
    }

    private func unpause(_ id: ID) {
        guard !cleanedUp, running[id.handle.raw]?.id == id else { return }
        _ = hardtack_curl_unpause(id.handle.raw)
    }

    /// Hands every finished transfer its result.
    func collectFinished() {
        guard let multi else { return }
        var handle: UnsafeMutableRawPointer?
        var result = CURLE_OK
        // `end` never cleans the multi up itself (that waits for the loop's next work), but the check is kept
        // per message: the multi must not be read once cleaned up.
        while !cleanedUp, hardtack_curl_multi_done(multi, &handle, &result) == 1 {
            guard let done = handle else { continue }
            end(done, result)
        }
    }

    /// Takes the transfer on `handle` out of the multi and hands it `result`.
    func end(_ handle: UnsafeMutableRawPointer, _ result: CURLcode) {
        guard let multi, !cleanedUp, let transfer = running.removeValue(forKey: handle) else { return }
        curl_multi_remove_handle(multi, handle)
        if running.isEmpty {
            if let tick { loop.cancel(tick) }
            tick = nil
            tickInterval = .seconds(1)
            loop.release()
        }
        transfer.finished(result)
        // Not here: this may run inside a walk of curl's messages, which must not outlive the multi.
        if running.isEmpty, closing { loop.execute { [self] in cleanUpIfIdle() } }
    }

    /// The once-a-second check of every running transfer.
    private func ticked() {
        tick = nil
        let stopping = running.values.filter { $0.stopIf() }.map(\.handle)
        for handle in stopping { end(handle, CURLE_ABORTED_BY_CALLBACK) }
        if !running.isEmpty, tick == nil { tick = loop.schedule(after: tickInterval) { [self] in ticked() } }
    }

    private func cleanUpIfIdle() {
        guard closing, running.isEmpty, !cleanedUp, let multi else { return }
        cleanedUp = true
        if let timer { loop.cancel(timer.id) }
        timer = nil
        curlDue = nil
        // Closing the kept connections calls ``closeSocket`` for each, which stops watching it.
        curl_multi_cleanup(multi)
        for socket in wanted.keys { loop.unwatch(socket) }
        wanted = [:]
    }

}

/// A transfer handed from the starting thread to the loop's.
///
/// Safety (`@unchecked Sendable`): it is made on the starting thread, which lets go of it at once, and
/// used on the loop's thread only after the loop's lock handed it over.
private struct UncheckedTransfer: @unchecked Sendable {
    let transfer: CurlMulti.Transfer
    init(_ transfer: CurlMulti.Transfer) { self.transfer = transfer }
}
