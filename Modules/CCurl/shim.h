#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed wrapper per
// kind of argument.
static inline CURLcode hardtack_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode hardtack_curl_set_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode hardtack_curl_set_size(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode hardtack_curl_set_write(
    CURL *handle, CURLoption option, size_t (*callback)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(handle, option, callback);
}
static inline CURLcode hardtack_curl_set_progress(
    CURL *handle, int (*callback)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t)) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}
static inline CURLcode hardtack_curl_response_code(CURL *handle, long *code) {
    return curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}

// The multi interface, for the event loop that drives many transfers at once (`CurlMulti`): its
// message is a struct with a union, and its pause and socket constants are macros, which Swift cannot read.
static inline size_t hardtack_curl_write_pause(void) { return CURL_WRITEFUNC_PAUSE; }
static inline CURLcode hardtack_curl_unpause(CURL *handle) { return curl_easy_pause(handle, CURLPAUSE_CONT); }
// The next finished transfer of `multi`: 1 with its handle and result, 0 when none is left.
static inline int hardtack_curl_multi_done(CURLM *multi, CURL **handle, CURLcode *result) {
    int left = 0;
    CURLMsg *message;
    while ((message = curl_multi_info_read(multi, &left)) != NULL) {
        if (message->msg == CURLMSG_DONE) {
            *handle = message->easy_handle;
            *result = message->data.result;
            return 1;
        }
    }
    return 0;
}
static inline CURLMcode hardtack_curl_multi_set_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

// curl's socket interface (`curl_multi_socket_action`): the loop watches the sockets curl names and runs
// the timer curl asks for, instead of polling every transfer's socket on each pass.
static const int hardtack_curl_poll_in = CURL_POLL_IN;
static const int hardtack_curl_poll_out = CURL_POLL_OUT;
static const int hardtack_curl_poll_remove = CURL_POLL_REMOVE;
static const int hardtack_curl_select_in = CURL_CSELECT_IN;
static const int hardtack_curl_select_out = CURL_CSELECT_OUT;
static const int hardtack_curl_select_error = CURL_CSELECT_ERR;
static inline CURLMcode hardtack_curl_multi_set_socket_function(
    CURLM *multi, int (*callback)(CURL *, curl_socket_t, int, void *, void *), void *context) {
    CURLMcode code = curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, callback);
    return code != CURLM_OK ? code : curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, context);
}
static inline CURLMcode hardtack_curl_multi_set_timer_function(
    CURLM *multi, int (*callback)(CURLM *, long, void *), void *context) {
    CURLMcode code = curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, callback);
    return code != CURLM_OK ? code : curl_multi_setopt(multi, CURLMOPT_TIMERDATA, context);
}
static inline CURLMcode hardtack_curl_socket_action(CURLM *multi, curl_socket_t socket, int events) {
    int running = 0;
    return curl_multi_socket_action(multi, socket, events, &running);
}
static inline CURLMcode hardtack_curl_timeout_action(CURLM *multi) {
    int running = 0;
    return curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running);
}
// The socket of the connection `handle` used last (-1 when none): a socket curl lets go of is kept
// watched only when it is that one, which curl closes through the close-socket callback.
static inline curl_socket_t hardtack_curl_active_socket(CURL *handle) {
    curl_socket_t socket = CURL_SOCKET_BAD;
    return curl_easy_getinfo(handle, CURLINFO_ACTIVESOCKET, &socket) == CURLE_OK ? socket : CURL_SOCKET_BAD;
}
static inline CURLcode hardtack_curl_set_close_socket(CURL *handle, int (*callback)(void *, curl_socket_t), void *context) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_CLOSESOCKETFUNCTION, callback);
    return code != CURLE_OK ? code : curl_easy_setopt(handle, CURLOPT_CLOSESOCKETDATA, context);
}
