#ifndef HARDTACK_PROCESS_HARDENING_H
#define HARDTACK_PROCESS_HARDENING_H

/// Keeps this process's memory out of core dumps and away from other processes of the same user: marks
/// it non-dumpable (Linux's PR_SET_DUMPABLE 0, which also refuses ptrace and /proc/PID/mem to them) and
/// sets its core-size limit, soft and hard, to zero. Returns 0, or the errno of the first step that
/// failed (the other is still attempted). prctl is variadic in C, which Swift cannot call: hence C.
int hardtack_forbid_core_dumps(void);

/// Whether this process is dumpable (1), not (0), or cannot tell (-1).
int hardtack_is_dumpable(void);

/// Catches SIGINT and SIGTERM from now on, in whichever thread they arrive: each writes its number, one
/// byte, to `fd` (a pipe's write end) from a handler that does nothing else, so a signal that comes before
/// anyone waits for it is kept in the pipe, not lost. Returns 0, or the errno of the sigaction that failed.
int hardtack_catch_termination(int fd);

#endif
