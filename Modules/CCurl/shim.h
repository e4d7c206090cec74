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
