/* process.c: the public face of the process runner for the frontends (swipium/process.h). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sw-proc.h"
#include "swipium/process.h"

extern char **environ;

int sw_process_run_attached(const char *const argv[], unsigned flags, int *exit_code, int *end_signal,
                            int *passed_signal, sw_error **err)
{
	sw__proc_opts o = {.search_path = (flags & SW_PROCESS_SEARCH_PATH) != 0};
	sw__proc_result r;
	int rc = sw__proc_run_inherit(argv, &o, &r, err);
	if (exit_code)
		*exit_code = rc == SW_OK ? r.status : -1;
	if (end_signal)
		*end_signal = rc == SW_OK ? r.signal : 0;
	if (passed_signal)
		*passed_signal = rc == SW_OK ? r.forwarded_signal : 0;
	return rc;
}

int sw_process_exec(const char *const argv[], unsigned flags, sw_error **err)
{
	sw__proc_opts o = {.search_path = (flags & SW_PROCESS_SEARCH_PATH) != 0};
	return sw__proc_exec(argv, &o, err);
}

struct sw_peer {
	pid_t pid;
	int to, from;
};

/* Our environment with each "NAME=value" of @set put in place of (or after) its namesake. (transfer full) */
static char **env_with(const char *const set[])
{
	size_t n = 0, k = 0;
	while (environ && environ[n])
		n++;
	while (set && set[k])
		k++;
	char **v = calloc(n + k + 1, sizeof(*v));
	if (!v)
		return NULL;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		bool replaced = false;
		for (size_t j = 0; j < k && !replaced; j++) {
			const char *eq = strchr(set[j], '=');
			size_t len = eq ? (size_t)(eq - set[j]) : strlen(set[j]);
			replaced = strncmp(environ[i], set[j], len) == 0 && environ[i][len] == '=';
		}
		if (!replaced)
			v[m++] = environ[i];
	}
	for (size_t j = 0; j < k; j++)
		if (strchr(set[j], '='))
			v[m++] = (char *)set[j];
	v[m] = NULL;
	return v;
}

int sw_peer_start(const char *const argv[], const char *const env[], unsigned flags, sw_peer **out, sw_error **err)
{
	*out = NULL;
	sw_peer *p = calloc(1, sizeof(*p));
	char **envp = env ? env_with(env) : NULL;
	if (!p || (env && !envp)) {
		free(p);
		free(envp);
		return sw__error_nomem(err);
	}
	sw__proc_opts o = {.search_path = (flags & SW_PROCESS_SEARCH_PATH) != 0, .envp = envp};
	int rc = sw__proc_open(argv, &o, &p->pid, &p->to, &p->from, err);
	free(envp); /* the strings are ours or the caller's; the child has its copy */
	if (rc != SW_OK) {
		free(p);
		return rc;
	}
	*out = p;
	return SW_OK;
}

int sw_peer_input_fd(const sw_peer *peer)
{
	return peer ? peer->to : -1;
}

int sw_peer_output_fd(const sw_peer *peer)
{
	return peer ? peer->from : -1;
}

int sw_peer_finish(sw_peer *peer, int grace_ms)
{
	if (!peer)
		return -1;
	if (peer->to >= 0)
		close(peer->to); /* end of input: a well-behaved peer exits on its own */
	int st = sw__proc_stop(peer->pid, 0, grace_ms); /* signal 0 sends nothing: only the wait, then SIGKILL */
	if (peer->from >= 0)
		close(peer->from);
	free(peer);
	return st;
}
