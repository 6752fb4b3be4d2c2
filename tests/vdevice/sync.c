/* sync.c: the adb file sync service (sync:) for push, pull and ls: STAT, STA2, LST2, LIST, SEND, RECV, QUIT. */
#include "vdevice.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SYNC_DATA_MAX (64u * 1024u)
#define SYNC_PATH_MAX 1024u
#define ENOENT_CODE 2u

enum sync_state { WAIT_REQUEST, RECEIVING_FILE };

struct vd_sync {
	enum sync_state state;
	struct vd_buf in;
	char *send_path;
	uint32_t send_mode;
	struct vd_buf file;
	bool send_failed;
};

struct vd_sync *vd_sync_new(void)
{
	return calloc(1, sizeof(struct vd_sync));
}

void vd_sync_free(struct vd_sync *s)
{
	if (!s)
		return;
	vd_buf_free(&s->in);
	vd_buf_free(&s->file);
	free(s->send_path);
	free(s);
}

static uint32_t get_u32(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;
	return (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 | (uint32_t)u[3] << 24;
}

static void put_u32(struct vd_buf *b, uint32_t v)
{
	unsigned char p[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
	                      (unsigned char)(v >> 24)};
	vd_buf_append(b, p, 4);
}

static void put_u64(struct vd_buf *b, uint64_t v)
{
	put_u32(b, (uint32_t)v);
	put_u32(b, (uint32_t)(v >> 32));
}

static void fail(struct vd_buf *reply, const char *msg)
{
	vd_buf_append(reply, "FAIL", 4);
	put_u32(reply, (uint32_t)strlen(msg));
	vd_buf_puts(reply, msg);
}

static bool lookup(struct vd_device *d, const char *path, uint32_t *mode, uint64_t *size, uint32_t *mtime)
{
	struct vd_file *f = vd_fs_get(&d->fs, path);
	if (f) {
		*mode = f->mode ? f->mode : 0100660;
		*size = f->len;
		*mtime = f->mtime;
		return true;
	}
	if (vd_fs_is_dir(&d->fs, path)) {
		*mode = 040771;
		*size = 4096;
		*mtime = (uint32_t)time(NULL);
		return true;
	}
	return false;
}

static void do_stat(struct vd_device *d, const char *id, const char *path, struct vd_buf *reply)
{
	uint32_t mode = 0, mtime = 0;
	uint64_t size = 0;
	bool found = lookup(d, path, &mode, &size, &mtime);
	vd_buf_append(reply, id, 4);
	if (strcmp(id, "STAT") == 0) {
		put_u32(reply, found ? mode : 0);
		put_u32(reply, found ? (uint32_t)size : 0);
		put_u32(reply, found ? mtime : 0);
		return;
	}
	put_u32(reply, found ? 0 : ENOENT_CODE);
	put_u64(reply, found ? 0xfd00 : 0);            /* dev */
	put_u64(reply, found ? 1000 + size % 997 : 0); /* ino */
	put_u32(reply, found ? mode : 0);
	put_u32(reply, found ? 1 : 0);     /* nlink */
	put_u32(reply, found ? 10163 : 0); /* uid */
	put_u32(reply, found ? 1023 : 0);  /* gid media_rw */
	put_u64(reply, found ? size : 0);
	put_u64(reply, found ? mtime : 0); /* atime */
	put_u64(reply, found ? mtime : 0);
	put_u64(reply, found ? mtime : 0); /* ctime */
}

static void do_list(struct vd_device *d, const char *path, struct vd_buf *reply)
{
	char *dir = vd_fs_normalize(path);
	size_t n = dir ? strlen(dir) : 0;
	for (size_t i = 0; dir && i < d->fs.n; i++) {
		const char *p = d->fs.files[i].path;
		const char *rest = p + n + (n > 1);
		if (strncmp(p, dir, n) != 0 || (n > 1 && p[n] != '/') || strchr(rest, '/'))
			continue;
		vd_buf_append(reply, "DENT", 4);
		put_u32(reply, d->fs.files[i].mode ? d->fs.files[i].mode : 0100660);
		put_u32(reply, (uint32_t)d->fs.files[i].len);
		put_u32(reply, d->fs.files[i].mtime);
		put_u32(reply, (uint32_t)strlen(rest));
		vd_buf_puts(reply, rest);
	}
	free(dir);
	vd_buf_append(reply, "DONE", 4);
	for (int i = 0; i < 4; i++)
		put_u32(reply, 0);
}

static void do_recv(struct vd_device *d, const char *path, struct vd_buf *reply)
{
	struct vd_file *f = vd_fs_get(&d->fs, path);
	if (!f) {
		fail(reply, vd_fs_is_dir(&d->fs, path) ? "Is a directory" : "No such file or directory");
		return;
	}
	for (size_t off = 0; off < f->len; off += SYNC_DATA_MAX) {
		size_t n = f->len - off < SYNC_DATA_MAX ? f->len - off : SYNC_DATA_MAX;
		vd_buf_append(reply, "DATA", 4);
		put_u32(reply, (uint32_t)n);
		vd_buf_append(reply, f->data + off, n);
	}
	vd_buf_append(reply, "DONE", 4);
	put_u32(reply, 0);
}

static bool start_send(struct vd_sync *s, const char *arg)
{
	/* "path,mode" */
	const char *comma = strrchr(arg, ',');
	free(s->send_path);
	s->send_path = comma ? vd_strndup(arg, (size_t)(comma - arg)) : vd_strdup(arg);
	s->send_mode = comma ? (uint32_t)strtoul(comma + 1, NULL, 10) : 0100644;
	s->send_failed = !s->send_path;
	vd_buf_reset(&s->file);
	s->state = RECEIVING_FILE;
	return true;
}

/* One request or data chunk is complete in s->in; returns false to end the stream. */
static bool step(struct vd_sync *s, struct vd_device *d, struct vd_buf *reply, bool *more)
{
	*more = false;
	if (s->in.len < 8)
		return true;
	char id[5];
	memcpy(id, s->in.data, 4);
	id[4] = '\0';
	uint32_t len = get_u32(s->in.data + 4);
	if (s->state == RECEIVING_FILE) {
		if (strcmp(id, "DONE") == 0) {
			vd_buf_consume(&s->in, 8);
			s->state = WAIT_REQUEST;
			if (s->send_failed) {
				fail(reply, "couldn't allocate memory for the file");
			} else if (!vd_fs_writable(s->send_path)) {
				vd_buf_reset(&s->file);
				fail(reply, "couldn't create file: Permission denied");
			} else if (!vd_fs_put(&d->fs, s->send_path, s->file.data ? s->file.data : "", s->file.len,
			                      (s->send_mode & 07777) | 0100000, len)) {
				fail(reply, "couldn't write file: No space left on device");
			} else {
				vd_buf_append(reply, "OKAY", 4);
				put_u32(reply, 0);
			}
			vd_buf_free(&s->file);
			*more = true;
			return true;
		}
		if (strcmp(id, "DATA") != 0 || len > SYNC_DATA_MAX) {
			fail(reply, "invalid data message");
			return false;
		}
		if (s->in.len < 8 + (size_t)len)
			return true;
		if (!s->send_failed && (s->file.len + len > VD_FS_MAX || !vd_buf_append(&s->file, s->in.data + 8, len)))
			s->send_failed = true;
		vd_buf_consume(&s->in, 8 + (size_t)len);
		*more = true;
		return true;
	}
	if (strcmp(id, "QUIT") == 0)
		return false;
	if (len > SYNC_PATH_MAX) {
		fail(reply, "path too long");
		return false;
	}
	if (s->in.len < 8 + (size_t)len)
		return true;
	char *arg = vd_strndup(s->in.data + 8, len);
	vd_buf_consume(&s->in, 8 + (size_t)len);
	if (!arg)
		return false;
	bool keep = true;
	if (strcmp(id, "STAT") == 0 || strcmp(id, "STA2") == 0 || strcmp(id, "LST2") == 0)
		do_stat(d, id, arg, reply);
	else if (strcmp(id, "LIST") == 0)
		do_list(d, arg, reply);
	else if (strcmp(id, "RECV") == 0)
		do_recv(d, arg, reply);
	else if (strcmp(id, "SEND") == 0)
		keep = start_send(s, arg);
	else {
		fail(reply, "unknown sync request");
		keep = false;
	}
	free(arg);
	*more = keep;
	return keep;
}

bool vd_sync_feed(struct vd_sync *s, struct vd_device *d, const char *data, size_t n, struct vd_buf *reply)
{
	if (!vd_buf_append(&s->in, data, n))
		return false;
	bool more = true;
	while (more)
		if (!step(s, d, reply, &more))
			return false;
	return true;
}
