#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

/// Starts a daemon bound to `address` (an IPv4 or IPv6 socket address) with the options the server
/// uses. MHD_start_daemon and MHD_get_daemon_info are variadic, which Swift cannot call, hence these
/// wrappers. `connection_timeout` is in seconds; `memory_limit` bounds a connection's buffer, and so the
/// request head it can hold.
static inline struct MHD_Daemon *hardtack_mhd_start(
    unsigned int flags, const struct sockaddr *address, MHD_AccessHandlerCallback handler, void *handler_cls,
    void *(*uri_log)(void *cls, const char *uri, struct MHD_Connection *connection), void *uri_log_cls,
    MHD_RequestCompletedCallback completed, void *completed_cls, size_t memory_limit,
    unsigned int connection_limit, unsigned int connection_timeout, unsigned int thread_pool_size) {
    struct MHD_OptionItem options[] = {
        {MHD_OPTION_SOCK_ADDR, 0, (void *)address},
        {MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)uri_log, uri_log_cls},
        {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, completed_cls},
        {MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)memory_limit, NULL},
        {MHD_OPTION_CONNECTION_LIMIT, (intptr_t)connection_limit, NULL},
        {MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)connection_timeout, NULL},
        {MHD_OPTION_THREAD_POOL_SIZE, (intptr_t)thread_pool_size, NULL},
        {MHD_OPTION_END, 0, NULL},
    };
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_cls, MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/// The port the daemon is bound to (the one the kernel chose when asked for port 0), or 0.
static inline uint16_t hardtack_mhd_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// A content reader's two ends, and the size of a body whose length is not known: macros with casts,
/// which Swift does not import.
static const ssize_t hardtack_mhd_end_of_stream = MHD_CONTENT_READER_END_OF_STREAM;
static const ssize_t hardtack_mhd_end_with_error = MHD_CONTENT_READER_END_WITH_ERROR;
static const uint64_t hardtack_mhd_size_unknown = MHD_SIZE_UNKNOWN;
