/* sw-managed.h: the in-process table of the long-running children this server manages for its sessions (Metro
 * bundlers, WebDriverAgent runners), one table per kind; never installed. processes.json (store/process.c) is the
 * on-disk record across servers; this table is what the running server knows and may signal. */
#ifndef SW_MANAGED_H
#define SW_MANAGED_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#define SW__MANAGED_MAX 16

typedef struct sw__managed {
	pid_t pid;
	int port;
	bool adopted;       /* started by an earlier server: not our child (no waitpid), signalled by pid/group */
	char sid[64];       /* the session it belongs to */
	char endpoint[128]; /* its base URL ("" when none is recorded) */
	char device[128];   /* the device it serves: Android serial, simulator UDID ("" for none) */
	char log_name[256]; /* its log artifact's name ("" when it has none) */
	char log_path[1024];
} sw__managed;

typedef struct sw__managed_table {
	pthread_mutex_t lock;
	sw__managed items[SW__MANAGED_MAX];
	int n;
} sw__managed_table;

#define SW__MANAGED_TABLE_INIT                                                                                         \
	{                                                                                                              \
		PTHREAD_MUTEX_INITIALIZER, {{0}}, 0                                                                    \
	}

/* Copies @m in; false when the table is full (the caller says so: that process is not tracked). */
bool sw__managed_put(sw__managed_table *t, const sw__managed *m);
/* The first entry of session @sid, copied to @out; @take removes it. */
bool sw__managed_find(sw__managed_table *t, const char *sid, sw__managed *out, bool take);
/* The first entry @match accepts (called under the table's lock: it must not call back into the table). */
bool sw__managed_find_if(sw__managed_table *t, bool (*match)(const sw__managed *m, void *ud), void *ud,
                         sw__managed *out, bool take);
/* Removes and returns any entry (shutdown drains the table with it). */
bool sw__managed_pop(sw__managed_table *t, sw__managed *out);
/* Does the table hold @pid? */
bool sw__managed_has_pid(sw__managed_table *t, pid_t pid);
/* Does @m still run? Our child is reaped with waitpid; an adopted one is asked with kill(pid, 0). */
bool sw__managed_alive(const sw__managed *m);

#endif
