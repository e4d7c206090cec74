#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A terminal's echo turned off while a secret is typed, and always turned back on: when the prompt
/// returns, and when a signal ends the process in the middle of it (Ctrl-C, Ctrl-\, SIGTERM, SIGHUP),
/// whose handler puts the terminal back before the signal takes its default course. Without that, a
/// Ctrl-C at the prompt left the shell with echo off.
enum HiddenEcho {
    /// The signals whose default action ends the process, caught while echo is off.
    static let endingSignals: [Int32] = [SIGINT, SIGQUIT, SIGTERM, SIGHUP]

    /// The terminal's settings to put back, and its descriptor: in memory of their own (never freed), so
    /// that the signal handler reads them through two pointers set once, with no Swift runtime call.
    ///
    /// Safety: the pointees are written only by `run`, before the handlers that read them are installed,
    /// and read by the handler only while they are installed; a prompt is never nested nor run on two
    /// threads at once (the command line asks one question at a time).
    fileprivate nonisolated(unsafe) static let savedSettings: UnsafeMutablePointer<termios> = {
        let pointer = UnsafeMutablePointer<termios>.allocate(capacity: 1)
        pointer.initialize(to: termios())
        return pointer
    }()
    fileprivate nonisolated(unsafe) static let terminal: UnsafeMutablePointer<Int32> = {
        let pointer = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        pointer.initialize(to: -1)
        return pointer
    }()

    /// Runs `body` with echo off on `descriptor` when it is a terminal whose settings can be read (else
    /// just runs it), and puts the settings back afterwards, or from a signal that ends the process.
    static func run<Result>(on descriptor: Int32, _ body: () -> Result) -> Result {
        var saved = termios()
        guard tcgetattr(descriptor, &saved) == 0 else { return body() }
        savedSettings.pointee = saved
        terminal.pointee = descriptor
        var previous: [(Int32, sigaction)] = []
        for signalNumber in endingSignals {
            var action = sigaction()
            #if canImport(Glibc)
                action.__sigaction_handler.sa_handler = restoreEchoAndEnd
            #else
                action.__sigaction_u.__sa_handler = restoreEchoAndEnd
            #endif
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            var old = sigaction()
            if sigaction(signalNumber, &action, &old) == 0 { previous.append((signalNumber, old)) }
        }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(descriptor, TCSAFLUSH, &silent)
        defer {
            tcsetattr(descriptor, TCSAFLUSH, &saved)
            for (signalNumber, old) in previous {
                var action = old
                sigaction(signalNumber, &action, nil)
            }
        }
        return body()
    }
}

/// The handler: the terminal's saved settings back (`tcsetattr` and `write` are async-signal-safe), a
/// newline after the prompt, then the signal again under its default action, so the process ends as
/// the signal asked (the shell sees it killed by SIGINT, not a made-up exit status).
private func restoreEchoAndEnd(_ signalNumber: Int32) {
    tcsetattr(HiddenEcho.terminal.pointee, TCSANOW, HiddenEcho.savedSettings)
    var newline: UInt8 = 0x0A
    _ = write(STDERR_FILENO, &newline, 1)
    signal(signalNumber, SIG_DFL)
    raise(signalNumber)
}
