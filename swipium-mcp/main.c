/* main.c: swipium-mcp entry: stdout guard, the stdin read loop, signals and the shutdown sequence. */
#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp.h"

/* ---- start-up recovery and shutdown restore: the library does both; the server runs them ---- */

static void *startup_thread(void *ud)
{
	sw_ctx *ctx = ud;
	sw_store *store = NULL;
	if (sw_store_open(ctx, &store, NULL) != SW_OK)
		return NULL;
	char *sum = NULL;
	if (sw_devctl_startup_recovery(ctx, store, &sum, NULL) == SW_OK && sum) {
		json_t *j = json_loads(sum, 0, NULL);
		if (json_object_get(j, "sweep"))
			mcp_log(SW_LOG_DEBUG, "orphan sweep", json_incref(json_object_get(j, "sweep")));
		json_t *net = json_object_get(j, "network");
		if (json_integer_value(json_object_get(net, "checked")) > 0)
			mcp_log(SW_LOG_INFO, "network restore after restart", json_incref(net));
		json_decref(j);
	}
	sw_free(sum);
	sw_store_free(store);
	return NULL;
}

/* The start-up thread uses srv->ctx, which main() frees after mcp_device_shutdown(): it is joined there. */
static pthread_t startup_tid;
static bool startup_running;

/* Starts the background start-up work: the orphan sweep and pending network restores. */
static void mcp_device_startup(struct mcp_server *srv)
{
	startup_running = pthread_create(&startup_tid, NULL, startup_thread, srv->ctx) == 0;
}

/* Shutdown (stdin closed, SIGINT, SIGTERM): stop recorders and Metro, restore the network of every live session. */
static void mcp_device_shutdown(struct mcp_server *srv)
{
	if (startup_running) {
		pthread_join(startup_tid, NULL);
		startup_running = false;
	}
	if (srv->store)
		sw_devctl_shutdown(srv->ctx, srv->store, NULL, NULL);
	sw_metro_shutdown(srv->ctx, srv->store); /* the Metro bundlers this server started, with their reverses */
	sw_ios_wda_shutdown(srv->ctx, srv->store); /* the WebDriverAgents qa_wda start ran */
}

static int sig_pipe[2] = {-1, -1};
static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	int saved = errno;
	got_signal = sig;
	char c = (char)sig;
	if (sig_pipe[1] >= 0)
		(void)!write(sig_pipe[1], &c, 1);
	errno = saved;
}

static void line_cb(void *ud, const char *line, size_t len, bool too_large)
{
	mcp_server_handle_line(ud, line, len, too_large);
}

static void usage(FILE *f)
{
	fprintf(f,
	        "swipium-mcp %s: the Swipium stdio MCP server (compatible with Swipium %s)\n"
	        "\n"
	        "Usage: swipium-mcp            serve MCP over stdin/stdout (newline-delimited JSON-RPC)\n"
	        "       swipium-mcp --help     show this help\n"
	        "       swipium-mcp --version  print the version\n"
	        "\n"
	        "An MCP client starts this program; see docs/clients.md. Logs go to stderr as JSON lines\n"
	        "(SWIPIUM_LOG_LEVEL=debug|info|warn|error).\n",
	        sw_version(), sw_compatible_with());
}

int main(int argc, char **argv)
{
	sw_error *harden_err = NULL;
	if (sw_process_disable_core_dumps(&harden_err) != SW_OK) {
		fprintf(stderr, "swipium-mcp: warning: %s\n", sw_error_message(harden_err));
		sw_error_free(harden_err);
	}
	if (argc > 1) {
		if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-v")) {
			printf("%s\n", sw_version());
			return 0;
		}
		/* Clients sometimes pass flags such as --stdio: warn and serve anyway. */
		fprintf(stderr, "swipium-mcp: ignoring argument(s)");
		for (int i = 1; i < argc; i++)
			fprintf(stderr, " %s", argv[i]);
		fprintf(stderr, ", serving MCP on stdio\n");
	}

	/*
	 * Only protocol may reach stdout. The protocol gets a private copy of fd 1 and fd 1
	 * itself becomes stderr, so a stray printf or a child process's output cannot corrupt
	 * the stream.
	 */
	int out_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (out_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		fprintf(stderr, "swipium-mcp: cannot set up stdout: %s\n", strerror(errno));
		return 1;
	}

#ifdef __GLIBC__
	/*
	 * Large blocks (a big message's line buffer and strings) are mapped and unmapped on their own, so
	 * memory goes back to the system when the message is done; a fixed threshold stops glibc from
	 * raising it after the first such free and keeping later ones in the heap.
	 */
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
	static struct mcp_server srv;
	mcp_srv = &srv;
	srv.out_fd = out_fd;
	pthread_mutex_init(&srv.out_lock, NULL);
	pthread_mutex_init(&srv.lock, NULL);
	/* timed waits on srv.cond (client requests) count on the monotonic clock, never the wall clock */
	pthread_condattr_t cattr;
	pthread_condattr_init(&cattr);
	pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
	pthread_cond_init(&srv.cond, &cattr);
	pthread_condattr_destroy(&cattr);

	sw_error *err = NULL;
	if (sw_ctx_new(&srv.ctx, &err) != SW_OK) {
		fprintf(stderr, "swipium-mcp: %s\n", sw_error_message(err));
		sw_error_free(err);
		return 1;
	}
	/* The server filters by SWIPIUM_LOG_LEVEL on every line, so the library passes everything. */
	sw_ctx_set_log_fn(srv.ctx, mcp_log_fn, NULL);
	sw_ctx_set_log_level(srv.ctx, SW_LOG_DEBUG);

	/* The tool list and schema hash are built on first use (mcp_server_fixed), not before `initialize`. */
	srv.tool_count = mcp_server_count_tools();

	signal(SIGPIPE, SIG_IGN);
	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
		mcp_log(SW_LOG_ERROR, "fatal", json_pack("{s:s}", "error", strerror(errno)));
		return 1;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL); /* a closed terminal: the same orderly shutdown and final flush */

	if (pthread_create(&srv.worker, NULL, mcp_worker_main, &srv) != 0) {
		mcp_log(SW_LOG_ERROR, "fatal", json_pack("{s:s}", "error", "cannot start the worker thread"));
		return 1;
	}
	srv.worker_started = true;
	mcp_device_startup(&srv);
	mcp_log(SW_LOG_INFO, "swipium starting",
	        json_pack("{s:s,s:s,s:I}", "version", sw_version(), "compatibleWith", sw_compatible_with(), "tools",
	                  (json_int_t)srv.tool_count));

	struct mcp_reader reader;
	mcp_reader_init(&reader, MCP_MAX_MESSAGE_BYTES);
	static char buf[65536];
	int exit_code = 0;
	for (;;) {
		struct pollfd pfd[2] = {{STDIN_FILENO, POLLIN, 0}, {sig_pipe[0], POLLIN, 0}};
		int pr = poll(pfd, 2, -1);
		if (pr < 0) {
			if (errno == EINTR && !got_signal)
				continue;
		}
		if (got_signal) {
			exit_code = 128 + got_signal;
			break;
		}
		if (pr < 0)
			break;
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n <= 0) {
				mcp_reader_finish(&reader, line_cb, &srv);
				break;
			}
			if (mcp_reader_feed(&reader, buf, (size_t)n, line_cb, &srv) != 0) {
				mcp_log(SW_LOG_ERROR, "out of memory reading stdin", NULL);
				exit_code = 1;
				break;
			}
		}
	}
	mcp_reader_free(&reader);

	/* Shutdown (once): stop every call, let the worker finish its current step, flush state. */
	mcp_log(
	    SW_LOG_DEBUG, "swipium shutting down",
	    json_pack("{s:s}", "reason", got_signal ? (got_signal == SIGINT ? "SIGINT" : got_signal == SIGHUP ? "SIGHUP" : "SIGTERM")
	                         : "stdin closed"));
	mcp_server_shutdown_calls(&srv);
	pthread_join(srv.worker, NULL);
	mcp_device_shutdown(&srv);
	if (srv.store) {
		sw_store_cancel_jobs(srv.store);
		sw_store_free(srv.store); /* waits for job threads and writes every session */
	}
	sw_drivers_shutdown(srv.ctx); /* an adb server this process had to start does not outlive it */
	sw_ctx_free(srv.ctx);
	return exit_code;
}
