#define _GNU_SOURCE
#include "hardtack_epoll.h"

#include <pthread.h>
#include <string.h>

#include <stddef.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

const uint32_t hardtack_epoll_readable = EPOLLIN;
const uint32_t hardtack_epoll_writable = EPOLLOUT;
const uint32_t hardtack_epoll_closed = EPOLLHUP | EPOLLERR | EPOLLRDHUP;

int hardtack_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int hardtack_eventfd_create(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

static int control(int epoll, int operation, int fd, uint32_t events) {
    struct epoll_event event = {0};
    event.events = events | EPOLLRDHUP;
    event.data.fd = fd;
    return epoll_ctl(epoll, operation, fd, &event);
}

int hardtack_epoll_add(int epoll, int fd, uint32_t events) { return control(epoll, EPOLL_CTL_ADD, fd, events); }

int hardtack_epoll_modify(int epoll, int fd, uint32_t events) { return control(epoll, EPOLL_CTL_MOD, fd, events); }

int hardtack_epoll_remove(int epoll, int fd) { return epoll_ctl(epoll, EPOLL_CTL_DEL, fd, NULL); }

int hardtack_epoll_wait(int epoll, int *fds, uint32_t *events, int capacity, int timeout) {
    struct epoll_event ready[128];
    if (capacity > 128) capacity = 128;
    int count = epoll_wait(epoll, ready, capacity, timeout);
    for (int index = 0; index < count; index++) {
        fds[index] = ready[index].data.fd;
        events[index] = ready[index].events;
    }
    return count;
}

void hardtack_name_thread(const char *name) {
    char short_name[16];
    strncpy(short_name, name, 15);
    short_name[15] = 0;
    pthread_setname_np(pthread_self(), short_name);
}
