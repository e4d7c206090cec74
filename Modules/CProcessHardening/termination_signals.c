#include "hardtack_process_hardening.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

/// The write end the handler writes to; set before the handler is installed.
static volatile sig_atomic_t termination_fd = -1;

/// Writes the signal's number, one byte, and nothing else: write is async-signal-safe, and errno is kept.
static void on_termination(int signal_number) {
    int saved = errno;
    unsigned char byte = (unsigned char)signal_number;
    (void)write((int)termination_fd, &byte, 1);
    errno = saved;
}

int hardtack_catch_termination(int fd) {
    termination_fd = fd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_termination;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    struct sigaction previous;
    if (sigaction(SIGINT, &action, &previous) != 0) {
        termination_fd = -1;
        return errno;
    }
    if (sigaction(SIGTERM, &action, NULL) != 0) {
        int failure = errno;
        // Put SIGINT back, so that no handler writes to a descriptor the caller is about to close.
        (void)sigaction(SIGINT, &previous, NULL);
        termination_fd = -1;
        return failure;
    }
    return 0;
}
