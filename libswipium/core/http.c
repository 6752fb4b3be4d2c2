/* http.c: a small HTTP GET for loopback probes, with libcurl loaded by dlopen() on first use. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Only curl's types and constants are used here: the functions are reached through dlsym(). */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

#include "sw-internal.h"

/*
 * Why dlopen: libcurl pulls in TLS, HTTP/2, LDAP, Kerberos and more. Linked in, it costs every process
 * about 5 ms and 7 MB before main() even for commands that never probe anything over HTTP, and the MCP
 * server must answer `initialize` within 10 ms. So libcurl is loaded the first time a probe runs, and a
 * machine without it loses only those probes.
 */
#define SW_LIBCURL_SONAME "libcurl.so.4"

typedef CURLcode (*global_init_fn)(long flags);
typedef CURL *(*easy_init_fn)(void);
typedef CURLcode (*easy_setopt_fn)(CURL *c, CURLoption opt, ...);
typedef CURLcode (*easy_perform_fn)(CURL *c);
typedef CURLcode (*easy_getinfo_fn)(CURL *c, CURLINFO info, ...);
typedef void (*easy_cleanup_fn)(CURL *c);
typedef const char *(*easy_strerror_fn)(CURLcode code);
typedef struct curl_slist *(*slist_append_fn)(struct curl_slist *l, const char *s);
typedef void (*slist_free_all_fn)(struct curl_slist *l);

static struct {
	global_init_fn global_init;
	easy_init_fn easy_init;
	easy_setopt_fn easy_setopt;
	easy_perform_fn easy_perform;
	easy_getinfo_fn easy_getinfo;
	easy_cleanup_fn easy_cleanup;
	easy_strerror_fn easy_strerror;
	slist_append_fn slist_append;     /* sw__http_request's headers (NULL: requests without headers only) */
	slist_free_all_fn slist_free_all;
	bool ready;
	char why[256]; /* why loading failed, when !ready */
} curl;

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

/* Runs once per process. The handle is never closed: libcurl keeps global state until exit. */
static void curl_load(void)
{
	void *h = dlopen(SW_LIBCURL_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(curl.why, sizeof(curl.why), "%s", e ? e : SW_LIBCURL_SONAME ": dlopen failed");
		return;
	}
	static const char *const names[] = {"curl_global_init",  "curl_easy_init",    "curl_easy_setopt",
	                                    "curl_easy_perform", "curl_easy_getinfo", "curl_easy_cleanup",
	                                    "curl_easy_strerror"};
	void *syms[SW_ARRAY_SIZE(names)];
	for (size_t i = 0; i < SW_ARRAY_SIZE(names); i++) {
		syms[i] = dlsym(h, names[i]);
		if (!syms[i]) {
			snprintf(curl.why, sizeof(curl.why), "%s lacks %s", SW_LIBCURL_SONAME, names[i]);
			return;
		}
	}
	/* POSIX lets dlsym's void * become a function pointer; ISO C does not, hence the memcpy. */
	memcpy(&curl.global_init, &syms[0], sizeof(void *));
	memcpy(&curl.easy_init, &syms[1], sizeof(void *));
	memcpy(&curl.easy_setopt, &syms[2], sizeof(void *));
	memcpy(&curl.easy_perform, &syms[3], sizeof(void *));
	memcpy(&curl.easy_getinfo, &syms[4], sizeof(void *));
	memcpy(&curl.easy_cleanup, &syms[5], sizeof(void *));
	memcpy(&curl.easy_strerror, &syms[6], sizeof(void *));
	void *sa = dlsym(h, "curl_slist_append"), *sf = dlsym(h, "curl_slist_free_all");
	if (sa && sf) {
		memcpy(&curl.slist_append, &sa, sizeof(void *));
		memcpy(&curl.slist_free_all, &sf, sizeof(void *));
	}
	/* Done here, once, because curl_global_init() is not thread-safe in every libcurl still shipped. */
	CURLcode rc = curl.global_init(CURL_GLOBAL_DEFAULT);
	if (rc != CURLE_OK) {
		snprintf(curl.why, sizeof(curl.why), "curl_global_init failed: %s", curl.easy_strerror(rc));
		return;
	}
	curl.ready = true;
}

typedef struct {
	sw_buf buf;
	size_t max;
	bool keep;   /* the caller wants the body */
	bool capped; /* more than max bytes arrived; the transfer was stopped on purpose */
	CURL *c;     /* the transfer, asked once for its Content-Length (NULL: never asked) */
	bool sized;  /* the body's buffer was sized from the Content-Length already */
} sink;

/*
 * A large buffer about to be filled from end to end: where the kernel makes transparent huge pages on
 * request (madvise mode), its 2 MiB-aligned stretches take one page fault each instead of 512. Nothing
 * else changes; a kernel without them ignores the hint.
 */
void sw__hint_huge_pages(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE /* Linux; elsewhere (macOS) there is nothing to ask for */
	const uintptr_t huge = (uintptr_t)2 << 20;
	if (n < 2 * huge)
		return;
	uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), e = ((uintptr_t)p + n) & ~(huge - 1);
	if (e > a)
		(void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
	(void)p;
	(void)n;
#endif
}

/*
 * The first bytes of a body: when the answer says how long it is, the buffer takes that size at once
 * (never more than the cap), so that an 11 MB WebDriverAgent source is not grown by doubling, copied
 * and faulted in again at every step. A wrong Content-Length costs nothing: the buffer still grows.
 */
static void size_from_header(sink *s)
{
	s->sized = true;
	if (!s->c || s->buf.cap)
		return;
	curl_off_t cl = -1;
	if (curl.easy_getinfo(s->c, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) != CURLE_OK || cl <= 0)
		return;
	size_t want = (uint64_t)cl < (uint64_t)s->max ? (size_t)cl : s->max;
	/* exactly that (sw__buf_reserve would round up to a power of two: 64 MiB for a 36 MB body) */
	char *p = malloc(want + 1);
	if (!p)
		return; /* the appends then try, and fail, on their own */
	sw__hint_huge_pages(p, want + 1);
	p[0] = '\0';
	s->buf.data = p;
	s->buf.cap = want + 1;
}

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
	sink *s = ud;
	size_t len = size * n;
	if (!s->keep)
		return len;
	if (!s->sized)
		size_from_header(s);
	size_t room = s->max - s->buf.len;
	if (len > room) {
		sw__buf_append(&s->buf, p, room);
		s->capped = true;
		return 0; /* stops the transfer: the rest is not wanted */
	}
	sw__buf_append(&s->buf, p, len);
	return s->buf.failed ? 0 : len;
}

int sw__http_get(const char *url, long timeout_ms, long *status_out, char **body_out, size_t max_body, sw_error **err)
{
	if (!url || (!sw__str_has_prefix(url, "http://") && !sw__str_has_prefix(url, "https://")))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "HTTP GET needs an http:// or https:// URL, got \"%s\"", url ? url : "(null)");
	if (timeout_ms <= 0)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "HTTP GET %s: timeout must be > 0 ms, got %ld", url, timeout_ms);
	pthread_once(&curl_once, curl_load);
	if (!curl.ready)
		return sw__error_set(err, SW_EUNSUPPORTED, NULL,
		                     "Install libcurl (Debian: apt-get install libcurl4) to enable HTTP probes.",
		                     "HTTP GET %s: libcurl could not be loaded: %s", url, curl.why);

	CURL *c = curl.easy_init();
	if (!c)
		return sw__error_nomem(err);
	int rc = SW_OK;
	char errbuf[CURL_ERROR_SIZE] = "";
	sink s = {SW_BUF_INIT, max_body, body_out != NULL, false, c, false};
	CURLcode cc = CURLE_OK;
	/* Each option is checked: the libcurl loaded at run time may be older than the headers. */
	if ((cc = curl.easy_setopt(c, CURLOPT_URL, url)) != CURLE_OK ||
	    (cc = curl.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https")) != CURLE_OK ||
	    (cc = curl.easy_setopt(c, CURLOPT_NOSIGNAL, 1L)) != CURLE_OK ||
	    (cc = curl.easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms)) != CURLE_OK ||
	    (cc = curl.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms)) != CURLE_OK ||
	    /* Probes target this machine; a proxy from the environment must not reroute them. */
	    (cc = curl.easy_setopt(c, CURLOPT_NOPROXY, "localhost,127.0.0.1,::1")) != CURLE_OK ||
	    (cc = curl.easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf)) != CURLE_OK ||
	    (cc = curl.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body)) != CURLE_OK ||
	    (cc = curl.easy_setopt(c, CURLOPT_WRITEDATA, &s)) != CURLE_OK) {
		rc =
		    sw__error_set(err, SW_EUNSUPPORTED, NULL, "Install libcurl 7.85 or later.",
		                  "HTTP GET %s: the loaded libcurl rejects an option: %s", url, curl.easy_strerror(cc));
		goto out;
	}
	cc = curl.easy_perform(c);
	if (s.buf.failed) {
		rc = sw__error_nomem(err);
		goto out;
	}
	if (cc != CURLE_OK && !(cc == CURLE_WRITE_ERROR && s.capped)) {
		rc = sw__error_set(err, cc == CURLE_OPERATION_TIMEDOUT ? SW_ETIMEOUT : SW_EIO, NULL, NULL,
		                   "HTTP GET %s failed: %s", url, errbuf[0] ? errbuf : curl.easy_strerror(cc));
		goto out;
	}
	long status = 0;
	curl.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (body_out) {
		sw__buf_append(&s.buf, "", 0); /* an empty body is "" rather than NULL */
		if (s.buf.failed || !s.buf.data) {
			rc = sw__error_nomem(err);
			goto out;
		}
		*body_out = sw__buf_steal(&s.buf, NULL);
	}
	if (status_out)
		*status_out = status;
out:
	sw__buf_free(&s.buf);
	curl.easy_cleanup(c);
	return rc;
}

int sw__http_request(const char *method, const char *url, const json_t *headers, const char *body, long timeout_ms,
                     long *status_out, char **body_out, size_t max_body, sw_error **err)
{
	if (!method || !*method || strspn(method, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != strlen(method))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "an HTTP method is one upper-case word (GET, POST, PUT, PATCH, DELETE), got \"%s\"",
		                     method ? method : "(null)");
	if (!url || (!sw__str_has_prefix(url, "http://") && !sw__str_has_prefix(url, "https://")))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "an HTTP request needs an http:// or https:// URL");
	if (timeout_ms <= 0)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "HTTP %s: timeout must be > 0 ms", method);
	if (headers && !json_is_object(headers))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "HTTP headers must be an object of strings");
	pthread_once(&curl_once, curl_load);
	if (!curl.ready)
		return sw__error_set(err, SW_EUNSUPPORTED, NULL,
		                     "Install libcurl (Debian: apt-get install libcurl4) to enable HTTP requests.",
		                     "HTTP %s: libcurl could not be loaded: %s", method, curl.why);
	if (json_object_size(headers) && (!curl.slist_append || !curl.slist_free_all))
		return sw__error_set(err, SW_EUNSUPPORTED, NULL, "Install a complete libcurl 7.85 or later.",
		                     "HTTP %s: the loaded libcurl has no header lists", method);
	CURL *c = curl.easy_init();
	if (!c)
		return sw__error_nomem(err);
	struct curl_slist *hl = NULL;
	int rc = SW_OK;
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)headers, k, v)
	{
		const char *val = json_string_value(v);
		if (!val || strpbrk(k, "\r\n:") || strpbrk(val, "\r\n")) {
			rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
			                   "HTTP header %s must be a one-line string (no CR, LF or colon in its name)", k);
			goto out;
		}
		char *line = sw__asprintf("%s: %s", k, val);
		struct curl_slist *nl = line ? curl.slist_append(hl, line) : NULL;
		free(line);
		if (!nl) {
			rc = sw__error_nomem(err);
			goto out;
		}
		hl = nl;
	}
	char errbuf[CURL_ERROR_SIZE] = "";
	sink s = {SW_BUF_INIT, max_body, body_out != NULL, false, c, false};
	CURLcode cc = CURLE_OK;
	if ((cc = curl.easy_setopt(c, CURLOPT_URL, url)) != CURLE_OK ||
	    (cc = curl.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https")) != CURLE_OK ||
	    (cc = curl.easy_setopt(c, CURLOPT_NOSIGNAL, 1L)) != CURLE_OK ||
	    (cc = curl.easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms)) != CURLE_OK ||
	    (cc = curl.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms)) != CURLE_OK ||
	    (cc = curl.easy_setopt(c, CURLOPT_NOPROXY, "localhost,127.0.0.1,::1")) != CURLE_OK ||
	    (cc = curl.easy_setopt(c, CURLOPT_CUSTOMREQUEST, method)) != CURLE_OK ||
	    (body && (cc = curl.easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(body))) != CURLE_OK) ||
	    (body && (cc = curl.easy_setopt(c, CURLOPT_POSTFIELDS, body)) != CURLE_OK) ||
	    (hl && (cc = curl.easy_setopt(c, CURLOPT_HTTPHEADER, hl)) != CURLE_OK) ||
	    (cc = curl.easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf)) != CURLE_OK ||
	    (cc = curl.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body)) != CURLE_OK ||
	    (cc = curl.easy_setopt(c, CURLOPT_WRITEDATA, &s)) != CURLE_OK) {
		rc = sw__error_set(err, SW_EUNSUPPORTED, NULL, "Install libcurl 7.85 or later.",
		                   "HTTP %s: the loaded libcurl rejects an option: %s", method, curl.easy_strerror(cc));
		sw__buf_free(&s.buf);
		goto out;
	}
	cc = curl.easy_perform(c);
	if (s.buf.failed) {
		rc = sw__error_nomem(err);
	} else if (cc != CURLE_OK && !(cc == CURLE_WRITE_ERROR && s.capped)) {
		/* the URL is not in the message: it may carry a token; the caller names the request */
		rc = sw__error_set(err, cc == CURLE_OPERATION_TIMEDOUT ? SW_ETIMEOUT : SW_EIO, NULL, NULL,
		                   "HTTP %s failed: %s", method, curl.easy_strerror(cc));
	} else {
		long status = 0;
		curl.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		if (status_out)
			*status_out = status;
		if (body_out) {
			sw__buf_append(&s.buf, "", 0);
			if (s.buf.failed || !s.buf.data)
				rc = sw__error_nomem(err);
			else
				*body_out = sw__buf_steal(&s.buf, NULL);
		}
	}
	sw__buf_free(&s.buf);
out:
	if (hl)
		curl.slist_free_all(hl);
	curl.easy_cleanup(c);
	return rc;
}

/* A JSON request for the WebDriverAgent client (sw-internal.h). */
int sw__http_exchange(const sw__http_req *req, sw__http_resp *resp, sw_error **err)
{
	memset(resp, 0, sizeof(*resp));
	const char *url = req ? req->url : NULL;
	const char *method = req && req->method ? req->method : "GET";
	if (!url || (!sw__str_has_prefix(url, "http://") && !sw__str_has_prefix(url, "https://")))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "HTTP %s needs an http:// or https:// URL, got \"%s\"", method, url ? url : "(null)");
	if (req->timeout_ms <= 0)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "HTTP %s %s: timeout must be > 0 ms", method,
		                     url);
	pthread_once(&curl_once, curl_load);
	if (!curl.ready)
		return sw__error_set(err, SW_EUNSUPPORTED, NULL,
		                     "Install libcurl (Debian: apt-get install libcurl4) to enable HTTP requests.",
		                     "HTTP %s %s: libcurl could not be loaded: %s", method, url, curl.why);
	CURL *c = curl.easy_init();
	if (!c)
		return sw__error_nomem(err);
	int rc = SW_OK;
	char errbuf[CURL_ERROR_SIZE] = "";
	sink s = {SW_BUF_INIT, req->max_body ? req->max_body : ((size_t)64 << 20), true, false, c, false};
	struct curl_slist *hdrs = NULL;
	if (req->body && (!curl.slist_append || !curl.slist_free_all)) {
		curl.easy_cleanup(c);
		return sw__error_set(err, SW_EUNSUPPORTED, NULL, "Install a complete libcurl 7.85 or later.",
		                     "HTTP %s %s: the loaded libcurl has no header lists", method, url);
	}
	if (req->body) {
		hdrs = curl.slist_append(NULL, "Content-Type: application/json");
		if (!hdrs) {
			curl.easy_cleanup(c);
			return sw__error_nomem(err);
		}
	}
	CURLcode cc = CURLE_OK;
	if ((cc = curl.easy_setopt(c, CURLOPT_URL, url)) != CURLE_OK ||
	    (cc = curl.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https")) != CURLE_OK ||
	    (cc = curl.easy_setopt(c, CURLOPT_NOSIGNAL, 1L)) != CURLE_OK ||
	    (cc = curl.easy_setopt(c, CURLOPT_TIMEOUT_MS, req->timeout_ms)) != CURLE_OK ||
	    (cc = curl.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, req->timeout_ms)) != CURLE_OK ||
	    /* never through a proxy: the caller decided which host it may reach */
	    (cc = curl.easy_setopt(c, CURLOPT_NOPROXY, "*")) != CURLE_OK ||
	    (cc = curl.easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf)) != CURLE_OK ||
	    (cc = curl.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body)) != CURLE_OK ||
	    (cc = curl.easy_setopt(c, CURLOPT_WRITEDATA, &s)) != CURLE_OK ||
	    (req->body && ((cc = curl.easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len)) != CURLE_OK ||
	                   (cc = curl.easy_setopt(c, CURLOPT_POSTFIELDS, req->body)) != CURLE_OK ||
	                   (cc = curl.easy_setopt(c, CURLOPT_HTTPHEADER, hdrs)) != CURLE_OK)) ||
	    (strcmp(method, "GET") != 0 && (cc = curl.easy_setopt(c, CURLOPT_CUSTOMREQUEST, method)) != CURLE_OK)) {
		rc = sw__error_set(err, SW_EUNSUPPORTED, NULL, "Install libcurl 7.85 or later.",
		                   "HTTP %s %s: the loaded libcurl rejects an option: %s", method, url, curl.easy_strerror(cc));
		goto out;
	}
	/* larger reads for WebDriverAgent's multi-megabyte sources: fewer calls of on_body (an older libcurl
	 * that refuses the size keeps its own, which only costs time) */
	(void)curl.easy_setopt(c, CURLOPT_BUFFERSIZE, 256L * 1024L);
	cc = curl.easy_perform(c);
	if (s.buf.failed) {
		rc = sw__error_nomem(err);
		goto out;
	}
	if (cc != CURLE_OK && !(cc == CURLE_WRITE_ERROR && s.capped)) {
		resp->timed_out = cc == CURLE_OPERATION_TIMEDOUT;
		rc = sw__error_set(err, resp->timed_out ? SW_ETIMEOUT : SW_EIO, NULL, NULL, "HTTP %s %s failed: %s", method,
		                   url, errbuf[0] ? errbuf : curl.easy_strerror(cc));
		goto out;
	}
	curl.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp->status);
	sw__buf_append(&s.buf, "", 0);
	if (s.buf.failed || !s.buf.data) {
		rc = sw__error_nomem(err);
		goto out;
	}
	resp->body = sw__buf_steal(&s.buf, &resp->body_len);
	resp->capped = s.capped;
out:
	sw__buf_free(&s.buf);
	if (hdrs)
		curl.slist_free_all(hdrs);
	curl.easy_cleanup(c);
	return rc;
}
