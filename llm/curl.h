/* llm/curl.h — libcurl, loaded when the first LLM client starts.
 *
 * The programs that can talk to a model (tikz2ir --fallback, svg2graph
 * --llm, judge) do not link libcurl: linking it maps some thirty shared
 * libraries (TLS, LDAP, HTTP/2, ...) into every run, about 7 MB of resident
 * memory and a few milliseconds of relocation, though most runs never send
 * a request. llm_curl_load() dlopen()s libcurl.so.4 once and fills a table
 * of its entry points; the names below map libcurl's API onto that table, so
 * the client code reads like ordinary libcurl code. */
#ifndef DIAGRAMIR_LLM_CURL_H
#define DIAGRAMIR_LLM_CURL_H

#include <stddef.h>
#include <time.h>

#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

struct llm_curl_api {
    CURLcode (*global_init)(long);
    void (*global_cleanup)(void);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    void (*easy_cleanup)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd[], unsigned int, int, int *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    CURLMcode (*multi_cleanup)(CURLM *);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    time_t (*getdate)(const char *, const time_t *);
};

extern struct llm_curl_api llm_curl;

/* Loads libcurl (once per process). 0 on success; -1 with a message in err
 * when the library or one of its entry points is missing. */
int llm_curl_load(char *err, size_t errlen);

#define curl_global_init llm_curl.global_init
#define curl_global_cleanup llm_curl.global_cleanup
#define curl_easy_init llm_curl.easy_init
#undef curl_easy_setopt
#define curl_easy_setopt llm_curl.easy_setopt
#undef curl_easy_getinfo
#define curl_easy_getinfo llm_curl.easy_getinfo
#define curl_easy_cleanup llm_curl.easy_cleanup
#define curl_easy_strerror llm_curl.easy_strerror
#define curl_multi_init llm_curl.multi_init
#undef curl_multi_setopt
#define curl_multi_setopt llm_curl.multi_setopt
#define curl_multi_add_handle llm_curl.multi_add_handle
#define curl_multi_remove_handle llm_curl.multi_remove_handle
#define curl_multi_perform llm_curl.multi_perform
#define curl_multi_poll llm_curl.multi_poll
#define curl_multi_info_read llm_curl.multi_info_read
#define curl_multi_cleanup llm_curl.multi_cleanup
#define curl_slist_append llm_curl.slist_append
#define curl_slist_free_all llm_curl.slist_free_all
#define curl_getdate llm_curl.getdate

#endif
