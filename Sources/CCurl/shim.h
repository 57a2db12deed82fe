// libcurl, loaded when the first request is sent (dlopen), not when coffer starts.
//
// Linked the usual way (FoundationNetworking), libcurl and the ~30 libraries it needs (TLS,
// Kerberos, LDAP, HTTP/2…) were mapped by the dynamic loader on every start: most of the time of
// `coffer --version` and of every command that never syncs. The option and info numbers are
// libcurl's stable ABI (curl.h: CURLOPTTYPE_LONG 0, OBJECTPOINT 10000, FUNCTIONPOINT 20000,
// OFF_T 30000; CURLINFO_LONG 0x200000), written out because no curl headers are installed here.
#ifndef COFFER_CURL_SHIM_H
#define COFFER_CURL_SHIM_H

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
    COFFER_CURLOPT_WRITEDATA = 10001,
    COFFER_CURLOPT_URL = 10002,
    COFFER_CURLOPT_ERRORBUFFER = 10010,
    COFFER_CURLOPT_WRITEFUNCTION = 20011,
    COFFER_CURLOPT_POSTFIELDS = 10015,
    COFFER_CURLOPT_HTTPHEADER = 10023,
    COFFER_CURLOPT_HEADERDATA = 10029,
    COFFER_CURLOPT_CUSTOMREQUEST = 10036,
    COFFER_CURLOPT_NOPROGRESS = 43,
    COFFER_CURLOPT_FOLLOWLOCATION = 52,
    COFFER_CURLOPT_XFERINFODATA = 10057,
    COFFER_CURLOPT_HEADERFUNCTION = 20079,
    COFFER_CURLOPT_HTTPGET = 80,
    COFFER_CURLOPT_NOSIGNAL = 99,
    COFFER_CURLOPT_POSTFIELDSIZE_LARGE = 30120,
    COFFER_CURLOPT_TIMEOUT_MS = 155,
    COFFER_CURLOPT_CONNECTTIMEOUT_MS = 156,
    COFFER_CURLOPT_XFERINFOFUNCTION = 20219,
    COFFER_CURLINFO_RESPONSE_CODE = 0x200002,
    COFFER_CURL_GLOBAL_DEFAULT = 3,
    COFFER_CURL_ERROR_SIZE = 256,
};

// What coffer reads of curl's result codes (CURLcode).
enum {
    COFFER_CURLE_OK = 0,
    COFFER_CURLE_COULDNT_RESOLVE_PROXY = 5,
    COFFER_CURLE_COULDNT_RESOLVE_HOST = 6,
    COFFER_CURLE_COULDNT_CONNECT = 7,
    COFFER_CURLE_OPERATION_TIMEDOUT = 28,
    COFFER_CURLE_ABORTED_BY_CALLBACK = 42,
    // Not curl's: libcurl.so.4 could not be loaded.
    COFFER_CURLE_NOT_LOADED = -1,
};

struct coffer_curl_api {
    void *(*easy_init)(void);
    void (*easy_cleanup)(void *);
    void (*easy_reset)(void *);
    int (*easy_setopt)(void *, int, ...);
    int (*easy_perform)(void *);
    int (*easy_getinfo)(void *, int, ...);
    const char *(*easy_strerror)(int);
    void *(*slist_append)(void *, const char *);
    void (*slist_free_all)(void *);
    int (*global_init)(long);
};

// Initialised, so that the Swift module that imports this header emits them (it does not emit a
// tentative definition).
static struct coffer_curl_api coffer_curl __attribute__((unused)) = {0};
static int coffer_curl_loaded __attribute__((unused)) = 0;
static pthread_once_t coffer_curl_once __attribute__((unused)) = PTHREAD_ONCE_INIT;

static void coffer_curl_load_once(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) return;
#define COFFER_CURL_SYMBOL(field, name) \
    *(void **)(&coffer_curl.field) = dlsym(library, name); \
    if (!coffer_curl.field) return;
    COFFER_CURL_SYMBOL(easy_init, "curl_easy_init")
    COFFER_CURL_SYMBOL(easy_cleanup, "curl_easy_cleanup")
    COFFER_CURL_SYMBOL(easy_reset, "curl_easy_reset")
    COFFER_CURL_SYMBOL(easy_setopt, "curl_easy_setopt")
    COFFER_CURL_SYMBOL(easy_perform, "curl_easy_perform")
    COFFER_CURL_SYMBOL(easy_getinfo, "curl_easy_getinfo")
    COFFER_CURL_SYMBOL(easy_strerror, "curl_easy_strerror")
    COFFER_CURL_SYMBOL(slist_append, "curl_slist_append")
    COFFER_CURL_SYMBOL(slist_free_all, "curl_slist_free_all")
    COFFER_CURL_SYMBOL(global_init, "curl_global_init")
#undef COFFER_CURL_SYMBOL
    // Once, before any handle exists (it is not thread-safe in older libcurl).
    if (coffer_curl.global_init(COFFER_CURL_GLOBAL_DEFAULT) != 0) return;
    coffer_curl_loaded = 1;
}

/// Loads libcurl once; 0 when it is not installed.
static inline int coffer_curl_load(void) {
    pthread_once(&coffer_curl_once, coffer_curl_load_once);
    return coffer_curl_loaded;
}

/// A growing byte buffer the callbacks append to, up to `limit` bytes when that is not 0 (a
/// server's answer is a stranger's bytes: past the limit the transfer stops, `over_limit` set).
typedef struct coffer_curl_buffer {
    char *bytes;
    size_t count;
    size_t capacity;
    size_t limit;
    int failed;
    int over_limit;
} coffer_curl_buffer;

static inline void coffer_curl_append(coffer_curl_buffer *buffer, const char *bytes, size_t count) {
    if (buffer->failed) return;
    if (buffer->limit && (count > buffer->limit || buffer->count > buffer->limit - count)) {
        buffer->over_limit = 1;
        buffer->failed = 1;
        return;
    }
    if (buffer->count + count > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 16384;
        while (capacity < buffer->count + count) capacity *= 2;
        char *grown = realloc(buffer->bytes, capacity);
        if (!grown) { buffer->failed = 1; return; }
        buffer->bytes = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->bytes + buffer->count, bytes, count);
    buffer->count += count;
}

/// One request and its answer: what the callbacks fill in, and a flag a cancelled task sets.
typedef struct coffer_curl_exchange {
    coffer_curl_buffer body;
    coffer_curl_buffer headers;
    volatile int cancelled;
    long status;
    char error[COFFER_CURL_ERROR_SIZE];
} coffer_curl_exchange;

static size_t coffer_curl_on_body(char *bytes, size_t size, size_t count, void *context) {
    coffer_curl_exchange *exchange = context;
    coffer_curl_append(&exchange->body, bytes, size * count);
    return exchange->body.failed ? 0 : size * count;
}

static size_t coffer_curl_on_header(char *bytes, size_t size, size_t count, void *context) {
    coffer_curl_exchange *exchange = context;
    // A new status line (after a 100 Continue, say): only the last answer's headers count.
    if (size * count >= 5 && memcmp(bytes, "HTTP/", 5) == 0) exchange->headers.count = 0;
    coffer_curl_append(&exchange->headers, bytes, size * count);
    return exchange->headers.failed ? 0 : size * count;
}

static int coffer_curl_on_progress(void *context, int64_t a, int64_t b, int64_t c, int64_t d) {
    (void)a; (void)b; (void)c; (void)d;
    return ((coffer_curl_exchange *)context)->cancelled ? 1 : 0;
}

static inline void coffer_curl_exchange_free(coffer_curl_exchange *exchange) {
    free(exchange->body.bytes);
    free(exchange->headers.bytes);
    free(exchange);
}

/// Sends one request on `handle` (reset first; its live connections stay) and waits for the
/// whole answer. `headers` are "Name: value" lines; `body` may be NULL. Returns a CURLcode.
static inline int coffer_curl_perform(void *handle, coffer_curl_exchange *exchange, const char *method,
                                      const char *url, const char *const *headers, int header_count,
                                      const void *body, int64_t body_count, long timeout_ms) {
    coffer_curl.easy_reset(handle);
    void *list = NULL;
    for (int index = 0; index < header_count; index++) {
        void *grown = coffer_curl.slist_append(list, headers[index]);
        if (!grown) { coffer_curl.slist_free_all(list); return 27; /* CURLE_OUT_OF_MEMORY */ }
        list = grown;
    }
    // No "Expect: 100-continue" round trip before a large body.
    void *grown = coffer_curl.slist_append(list, "Expect:");
    if (grown) list = grown;
    coffer_curl.easy_setopt(handle, COFFER_CURLOPT_URL, url);
    coffer_curl.easy_setopt(handle, COFFER_CURLOPT_NOSIGNAL, 1L);
    coffer_curl.easy_setopt(handle, COFFER_CURLOPT_FOLLOWLOCATION, 0L);
    coffer_curl.easy_setopt(handle, COFFER_CURLOPT_TIMEOUT_MS, timeout_ms);
    coffer_curl.easy_setopt(handle, COFFER_CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    coffer_curl.easy_setopt(handle, COFFER_CURLOPT_ERRORBUFFER, exchange->error);
    coffer_curl.easy_setopt(handle, COFFER_CURLOPT_WRITEFUNCTION, coffer_curl_on_body);
    coffer_curl.easy_setopt(handle, COFFER_CURLOPT_WRITEDATA, exchange);
    coffer_curl.easy_setopt(handle, COFFER_CURLOPT_HEADERFUNCTION, coffer_curl_on_header);
    coffer_curl.easy_setopt(handle, COFFER_CURLOPT_HEADERDATA, exchange);
    coffer_curl.easy_setopt(handle, COFFER_CURLOPT_NOPROGRESS, 0L);
    coffer_curl.easy_setopt(handle, COFFER_CURLOPT_XFERINFOFUNCTION, coffer_curl_on_progress);
    coffer_curl.easy_setopt(handle, COFFER_CURLOPT_XFERINFODATA, exchange);
    coffer_curl.easy_setopt(handle, COFFER_CURLOPT_HTTPHEADER, list);
    if (body) {
        coffer_curl.easy_setopt(handle, COFFER_CURLOPT_POSTFIELDSIZE_LARGE, (int64_t)body_count);
        coffer_curl.easy_setopt(handle, COFFER_CURLOPT_POSTFIELDS, body);
    } else {
        coffer_curl.easy_setopt(handle, COFFER_CURLOPT_HTTPGET, 1L);
    }
    if (strcmp(method, "GET") != 0) coffer_curl.easy_setopt(handle, COFFER_CURLOPT_CUSTOMREQUEST, method);
    int code = coffer_curl.easy_perform(handle);
    long status = 0;
    coffer_curl.easy_getinfo(handle, COFFER_CURLINFO_RESPONSE_CODE, &status);
    exchange->status = status;
    coffer_curl.slist_free_all(list);
    if (code == 0 && (exchange->body.failed || exchange->headers.failed)) code = 27;
    return code;
}

static inline void *coffer_curl_handle_new(void) { return coffer_curl_load() ? coffer_curl.easy_init() : NULL; }
static inline void coffer_curl_handle_free(void *handle) { if (handle) coffer_curl.easy_cleanup(handle); }
static inline const char *coffer_curl_describe(int code) { return coffer_curl_load() ? coffer_curl.easy_strerror(code) : "libcurl is not loaded"; }

#endif
