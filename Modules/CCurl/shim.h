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

// The multi interface, for the one thread that drives many transfers at once (`CurlEventLoop`): its
// message is a struct with a union, and its pause constants are macros, which Swift cannot read.
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
