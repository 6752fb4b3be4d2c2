/*
 * journal.c: the session journal, <session>/journal.jsonl.
 *
 * Every appended record (notes, findings, tool errors, recorded actions, ...), every artifact record
 * and every counter step is written to the journal at once, as one redacted JSON line
 * {"w": writer, "k": key, "v": value}, before the call returns. state.json stays the debounced
 * checkpoint; it says how much of the journal it already holds ("journal": {"gen", "offset"}).
 *
 * This gives two promises:
 * - a record is either on disk when its call returns, or the call says it is not (persisted false);
 * - two processes on one session (two servers sharing HOME) see each other's records: before each
 *   save and each read, a process applies the journal lines other writers appended since it last
 *   looked, under the session's lock file, so no acknowledged record is ever lost by a save.
 *
 * When a process is the session's only owner (its shared flock on owner.lock converts to exclusive),
 * a save compacts the journal: a fresh journal of a new generation replaces the old one by rename.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store-internal.h"

#define JOURNAL_MAX_BYTES ((size_t)512 * 1024 * 1024)

static char *journal_path(const sw_session *s)
{
	return sw__path_join(s->dir, "journal.jsonl");
}

void sw__journal_init(sw_session *s)
{
	s->journal_fd = -1;
	s->owner_fd = -1;
	sw__store_random_id(s->writer);
	sw__store_random_id(s->writer + 8);
}

void sw__journal_close(sw_session *s)
{
	if (s->journal_fd >= 0)
		close(s->journal_fd);
	s->journal_fd = -1;
	if (s->owner_fd >= 0) {
		flock(s->owner_fd, LOCK_UN);
		close(s->owner_fd);
	}
	s->owner_fd = -1;
	free(s->write_error);
	s->write_error = NULL;
}

/* Takes the shared owner lock of the session folder (kept while the session is live in this process). */
void sw__journal_own(sw_session *s)
{
	if (s->owner_fd >= 0)
		return;
	char *p = sw__path_join(s->dir, "owner.lock");
	if (!p)
		return;
	int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	free(p);
	if (fd < 0)
		return;
	if (flock(fd, LOCK_SH) != 0) {
		close(fd);
		return;
	}
	s->owner_fd = fd;
}

static void set_write_error(sw_session *s, const char *what, int e)
{
	free(s->write_error);
	s->write_error = sw__asprintf("%s: %s", what, strerror(e));
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (w == 0) {
			errno = ENOSPC;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The header line that starts a journal of generation @gen. */
static char *header_line(const char *gen)
{
	return sw__asprintf("{\"journal\":\"%s\"}\n", gen);
}

static int open_journal_locked(sw_session *s)
{
	if (s->journal_fd >= 0)
		return 0;
	char *p = journal_path(s);
	if (!p) {
		errno = ENOMEM;
		return -1;
	}
	int fd = open(p, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	free(p);
	if (fd < 0)
		return -1;
	s->journal_fd = fd;
	return 0;
}

int sw__journal_append_locked(sw_session *s, const char *key, const json_t *value)
{
	json_t *red = sw__session_redacted_copy(s, value);
	json_t *line = red ? json_pack("{s:s, s:s, s:o}", "w", s->writer, "k", key, "v", red) : NULL;
	char *text = line ? sw__json_compact(line) : NULL;
	json_decref(line);
	if (!text) {
		set_write_error(s, "cannot build the journal line", ENOMEM);
		return SW_ENOMEM;
	}
	size_t n = strlen(text);
	char *full = sw__asprintf("%s\n", text);
	free(text);
	if (!full) {
		set_write_error(s, "cannot build the journal line", ENOMEM);
		return SW_ENOMEM;
	}
	int rc = SW_OK;
	if (open_journal_locked(s) != 0 || write_all(s->journal_fd, full, n + 1) != 0) {
		int e = errno;
		set_write_error(s, "cannot append to the session journal", e);
		if (s->journal_fd >= 0) {
			/* drop a half-written line's effect on our view: readers skip unparsable lines */
			close(s->journal_fd);
			s->journal_fd = -1;
		}
		rc = SW_EIO;
	} else {
		free(s->write_error);
		s->write_error = NULL;
	}
	free(full);
	return rc;
}

static char *mark_path(const sw_session *s)
{
	return sw__path_join(s->dir, "journal.pos");
}

int sw__journal_write_mark(sw_session *s, json_t *mark, sw_error **err)
{
	char *p = mark_path(s);
	char *text = mark ? sw__json_compact(mark) : NULL;
	/* atomic but not fsync'ed: the mark is written after state.json is durable (file and folder synced), so a
	 * mark that reaches the disk never claims more than the checkpoint holds; a mark lost in a crash only
	 * replays journal lines the checkpoint already has, which the load drops (held_by_checkpoint) */
	int rc = p && text ? sw_file_write_atomic(p, text, strlen(text), SW__WRITE_NO_SYNC, err) : sw__error_nomem(err);
	free(text);
	free(p);
	return rc;
}

void sw__journal_read_mark(sw_session *s)
{
	char *p = mark_path(s);
	char *text = NULL;
	size_t len = 0;
	s->journal_gen[0] = '\0';
	s->journal_pos = 0;
	if (p && sw__read_file(p, 4096, &text, &len, NULL) == SW_OK) {
		json_t *m = json_loadb(text, len, 0, NULL);
		const char *gen = json_string_value(json_object_get(m, "gen"));
		json_t *off = json_object_get(m, "offset");
		snprintf(s->journal_gen, sizeof(s->journal_gen), "%s", gen ? gen : "");
		s->journal_pos = json_is_integer(off) && json_integer_value(off) > 0 ? json_integer_value(off) : 0;
		json_decref(m);
	}
	free(text);
	free(p);
}

/*
 * While loading: is @v a record the checkpoint already holds (a line replayed twice after a crash between
 * the state and journal.pos writes)? Each checkpoint record matches one line at most, so two equal
 * records written twice are both kept.
 */
static bool held_by_checkpoint(sw_session *s, const char *key, const json_t *v)
{
	if (!s->replay_base)
		return false;
	json_t *seen = json_object_get(s->replay_base, key);
	if (!json_is_object(seen)) {
		/* first line of this list: count the checkpoint's records once */
		seen = json_object();
		if (!seen)
			return false;
		size_t i;
		json_t *it;
		json_array_foreach(json_object_get(s->state, key), i, it)
		{
			char *k = json_dumps(it, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
			if (k)
				json_object_set_new(seen, k, json_integer(json_integer_value(json_object_get(seen, k)) + 1));
			free(k);
		}
		json_object_set_new(s->replay_base, key, seen);
	}
	char *k = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	json_t *n = k ? json_object_get(seen, k) : NULL;
	bool held = json_integer_value(n) > 0;
	if (held)
		json_integer_set(n, json_integer_value(n) - 1);
	free(k);
	return held;
}

/* Applies one line written by another writer (or by an earlier life of this session). */
static void apply_line_locked(sw_session *s, const char *text, size_t len)
{
	json_t *line = json_loadb(text, len, 0, NULL);
	const char *w = json_string_value(json_object_get(line, "w"));
	const char *k = json_string_value(json_object_get(line, "k"));
	json_t *v = json_object_get(line, "v");
	if (w && k && v && strcmp(w, s->writer) != 0) {
		if (!(s->journal_replaying && strcmp(k, "counters") && strcmp(k, "artifacts") && held_by_checkpoint(s, k, v)))
			sw__session_apply_record_locked(s, k, v);
	}
	else if (!line || (!w && !json_object_get(line, "journal")))
		s->journal_skipped++;
	json_decref(line);
}

void sw__journal_catch_up_locked(sw_session *s)
{
	char *p = journal_path(s);
	if (!p)
		return;
	int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	free(p);
	if (fd < 0)
		return;
	struct stat st;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return;
	}
	s->journal_ino = (unsigned long)st.st_ino;
	/* a journal replaced by compaction (another generation) is read from its start */
	char head[128];
	ssize_t hn = pread(fd, head, sizeof(head) - 1, 0);
	head[hn > 0 ? hn : 0] = '\0';
	char gen[40] = "";
	if (hn > 0 && !strncmp(head, "{\"journal\":\"", 12)) {
		const char *e = strchr(head + 12, '"');
		if (e && (size_t)(e - head - 12) < sizeof(gen)) {
			memcpy(gen, head + 12, (size_t)(e - head - 12));
			gen[e - head - 12] = '\0';
		}
	}
	if (strcmp(gen, s->journal_gen) != 0) {
		snprintf(s->journal_gen, sizeof(s->journal_gen), "%s", gen);
		s->journal_pos = 0;
	}
	if ((int64_t)st.st_size < s->journal_pos)
		s->journal_pos = 0;
	if ((int64_t)st.st_size == s->journal_pos || (size_t)(st.st_size - s->journal_pos) > JOURNAL_MAX_BYTES) {
		close(fd);
		return;
	}
	size_t want = (size_t)(st.st_size - s->journal_pos);
	char *buf = malloc(want + 1);
	ssize_t got = buf ? pread(fd, buf, want, (off_t)s->journal_pos) : -1;
	close(fd);
	if (got <= 0) {
		free(buf);
		return;
	}
	/* only whole lines: a writer may be in the middle of one */
	size_t used = 0;
	for (size_t i = 0; i < (size_t)got; i++) {
		if (buf[i] != '\n')
			continue;
		if (i > used)
			apply_line_locked(s, buf + used, i - used);
		used = i + 1;
	}
	s->journal_pos += (int64_t)used;
	free(buf);
}

bool sw__journal_changed(sw_session *s)
{
	char *p = journal_path(s);
	struct stat st;
	bool changed = p && stat(p, &st) == 0 &&
	               ((int64_t)st.st_size != s->journal_pos || (unsigned long)st.st_ino != s->journal_ino);
	free(p);
	return changed;
}

bool sw__journal_try_compact_locked(sw_session *s)
{
	/* nothing to compact when the journal holds only its header (16 hex digits of generation) */
	if (s->owner_fd < 0 || s->journal_pos <= (int64_t)strlen("{\"journal\":\"0123456789abcdef\"}\n"))
		return false;
	/* only the sole owner may replace the journal: nobody else can be appending to it */
	if (flock(s->owner_fd, LOCK_EX | LOCK_NB) != 0) {
		/* a failed conversion may have dropped our shared lock (flock converts by unlocking first) */
		flock(s->owner_fd, LOCK_SH);
		return false;
	}
	bool done = false;
	char gen[17];
	sw__store_random_id(gen);
	sw__store_random_id(gen + 8);
	char *p = journal_path(s);
	char *tmp = p ? sw__asprintf("%s.new", p) : NULL;
	char *head = NULL;
	struct stat st;
	/* a line appended since the checkpoint (by this process) would be lost: keep the journal then */
	if (tmp && p && stat(p, &st) == 0 && (int64_t)st.st_size == s->journal_pos && (head = header_line(gen))) {
		int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd >= 0) {
			bool ok = write_all(fd, head, strlen(head)) == 0 && fsync(fd) == 0;
			close(fd);
			if (ok && rename(tmp, p) == 0) {
				if (s->journal_fd >= 0)
					close(s->journal_fd);
				s->journal_fd = -1;
				snprintf(s->journal_gen, sizeof(s->journal_gen), "%s", gen);
				s->journal_pos = (int64_t)strlen(head);
				done = true;
			} else {
				unlink(tmp);
			}
		}
	}
	free(head);
	free(tmp);
	free(p);
	flock(s->owner_fd, LOCK_SH);
	return done;
}
