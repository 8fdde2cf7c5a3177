#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed wrapper per kind of
// argument FrameFarm passes.
typedef size_t (*framefarm_curl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode framefarm_curl_set_long(CURL *curl, CURLoption option, long value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode framefarm_curl_set_string(CURL *curl, CURLoption option, const char *value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode framefarm_curl_set_pointer(CURL *curl, CURLoption option, void *value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode framefarm_curl_set_callback(CURL *curl, CURLoption option, framefarm_curl_data_callback value) {
    return curl_easy_setopt(curl, option, value);
}
typedef int (*framefarm_curl_progress_callback)(void *context, curl_off_t downloadTotal, curl_off_t downloaded,
                                                curl_off_t uploadTotal, curl_off_t uploaded);
static inline CURLcode framefarm_curl_set_progress(CURL *curl, framefarm_curl_progress_callback value) {
    return curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, value);
}
static inline CURLcode framefarm_curl_get_long(CURL *curl, CURLINFO info, long *value) {
    return curl_easy_getinfo(curl, info, value);
}
static inline CURLcode framefarm_curl_get_string(CURL *curl, CURLINFO info, char **value) {
    return curl_easy_getinfo(curl, info, value);
}
