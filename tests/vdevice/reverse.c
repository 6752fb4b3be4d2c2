/*
 * reverse.c: adbd's `reverse:` services on the virtual device: the table of device ports that lead back
 * to the host (adb reverse), with adbd's replies and refusals (bad specs, a rebind refused with
 * norebind, an unknown listener, a device port already taken: --busy-port).
 */
#include "vdevice.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REVERSES ((int)(sizeof(((struct vd_device *)0)->reverses) / sizeof(((struct vd_device *)0)->reverses[0])))

/* adbd's protocol string: four hex digits of length, then the bytes. */
static void protocol_string(struct vd_buf *out, const char *s)
{
	size_t n = strlen(s);
	if (n > 0xffff)
		n = 0xffff;
	vd_buf_printf(out, "%04zx", n);
	vd_buf_append(out, s, n);
}

static void fail(struct vd_buf *out, const char *fmt, ...) VD_PRINTF(2, 3);
static void fail(struct vd_buf *out, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	vd_buf_puts(out, "FAIL");
	protocol_string(out, msg);
}

/* "tcp:N" with 0 <= N <= 65535; -1 otherwise. */
static long tcp_port(const char *spec)
{
	if (strncmp(spec, "tcp:", 4) != 0 || !spec[4] || strlen(spec + 4) > 5)
		return -1;
	char *end = NULL;
	long p = strtol(spec + 4, &end, 10);
	return *end || p < 0 || p > 65535 ? -1 : p;
}

static int find(struct vd_device *d, const char *dev_spec)
{
	for (int i = 0; i < d->n_reverses; i++)
		if (!strcmp(d->reverses[i].device, dev_spec))
			return i;
	return -1;
}

static bool taken(struct vd_device *d, long port)
{
	char t[16];
	snprintf(t, sizeof(t), "tcp:%ld", port);
	return port == d->opt.busy_port || find(d, t) >= 0;
}

static void forward(struct vd_device *d, const char *spec, struct vd_buf *out)
{
	bool no_rebind = false;
	if (!strncmp(spec, "norebind:", 9)) {
		no_rebind = true;
		spec += 9;
	}
	const char *semi = strchr(spec, ';');
	if (!semi || semi == spec || !semi[1] || semi[1] == '*' || strchr(semi + 1, ';')) {
		fail(out, "bad forward: %s", spec);
		return;
	}
	char dev_spec[64], host_spec[64];
	size_t dn = (size_t)(semi - spec), hn = strlen(semi + 1);
	if (dn >= sizeof(dev_spec) || hn >= sizeof(host_spec)) {
		fail(out, "bad forward: %s", spec);
		return;
	}
	memcpy(dev_spec, spec, dn);
	dev_spec[dn] = '\0';
	memcpy(host_spec, semi + 1, hn + 1);
	long port = tcp_port(dev_spec);
	if (port < 0) {
		/* only tcp: listeners exist on this device (no local sockets to bind) */
		fail(out, "cannot bind listener: unsupported socket spec '%s'", dev_spec);
		return;
	}
	if (tcp_port(host_spec) <= 0 && strncmp(host_spec, "localabstract:", 14) != 0) {
		fail(out, "bad forward: %s", spec);
		return;
	}
	char resolved[16] = "";
	if (port == 0) {
		/* the kernel would pick a free port: the first one from 20000 on that is not taken here */
		for (port = 20000; port < 65535 && taken(d, port); port++)
			;
		snprintf(dev_spec, sizeof(dev_spec), "tcp:%ld", port);
		snprintf(resolved, sizeof(resolved), "%ld", port);
	}
	int i = find(d, dev_spec);
	if (i >= 0 && no_rebind) {
		fail(out, "%s", "cannot rebind existing socket");
		return;
	}
	if (i < 0 && port == d->opt.busy_port) {
		fail(out, "cannot bind listener: %s", "Address already in use");
		return;
	}
	if (i < 0) {
		if (d->n_reverses >= MAX_REVERSES) {
			fail(out, "cannot bind listener: %s", "Too many open files");
			return;
		}
		i = d->n_reverses++;
	}
	snprintf(d->reverses[i].device, sizeof(d->reverses[i].device), "%s", dev_spec);
	snprintf(d->reverses[i].host, sizeof(d->reverses[i].host), "%s", host_spec);
	vd_log("reverse %s -> %s", dev_spec, host_spec);
	vd_buf_puts(out, "OKAY");
	if (resolved[0])
		protocol_string(out, resolved);
}

void vd_reverse_serve(struct vd_device *d, const char *req, struct vd_buf *out)
{
	if (!strcmp(req, "list-forward")) {
		struct vd_buf list = {0};
		for (int i = 0; i < d->n_reverses; i++)
			vd_buf_printf(&list, "host-1 %s %s\n", d->reverses[i].device, d->reverses[i].host);
		protocol_string(out, list.data ? list.data : "");
		vd_buf_free(&list);
	} else if (!strcmp(req, "killforward-all")) {
		d->n_reverses = 0;
		vd_buf_puts(out, "OKAY");
	} else if (!strncmp(req, "killforward:", 12)) {
		const char *spec = req + 12;
		int i = *spec && !strchr(spec, ';') ? find(d, spec) : -2;
		if (i == -2) {
			fail(out, "bad killforward: %s", spec);
		} else if (i < 0) {
			fail(out, "listener '%s' not found", spec);
		} else {
			memmove(&d->reverses[i], &d->reverses[i + 1], (size_t)(d->n_reverses - i - 1) * sizeof(d->reverses[0]));
			d->n_reverses--;
			vd_buf_puts(out, "OKAY");
		}
	} else if (!strncmp(req, "forward:", 8)) {
		forward(d, req + 8, out);
	} else {
		fail(out, "%s", "not a reverse forwarding command");
	}
}
