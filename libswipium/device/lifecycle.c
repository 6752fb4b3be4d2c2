/* lifecycle.c: what a frontend runs once at start-up (orphan sweep, pending network restores) and at shutdown
 * (stop recorders, give every live session its network back). In device/, beside the network and recorder
 * state it restores, so that store/ does not depend on device/. */
#include <stdlib.h>
#include <string.h>

#include "sw-internal.h"
#include <swipium/device.h>
#include <swipium/session.h>

SW_API int sw_devctl_startup_recovery(sw_ctx *ctx, sw_store *store, char **summary_json, sw_error **err)
{
	if (!ctx || !store)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "ctx and store must not be NULL");
	if (summary_json)
		*summary_json = NULL;
	json_t *sum = json_object();
	if (!sum)
		return sw__error_nomem(err);
	char *text = NULL;
	/* processes a dead server left behind (metro, recorders, emulators it started) */
	if (sw_store_sweep_processes_startup(store, &text, NULL) == SW_OK && text) {
		json_t *j = json_loads(text, 0, NULL);
		if (j)
			json_object_set_new(sum, "sweep", j);
	}
	sw_free(text);
	text = NULL;
	/* a server that died with airplane mode on (client killed it): put the network back */
	if (sw_devctl_restore_pending(ctx, store, &text, NULL) == SW_OK && text) {
		json_t *j = json_loads(text, 0, NULL);
		if (j)
			json_object_set_new(sum, "network", j);
	}
	sw_free(text);
	int rc = SW_OK;
	if (summary_json) {
		*summary_json = sw__json_compact(sum);
		if (!*summary_json)
			rc = sw__error_nomem(err);
	}
	json_decref(sum);
	return rc;
}

SW_API int sw_devctl_shutdown(sw_ctx *ctx, sw_store *store, char **summary_json, sw_error **err)
{
	if (!ctx || !store)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "ctx and store must not be NULL");
	if (summary_json)
		*summary_json = NULL;
	sw_devctl_record_stop_all(ctx, store);
	char *list = NULL;
	int rc = sw_store_sessions_json(store, &list, err);
	if (rc < 0)
		return rc;
	json_t *arr = json_loads(list, 0, NULL);
	sw_free(list);
	json_t *failed = json_array();
	size_t i;
	json_t *e;
	json_array_foreach(arr, i, e)
	{
		sw_session *s = NULL;
		const char *id = json_string_value(json_object_get(e, "id"));
		if (!id || sw_store_get_session(store, id, &s, NULL) != SW_OK)
			continue;
		sw_error *rerr = NULL;
		char *out = NULL;
		if (sw_devctl_network_restore(ctx, s, "server shutdown", &out, &rerr) != SW_OK) {
			json_array_append_new(failed, json_pack("{s:s,s:s}", "sessionId", id, "error",
			                                        rerr ? sw_error_message(rerr) : "not restored"));
			sw__log_warn(ctx, "network not restored at shutdown (session %s): %s", id,
			             rerr ? sw_error_message(rerr) : "not restored");
		}
		sw_error_free(rerr);
		sw_free(out);
	}
	json_decref(arr);
	if (summary_json) {
		json_t *sum = json_pack("{s:o}", "networkNotRestored", failed ? failed : json_array());
		failed = NULL;
		*summary_json = sum ? sw__json_compact(sum) : NULL;
		json_decref(sum);
		if (!*summary_json)
			rc = sw__error_nomem(err);
	}
	json_decref(failed);
	return rc < 0 ? rc : SW_OK;
}
