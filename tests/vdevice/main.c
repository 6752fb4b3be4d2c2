/*
 * main.c: vdevice, a virtual Android device for tests. Listens on loopback for the adb
 * server (transport protocol) and for `adb emu` (console), announces itself to a private
 * adb server, and serves a scripted app described in YAML. See docs/vdevice.md.
 */
#include "vdevice.h"
#include "app.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ADB_CONNS 8
#define MAX_CONSOLES 8
#define DEFAULT_LOGCAT (2u * 1024u * 1024u) /* an API 29-33 emulator's main buffer */
#define MAX_LOGCAT (64u * 1024u * 1024u)
#define MAX_CONSOLE_OUT (1024u * 1024u)

struct console_conn {
	int fd;
	struct vd_console *console;
	struct vd_buf out;
	bool closing; /* close once out is flushed */
};

static void usage(FILE *f)
{
	fputs("usage: vdevice --app FILE [options]\n"
	      "  --app FILE             scripted app model (YAML, see docs/vdevice.md)\n"
	      "  --port N               adb transport port (console is N-1); default: a free pair\n"
	      "  --announce MODE        emulator (default: host:emulator, serial emulator-<N-1>),\n"
	      "                         connect (host:connect, serial 127.0.0.1:<N>), none\n"
	      "  --adb-server-port N    adb server to announce to (default $ANDROID_ADB_SERVER_PORT or 5037)\n"
	      "  --serial-file FILE     write the serial there once listening\n"
	      "  --ready-fd FD          write \"<adb port> <serial>\\n\" to FD once listening, then close it\n"
	      "  --physical             look like real hardware (no ro.kernel.qemu, ro.hardware=qcom)\n"
	      "  --disconnect-after N   drop the adb connection instead of serving command N+1\n"
	      "  --busy-port N          device port N is taken by a device process: adb reverse onto it fails\n"
	      "  --dump MODE            uiautomator dump: normal, garbage, empty, fail, huge, huge_below\n"
	      "  --huge-nodes N         extra nodes for --dump huge (default 5000)\n"
	      "  --dump-count N         only the first N dumps use --dump's mode, then dumps are normal\n"
	      "  --sticky-keyboard      BACK and ESCAPE do not hide the soft keyboard\n"
	      "  (tests may change these at run time: adb shell setprop debug.vdevice.dump|dump_count|\n"
	      "   sticky_keyboard|huge_nodes|animating|dump_file|logcat_max|logcat_spam VALUE)\n"
	      "  --boot-after N         sys.boot_completed stays unset for the first N reads\n"
	      "  --token-file FILE      console auth token (default ~/.emulator_console_auth_token)\n"
	      "  --model NAME           ro.product.model\n"
	      "  --avd-name NAME        AVD name (console `avd name`, ro.boot.qemu.avd_name)\n"
	      "  --prop KEY=VALUE       a system property as getprop prints it (repeatable; an empty VALUE\n"
	      "                         leaves it empty, e.g. ro.product.cpu.abilist= as on old releases)\n"
	      "  --latency PROFILE      off (default) or emulator[:SCALE]: every command sleeps the cost it has on\n"
	      "                         an x86_64 emulator, times SCALE (default 1); default $VDEVICE_LATENCY\n"
	      "  --stats FILE           append one JSON line per adb invocation (command, bytes, modelled ms);\n"
	      "                         default $VDEVICE_STATS\n"
	      "  --touch-log FILE       append one JSON line per touch and key: the screen, the element it landed\n"
	      "                         on (id, resource id, label as read) or null; default $VDEVICE_TOUCH_LOG\n"
	      "  --verbose              log protocol events to stderr\n",
	      f);
}

static long parse_long(const char *s, const char *what)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || v < 0) {
		fprintf(stderr, "vdevice: %s must be a non-negative integer, got '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static int listen_on(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 16) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int bound_port(int fd)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	if (getsockname(fd, (struct sockaddr *)&a, &len) < 0)
		return -1;
	return ntohs(a.sin_port);
}

/* Binds the console on an even port P-1 and adb on P, as the emulator does. */
static bool listen_pair(int want, int *adb_fd, int *console_fd, int *port)
{
	if (want > 0) {
		*console_fd = listen_on(want - 1);
		*adb_fd = listen_on(want);
		*port = want;
		return *console_fd >= 0 && *adb_fd >= 0;
	}
	for (int attempt = 0; attempt < 100; attempt++) {
		int probe = listen_on(0);
		int p = probe >= 0 ? bound_port(probe) : -1;
		if (probe >= 0)
			close(probe);
		if (p <= 0 || p >= 65534)
			continue;
		int console = p & ~1;
		if (console >= 5554 && console <= 5586)
			continue;
		*console_fd = listen_on(console);
		*adb_fd = *console_fd >= 0 ? listen_on(console + 1) : -1;
		if (*console_fd >= 0 && *adb_fd >= 0) {
			*port = console + 1;
			return true;
		}
		if (*console_fd >= 0)
			close(*console_fd);
		if (*adb_fd >= 0)
			close(*adb_fd);
	}
	return false;
}

/* Sends one smart-socket request to the adb server; reads its reply into @reply when non-NULL. */
static bool adb_server_request(int server_port, const char *req, char *reply, size_t reply_len)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	struct timeval tv = {.tv_sec = 10};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)server_port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	char msg[256];
	int n = snprintf(msg, sizeof(msg), "%04zx%s", strlen(req), req);
	bool ok = n > 0 && (size_t)n < sizeof(msg) && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	          write(fd, msg, (size_t)n) == n;
	if (ok && reply) {
		size_t got = 0;
		ssize_t r;
		while (got + 1 < reply_len && (r = read(fd, reply + got, reply_len - 1 - got)) > 0)
			got += (size_t)r;
		reply[got] = '\0';
		ok = strncmp(reply, "OKAY", 4) == 0;
	}
	close(fd);
	return ok;
}

static void write_ready(struct vd_device *d, int ready_fd, const char *serial_file)
{
	char line[128];
	int n = snprintf(line, sizeof(line), "%d %s\n", d->adb_port, d->serial);
	if (serial_file) {
		char tmp[4096];
		snprintf(tmp, sizeof(tmp), "%s.tmp", serial_file);
		FILE *f = fopen(tmp, "w");
		if (!f || fprintf(f, "%s\n", d->serial) < 0 || fclose(f) != 0 || rename(tmp, serial_file) != 0)
			fprintf(stderr, "vdevice: cannot write %s: %s\n", serial_file, strerror(errno));
	}
	if (ready_fd >= 0) {
		if (write(ready_fd, line, (size_t)n) != n)
			fprintf(stderr, "vdevice: cannot write the ready fd: %s\n", strerror(errno));
		close(ready_fd);
	}
	printf("vdevice: listening adb=%d console=%d serial=%s\n", d->adb_port, d->console_port, d->serial);
	fflush(stdout);
}

bool vd_dump_mode_parse(const char *s, enum vd_dump_mode *mode)
{
	static const char *const names[] = {"normal", "garbage", "empty", "huge", "fail", "huge_below"};
	static const enum vd_dump_mode modes[] = {VD_DUMP_NORMAL, VD_DUMP_GARBAGE, VD_DUMP_EMPTY, VD_DUMP_HUGE,
	                                          VD_DUMP_FAIL, VD_DUMP_HUGE_BELOW};
	for (size_t i = 0; i < VD_ARRAY_SIZE(names); i++)
		if (strcmp(s, names[i]) == 0) {
			*mode = modes[i];
			return true;
		}
	return false;
}

bool vd_device_control(struct vd_device *d, const char *name, const char *value)
{
	char *end;
	long n = strtol(value, &end, 10);
	bool number = *value && !*end && n >= 0 && n <= 1000000;
	if (strcmp(name, "dump") == 0)
		return vd_dump_mode_parse(value, &d->opt.dump_mode);
	if (strcmp(name, "dump_count") == 0 && number)
		d->dump_count = n;
	else if (strcmp(name, "huge_nodes") == 0 && number)
		d->opt.huge_nodes = n;
	else if (strcmp(name, "sticky_keyboard") == 0 && number && n <= 1)
		d->sticky_keyboard = n == 1;
	else if (strcmp(name, "animating") == 0 && number && n <= 1)
		d->animating = n == 1;
	else if (strcmp(name, "dump_file") == 0) {
		/* a dump pushed to the device's storage is served as the hierarchy ("" or "none": the model's) */
		free(d->dump_file);
		d->dump_file = *value && strcmp(value, "none") != 0 ? vd_strdup(value) : NULL;
	} else if (strcmp(name, "logcat_max") == 0 && *value && !*end && n >= 4096 && n <= (long)MAX_LOGCAT)
		d->logcat_max = (size_t)n;
	else if (strcmp(name, "logcat_spam") == 0 && *value && !*end && n > 0 && n <= (long)MAX_LOGCAT) {
		/* @n bytes of chatter from another process: a busy device whose buffer fills and wraps */
		size_t added = 0;
		for (long k = 0; added < (size_t)n; k++) {
			char msg[96];
			int m = snprintf(msg, sizeof(msg), "background sync tick %ld: nothing to report, all caches warm", k);
			vd_device_log(d, 'D', "Chatty", "%s", msg);
			added += (size_t)m + 44; /* the threadtime header, the message and the newline */
		}
	} else if (strcmp(name, "offline_ms") == 0 && number) {
		/* the device drops off adb now and stays away for @n ms, keeping its state (a network blip) */
		clock_gettime(CLOCK_MONOTONIC, &d->offline_until);
		d->offline_until.tv_sec += n / 1000;
		d->offline_until.tv_nsec += (n % 1000) * 1000000L;
		if (d->offline_until.tv_nsec >= 1000000000L) {
			d->offline_until.tv_sec++;
			d->offline_until.tv_nsec -= 1000000000L;
		}
		d->drop_connections = true;
	} else
		return false;
	return true;
}

void vd_device_log(struct vd_device *d, char level, const char *tag, const char *fmt, ...)
{
	struct timespec ts;
	struct tm tm;
	char when[32];
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%m-%d %H:%M:%S", &tm);
	static const char *const system_tags[] = {"ActivityTaskManager", "ActivityManager",     "WindowManager",
	                                          "PackageManager",      "BootReceiver",        "ConnectivityService",
	                                          "LocationManager",     "PermissionController"};
	int pid = strcmp(tag, "Zygote") == 0 ? 300 : 4242; /* the app's process */
	for (size_t i = 0; i < VD_ARRAY_SIZE(system_tags); i++)
		if (strcmp(tag, system_tags[i]) == 0)
			pid = 512; /* system_server */
	vd_buf_printf(&d->logcat, "%s.%03ld %5d %5d %c %-8s: ", when, ts.tv_nsec / 1000000, pid, pid + 17, level, tag);
	va_list ap;
	va_start(ap, fmt);
	vd_buf_vprintf(&d->logcat, fmt, ap);
	va_end(ap);
	vd_buf_puts(&d->logcat, "\n");
	size_t max = d->logcat_max ? d->logcat_max : DEFAULT_LOGCAT;
	while (d->logcat.len > max) {
		char *nl = memchr(d->logcat.data, '\n', d->logcat.len);
		vd_buf_consume(&d->logcat, nl ? (size_t)(nl - d->logcat.data) + 1 : d->logcat.len);
	}
}

static void accept_adb(struct vd_device *d, int lfd, struct vd_conn **conns)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	for (int i = 0; i < MAX_ADB_CONNS; i++) {
		if (!conns[i]) {
			conns[i] = vd_conn_new(d, fd);
			if (!conns[i])
				close(fd);
			else
				vd_log("adb server connected");
			return;
		}
	}
	close(fd);
}

static void accept_console(struct vd_device *d, int lfd, struct console_conn *cons)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	for (int i = 0; i < MAX_CONSOLES; i++) {
		if (cons[i].fd < 0) {
			cons[i].console = vd_console_new(d);
			if (!cons[i].console) {
				close(fd);
				return;
			}
			cons[i].fd = fd;
			cons[i].closing = false;
			vd_console_greet(cons[i].console, &cons[i].out);
			return;
		}
	}
	close(fd);
}

static void close_console(struct console_conn *c)
{
	close(c->fd);
	c->fd = -1;
	vd_console_free(c->console);
	c->console = NULL;
	vd_buf_free(&c->out);
}

static bool flush_console(struct console_conn *c)
{
	while (c->out.len) {
		ssize_t w = write(c->fd, c->out.data, c->out.len);
		if (w < 0)
			return errno == EAGAIN || errno == EINTR;
		vd_buf_consume(&c->out, (size_t)w);
	}
	return !c->closing;
}

/*
 * The adb server finds emulators by probing their ports every second. With ADB_EMU=0 (private test
 * servers) it does not, so the device announces itself again whenever it has no transport: after
 * `adb kill-server` and a new server, or a reboot, it comes back as an emulator would.
 */
static void maybe_reannounce(struct vd_device *d, struct vd_conn **conns, struct timespec *last)
{
	struct timespec now;
	for (int i = 0; i < MAX_ADB_CONNS; i++)
		if (conns[i] && vd_conn_connected(conns[i]))
			return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec < d->offline_until.tv_sec ||
	    (now.tv_sec == d->offline_until.tv_sec && now.tv_nsec < d->offline_until.tv_nsec))
		return;
	long ms = (long)(now.tv_sec - last->tv_sec) * 1000 + (now.tv_nsec - last->tv_nsec) / 1000000;
	if (ms < 1000)
		return;
	*last = now;
	char req[64];
	snprintf(req, sizeof(req), "host:emulator:%d", d->adb_port);
	if (adb_server_request(d->opt.adb_server_port, req, NULL, 0))
		vd_log("announced again to the adb server on port %d", d->opt.adb_server_port);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"app", required_argument, NULL, 'a'},
	    {"port", required_argument, NULL, 'p'},
	    {"announce", required_argument, NULL, 'A'},
	    {"adb-server-port", required_argument, NULL, 'P'},
	    {"serial-file", required_argument, NULL, 's'},
	    {"ready-fd", required_argument, NULL, 'r'},
	    {"physical", no_argument, NULL, 'x'},
	    {"disconnect-after", required_argument, NULL, 'D'},
	    {"dump", required_argument, NULL, 'd'},
	    {"huge-nodes", required_argument, NULL, 'H'},
	    {"boot-after", required_argument, NULL, 'B'},
	    {"token-file", required_argument, NULL, 't'},
	    {"model", required_argument, NULL, 'm'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"avd-name", required_argument, NULL, 'n'},
	    {"dump-count", required_argument, NULL, 'c'},
	    {"sticky-keyboard", no_argument, NULL, 'k'},
	    {"latency", required_argument, NULL, 'L'},
	    {"stats", required_argument, NULL, 'S'},
	    {"touch-log", required_argument, NULL, 'T'},
	    {"prop", required_argument, NULL, 'R'},
	    {"busy-port", required_argument, NULL, 'b'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct vd_device dev = {0};
	struct vd_options *o = &dev.opt;
	o->ready_fd = -1;
	o->announce = "emulator";
	o->huge_nodes = 5000;
	const char *env_port = getenv("ANDROID_ADB_SERVER_PORT");
	o->adb_server_port = env_port && *env_port ? (int)parse_long(env_port, "ANDROID_ADB_SERVER_PORT") : 5037;
	o->latency_scale = 1.0;
	if (!vd_latency_parse(getenv("VDEVICE_LATENCY"), o)) {
		fprintf(stderr, "vdevice: VDEVICE_LATENCY must be off, emulator or emulator:SCALE (0 < SCALE <= 10)\n");
		return 2;
	}
	if (getenv("VDEVICE_STATS") && *getenv("VDEVICE_STATS"))
		o->stats_path = getenv("VDEVICE_STATS");
	if (getenv("VDEVICE_TOUCH_LOG") && *getenv("VDEVICE_TOUCH_LOG"))
		o->touch_log = getenv("VDEVICE_TOUCH_LOG");
	int opt;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'a': o->app_path = optarg; break;
		case 'p': o->port = (int)parse_long(optarg, "--port"); break;
		case 'A': o->announce = optarg; break;
		case 'P': o->adb_server_port = (int)parse_long(optarg, "--adb-server-port"); break;
		case 's': o->serial_file = optarg; break;
		case 'r': o->ready_fd = (int)parse_long(optarg, "--ready-fd"); break;
		case 'x': o->physical = true; break;
		case 'D': o->disconnect_after = parse_long(optarg, "--disconnect-after"); break;
		case 'H': o->huge_nodes = parse_long(optarg, "--huge-nodes"); break;
		case 'B': o->boot_after = parse_long(optarg, "--boot-after"); break;
		case 't': o->token_file = optarg; break;
		case 'm': o->model = optarg; break;
		case 'n': o->avd_name = optarg; break;
		case 'v': vd_verbose = true; break;
		case 'd':
			if (!vd_dump_mode_parse(optarg, &o->dump_mode)) {
				fprintf(stderr, "vdevice: --dump must be normal, garbage, empty, fail, huge or huge_below\n");
				return 2;
			}
			break;
		case 'c': dev.dump_count = parse_long(optarg, "--dump-count"); break;
		case 'k': dev.sticky_keyboard = true; break;
		case 'L':
			if (!vd_latency_parse(optarg, o)) {
				fprintf(stderr, "vdevice: --latency must be off, emulator or emulator:SCALE (0 < SCALE <= 10)\n");
				return 2;
			}
			break;
		case 'S': o->stats_path = optarg; break;
		case 'b': o->busy_port = (int)parse_long(optarg, "--busy-port"); break;
		case 'T': o->touch_log = optarg; break;
		case 'R': {
			char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg) {
				fprintf(stderr, "vdevice: --prop needs KEY=VALUE\n");
				return 2;
			}
			*eq = '\0';
			vd_props_set(&dev, optarg, eq + 1);
			break;
		}
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!o->app_path) {
		fprintf(stderr, "vdevice: --app FILE is required\n");
		usage(stderr);
		return 2;
	}
	if (strcmp(o->announce, "emulator") != 0 && strcmp(o->announce, "connect") != 0 &&
	    strcmp(o->announce, "none") != 0) {
		fprintf(stderr, "vdevice: --announce must be emulator, connect or none\n");
		return 2;
	}
	if (o->port != 0 && (o->port < 2 || o->port > 65535 || (o->port >= 5555 && o->port <= 5585))) {
		fprintf(stderr,
		        "vdevice: --port must be in 2..65535 and outside 5555-5585 (the adb server scans those)\n");
		return 2;
	}
	char err[512];
	dev.app = vd_app_load(o->app_path, err, sizeof(err));
	if (!dev.app) {
		fprintf(stderr, "vdevice: %s: %s\n", o->app_path, err);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);

	int adb_fd = -1, console_fd = -1, port = 0, status = 0;
	if (!listen_pair(o->port, &adb_fd, &console_fd, &port)) {
		fprintf(stderr, "vdevice: cannot listen on 127.0.0.1 ports %d/%d: %s\n", port - 1, port,
		        strerror(errno));
		status = 1;
		goto out;
	}
	dev.adb_port = port;
	dev.console_port = port - 1;
	if (strcmp(o->announce, "connect") == 0)
		dev.serial = vd_strdup_printf("127.0.0.1:%d", port);
	else
		dev.serial = vd_strdup_printf("emulator-%d", port - 1);
	vd_device_log(&dev, 'I', "Zygote", "System server process 512 has been created");
	vd_device_log(&dev, 'I', "ActivityManager", "System now ready");
	vd_device_log(&dev, 'I', "BootReceiver", "Copying audit failures to DropBox");

	char reply[512], req[128];
	if (strcmp(o->announce, "emulator") == 0) {
		snprintf(req, sizeof(req), "host:emulator:%d", port);
		if (!adb_server_request(o->adb_server_port, req, NULL, 0)) {
			fprintf(stderr, "vdevice: cannot reach the adb server on port %d to announce the device\n",
			        o->adb_server_port);
			status = 1;
			goto out;
		}
	}
	/* host:connect makes the server connect back synchronously, so it runs after the loop starts. */
	bool connect_pending = strcmp(o->announce, "connect") == 0;
	if (!connect_pending)
		write_ready(&dev, o->ready_fd, o->serial_file);

	struct vd_conn *conns[MAX_ADB_CONNS] = {0};
	struct console_conn cons[MAX_CONSOLES];
	for (int i = 0; i < MAX_CONSOLES; i++)
		cons[i] = (struct console_conn){.fd = -1};
	pid_t connector = -1;
	struct timespec last_announce;
	clock_gettime(CLOCK_MONOTONIC, &last_announce);
	if (connect_pending) {
		/* A child asks the server to connect while the parent serves the handshake. */
		connector = fork();
		if (connector == 0) {
			snprintf(req, sizeof(req), "host:connect:127.0.0.1:%d", port);
			bool ok = adb_server_request(o->adb_server_port, req, reply, sizeof(reply));
			_exit(ok && strstr(reply, "connected to") ? 0 : 1);
		}
	}
	while (!dev.quit) {
		struct pollfd pfds[3 + MAX_ADB_CONNS + MAX_CONSOLES];
		int n = 0;
		pfds[n++] = (struct pollfd){.fd = adb_fd, .events = POLLIN};
		pfds[n++] = (struct pollfd){.fd = console_fd, .events = POLLIN};
		pfds[n++] = (struct pollfd){.fd = sfd, .events = POLLIN};
		for (int i = 0; i < MAX_ADB_CONNS; i++)
			pfds[n++] = (struct pollfd){
			    .fd = conns[i] ? vd_conn_fd(conns[i]) : -1,
			    .events = (short)(POLLIN | (conns[i] && vd_conn_wants_write(conns[i]) ? POLLOUT : 0))};
		for (int i = 0; i < MAX_CONSOLES; i++)
			pfds[n++] = (struct pollfd){.fd = cons[i].fd,
			                            .events = (short)(POLLIN | (cons[i].out.len ? POLLOUT : 0))};
		bool reannounce = strcmp(o->announce, "emulator") == 0 && !dev.vanished;
		bool pending_handshake = false;
		for (int i = 0; i < MAX_ADB_CONNS; i++)
			pending_handshake |= conns[i] && !vd_conn_connected(conns[i]);
		int timeout = connector > 0 ? 100 : (reannounce || pending_handshake) ? 500 : -1;
		if (poll(pfds, (nfds_t)n, timeout) < 0 && errno != EINTR)
			break;
		if (connector > 0) {
			int st;
			if (waitpid(connector, &st, WNOHANG) == connector) {
				connector = -1;
				if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
					fprintf(stderr, "vdevice: adb server refused host:connect 127.0.0.1:%d\n",
					        port);
					status = 1;
					break;
				}
				write_ready(&dev, o->ready_fd, o->serial_file);
			}
		}
		if (pfds[2].revents & POLLIN) {
			vd_log("signal received: shutting down");
			break;
		}
		if (pfds[0].revents & POLLIN)
			accept_adb(&dev, adb_fd, conns);
		if (pfds[1].revents & POLLIN)
			accept_console(&dev, console_fd, cons);
		for (int i = 0; i < MAX_ADB_CONNS; i++) {
			short re = pfds[3 + i].revents;
			if (conns[i] && vd_conn_handshake_expired(conns[i])) {
				vd_log("no CNXN from the peer: closing");
				vd_conn_free(conns[i]);
				conns[i] = NULL;
				continue;
			}
			if (!conns[i] || !re)
				continue;
			bool alive = true;
			if (re & (POLLIN | POLLHUP | POLLERR))
				alive = vd_conn_on_readable(conns[i]);
			if (alive)
				alive = vd_conn_on_writable(conns[i]);
			if (!alive) {
				vd_log("adb connection closed");
				vd_conn_free(conns[i]);
				conns[i] = NULL;
			}
		}
		if (dev.vanished && adb_fd >= 0) {
			/* Gone for good: no transport, no console, no re-announce; the process waits for SIGTERM. */
			for (int i = 0; i < MAX_ADB_CONNS; i++) {
				vd_conn_free(conns[i]);
				conns[i] = NULL;
			}
			for (int i = 0; i < MAX_CONSOLES; i++)
				if (cons[i].fd >= 0)
					close_console(&cons[i]);
			close(adb_fd);
			close(console_fd);
			adb_fd = console_fd = -1;
		}
		if (reannounce && !dev.vanished)
			maybe_reannounce(&dev, conns, &last_announce);
		if (dev.drop_connections) {
			for (int i = 0; i < MAX_ADB_CONNS; i++) {
				vd_conn_free(conns[i]);
				conns[i] = NULL;
			}
			dev.drop_connections = false;
		}
		for (int i = 0; i < MAX_CONSOLES; i++) {
			short re = pfds[3 + MAX_ADB_CONNS + i].revents;
			if (cons[i].fd < 0 || !re)
				continue;
			bool alive = true;
			if (re & (POLLIN | POLLHUP | POLLERR)) {
				char buf[4096];
				ssize_t r = read(cons[i].fd, buf, sizeof(buf));
				if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
					alive = false;
				else if (r > 0 && !vd_console_feed(cons[i].console, buf, (size_t)r, &cons[i].out))
					cons[i].closing = true;
				if (cons[i].out.len > MAX_CONSOLE_OUT)
					alive = false; /* a client that only writes */
			}
			if (alive)
				alive = flush_console(&cons[i]);
			if (!alive)
				close_console(&cons[i]);
		}
	}
	for (int i = 0; i < MAX_CONSOLES; i++)
		if (cons[i].fd >= 0) {
			flush_console(&cons[i]);
			close_console(&cons[i]);
		}
	for (int i = 0; i < MAX_ADB_CONNS; i++)
		vd_conn_free(conns[i]);
	if (connector > 0) {
		kill(connector, SIGTERM);
		waitpid(connector, NULL, 0);
	}
out:
	if (adb_fd >= 0)
		close(adb_fd);
	if (console_fd >= 0)
		close(console_fd);
	if (sfd >= 0)
		close(sfd);
	vd_app_free(dev.app);
	vd_fs_clear(&dev.fs);
	vd_buf_free(&dev.logcat);
	free(dev.dump_file);
	if (dev.stats)
		fclose(dev.stats);
	vd_props_free();
	free(dev.serial);
	return status;
}
