#ifndef HARDTACK_EPOLL_H
#define HARDTACK_EPOLL_H

#include <stdint.h>

/// Linux's epoll and eventfd for the Epoll target: Swift's Glibc module has neither header, and
/// `struct epoll_event` is packed with a union inside, so the loop sees plain descriptors and masks.

/// What a descriptor is ready for (epoll's masks).
extern const uint32_t hardtack_epoll_readable;
extern const uint32_t hardtack_epoll_writable;
extern const uint32_t hardtack_epoll_closed;

/// A new epoll instance, close-on-exec; -1 with errno set when the system refuses.
int hardtack_epoll_create(void);
/// A new eventfd, non-blocking and close-on-exec; -1 with errno set when the system refuses.
int hardtack_eventfd_create(void);
/// Adds `fd` to `epoll`, level-triggered, waiting for `events` (and the peer's hang-up); 0 or -1.
int hardtack_epoll_add(int epoll, int fd, uint32_t events);
/// Changes what `fd`, added, is waited for; 0 or -1.
int hardtack_epoll_modify(int epoll, int fd, uint32_t events);
/// Removes `fd` from `epoll`; 0 or -1.
int hardtack_epoll_remove(int epoll, int fd);
/// Waits up to `timeout` milliseconds (-1: no limit) for at most `capacity` ready descriptors, written
/// to `fds` and their masks to `events`; their count, or -1 with errno set (EINTR when a signal came).
int hardtack_epoll_wait(int epoll, int *fds, uint32_t *events, int capacity, int timeout);
/// Names the calling thread (the first 15 bytes show in ps, top and perf).
void hardtack_name_thread(const char *name);

#endif
