/* managed.c: the in-process table of managed children (see sw-managed.h), shared by Metro and WebDriverAgent. */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "sw-managed.h"
#include "sw-proc.h"

bool sw__managed_put(sw__managed_table *t, const sw__managed *m)
{
	bool ok = false;
	pthread_mutex_lock(&t->lock);
	if (t->n < SW__MANAGED_MAX) {
		t->items[t->n++] = *m;
		ok = true;
	}
	pthread_mutex_unlock(&t->lock);
	return ok;
}

bool sw__managed_find_if(sw__managed_table *t, bool (*match)(const sw__managed *m, void *ud), void *ud,
                         sw__managed *out, bool take)
{
	bool found = false;
	pthread_mutex_lock(&t->lock);
	for (int i = 0; i < t->n && !found; i++)
		if (match(&t->items[i], ud)) {
			if (out)
				*out = t->items[i];
			if (take)
				t->items[i] = t->items[--t->n];
			found = true;
		}
	pthread_mutex_unlock(&t->lock);
	return found;
}

static bool same_session(const sw__managed *m, void *ud)
{
	return !strcmp(m->sid, (const char *)ud);
}

bool sw__managed_find(sw__managed_table *t, const char *sid, sw__managed *out, bool take)
{
	return sid && sw__managed_find_if(t, same_session, (void *)sid, out, take);
}

static bool any(const sw__managed *m, void *ud)
{
	(void)m;
	(void)ud;
	return true;
}

bool sw__managed_pop(sw__managed_table *t, sw__managed *out)
{
	return sw__managed_find_if(t, any, NULL, out, true);
}

static bool same_pid(const sw__managed *m, void *ud)
{
	return m->pid == *(const pid_t *)ud;
}

bool sw__managed_has_pid(sw__managed_table *t, pid_t pid)
{
	return sw__managed_find_if(t, same_pid, &pid, NULL, false);
}

bool sw__managed_alive(const sw__managed *m)
{
	if (!m->adopted)
		return !sw__proc_ended(m->pid, NULL);
	return kill(m->pid, 0) == 0 || errno == EPERM;
}
