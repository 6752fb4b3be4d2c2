/* check-core.c: unit tests of the core utilities: errors, buffers, UTF-8, files, JSON, project root. */
#include <arpa/inet.h>
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sw-internal.h"
#include "sw-proc.h"

static char *make_tmpdir(void)
{
	char tmpl[] = "/tmp/sw-core-XXXXXX";
	char *d = mkdtemp(tmpl);
	ck_assert_ptr_nonnull(d);
	return strdup(d);
}

START_TEST(test_error_set_once)
{
	sw_error *err = NULL;
	int rc = sw__error_set(&err, SW_EINVAL, "INVALID_ARGUMENT", "try again", "bad %s", "thing");
	ck_assert_int_eq(rc, SW_EINVAL);
	ck_assert_int_eq(sw_error_code(err), SW_EINVAL);
	ck_assert_str_eq(sw_error_message(err), "bad thing");
	ck_assert_str_eq(sw_error_failure_code(err), "INVALID_ARGUMENT");
	ck_assert_str_eq(sw_error_hint(err), "try again");
	/* A second failure does not overwrite the first. */
	sw__error_set(&err, SW_EIO, NULL, NULL, "second");
	ck_assert_str_eq(sw_error_message(err), "bad thing");
	ck_assert_ptr_null(sw_error_details_json(err));
	sw__error_take_details(err, json_pack("{s:i}", "n", 3));
	ck_assert_str_eq(sw_error_details_json(err), "{\"n\":3}");
	sw_error_free(err);
	sw_error_free(NULL);
	/* NULL err is allowed and the code still comes back. */
	ck_assert_int_eq(sw__error_set(NULL, SW_ENOTFOUND, NULL, NULL, "x"), SW_ENOTFOUND);
	ck_assert_str_eq(sw_strerror(SW_ELIMIT), "SW_ELIMIT");
}
END_TEST

START_TEST(test_buf)
{
	sw_buf b = SW_BUF_INIT;
	for (int i = 0; i < 10000; i++)
		sw__buf_printf(&b, "%d,", i % 10);
	ck_assert_uint_eq(b.len, 20000);
	size_t len;
	char *s = sw__buf_steal(&b, &len);
	ck_assert_uint_eq(len, 20000);
	ck_assert_int_eq(strncmp(s, "0,1,2,", 6), 0);
	free(s);
	sw_buf e = SW_BUF_INIT;
	s = sw__buf_steal(&e, &len);
	ck_assert_str_eq(s, "");
	free(s);
}
END_TEST

START_TEST(test_utf8)
{
	ck_assert(sw__utf8_valid("h\xC3\xA9llo", 6));
	ck_assert(!sw__utf8_valid("\xC3", 1));
	ck_assert(!sw__utf8_valid("\xED\xA0\x80", 3)); /* an encoded surrogate is not UTF-8 */
	ck_assert(!sw__utf8_valid("\xC0\xAF", 2));     /* overlong */
	char *s = sw__utf8_sanitize("a\xFF" "b", 3);
	ck_assert_str_eq(s, "a\xEF\xBF\xBD" "b");
	free(s);
	/* JavaScript counts an emoji as two units. */
	const char *t = "a\xF0\x9F\x98\x80" "b";
	ck_assert_uint_eq(sw__utf16_len(t, strlen(t)), 4);
	ck_assert_uint_eq(sw__utf16_prefix_bytes(t, strlen(t), 2), 1); /* never splits the pair */
	ck_assert_uint_eq(sw__utf16_prefix_bytes(t, strlen(t), 3), 5);
}
END_TEST

START_TEST(test_text_cap)
{
	/* short text: unchanged; invalid bytes become U+FFFD even when nothing is cut */
	char *s = sw_text_cap("abc", (size_t)-1, 10, SW_CAP_HEAD_TAIL);
	ck_assert_str_eq(s, "abc");
	sw_free(s);
	s = sw_text_cap("a\xC3", 2, 10, SW_CAP_HEAD);
	ck_assert_str_eq(s, "a\xEF\xBF\xBD");
	sw_free(s);
	/* head and tail around the marker, exactly max units */
	s = sw_text_cap("abcdefghij", (size_t)-1, 5, SW_CAP_HEAD_TAIL);
	ck_assert_str_eq(s, "ab" SW_CAP_MARKER "ij");
	sw_free(s);
	s = sw_text_cap("abcdefghij", (size_t)-1, 4, SW_CAP_HEAD);
	ck_assert_str_eq(s, "abc" SW_CAP_MARKER);
	sw_free(s);
	s = sw_text_cap("abcdefghij", (size_t)-1, 4, SW_CAP_TAIL);
	ck_assert_str_eq(s, SW_CAP_MARKER "hij");
	sw_free(s);
	/* every cut of a non-ASCII text stays valid UTF-8 and within the cap */
	const char *t = "\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80x\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80";
	for (unsigned mode = 0; mode < 3; mode++) {
		for (size_t max = 0; max < 12; max++) {
			s = sw_text_cap(t, (size_t)-1, max, (enum sw_cap_mode)mode);
			ck_assert_ptr_nonnull(s);
			ck_assert(sw__utf8_valid(s, strlen(s)));
			ck_assert_uint_le(sw__utf16_len(s, strlen(s)), max);
			sw_free(s);
		}
	}
	/* the emoji (two units) is never split between head and tail */
	s = sw_text_cap("\xF0\x9F\x98\x80\xF0\x9F\x98\x80\xF0\x9F\x98\x80", (size_t)-1, 4, SW_CAP_HEAD_TAIL);
	ck_assert_str_eq(s, "\xF0\x9F\x98\x80" SW_CAP_MARKER);
	sw_free(s);
	s = sw_text_cap(NULL, 0, 5, SW_CAP_HEAD);
	ck_assert_str_eq(s, "");
	sw_free(s);
	s = sw_text_capf(6, SW_CAP_HEAD, "%s=%d", "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 42);
	ck_assert_str_eq(s, "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9=" SW_CAP_MARKER);
	sw_free(s);
	char small[8];
	ck_assert_uint_eq(sw_text_snprintf(small, sizeof(small), "%s", "ab"), 2);
	ck_assert_str_eq(small, "ab");
	sw_text_snprintf(small, sizeof(small), "%s", "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9");
	ck_assert_str_eq(small, "\xC3\xA9\xC3\xA9" SW_CAP_MARKER);
	sw_text_snprintf(small, 4, "%s", "a\xC3\xA9\xC3\xA9");
	ck_assert_str_eq(small, SW_CAP_MARKER);
	/* an error message cut inside a character by its caller is still valid UTF-8 */
	sw_error *err = NULL;
	sw__error_set(&err, SW_EIO, NULL, NULL, "out: %.3s", "\xC3\xA9\xC3\xA9");
	ck_assert(sw__utf8_valid(sw_error_message(err), strlen(sw_error_message(err))));
	sw_error_free(err);
	/* lone escaped surrogates become \ufffd, pairs stay */
	char j[] = "{\"a\":\"\\ud800x\\ud83d\\ude00\\udc00\"}";
	sw_json_fix_lone_surrogates(j, strlen(j));
	ck_assert_str_eq(j, "{\"a\":\"\\ufffdx\\ud83d\\ude00\\ufffd\"}");
}
END_TEST

START_TEST(test_js_numbers)
{
	static const struct {
		double d;
		const char *want;
	} cases[] = {
		{0.1, "0.1"}, {412.345, "412.345"}, {60, "60"}, {-0.5, "-0.5"}, {1e21, "1e+21"},
		{1e-7, "1e-7"}, {123456789012345680000.0, "123456789012345680000"}, {0.000001, "0.000001"},
		{1.5e300, "1.5e+300"},
	};
	for (size_t i = 0; i < SW_ARRAY_SIZE(cases); i++) {
		sw_buf b = SW_BUF_INIT;
		sw__buf_js_number(&b, cases[i].d);
		char *s = sw__buf_steal(&b, NULL);
		ck_assert_str_eq(s, cases[i].want);
		free(s);
	}
}
END_TEST

START_TEST(test_json_pretty)
{
	json_t *v = json_loads("{\"b\":[1,2.5,{}],\"a\":\"x\\u0001\\\"\",\"c\":[],\"d\":null,\"e\":1.0}", 0, NULL);
	ck_assert_ptr_nonnull(v);
	char *s = sw__json_pretty(v);
	ck_assert_str_eq(s, "{\n  \"b\": [\n    1,\n    2.5,\n    {}\n  ],\n  \"a\": \"x\\u0001\\\"\",\n  \"c\": [],\n"
			    "  \"d\": null,\n  \"e\": 1\n}");
	free(s);
	s = sw__json_compact(v);
	ck_assert_str_eq(s, "{\"b\":[1,2.5,{}],\"a\":\"x\\u0001\\\"\",\"c\":[],\"d\":null,\"e\":1}");
	free(s);
	json_decref(v);
}
END_TEST

START_TEST(test_atomic_write)
{
	char *dir = make_tmpdir();
	char *path = sw__asprintf("%s/a/b/c.json", dir);
	sw_error *err = NULL;
	/* Without MKDIRS a missing parent is an error and nothing is created. */
	ck_assert_int_eq(sw_file_write_atomic(path, "x", 1, 0, &err), SW_EIO);
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_file_write_atomic(path, "hello", 5, SW_WRITE_MKDIRS, &err), SW_OK);
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	char *parent = sw__asprintf("%s/a/b", dir);
	ck_assert_int_eq(stat(parent, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0700);
	char *data = NULL;
	size_t len = 0;
	ck_assert_int_eq(sw__read_file(path, 100, &data, &len, NULL), SW_OK);
	ck_assert_str_eq(data, "hello");
	free(data);
	/* Over the limit: an error, not a truncated read. */
	ck_assert_int_eq(sw__read_file(path, 3, &data, &len, &err), SW_ELIMIT);
	sw_error_free(err);
	err = NULL;
	/* Writing over a directory fails and leaves no temporary file behind. */
	ck_assert_int_eq(sw_file_write_atomic(parent, "x", 1, 0, &err), SW_EIO);
	sw_error_free(err);
	char *cmd = sw__asprintf("test $(ls -A %s/a | wc -l) -eq 1", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	cmd = sw__asprintf("rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(parent);
	free(path);
	free(dir);
}
END_TEST

START_TEST(test_paths)
{
	char *p = sw__path_resolve("/a/b", "../c/./d//e/..");
	ck_assert_str_eq(p, "/a/c/d");
	free(p);
	p = sw__path_resolve("/", "../../x");
	ck_assert_str_eq(p, "/x");
	free(p);
	p = sw__path_join("/a/", "/b");
	ck_assert_str_eq(p, "/a/b");
	free(p);
}
END_TEST

START_TEST(test_confine)
{
	char *dir = make_tmpdir(), *out = make_tmpdir();
	char *p = sw__asprintf("%s/a", dir), *q = NULL, *real = NULL;
	sw_error *err = NULL;
	/* a plain path, a missing tail, "..", an absolute path outside */
	ck_assert_int_eq(sw_project_write_file(dir, "a/b/c.txt", "x", 1, SW_WRITE_MKDIRS, NULL), SW_OK);
	ck_assert(sw__is_file(p) == false && sw__is_dir(p));
	ck_assert_int_eq(sw_project_path_confine(dir, "a/missing/deeper", 0, &real, NULL), SW_OK);
	ck_assert(sw__str_has_suffix(real, "/a/missing/deeper"));
	free(real);
	ck_assert_int_eq(sw_project_path_confine(dir, "a/missing", 1, &real, NULL), SW_ENOTFOUND);
	ck_assert_int_eq(sw_project_path_confine(dir, "../x", 0, &real, &err), SW_EDENIED);
	ck_assert_str_eq(sw_error_failure_code(err), "UNSAFE_ACTION_REFUSED");
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_project_path_confine(dir, "/etc/passwd", 0, &real, NULL), SW_EDENIED);
	/* a folder linked out, a final link out, a dangling link, a link that stays inside */
	q = sw__asprintf("%s/out", dir);
	ck_assert_int_eq(symlink(out, q), 0);
	ck_assert_int_eq(sw_project_write_file(dir, "out/f.txt", "x", 1, 0, NULL), SW_EDENIED);
	ck_assert_int_eq(sw_project_write_file(dir, "out/new/f.txt", "x", 1, SW_WRITE_MKDIRS, NULL), SW_EDENIED);
	free(q);
	q = sw__asprintf("%s/out/victim", dir);
	ck_assert_int_eq(sw_file_write_atomic(q, "keep", 4, 0, NULL), SW_OK);
	free(q);
	q = sw__asprintf("%s/a/link", dir);
	char *victim = sw__asprintf("%s/victim", out);
	ck_assert_int_eq(symlink(victim, q), 0);
	ck_assert_int_eq(sw_project_write_file(dir, "a/link", "evil", 4, 0, NULL), SW_EDENIED);
	int fd = sw__confine_open(dir, "a/link", O_WRONLY | O_APPEND | O_CREAT, 0644, 0, NULL, NULL);
	ck_assert_int_eq(fd, SW_EDENIED);
	free(q);
	q = sw__asprintf("%s/a/dangling", dir);
	char *gone = sw__asprintf("%s/not-yet", out);
	ck_assert_int_eq(symlink(gone, q), 0);
	fd = sw__confine_open(dir, "a/dangling", O_WRONLY | O_CREAT, 0644, 0, NULL, NULL);
	ck_assert_int_eq(fd, SW_EDENIED);
	ck_assert(access(gone, F_OK) != 0);
	free(q);
	q = sw__asprintf("%s/a/inside", dir);
	ck_assert_int_eq(symlink("b/c.txt", q), 0);
	ck_assert_int_eq(sw_project_write_file(dir, "a/inside", "new", 3, SW_WRITE_KEEP_MODE, NULL), SW_OK);
	struct stat st;
	ck_assert_int_eq(lstat(q, &st), 0);
	ck_assert(S_ISLNK(st.st_mode)); /* still a link; its target holds the new text */
	char *text = NULL;
	free(q);
	q = sw__asprintf("%s/a/b/c.txt", dir);
	ck_assert_int_eq(sw__read_file(q, 100, &text, NULL, NULL), SW_OK);
	ck_assert_str_eq(text, "new");
	free(text);
	ck_assert_int_eq(sw__read_file(victim, 100, &text, NULL, NULL), SW_OK);
	ck_assert_str_eq(text, "keep");
	free(text);
	/* SW_WRITE_KEEP_MODE keeps 0640 */
	ck_assert_int_eq(chmod(q, 0640), 0);
	ck_assert_int_eq(sw_project_write_file(dir, "a/b/c.txt", "v2", 2, SW_WRITE_KEEP_MODE, NULL), SW_OK);
	ck_assert_int_eq(stat(q, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0640);
	free(q);
	free(victim);
	free(gone);
	free(p);
	free(dir);
	free(out);
}
END_TEST

START_TEST(test_sha256)
{
	char hex[65];
	sw_sha256_hex("abc", 3, hex);
	ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
END_TEST

START_TEST(test_project_root)
{
	char *dir = make_tmpdir();
	char *marker = sw__asprintf("%s/package.json", dir);
	ck_assert_int_eq(sw_file_write_atomic(marker, "{}", 2, 0, NULL), SW_OK);
	sw_root_request req = SW_ROOT_REQUEST_INIT;
	req.use_process_env = 0;
	req.home = "/nonexistent-home";
	char *root = NULL, *source = NULL;
	sw_error *err = NULL;

	/* Relative explicit root is refused. */
	req.project_root = "relative/path";
	ck_assert_int_eq(sw_project_root_resolve(&req, &root, &source, &err), SW_EINVAL);
	ck_assert_str_eq(sw_error_failure_code(err), "INVALID_ARGUMENT");
	ck_assert_ptr_null(root);
	sw_error_free(err);
	err = NULL;

	req.project_root = dir;
	ck_assert_int_eq(sw_project_root_resolve(&req, &root, &source, &err), SW_OK);
	ck_assert_str_eq(source, "arg");
	sw_free(root);
	sw_free(source);

	/* A client root with a marker wins over a plain one listed first. */
	req.project_root = NULL;
	const char *roots[] = {"/tmp", dir, NULL};
	req.mcp_roots = roots;
	ck_assert_int_eq(sw_project_root_resolve(&req, &root, &source, &err), SW_OK);
	ck_assert_str_eq(root, dir);
	ck_assert_str_eq(source, "mcp-roots");
	sw_free(root);
	sw_free(source);

	/* cwd without marker: unresolved. */
	req.mcp_roots = NULL;
	req.cwd = "/tmp";
	ck_assert_int_eq(sw_project_root_resolve(&req, &root, &source, &err), SW_ENOTFOUND);
	ck_assert_str_eq(sw_error_failure_code(err), "PROJECT_ROOT_UNRESOLVED");
	sw_error_free(err);
	err = NULL;

	req.cwd = dir;
	ck_assert_int_eq(sw_project_root_resolve(&req, &root, &source, &err), SW_OK);
	ck_assert_str_eq(source, "cwd");
	sw_free(root);
	sw_free(source);

	/* The home directory itself never serves as the cwd fallback. */
	req.home = dir;
	ck_assert_int_eq(sw_project_root_resolve(&req, &root, &source, &err), SW_ENOTFOUND);
	sw_error_free(err);

	unlink(marker);
	rmdir(dir);
	free(marker);
	free(dir);
}
END_TEST

static void log_capture(sw_log_level level, const char *msg, const char *fields, void *ud)
{
	char *out = ud;
	snprintf(out, 256, "%d|%s|%s", (int)level, msg, fields);
}

START_TEST(test_ctx_logging)
{
	sw_ctx *ctx = NULL;
	ck_assert_int_eq(sw_ctx_new(&ctx, NULL), SW_OK);
	char got[256] = "";
	sw_ctx_set_log_fn(ctx, log_capture, got);
	sw_ctx_set_log_level(ctx, SW_LOG_WARN);
	sw__log_info(ctx, "hidden");
	ck_assert_str_eq(got, "");
	json_t *f = json_pack("{s:s}", "k", "v");
	sw__log(ctx, SW_LOG_ERROR, f, "shown %d", 1);
	json_decref(f);
	ck_assert_str_eq(got, "3|shown 1|{\"k\":\"v\"}");
	sw_log_level lvl = SW_LOG_INFO;
	ck_assert_int_eq(sw_log_level_parse("DEBUG", &lvl), SW_OK);
	ck_assert_int_eq(lvl, SW_LOG_DEBUG);
	ck_assert_int_eq(sw_log_level_parse("loud", &lvl), SW_EINVAL);
	ck_assert_int_eq(lvl, SW_LOG_DEBUG);
	ck_assert_int_eq(sw_ctx_set_home(ctx, "", NULL), SW_EINVAL);
	ck_assert_int_eq(sw_ctx_set_home(ctx, "/x", NULL), SW_OK);
	ck_assert_str_eq(sw_ctx_get_home(ctx), "/x");
	sw_ctx_free(ctx);
	sw_ctx_free(NULL);
}
END_TEST

/* ---- sw__http_get against a one-connection loopback server on a thread ---- */

typedef struct {
	int lfd;
	int port;
	pthread_t thread;
	char *response; /* raw bytes sent after the request head; NULL: read until the client hangs up */
	size_t response_len;
	char request[2048];
} http_srv;

static void *http_srv_main(void *ud)
{
	http_srv *h = ud;
	int fd = accept(h->lfd, NULL, NULL);
	if (fd < 0)
		return NULL;
	size_t n = 0;
	while (n < sizeof(h->request) - 1 && !strstr(h->request, "\r\n\r\n")) {
		ssize_t r = recv(fd, h->request + n, sizeof(h->request) - 1 - n, 0);
		if (r <= 0)
			break;
		n += (size_t)r;
		h->request[n] = '\0';
	}
	if (!h->response) {
		char c;
		while (recv(fd, &c, 1, 0) > 0)
			;
	} else {
		/* The client may stop reading early (a capped body): MSG_NOSIGNAL turns EPIPE into an error. */
		for (size_t off = 0; off < h->response_len;) {
			ssize_t w = send(fd, h->response + off, h->response_len - off, MSG_NOSIGNAL);
			if (w <= 0)
				break;
			off += (size_t)w;
		}
	}
	close(fd);
	return NULL;
}

/* Starts a server that answers one request with @status and @body (or, with status 0, never answers). */
static void http_srv_start(http_srv *h, int status, const char *body, size_t body_len)
{
	memset(h, 0, sizeof(*h));
	if (status) {
		h->response = sw__asprintf("HTTP/1.1 %d X\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n", status,
		                           body_len);
		ck_assert_ptr_nonnull(h->response);
		size_t head = strlen(h->response);
		h->response = realloc(h->response, head + body_len);
		ck_assert_ptr_nonnull(h->response);
		memcpy(h->response + head, body, body_len);
		h->response_len = head + body_len;
	}
	h->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(h->lfd, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	ck_assert_int_eq(bind(h->lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(listen(h->lfd, 4), 0);
	socklen_t alen = sizeof(a);
	ck_assert_int_eq(getsockname(h->lfd, (struct sockaddr *)&a, &alen), 0);
	h->port = ntohs(a.sin_port);
	ck_assert_int_eq(pthread_create(&h->thread, NULL, http_srv_main, h), 0);
}

static void http_srv_stop(http_srv *h)
{
	pthread_join(h->thread, NULL);
	close(h->lfd);
	free(h->response);
}

START_TEST(test_http_get_ok)
{
	http_srv h;
	http_srv_start(&h, 200, "packager-status:running", 23);
	char *url = sw__asprintf("http://127.0.0.1:%d/status", h.port);
	long status = 0;
	char *body = NULL;
	sw_error *err = NULL;
	int rc = sw__http_get(url, 5000, &status, &body, 4096, &err);
	ck_assert_msg(rc == SW_OK, "rc %d: %s", rc, err ? sw_error_message(err) : "");
	http_srv_stop(&h);
	ck_assert_int_eq(status, 200);
	ck_assert_str_eq(body, "packager-status:running");
	ck_assert_msg(sw__str_has_prefix(h.request, "GET /status HTTP/1.1\r\n"), "request: %s", h.request);
	free(body);
	free(url);
}
END_TEST

START_TEST(test_http_get_status_only_and_error_statuses)
{
	/* Any HTTP status is a successful GET; the caller judges it. An empty body is "", not NULL. */
	http_srv h;
	http_srv_start(&h, 503, "", 0);
	char *url = sw__asprintf("http://127.0.0.1:%d/", h.port);
	long status = 0;
	char *body = NULL;
	ck_assert_int_eq(sw__http_get(url, 5000, &status, &body, 16, NULL), SW_OK);
	http_srv_stop(&h);
	ck_assert_int_eq(status, 503);
	ck_assert_str_eq(body, "");
	free(body);
	free(url);
	/* No body wanted: it is read and dropped. */
	http_srv_start(&h, 404, "not here", 8);
	url = sw__asprintf("http://127.0.0.1:%d/x", h.port);
	status = 0;
	ck_assert_int_eq(sw__http_get(url, 5000, &status, NULL, 0, NULL), SW_OK);
	http_srv_stop(&h);
	ck_assert_int_eq(status, 404);
	free(url);
}
END_TEST

START_TEST(test_http_get_caps_the_body)
{
	/* 1 MB announced and sent; only max_body bytes are kept and the call still succeeds. */
	size_t big = 1024 * 1024;
	char *payload = malloc(big);
	ck_assert_ptr_nonnull(payload);
	for (size_t i = 0; i < big; i++)
		payload[i] = (char)('a' + i % 26);
	http_srv h;
	http_srv_start(&h, 200, payload, big);
	char *url = sw__asprintf("http://127.0.0.1:%d/big", h.port);
	long status = 0;
	char *body = NULL;
	sw_error *err = NULL;
	int rc = sw__http_get(url, 5000, &status, &body, 10, &err);
	ck_assert_msg(rc == SW_OK, "rc %d: %s", rc, err ? sw_error_message(err) : "");
	http_srv_stop(&h);
	ck_assert_int_eq(status, 200);
	ck_assert_str_eq(body, "abcdefghij");
	free(body);
	free(url);
	free(payload);
}
END_TEST

START_TEST(test_http_get_closed_port)
{
	/* A port that was bound and released: nothing listens there. */
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(fd, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	socklen_t alen = sizeof(a);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
	close(fd);
	char *url = sw__asprintf("http://127.0.0.1:%d/status", ntohs(a.sin_port));
	long status = -7;
	char *body = (char *)"untouched";
	sw_error *err = NULL;
	ck_assert_int_eq(sw__http_get(url, 5000, &status, &body, 64, &err), SW_EIO);
	ck_assert_int_eq(status, -7);
	ck_assert_str_eq(body, "untouched");
	ck_assert_int_eq(sw_error_code(err), SW_EIO);
	/* The message names the URL and curl's reason. */
	char *want = sw__asprintf("HTTP GET %s failed: ", url);
	ck_assert_msg(sw__str_has_prefix(sw_error_message(err), want), "%s", sw_error_message(err));
	ck_assert_msg(strlen(sw_error_message(err)) > strlen(want), "%s", sw_error_message(err));
	free(want);
	sw_error_free(err);
	free(url);
}
END_TEST

START_TEST(test_opt_whole)
{
	json_t *o = json_pack("{s:i,s:f,s:i,s:f,s:s,s:i}", "n", 7, "frac", 2.5, "low", -1, "big", 1e6, "str", "5", "huge",
	                      900);
	json_t *notes = json_array();
	long v = -1;
	sw_error *err = NULL;
	ck_assert_int_eq(sw__opt_whole(o, "absent", 8, 1, 50, &v, notes, &err), SW_OK);
	ck_assert_int_eq(v, 8);
	ck_assert_int_eq(sw__opt_whole(o, "n", 8, 1, 50, &v, notes, &err), SW_OK);
	ck_assert_int_eq(v, 7);
	ck_assert_uint_eq(json_array_size(notes), 0);
	ck_assert_int_eq(sw__opt_whole(o, "huge", 8, 1, 50, &v, notes, &err), SW_OK);
	ck_assert_int_eq(v, 50);
	ck_assert_str_eq(json_string_value(json_array_get(notes, 0)), "huge 900 was clamped to 50");
	ck_assert_int_eq(sw__opt_whole(o, "big", 8, 0, 3600000, &v, NULL, &err), SW_OK);
	ck_assert_int_eq(v, 1000000);
	static const char *const bad[] = {"frac", "low", "str"};
	for (size_t i = 0; i < 3; i++) {
		ck_assert_int_eq(sw__opt_whole(o, bad[i], 8, 0, 50, &v, notes, &err), SW_EINVAL);
		ck_assert_str_eq(sw_error_failure_code(err), "INVALID_ARGUMENT");
		ck_assert_ptr_nonnull(strstr(sw_error_message(err), bad[i]));
		ck_assert_ptr_nonnull(strstr(sw_error_message(err), "must be a whole number, 0 or more"));
		sw_error_free(err);
		err = NULL;
	}
	ck_assert_uint_eq(json_array_size(notes), 1);
	json_decref(notes);
	json_decref(o);
}
END_TEST

START_TEST(test_http_get_timeout)
{
	/* The server reads the request and never answers. */
	http_srv h;
	http_srv_start(&h, 0, NULL, 0);
	char *url = sw__asprintf("http://127.0.0.1:%d/slow", h.port);
	sw_error *err = NULL;
	ck_assert_int_eq(sw__http_get(url, 300, NULL, NULL, 0, &err), SW_ETIMEOUT);
	http_srv_stop(&h);
	ck_assert_ptr_nonnull(strstr(sw_error_message(err), url));
	sw_error_free(err);
	free(url);
}
END_TEST

START_TEST(test_http_get_bad_arguments)
{
	const char *bad[] = {"ftp://127.0.0.1/", "file:///etc/passwd", "127.0.0.1:80/status", "", "HTTP:/x"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(bad); i++) {
		sw_error *err = NULL;
		ck_assert_int_eq(sw__http_get(bad[i], 100, NULL, NULL, 0, &err), SW_EINVAL);
		ck_assert_str_eq(sw_error_failure_code(err), "INVALID_ARGUMENT");
		ck_assert_ptr_nonnull(strstr(sw_error_message(err), "http:// or https://"));
		sw_error_free(err);
	}
	ck_assert_int_eq(sw__http_get(NULL, 100, NULL, NULL, 0, NULL), SW_EINVAL);
	sw_error *err = NULL;
	ck_assert_int_eq(sw__http_get("http://127.0.0.1:1/", 0, NULL, NULL, 0, &err), SW_EINVAL);
	ck_assert_ptr_nonnull(strstr(sw_error_message(err), "timeout must be > 0 ms"));
	sw_error_free(err);
}
END_TEST


/* ---- the process runner (core/proc.c) ----------------------------------------------- */

/* Whether a process that is not a zombie has process group @pgid (from /proc/PID/stat). */
static bool alive_in_group(pid_t pgid)
{
	DIR *d = opendir("/proc");
	bool found = false;
	struct dirent *e;
	while (d && !found && (e = readdir(d))) {
		char path[300], buf[1024];
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		char *rp = strrchr(buf, ')');
		char state = 0;
		int ppid = 0, pg = 0;
		if (rp && sscanf(rp + 1, " %c %d %d", &state, &ppid, &pg) == 3 && pg == pgid && state != 'Z')
			found = true;
	}
	if (d)
		closedir(d);
	return found;
}

static int abort_after_calls(void *ud)
{
	int *n = ud;
	return ++*n > 4;
}

START_TEST(test_runner_long_argv_stdin_and_abort)
{
	/* an argv longer than any fixed table: every argument arrives */
	sw__argv a = SW_ARGV_INIT;
	sw__argv_add(&a, "/bin/sh");
	sw__argv_add(&a, "-c");
	sw__argv_add(&a, "echo $#");
	sw__argv_add(&a, "sh");
	for (int i = 0; i < 5000; i++)
		sw__argv_addf(&a, "arg%d", i);
	const char *const *argv = sw__argv_finish(&a, NULL);
	ck_assert_ptr_nonnull(argv);
	sw__proc_result r;
	ck_assert_int_eq(sw__proc_run(argv, NULL, &r, NULL), SW_OK);
	ck_assert_str_eq(r.out, "5000\n");
	sw__proc_result_clear(&r);
	sw__argv_free(&a);
	/* a failed append is reported, never a shorter argv */
	sw__argv b = SW_ARGV_INIT;
	sw__argv_add(&b, "/bin/true");
	sw__argv_add(&b, NULL);
	sw_error *err = NULL;
	ck_assert_ptr_null(sw__argv_finish(&b, &err));
	ck_assert_ptr_nonnull(err);
	sw_error_free(err);
	err = NULL;
	sw__argv_free(&b);

	/* stdin bytes (more than a pipe holds), never an argument */
	size_t n = 300 * 1024;
	char *in = malloc(n);
	memset(in, 'x', n);
	const char *cat[] = {"/bin/sh", "-c", "wc -c", NULL};
	sw__proc_opts o = {.in = in, .in_len = n};
	ck_assert_int_eq(sw__proc_run(cat, &o, &r, NULL), SW_OK);
	ck_assert_int_eq(atol(r.out), (long)n);
	sw__proc_result_clear(&r);
	free(in);

	/* an abort callback stops a child that would run for a minute, at once */
	int calls = 0;
	const char *sleeper[] = {"/bin/sleep", "60", NULL};
	sw__proc_opts ao = {.timeout_ms = 60000, .abort_fn = abort_after_calls, .abort_ud = &calls};
	int64_t t0 = sw_monotonic_ms();
	ck_assert_int_eq(sw__proc_run(sleeper, &ao, &r, NULL), SW_OK);
	ck_assert(r.cancelled);
	ck_assert_int_lt(sw_monotonic_ms() - t0, 5000);
	sw__proc_result_clear(&r);

	/* a bare name needs search_path; a missing program says why */
	const char *bare[] = {"true", NULL};
	ck_assert_int_eq(sw__proc_run(bare, NULL, &r, &err), SW_EINVAL);
	sw_error_free(err);
	err = NULL;
	sw__proc_opts so = {.search_path = true};
	ck_assert_int_eq(sw__proc_run(bare, &so, &r, NULL), SW_OK);
	ck_assert_int_eq(r.status, 0);
	sw__proc_result_clear(&r);
	const char *missing[] = {"/nonexistent/tool", NULL};
	ck_assert_int_lt(sw__proc_run(missing, NULL, &r, &err), 0);
	ck_assert_int_ne(r.exec_errno, 0);
	sw_error_free(err);

	/* a background child in its own group, stopped with its group */
	pid_t pid = 0;
	const char *bg[] = {"/bin/sh", "-c", "sleep 60 & sleep 60", NULL};
	ck_assert_int_eq(sw__proc_spawn(bg, NULL, -1, &pid, NULL), SW_OK);
	ck_assert(!sw__proc_ended(pid, NULL));
	sw__proc_stop(pid, SIGTERM, 1000);
	/* nothing alive is left in its group (a killed grandchild may stay a zombie until init reaps it) */
	int64_t until = sw_monotonic_ms() + 3000;
	while (alive_in_group(pid) && sw_monotonic_ms() < until)
		usleep(20 * 1000);
	ck_assert(!alive_in_group(pid));
}
END_TEST

static Suite *core_suite(void)
{
	Suite *s = suite_create("core");
	TCase *tc = tcase_create("errors");
	tcase_add_test(tc, test_error_set_once);
	tcase_add_test(tc, test_ctx_logging);
	suite_add_tcase(s, tc);
	tc = tcase_create("strings");
	tcase_add_test(tc, test_buf);
	tcase_add_test(tc, test_utf8);
	tcase_add_test(tc, test_text_cap);
	tcase_add_test(tc, test_js_numbers);
	tcase_add_test(tc, test_json_pretty);
	tcase_add_test(tc, test_sha256);
	suite_add_tcase(s, tc);
	tc = tcase_create("files");
	tcase_add_test(tc, test_atomic_write);
	tcase_add_test(tc, test_paths);
	tcase_add_test(tc, test_confine);
	tcase_add_test(tc, test_project_root);
	tcase_add_test(tc, test_opt_whole);
	suite_add_tcase(s, tc);
	tc = tcase_create("http");
	tcase_add_test(tc, test_http_get_ok);
	tcase_add_test(tc, test_http_get_status_only_and_error_statuses);
	tcase_add_test(tc, test_http_get_caps_the_body);
	tcase_add_test(tc, test_http_get_closed_port);
	tcase_add_test(tc, test_http_get_timeout);
	tcase_add_test(tc, test_http_get_bad_arguments);
	suite_add_tcase(s, tc);
	tc = tcase_create("processes");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_runner_long_argv_stdin_and_abort);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(core_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
