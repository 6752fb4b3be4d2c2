/*
 * transport.c: the adb transport protocol on one TCP connection from the adb server:
 * CNXN handshake, OPEN/OKAY/WRTE/CLSE streams with one unacknowledged write per
 * stream, and dispatch of each stream to its service (shell, exec, sync).
 */
#include "vdevice.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define A_SYNC 0x434e5953
#define A_CNXN 0x4e584e43
#define A_OPEN 0x4e45504f
#define A_OKAY 0x59414b4f
#define A_CLSE 0x45534c43
#define A_WRTE 0x45545257
#define A_AUTH 0x48545541

#define A_VERSION 0x01000001 /* checksums skipped, as adbd since Android 9 */
#define HEADER_SIZE 24
#define OUR_MAX_PAYLOAD (256u * 1024u)
#define MAX_ACCEPTED_PAYLOAD (1024u * 1024u)
#define MAX_STREAMS 64
#define MAX_SERVICE_NAME 65536
#define MAX_INTERACTIVE_LINE 65536
#define MAX_STDIN (64u * 1024u * 1024u)
#define MAX_PENDING_OUT (64u * 1024u * 1024u)
#define HANDSHAKE_TIMEOUT_MS 10000

/* shell protocol v2 packet ids (see adbd's shell_protocol.h) */
enum { ID_STDIN = 0, ID_STDOUT = 1, ID_STDERR = 2, ID_EXIT = 3, ID_CLOSE_STDIN = 4, ID_WINDOW = 5 };

enum stream_kind { STREAM_RAW, STREAM_SHELL_V2, STREAM_SYNC };

struct stream {
	uint32_t local_id;
	uint32_t remote_id;
	enum stream_kind kind;
	struct vd_buf out; /* bytes waiting to be written to the host */
	struct vd_buf in;  /* shell v2 packets not yet complete */
	bool in_flight;    /* a WRTE is waiting for the host's OKAY */
	bool close_after;  /* send CLSE once out is drained */
	struct vd_sync *sync;
	/* streamed install: bytes still expected on stdin */
	bool installing;
	uint64_t install_left;
	struct vd_buf install_data;
	/* a command reading stdin runs once the host closes it */
	char *deferred;
	struct vd_buf stdin_data;
	/* interactive shell (no command): run each stdin line */
	bool interactive;
	bool pty;
	struct vd_buf line;
	const char *service; /* "shell", "exec" or "sync": how the stats file names the invocation */
};

struct vd_conn {
	struct vd_device *dev;
	int fd;
	bool connected;
	struct timespec opened; /* a peer that never sends CNXN is dropped after HANDSHAKE_TIMEOUT_MS */
	uint32_t max_payload;
	struct vd_buf in;
	struct vd_buf out;
	struct stream *streams[MAX_STREAMS];
	uint32_t next_id;
	bool dead;
};

static void put_u32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void send_packet(struct vd_conn *c, uint32_t cmd, uint32_t arg0, uint32_t arg1, const void *data, size_t n)
{
	unsigned char h[HEADER_SIZE];
	uint32_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += ((const unsigned char *)data)[i];
	put_u32(h, cmd);
	put_u32(h + 4, arg0);
	put_u32(h + 8, arg1);
	put_u32(h + 12, (uint32_t)n);
	put_u32(h + 16, sum);
	put_u32(h + 20, cmd ^ 0xffffffffu);
	/* A peer that never reads while it keeps writing would grow this without bound. */
	if (c->out.len > MAX_PENDING_OUT || !vd_buf_append(&c->out, h, sizeof(h)) || !vd_buf_append(&c->out, data, n))
		c->dead = true;
}

struct vd_conn *vd_conn_new(struct vd_device *d, int fd)
{
	struct vd_conn *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->dev = d;
	c->fd = fd;
	clock_gettime(CLOCK_MONOTONIC, &c->opened);
	c->max_payload = 4096;
	c->next_id = 1;
	return c;
}

static void stream_free(struct stream *s)
{
	if (!s)
		return;
	vd_buf_free(&s->out);
	vd_buf_free(&s->in);
	vd_buf_free(&s->install_data);
	vd_buf_free(&s->line);
	vd_buf_free(&s->stdin_data);
	free(s->deferred);
	vd_sync_free(s->sync);
	free(s);
}

void vd_conn_free(struct vd_conn *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < MAX_STREAMS; i++)
		stream_free(c->streams[i]);
	vd_buf_free(&c->in);
	vd_buf_free(&c->out);
	if (c->fd >= 0)
		close(c->fd);
	free(c);
}

int vd_conn_fd(const struct vd_conn *c)
{
	return c->fd;
}

bool vd_conn_handshake_expired(const struct vd_conn *c)
{
	struct timespec now;
	if (c->connected)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &now);
	long ms = (long)(now.tv_sec - c->opened.tv_sec) * 1000 + (now.tv_nsec - c->opened.tv_nsec) / 1000000;
	return ms > HANDSHAKE_TIMEOUT_MS;
}

bool vd_conn_connected(const struct vd_conn *c)
{
	return c->connected;
}

bool vd_conn_wants_write(const struct vd_conn *c)
{
	return c->out.len > 0;
}

static struct stream *find_stream(struct vd_conn *c, uint32_t local_id)
{
	for (size_t i = 0; i < MAX_STREAMS; i++)
		if (c->streams[i] && c->streams[i]->local_id == local_id)
			return c->streams[i];
	return NULL;
}

static void remove_stream(struct vd_conn *c, struct stream *s)
{
	for (size_t i = 0; i < MAX_STREAMS; i++)
		if (c->streams[i] == s)
			c->streams[i] = NULL;
	stream_free(s);
}

/* Sends the next chunk of a stream's pending output, or its CLSE once drained. */
static void pump(struct vd_conn *c, struct stream *s)
{
	if (s->in_flight)
		return;
	if (s->out.len > 0) {
		size_t n = s->out.len < c->max_payload ? s->out.len : c->max_payload;
		send_packet(c, A_WRTE, s->local_id, s->remote_id, s->out.data, n);
		vd_buf_consume(&s->out, n);
		s->in_flight = true;
		return;
	}
	if (s->close_after) {
		send_packet(c, A_CLSE, s->local_id, s->remote_id, NULL, 0);
		remove_stream(c, s);
	}
}

static void finish_command(struct stream *s, int status)
{
	if (s->kind == STREAM_SHELL_V2) {
		unsigned char pkt[6] = {ID_EXIT, 1, 0, 0, 0, (unsigned char)status};
		vd_buf_append(&s->out, pkt, sizeof(pkt));
	}
	s->close_after = true;
}

/* Counts a served command; returns false when the device should vanish instead (--disconnect-after). */
static bool count_command(struct vd_conn *c)
{
	struct vd_device *d = c->dev;
	d->commands++;
	if (d->opt.disconnect_after > 0 && d->commands > d->opt.disconnect_after) {
		vd_log("disconnect-after reached (%ld commands): the device vanishes", d->opt.disconnect_after);
		d->vanished = true;
		c->dead = true;
		return false;
	}
	return true;
}

static void run_command(struct vd_conn *c, struct stream *s, const char *cmd)
{
	struct vd_out out = {.buf = &s->out, .v2 = s->kind == STREAM_SHELL_V2};
	uint64_t size = 0;
	if (!count_command(c))
		return;
	vd_log("command: %s", cmd);
	vd_latency_begin(c->dev);
	if (vd_shell_is_streamed_install(cmd, &size)) {
		s->installing = true;
		s->install_left = size;
		if (size == 0)
			goto install_done;
		return;
	}
	if (s->kind == STREAM_SHELL_V2 && vd_shell_reads_stdin(cmd)) {
		s->deferred = vd_strdup(cmd);
		if (s->deferred)
			return;
	}
	finish_command(s, vd_shell_run(c->dev, cmd, &out));
	vd_latency_end(c->dev, s->service, cmd, out.bytes);
	if (c->dev->drop_connections)
		c->dead = true;
	return;
install_done:
	s->installing = false;
	finish_command(s, vd_shell_finish_install(c->dev, s->install_data.data, s->install_data.len, &out));
	vd_latency_end(c->dev, s->service, "install", out.bytes);
}

static void interactive_prompt(struct vd_conn *c, struct stream *s)
{
	if (!s->pty)
		return; /* like mksh, no prompt when stdin is not a terminal */
	struct vd_out out = {.buf = &s->out, .v2 = s->kind == STREAM_SHELL_V2};
	vd_out_printf(&out, 1, "%s:/ $ ", vd_prop_get(c->dev, "ro.product.device"));
}

/* Bytes the host sent on a command's stdin. */
static void stdin_bytes(struct vd_conn *c, struct stream *s, const char *data, size_t n)
{
	struct vd_out out = {.buf = &s->out, .v2 = s->kind == STREAM_SHELL_V2};
	if (s->installing) {
		size_t take = n < s->install_left ? n : (size_t)s->install_left;
		if (!vd_buf_append(&s->install_data, data, take)) {
			vd_out_printf(&out, 1, "Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE]\n");
			s->installing = false;
			finish_command(s, 1);
			return;
		}
		s->install_left -= take;
		if (s->install_left == 0) {
			s->installing = false;
			finish_command(
			    s, vd_shell_finish_install(c->dev, s->install_data.data, s->install_data.len, &out));
			vd_latency_end(c->dev, s->service, "install", out.bytes + s->install_data.len);
		}
		return;
	}
	if (s->deferred) {
		if (s->stdin_data.len + n > MAX_STDIN || !vd_buf_append(&s->stdin_data, data, n)) {
			vd_out_printf(&out, 2, "/system/bin/sh: stdin too large\n");
			free(s->deferred);
			s->deferred = NULL;
			finish_command(s, 1);
		}
		return;
	}
	if (!s->interactive || s->close_after)
		return;
	for (size_t i = 0; i < n && !s->close_after; i++) {
		if (data[i] != '\n' && data[i] != '\r') {
			if (s->line.len >= MAX_INTERACTIVE_LINE) {
				vd_buf_reset(&s->line);
				vd_out_printf(&out, 2, "/system/bin/sh: line too long\n");
			}
			vd_buf_append(&s->line, &data[i], 1);
			continue;
		}
		if (data[i] == '\r')
			continue;
		char *line = s->line.data ? s->line.data : "";
		if (strncmp(line, "exit", 4) == 0 && (line[4] == '\0' || line[4] == ' ')) {
			finish_command(s, atoi(line + 4) & 0xff);
			break;
		}
		if (line[0] && count_command(c)) {
			vd_latency_begin(c->dev);
			size_t before = out.bytes;
			vd_shell_run(c->dev, line, &out);
			vd_latency_end(c->dev, s->service, line, out.bytes - before);
		}
		vd_buf_reset(&s->line);
		if (c->dead)
			return;
		interactive_prompt(c, s);
	}
}

static void stdin_eof(struct vd_conn *c, struct stream *s)
{
	if (s->deferred) {
		struct vd_out out = {.buf = &s->out, .v2 = s->kind == STREAM_SHELL_V2};
		finish_command(s, vd_shell_run_input(c->dev, s->deferred, s->stdin_data.data, s->stdin_data.len, &out));
		vd_latency_end(c->dev, s->service, s->deferred, out.bytes);
		free(s->deferred);
		s->deferred = NULL;
		vd_buf_free(&s->stdin_data);
		return;
	}
	if (s->interactive && !s->close_after)
		finish_command(s, 0);
}

static void on_stream_data(struct vd_conn *c, struct stream *s, const char *data, size_t n)
{
	switch (s->kind) {
	case STREAM_SYNC:
		if (!vd_sync_feed(s->sync, c->dev, data, n, &s->out))
			s->close_after = true;
		break;
	case STREAM_RAW: stdin_bytes(c, s, data, n); break;
	case STREAM_SHELL_V2:
		if (!vd_buf_append(&s->in, data, n)) {
			s->close_after = true;
			break;
		}
		while (s->in.len >= 5 && !s->close_after) {
			unsigned char id = (unsigned char)s->in.data[0];
			uint32_t len = get_u32((const unsigned char *)s->in.data + 1);
			if (len > MAX_ACCEPTED_PAYLOAD) {
				s->close_after = true; /* garbage: not a shell protocol packet */
				break;
			}
			if (s->in.len < 5 + (size_t)len)
				break;
			if (id == ID_STDIN)
				stdin_bytes(c, s, s->in.data + 5, len);
			else if (id == ID_CLOSE_STDIN)
				stdin_eof(c, s);
			/* ID_WINDOW and unknown ids are ignored, as adbd does */
			vd_buf_consume(&s->in, 5 + (size_t)len);
		}
		break;
	}
}

/* Splits "shell,v2,TERM=xterm,raw:cmd" into options and command. */
static bool parse_shell_service(const char *svc, bool *v2, bool *pty, const char **cmd)
{
	const char *colon = strchr(svc, ':');
	if (!colon)
		return false;
	*v2 = false;
	const char *p = svc + 5; /* after "shell" */
	while (p < colon) {
		if (*p == ',')
			p++;
		const char *e = p;
		while (e < colon && *e != ',')
			e++;
		if (e - p == 2 && strncmp(p, "v2", 2) == 0)
			*v2 = true;
		if (e - p == 3 && strncmp(p, "pty", 3) == 0)
			*pty = true;
		p = e;
	}
	*cmd = colon + 1;
	return true;
}

/* A `reverse:` request: the stream opens, carries adbd's one reply, and closes. */
static void serve_reverse(struct vd_conn *c, uint32_t remote_id, size_t slot, const char *req)
{
	struct stream *s = slot < MAX_STREAMS ? calloc(1, sizeof(*s)) : NULL;
	if (!s) {
		send_packet(c, A_CLSE, 0, remote_id, NULL, 0);
		return;
	}
	if (!count_command(c)) {
		free(s);
		return;
	}
	s->local_id = c->next_id++;
	if (c->next_id == 0)
		c->next_id = 1;
	s->remote_id = remote_id;
	s->kind = STREAM_RAW;
	s->service = "reverse";
	c->streams[slot] = s;
	send_packet(c, A_OKAY, s->local_id, remote_id, NULL, 0);
	vd_log("reverse: %s", req);
	vd_latency_begin(c->dev);
	vd_reverse_serve(c->dev, req, &s->out);
	vd_latency_end(c->dev, "reverse", req, s->out.len);
	s->close_after = true;
	pump(c, s);
}

static void on_open(struct vd_conn *c, uint32_t remote_id, const char *svc)
{
	size_t slot = MAX_STREAMS;
	for (size_t i = 0; i < MAX_STREAMS; i++)
		if (!c->streams[i]) {
			slot = i;
			break;
		}
	const char *cmd = NULL;
	bool v2 = false, pty = false;
	enum stream_kind kind;
	if ((strncmp(svc, "shell:", 6) == 0 || strncmp(svc, "shell,", 6) == 0) &&
	    parse_shell_service(svc, &v2, &pty, &cmd)) {
		kind = v2 ? STREAM_SHELL_V2 : STREAM_RAW;
	} else if (strncmp(svc, "exec:", 5) == 0) {
		kind = STREAM_RAW;
		cmd = svc + 5;
	} else if (strcmp(svc, "sync:") == 0) {
		kind = STREAM_SYNC;
	} else if (strncmp(svc, "reboot:", 7) == 0) {
		kind = STREAM_RAW;
		cmd = "reboot";
	} else if (strncmp(svc, "reverse:", 8) == 0) {
		serve_reverse(c, remote_id, slot, svc + 8);
		return;
	} else {
		size_t len = strlen(svc), n = len > 80 ? 80 : len;
		while (n > 0 && n < len && ((unsigned char)svc[n] & 0xC0) == 0x80)
			n--; /* never cut inside a UTF-8 character */
		vd_log("refusing service '%.*s%s'", (int)n, svc, n < len ? "…" : "");
		send_packet(c, A_CLSE, 0, remote_id, NULL, 0);
		return;
	}
	struct stream *s = slot < MAX_STREAMS ? calloc(1, sizeof(*s)) : NULL;
	if (s && kind == STREAM_SYNC && !(s->sync = vd_sync_new())) {
		free(s);
		s = NULL;
	}
	if (!s) {
		send_packet(c, A_CLSE, 0, remote_id, NULL, 0);
		return;
	}
	s->local_id = c->next_id++;
	if (c->next_id == 0)
		c->next_id = 1;
	s->remote_id = remote_id;
	s->kind = kind;
	s->pty = pty;
	s->service = kind == STREAM_SYNC ? "sync" : (strncmp(svc, "exec:", 5) == 0 ? "exec" : "shell");
	c->streams[slot] = s;
	send_packet(c, A_OKAY, s->local_id, remote_id, NULL, 0);
	if (kind == STREAM_SYNC) {
		vd_latency_begin(c->dev);
		vd_latency_end(c->dev, "sync", "sync:", 0);
		return;
	}
	while (*cmd == ' ')
		cmd++;
	if (*cmd == '\0') {
		s->interactive = true;
		interactive_prompt(c, s);
	} else {
		run_command(c, s, cmd);
	}
	if (!c->dead)
		pump(c, s);
}

static void on_cnxn(struct vd_conn *c, uint32_t max_payload)
{
	struct vd_device *d = c->dev;
	char banner[512];
	int n = snprintf(
	    banner, sizeof(banner),
	    "device::ro.product.name=%s;ro.product.model=%s;ro.product.device=%s;features=shell_v2,cmd,stat_v2",
	    vd_prop_get(d, "ro.product.name"), vd_prop_get(d, "ro.product.model"), vd_prop_get(d, "ro.product.device"));
	if (n < 0 || (size_t)n >= sizeof(banner))
		n = 0;
	/* A new CNXN means the host restarted the session: forget every stream. */
	for (size_t i = 0; i < MAX_STREAMS; i++) {
		stream_free(c->streams[i]);
		c->streams[i] = NULL;
	}
	c->max_payload = max_payload < OUR_MAX_PAYLOAD ? max_payload : OUR_MAX_PAYLOAD;
	if (c->max_payload < 4096)
		c->max_payload = 4096;
	c->connected = true;
	send_packet(c, A_CNXN, A_VERSION, OUR_MAX_PAYLOAD, banner, (size_t)n);
	vd_log("host connected (max payload %u)", c->max_payload);
}

static void handle_packet(struct vd_conn *c, uint32_t cmd, uint32_t arg0, uint32_t arg1, const char *data, size_t n)
{
	struct stream *s;
	if (cmd == A_CNXN) {
		on_cnxn(c, arg1);
		return;
	}
	if (!c->connected)
		return; /* adbd ignores everything before the handshake */
	switch (cmd) {
	case A_OPEN: {
		if (arg0 == 0 || n == 0 || n > MAX_SERVICE_NAME)
			return;
		char *svc = vd_strndup(data, n); /* the name is NUL-terminated on the wire; be lenient */
		if (!svc) {
			send_packet(c, A_CLSE, 0, arg0, NULL, 0);
			return;
		}
		on_open(c, arg0, svc);
		free(svc);
		return;
	}
	case A_OKAY:
		s = find_stream(c, arg1);
		if (s && s->remote_id == arg0) {
			s->in_flight = false;
			pump(c, s);
		}
		return;
	case A_WRTE:
		s = find_stream(c, arg1);
		if (!s || s->remote_id != arg0)
			return;
		send_packet(c, A_OKAY, s->local_id, s->remote_id, NULL, 0);
		on_stream_data(c, s, data, n);
		if (!c->dead && find_stream(c, arg1) == s)
			pump(c, s);
		return;
	case A_CLSE:
		s = find_stream(c, arg1);
		if (s && (arg0 == 0 || s->remote_id == arg0))
			remove_stream(c, s);
		return;
	default: return; /* AUTH, SYNC and unknown commands: ignored */
	}
}

bool vd_conn_on_readable(struct vd_conn *c)
{
	char tmp[65536];
	ssize_t r = read(c->fd, tmp, sizeof(tmp));
	if (r == 0)
		return false;
	if (r < 0)
		return errno == EAGAIN || errno == EINTR;
	if (!vd_buf_append(&c->in, tmp, (size_t)r))
		return false;
	while (c->in.len >= HEADER_SIZE && !c->dead) {
		const unsigned char *h = (const unsigned char *)c->in.data;
		uint32_t cmd = get_u32(h), arg0 = get_u32(h + 4), arg1 = get_u32(h + 8), len = get_u32(h + 12);
		if (get_u32(h + 20) != (cmd ^ 0xffffffffu) || len > MAX_ACCEPTED_PAYLOAD) {
			vd_log("garbage on the transport (bad magic or length): closing");
			return false;
		}
		if (c->in.len < HEADER_SIZE + (size_t)len)
			break;
		handle_packet(c, cmd, arg0, arg1, c->in.data + HEADER_SIZE, len);
		vd_buf_consume(&c->in, HEADER_SIZE + (size_t)len);
	}
	return !c->dead;
}

bool vd_conn_on_writable(struct vd_conn *c)
{
	while (c->out.len > 0) {
		ssize_t w = write(c->fd, c->out.data, c->out.len);
		if (w < 0)
			return errno == EAGAIN || errno == EINTR;
		vd_buf_consume(&c->out, (size_t)w);
	}
	return !c->dead;
}
