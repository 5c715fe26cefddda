/* llm/curl.c — dlopen() of libcurl for the LLM client (see llm/curl.h). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm/curl.h"

struct llm_curl_api llm_curl;

/* The SONAME of libcurl 7.16 and later (Debian: libcurl4, pulled in by
 * libcurl4-openssl-dev); DIAGRAMIR_LIBCURL names another file. */
#define LIBCURL_SONAME "libcurl.so.4"

static void *handle;

/* dlsym returns void *; ISO C has no conversion from it to a function
 * pointer, POSIX guarantees the representation, so copy the bytes. */
static int sym(const char *name, void *slot, size_t size, char *err, size_t errlen)
{
    void *p = dlsym(handle, name);
    if (!p) {
        snprintf(err, errlen, "libcurl has no %s: %s", name, dlerror());
        return -1;
    }
    memcpy(slot, &p, size);
    return 0;
}

#define SYM(field, name) \
    if (sym(name, &llm_curl.field, sizeof llm_curl.field, err, errlen) != 0) goto fail

int llm_curl_load(char *err, size_t errlen)
{
    if (handle) return 0;
    const char *so = getenv("DIAGRAMIR_LIBCURL");
    if (!so || !*so) so = LIBCURL_SONAME;
    handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(err, errlen, "cannot load %s (install libcurl4): %s", so, dlerror());
        return -1;
    }
    SYM(global_init, "curl_global_init");
    SYM(global_cleanup, "curl_global_cleanup");
    SYM(easy_init, "curl_easy_init");
    SYM(easy_setopt, "curl_easy_setopt");
    SYM(easy_getinfo, "curl_easy_getinfo");
    SYM(easy_cleanup, "curl_easy_cleanup");
    SYM(easy_strerror, "curl_easy_strerror");
    SYM(multi_init, "curl_multi_init");
    SYM(multi_setopt, "curl_multi_setopt");
    SYM(multi_add_handle, "curl_multi_add_handle");
    SYM(multi_remove_handle, "curl_multi_remove_handle");
    SYM(multi_perform, "curl_multi_perform");
    SYM(multi_poll, "curl_multi_poll");
    SYM(multi_info_read, "curl_multi_info_read");
    SYM(multi_cleanup, "curl_multi_cleanup");
    SYM(slist_append, "curl_slist_append");
    SYM(slist_free_all, "curl_slist_free_all");
    SYM(getdate, "curl_getdate");
    return 0;
fail:
    dlclose(handle);
    handle = NULL;
    memset(&llm_curl, 0, sizeof llm_curl);
    return -1;
}
