#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <netinet/in.h>
#ifdef __linux__
#include <linux/sock_diag.h>
#endif
#include <microhttpd.h>

/// Starts a daemon on the listening socket `listener` with the options the server uses, driven by the
/// caller's event loop (no thread of its own: the caller runs it with MHD_run when its epoll descriptor
/// is readable, and at the times MHD_get_timeout gives). MHD_start_daemon and MHD_get_daemon_info are
/// variadic, which Swift cannot call, hence these wrappers. `connection_timeout` is in seconds;
/// `memory_limit` bounds a connection's buffer, and so the request head it can hold.
static inline struct MHD_Daemon *hardtack_mhd_start(
    unsigned int flags, int listener, MHD_AccessHandlerCallback handler, void *handler_cls,
    void *(*uri_log)(void *cls, const char *uri, struct MHD_Connection *connection), void *uri_log_cls,
    MHD_RequestCompletedCallback completed, void *completed_cls, MHD_NotifyConnectionCallback connection_notify,
    void *connection_notify_cls, size_t memory_limit, unsigned int connection_limit,
    unsigned int connection_timeout) {
    struct MHD_OptionItem options[] = {
        {MHD_OPTION_LISTEN_SOCKET, listener, NULL},
        {MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)uri_log, uri_log_cls},
        {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, completed_cls},
        {MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)connection_notify, connection_notify_cls},
        {MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)memory_limit, NULL},
        {MHD_OPTION_CONNECTION_LIMIT, (intptr_t)connection_limit, NULL},
        {MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)connection_timeout, NULL},
        {MHD_OPTION_END, 0, NULL},
    };
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_cls, MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/// Ends a request target's query, for libmicrohttpd 0.9 only, where it is about to parse it: called from the
/// URI log callback, after the target has been copied whole. libmicrohttpd 0.9 parses the query into a list
/// in the connection's memory right after that callback; when the memory runs out (a few hundred short
/// arguments, in a head far within its limit) it queues a 431, then carries on as if the parse had worked,
/// overwriting the state that would send it, and the request hangs until the connection's timeout. The server
/// never reads that list (its handler reads the target as the callback copied it), so the byte after the
/// first '?', in the connection's own read buffer, becomes the query's end: libmicrohttpd then parses an empty
/// query. 1.0 answers the same failure properly and is left alone.
static inline void hardtack_mhd_skip_query_parsing(const char *target) {
    if (target == NULL || strncmp(MHD_get_version(), "0.9.", 4) != 0) return;
    char *mark = strchr((char *)target, '?');
    if (mark != NULL) mark[1] = '\0';
}

/// A connection's socket, or -1.
static inline int hardtack_mhd_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// Whether a connection has read the whole head of the request it is on (false while it waits for or reads
/// one, and once it is closing).
static inline bool hardtack_mhd_head_received(struct MHD_Connection *connection) {
    return MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE) != NULL;
}

/// Whether a connection is suspended (its request handed to the server's handler, not yet resumed).
static inline bool hardtack_mhd_connection_suspended(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_SUSPENDED);
    return info != NULL && info->suspended == MHD_YES;
}

/// Whether a connection has an answer queued (being written, or about to be).
static inline bool hardtack_mhd_response_queued(struct MHD_Connection *connection) {
    return MHD_get_connection_info(connection, MHD_CONNECTION_INFO_HTTP_STATUS) != NULL;
}

/// A request head's place in libmicrohttpd's read buffer, how many of its fields were folded, and the fields
/// that frame its body (RFC 9112 §6): how many `Content-Length` and `Transfer-Encoding` fields it has, how many
/// fields have a name that is not a token or a value with a control character, how many `Host` fields it has and
/// how many of them hold no host, and whether the (last) `Transfer-Encoding` is `chunked` alone, or a list of
/// codings that ends with it.
struct hardtack_mhd_head_span {
    const char *start;
    const char *end;
    unsigned int folded;
    unsigned int content_lengths;
    unsigned int transfer_encodings;
    unsigned int invalid_names;
    unsigned int invalid_values;
    unsigned int hosts;
    unsigned int invalid_hosts;
    bool chunked_only;
    bool chunked_last;
};

/// Whether `name` is an HTTP token (RFC 9110 §5.6.2), as a method and a field's name must be. libmicrohttpd
/// 0.9.75 takes a name with spaces before its colon (`Transfer-Encoding : chunked`) as that name, spaces and all, which then
/// matches no field it or the server looks for, while a lenient proxy in front may read the field.
static inline bool hardtack_mhd_is_token(const char *name) {
    if (name[0] == '\0') return false;
    for (const unsigned char *byte = (const unsigned char *)name; *byte != '\0'; byte++) {
        unsigned char c = *byte;
        bool alphanumeric = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (!alphanumeric && strchr("!#$%&'*+-.^_`|~", c) == NULL) return false;
    }
    return true;
}

/// Whether `value` (`length` bytes) is what a `Host` field holds (RFC 9112 §3.2, RFC 3986 §3.2.2): a name or
/// address, an IPv6 one in brackets, and a port, or nothing; no space, slash, `@`, `?` or `#`.
static inline bool hardtack_mhd_is_host(const char *value, size_t length) {
    // libmicrohttpd keeps the spaces after a value, which RFC 9112 lets a sender write.
    while (length > 0 && (value[length - 1] == ' ' || value[length - 1] == '\t')) length--;
    for (size_t index = 0; index < length; index++) {
        unsigned char c = (unsigned char)value[index];
        bool alphanumeric = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (!alphanumeric && (c == '\0' || strchr("-._~!$&'()*+,;=%:[]", c) == NULL)) return false;
    }
    return true;
}

/// Whether `text`, less spaces and tabs around it, is `token` in any case.
static inline bool hardtack_mhd_trimmed_is(const char *text, size_t length, const char *token) {
    while (length > 0 && (text[0] == ' ' || text[0] == '\t')) { text++; length--; }
    while (length > 0 && (text[length - 1] == ' ' || text[length - 1] == '\t')) length--;
    return length == strlen(token) && strncasecmp(text, token, length) == 0;
}

/// Reads one field of a request's head into `cls`, a ``hardtack_mhd_head_span``: whether it was folded over
/// lines, its name and value checked, and whether it is one that frames the body or names the host.
/// libmicrohttpd 0.9.75 parses a field in place (its name, a NUL where the colon was, its value after it) and,
/// for a continuation line, appends the line to the field's *name* in a new block of its memory: the name then
/// lies outside the head as received, or (when the read buffer later grew past that block) before its value no
/// longer holds, or (grown in place) runs into its value.
static inline enum MHD_Result hardtack_mhd_read_field(
    void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size, const char *value, size_t value_size) {
    (void)kind;
    struct hardtack_mhd_head_span *span = (struct hardtack_mhd_head_span *)cls;
    uintptr_t name = (uintptr_t)key;
    if (key == NULL || value == NULL || name < (uintptr_t)span->start || name >= (uintptr_t)span->end
        || (uintptr_t)value < name + strlen(key) + 1) {
        span->folded += 1;
    }
    if (key == NULL || value == NULL) return MHD_YES;
    if (!hardtack_mhd_is_token(key) || strlen(key) != key_size) span->invalid_names += 1;
    // A control character in a value but a tab (RFC 9110 §5.5), as Go and Node refuse them: a bare CR is a
    // line's end to some readers, and VT, FF and FS to GS to others. (libmicrohttpd 0.9.75 ends a value at a
    // NUL, the rest dropped, and at a LF.)
    for (size_t index = 0; index < value_size; index++) {
        unsigned char c = (unsigned char)value[index];
        if ((c < 0x20 && c != '\t') || c == 0x7F) {
            span->invalid_values += 1;
            break;
        }
    }
    if (strcasecmp(key, MHD_HTTP_HEADER_HOST) == 0) {
        span->hosts += 1;
        if (!hardtack_mhd_is_host(value, value_size)) span->invalid_hosts += 1;
    } else if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0) {
        span->content_lengths += 1;
    } else if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0) {
        span->transfer_encodings += 1;
        const char *comma = strrchr(value, ',');
        const char *last = comma == NULL ? value : comma + 1;
        // Exactly as libmicrohttpd 0.9.75 takes a body to be chunked (it strips the spaces before a value, not
        // those after it): any other value, "chunked " too, it would take for a body read to the connection's end.
        span->chunked_only = strcasecmp(value, "chunked") == 0;
        span->chunked_last = comma != NULL && hardtack_mhd_trimmed_is(last, value_size - (size_t)(last - value), "chunked");
    }
    return MHD_YES;
}

/// How much of its connection's memory a request whose head is read holds until its answer is written, as
/// libmicrohttpd 0.9.75 takes it (each block rounded up to 16 bytes): the head as received, the copy of its
/// `Cookie` field that its cookie parse makes, and a 56-byte record (64 rounded) for each field, cookie and
/// query argument. The answer's head is written into what is left, and an answer whose head does not fit is
/// not sent at all: the connection is closed without a word. `method` is the access callback's, which starts
/// the head in libmicrohttpd's read buffer. -1 when a field was folded over lines (obs-fold), as
/// ``hardtack_mhd_read_field`` finds it: libmicrohttpd then copies it into a block of its own behind
/// the read buffer, which can no longer be given back, and nothing is left that can be counted on. (-1 too
/// when the head's size is not known, which never happens at the first access call.) The same pass over the
/// fields fills `framing` (its start, end and folded count unset) with the fields that frame the body.
static inline long hardtack_mhd_request_memory(
    struct MHD_Connection *connection, const char *method, struct hardtack_mhd_head_span *framing) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    if (info == NULL || method == NULL) return -1;
    size_t used = (info->header_size + 15) / 16 * 16;
    struct hardtack_mhd_head_span span = {method, method + info->header_size, 0, 0, 0, 0, 0, 0, 0, false, false};
    MHD_get_connection_values_n(connection, MHD_HEADER_KIND, hardtack_mhd_read_field, &span);
    *framing = span;
    if (span.folded > 0) return -1;
    const char *cookie = NULL;
    size_t cookie_length = 0;
    if (MHD_lookup_connection_value_n(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_COOKIE,
            strlen(MHD_HTTP_HEADER_COOKIE), &cookie, &cookie_length) == MHD_YES && cookie != NULL) {
        used += (cookie_length + 1 + 15) / 16 * 16;
    }
    int records = MHD_get_connection_values(
        connection, (enum MHD_ValueKind)(MHD_HEADER_KIND | MHD_COOKIE_KIND | MHD_GET_ARGUMENT_KIND), NULL, NULL);
    if (records > 0) used += (size_t)records * ((sizeof(void *) * 6 + sizeof(int) + 15) / 16 * 16);
    return (long)used;
}

/// Whether a request's chunked body ended with trailer fields: libmicrohttpd 0.9.75 reads them into the
/// connection's memory after the head was counted, and takes a record for each.
static inline bool hardtack_mhd_has_trailers(struct MHD_Connection *connection) {
    return MHD_get_connection_values(connection, MHD_FOOTER_KIND, NULL, NULL) > 0;
}

/// How many more bytes a socket's send queue takes before the kernel makes a sender wait (its send buffer less
/// what is queued, both as the kernel counts them, with each packet's overhead), or -1 when it cannot be read.
static inline long hardtack_socket_send_room(int socket) {
#if defined(__linux__) && defined(SO_MEMINFO)
    uint32_t info[SK_MEMINFO_VARS];
    socklen_t length = sizeof(info);
    if (getsockopt(socket, SOL_SOCKET, SO_MEMINFO, info, &length) != 0 || length < sizeof(info)) return -1;
    return (long)info[SK_MEMINFO_SNDBUF] - (long)info[SK_MEMINFO_WMEM_QUEUED];
#else
    (void)socket;
    return -1;
#endif
}

/// The daemon's epoll descriptor, which is readable when it has work, or -1.
static inline int hardtack_mhd_epoll_fd(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info == NULL ? -1 : info->epoll_fd;
}

/// A content reader's two ends, and the size of a body whose length is not known: macros with casts,
/// which Swift does not import.
static const ssize_t hardtack_mhd_end_of_stream = MHD_CONTENT_READER_END_OF_STREAM;
static const ssize_t hardtack_mhd_end_with_error = MHD_CONTENT_READER_END_WITH_ERROR;
static const uint64_t hardtack_mhd_size_unknown = MHD_SIZE_UNKNOWN;

/// A connection notification's "started", which Swift does not import by name.
static const enum MHD_ConnectionNotificationCode hardtack_mhd_connection_started = MHD_CONNECTION_NOTIFY_STARTED;
