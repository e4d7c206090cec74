internal import CMicroHTTPD
import Data
import Dispatch
import Epoll
import Locking
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One libmicrohttpd daemon driven by one event loop, with no thread of its own: the loop runs it
/// (`MHD_run`) when its epoll descriptor is readable, when a connection of it was resumed, and at the
/// time `MHD_get_timeout` gives (a slow client's deadline). It accepts on a listening socket of its own,
/// and its requests' handlers run on its loop. Every call on the daemon happens on the loop's thread,
/// but `MHD_resume_connection`, which libmicrohttpd allows from any thread, followed by ``needsRun()``.
///
/// Safety (`@unchecked Sendable`): `pendingRun` is set in `init`, before the daemon is shared, and only read
/// after; `pointer`, `connectionLimit`, `timer`, `sweeper`, `watched`, `quiesced`, `stopped` and `watch` (a class of its own,
/// used by libmicrohttpd's callbacks and the sweep) are read and written on the loop's thread only
/// (``start(flags:limits:connections:)`` sets them before the loop first runs it, handing them over through
/// the loop's lock); `runPending` is atomic; the rest is immutable.
final class MicroHTTPDaemon: @unchecked Sendable {
    /// The loop that runs the daemon and its requests' handlers.
    let loop: EpollLoop
    /// What every daemon of the server shares.
    let state: MicroHTTPServerState
    private let listener: Int32
    private var pointer: OpaquePointer?
    private var watched: Int32 = -1
    private var timer: (id: UInt64, deadline: UInt64)?
    /// The connection watch's next sweep, once a second.
    private var sweeper: UInt64?
    /// The deadline on each request's head, and requests their clients abandoned.
    let watch: MicroHTTPConnectionWatch
    private var quiesced = false
    private var stopped = false
    /// The connections it serves at once (set by ``start(flags:limits:connections:)``).
    private var connectionLimit = Int.max
    private let runPending = Atomic(false)
    /// The requests handed to their handlers and not yet answered, so that a stopping server can answer them.
    private let waiting = Locked<[ObjectIdentifier: MicroHTTPRequestContext]>([:])

    init(loop: EpollLoop, state: MicroHTTPServerState, listener: Int32) {
        self.loop = loop
        self.state = state
        self.listener = listener
        watch = MicroHTTPConnectionWatch(headSeconds: state.limits.headSeconds)
        // Set before the daemon is shared with any other thread, never again.
        pendingRun = { [weak self] in
            guard let self else { return }
            runPending.store(false, ordering: .releasing)
            run()
        }
    }

    /// Starts the daemon on the listening socket, serving at most `connections` at once, and hands it to
    /// its loop, which holds its thread while the daemon runs. The socket is the daemon's from here on: when
    /// libmicrohttpd refuses to start, it may have closed it already (some of its failures do), and it is
    /// not closed again; otherwise ``stopNow()`` closes it.
    /// - Throws: ``MicroHTTPServerError`` when libmicrohttpd or the loop cannot start.
    func start(flags: UInt32, limits: MicroHTTPServerLimits, connections: Int) throws(MicroHTTPServerError) {
        // The callbacks reach this daemon through this pointer for as long as it runs: the server holds
        // the daemon, and stops it (``stopNow()``) before it lets go of it.
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard
            let started = hardtack_mhd_start(
                flags, listener, MicroHTTPCallbacks.access, context, MicroHTTPCallbacks.uriLog, context,
                MicroHTTPCallbacks.completed, context, MicroHTTPCallbacks.connectionNotified, context,
                limits.connectionMemoryBytes, UInt32(max(connections, 1)),
                UInt32(max(limits.idleSeconds, 1)))
        else { throw MicroHTTPServerError("libmicrohttpd could not start (\(String(cString: strerror(errno))))") }
        let descriptor = hardtack_mhd_epoll_fd(started)
        // Set before the loop first runs the daemon; the loop's lock hands it over with the work below.
        pointer = started
        connectionLimit = max(connections, 1)
        let done = DispatchSemaphore(value: 0)
        let registered = Atomic(false)
        loop.execute { [self] in
            if loop.watch(descriptor, for: .readable, { [self] _ in run() }) {
                watched = descriptor
                loop.hold()
                registered.store(true, ordering: .releasing)
                scheduleSweep()
                run()
            }
            done.signal()
        }
        // A new loop is never the caller's: waiting for it cannot wait for itself.
        done.wait()
        guard registered.load(ordering: .acquiring) else {
            loop.execute { [self] in stopNow() }
            throw MicroHTTPServerError("the event loop cannot watch libmicrohttpd's descriptor")
        }
    }

    /// Hands `context` to the handler, a task on this daemon's loop (this thread's: it starts once the
    /// daemon's run returns, without waking any thread); its connection is resumed with the answer.
    func dispatch(_ context: MicroHTTPRequestContext, _ request: HTTPRequest) {
        waiting.withLock { $0[ObjectIdentifier(context)] = context }
        let handler = state.handler
        Task(executorPreference: loop) {
            let response = await handler(request)
            self.waiting.withLock { $0[ObjectIdentifier(context)] = nil }
            context.resume(with: response)
        }
    }

    /// Answers every request still waiting for its handler with 503 (the server is stopping).
    func abandonWaiting() {
        let abandoned = waiting.withLock { waiting in
            defer { waiting = [:] }
            return Array(waiting.values)
        }
        for context in abandoned { context.resume(with: .complete(MicroHTTPServerState.unavailable)) }
    }

    /// Asks the loop to run the daemon soon (a connection was resumed), from any thread; several asks before
    /// it runs make one run.
    func needsRun() {
        if runPending.exchange(true, ordering: .acquiringAndReleasing) { return }
        loop.execute(pendingRun)
    }

    /// What ``needsRun()`` hands the loop: made once in `init`, not a closure per ask.
    private var pendingRun: @Sendable () -> Void = {}

    /// Runs the daemon once (accepts, reads, calls the handlers, writes), then asks to run again as soon as
    /// it has work pending or at its next deadline. Loop's thread only.
    ///
    /// libmicrohttpd (0.9.75) stops watching the listening socket at the start of a run that finds the
    /// daemon at its connection limit, and watches it again only at the start of a later run. A run that
    /// began at the limit and ended every connection (their idle limits struck together, or their clients
    /// left together) leaves nothing to wake the loop: no connection, no deadline, and a listening socket
    /// unwatched. So a run that began at the limit and ended below it is followed by another at once, which
    /// watches the socket again; and ``scheduleSweep()`` runs the daemon every second as well, for the limit
    /// libmicrohttpd also sets when an `accept` finds no descriptor left (below the connection limit).
    private func run() {
        guard let pointer else { return }
        let atLimit = watch.count >= connectionLimit
        _ = MHD_run(pointer)
        if !atLimit, watch.count >= connectionLimit { state.connections.reachedLimit() }
        if atLimit, watch.count < connectionLimit { return needsRun() }
        var timeout: UInt64 = 0
        guard MHD_get_timeout(pointer, &timeout) == MHD_Result.YES else { return }
        if timeout == 0 { return needsRun() }
        // One timer, moved only when a nearer deadline comes: a later one is seen when it fires.
        let deadline = EpollLoop.now() &+ timeout &* 1_000_000
        if let armed = timer {
            if armed.deadline <= deadline { return }
            loop.cancel(armed.id)
        }
        let id = loop.schedule(after: .milliseconds(Int64(min(timeout, UInt64(Int64.max / 1_000_000))))) { [self] in
            timer = nil
            run()
        }
        timer = (id, deadline)
    }

    /// Looks at the connections in a second, and again every second after until ``stopNow()``: one whose head
    /// is late or whose request its client abandoned is cut; then libmicrohttpd runs, to see the end and close
    /// it, and, whatever the sweep found, so that no state of libmicrohttpd's that nothing wakes (such as its
    /// listening socket left unwatched, see ``run()``) outlasts a second. A run with nothing to do costs a
    /// look at its epoll descriptor. Loop's thread only.
    private func scheduleSweep() {
        sweeper = loop.schedule(after: .seconds(1)) { [self] in
            sweeper = nil
            guard !stopped else { return }
            watch.sweep(now: EpollLoop.now())
            run()
            scheduleSweep()
        }
    }

    /// Stops accepting connections (the listening socket stays open until ``stopNow()``). Loop's thread only.
    func quiesce() {
        guard let pointer, !quiesced else { return }
        quiesced = true
        _ = MHD_quiesce_daemon(pointer)
        run()
    }

    /// Stops the daemon (every connection closed), closes the listening socket and lets go of the loop's
    /// thread, once. Loop's thread only: no callback of the daemon runs meanwhile, so the requests still
    /// waiting for their handlers, and the answers still streaming, are all known here and resumed first
    /// (libmicrohttpd must not be stopped with a connection suspended).
    func stopNow() {
        guard !stopped else { return }
        stopped = true
        guard let pointer else {
            close(listener)
            return
        }
        state.beginDraining()
        abandonWaiting()
        state.abortStreams()
        self.pointer = nil
        if !quiesced {
            quiesced = true
            _ = MHD_quiesce_daemon(pointer)
        }
        if let armed = timer { loop.cancel(armed.id) }
        timer = nil
        if let sweeper { loop.cancel(sweeper) }
        sweeper = nil
        if watched >= 0 {
            loop.unwatch(watched)
            watched = -1
            loop.release()
        }
        MHD_stop_daemon(pointer)
        close(listener)
        loop.retire()
    }
}
