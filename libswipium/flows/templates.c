/* templates.c: `swipium init flows` starter templates, packs (.swipium/packs) and the run report of `swipium run`. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "flow-internal.h"

struct tmpl {
	const char *path;
	const char *text;
};

static const struct tmpl TEMPLATES[] = {
    {".swipium/flows/launch-smoke.yaml", "# Launch smoke: the app starts and shows its first screen.\n"
                                         "name: launch smoke\n"
                                         "steps:\n"
                                         "  - prepareTarget\n"
                                         "  - waitForIdle\n"
                                         "  - screenshot: first screen after launch\n"},
    {".swipium/flows/login-smoke.yaml", "# Login smoke: signs in with the test account from the environment.\n"
                                        "# export SWIPIUM_TEST_EMAIL=... SWIPIUM_TEST_PASSWORD=... before running it.\n"
                                        "name: login smoke\n"
                                        "steps:\n"
                                        "  - prepareTarget\n"
                                        "  - inputText: {into: \"Email\", text: \"${SWIPIUM_TEST_EMAIL}\"}\n"
                                        "  - inputText: {into: \"Password\", text: \"${SWIPIUM_TEST_PASSWORD}\"}\n"
                                        "  - tap: \"Sign in\"\n"
                                        "  - assertNotVisible: \"Sign in\"\n"},
    {".swipium/flows/ios-wda-smoke.yaml",
     "# iOS smoke through WebDriverAgent locators (accessibilityIdentifier / testID).\n"
     "name: ios wda smoke\n"
     "steps:\n"
     "  - prepareTarget\n"
     "  - waitForVisible: {accessibility id: \"home\", timeoutMs: 10000}\n"
     "  - screenshot: home screen\n"},
    {".swipium/flows/offline.yaml",
     "# Offline behaviour: turns the network off, checks the app copes, turns it back on.\n"
     "# Mutating: runs only with the flow_mutation_run consent.\n"
     "name: offline\n"
     "steps:\n"
     "  - prepareTarget\n"
     "  - networkOffline\n"
     "  - screenshot: offline state\n"
     "teardown:\n"
     "  - networkOnline\n"},
    {".swipium/flows/permission-prompt.yaml",
     "# Permission prompt: dismisses a system prompt if one shows up on launch.\n"
     "name: permission prompt\n"
     "steps:\n"
     "  - prepareTarget\n"
     "  - clearOverlay\n"
     "  - screenshot: after the permission prompt\n"},
    {".swipium/flows/deep-link.yaml",
     "# Deep link: opens SWIPIUM_TEST_DEEP_LINK (mutating because the URL comes from a variable).\n"
     "name: deep link\n"
     "steps:\n"
     "  - prepareTarget\n"
     "  - openUrl: \"${SWIPIUM_TEST_DEEP_LINK}\"\n"
     "  - waitForIdle\n"
     "  - screenshot: deep link target\n"},
    {".swipium/flows/saved-item-persistence.yaml",
     "# Saved item persistence: saves an item, restarts the app, checks it is still there.\n"
     "# Replace the selectors with your app's labels. restartApp is mutating (consent).\n"
     "name: saved item persistence\n"
     "steps:\n"
     "  - prepareTarget\n"
     "  - tap: \"Save\"\n"
     "  - restartApp\n"
     "  - assertVisible: \"Saved\"\n"},
    {".swipium/flows/visual-canvas-smoke.yaml",
     "# Visual smoke for map or canvas screens with no UI tree: screenshot evidence for a human check.\n"
     "name: visual canvas smoke\n"
     "mode: visual\n"
     "steps:\n"
     "  - prepareTarget\n"
     "  - waitForIdle\n"
     "  - assertVisual: \"the map or canvas renders\"\n"},
    {".swipium/packs/smoke.yaml", "# The smoke pack: `swipium run smoke` runs these flows in order.\n"
                                  "name: smoke\n"
                                  "flows:\n"
                                  "  - launch-smoke\n"
                                  "  - login-smoke\n"
                                  "  - permission-prompt\n"},
};

SW_API int sw_flow_init_templates(const char *root, int force, char **result_json, sw_error **err)
{
	if (!root || !result_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "root and result must not be NULL");
	if (!sw__is_dir(root))
		return sw__error_set(err, SW_ENOTFOUND, "PROJECT_ROOT_UNRESOLVED", NULL, "%s is not a directory", root);
	int rc = SW_OK;
	json_t *written = json_array(), *kept = json_array();
	for (size_t i = 0; i < SW_ARRAY_SIZE(TEMPLATES); i++) {
		char *p = NULL;
		/* confined: a .swipium (or flows/packs folder) linked out of the project is refused, nothing written */
		if ((rc = sw__confine(root, TEMPLATES[i].path, 0, &p, err)) < 0)
			goto out;
		struct stat st;
		if (!force && lstat(p, &st) == 0) {
			json_array_append_new(kept, json_string(TEMPLATES[i].path));
			free(p);
			continue;
		}
		free(p);
		rc = sw_project_write_file(root, TEMPLATES[i].path, TEMPLATES[i].text, strlen(TEMPLATES[i].text),
		                           SW_WRITE_MKDIRS | SW_WRITE_SHARED, err);
		if (rc < 0)
			goto out;
		json_array_append_new(written, json_string(TEMPLATES[i].path));
	}
	json_t *res = json_pack("{sO,sO}", "written", written, "kept", kept);
	*result_json = sw__json_compact(res);
	json_decref(res);
	if (!*result_json)
		rc = sw__error_nomem(err);
out:
	json_decref(written);
	json_decref(kept);
	return rc;
}

/* ---- packs ---------------------------------------------------------------------------- */

static int pack_flows(const char *pack_path, json_t *flows, sw_error **err)
{
	char *text = NULL;
	size_t len = 0;
	int rc = sw__read_file(pack_path, SW_FLOW_MAX_BYTES, &text, &len, err);
	if (rc < 0)
		return rc;
	rc = sw__flow_parse_pack(text, len, pack_path, flows, err);
	free(text);
	return rc;
}

SW_API int sw_flow_resolve_target(const char *root, const char *target, char **result_json, sw_error **err)
{
	if (!root || !target || !target[0] || !result_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "a project root and a flow or pack are needed");
	int rc = SW_OK;
	json_t *res = NULL, *flows = json_array();
	char *pack = NULL;
	if (!strchr(target, '/')) {
		const char *suffixes[] = {"", ".yaml", ".yml"};
		for (size_t i = 0; i < 3 && !pack; i++) {
			char *c = sw__asprintf("%s/.swipium/packs/%s%s", root, target, suffixes[i]);
			if (c && sw__is_file(c)) {
				char *rp = NULL;
				if ((rc = sw__flow_confine(root, c, &rp, err)) < 0) {
					free(c);
					goto out;
				}
				pack = rp;
			}
			free(c);
		}
	}
	if (pack) {
		json_t *names = json_array();
		if ((rc = pack_flows(pack, names, err)) < 0) {
			json_decref(names);
			goto out;
		}
		size_t i;
		json_t *n;
		json_array_foreach(names, i, n) json_array_append(flows, n);
		json_decref(names);
		res = json_pack("{ss,ss,sO}", "kind", "pack", "name", target, "flows", flows);
	} else {
		json_array_append_new(flows, json_string(target));
		res = json_pack("{ss,ss,sO}", "kind", "flow", "name", target, "flows", flows);
	}
	*result_json = sw__json_compact(res);
	if (!*result_json)
		rc = sw__error_nomem(err);
out:
	free(pack);
	json_decref(res);
	json_decref(flows);
	return rc;
}

/* ---- the run report ----------------------------------------------------------------------- */

SW_API int sw_flow_save_report(sw_session *s, char **meta_json, sw_error **err)
{
	if (!s)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "session must not be NULL");
	/* the one report pipeline (sw_report_save), without a device to restore */
	char *out = NULL;
	int rc = sw_report_save(NULL, s, "{\"format\":\"json\",\"restoreNetwork\":false}", &out, NULL, err);
	if (rc < 0)
		return rc;
	json_t *res = json_loads(out, 0, NULL);
	sw_free(out);
	json_t *meta = json_pack("{s:O,s:O}", "uri", json_object_get(res, "reportUri"), "path",
	                         json_object_get(res, "reportPath"));
	json_decref(res);
	if (meta_json)
		*meta_json = meta ? sw__json_compact(meta) : NULL;
	json_decref(meta);
	return meta_json && !*meta_json ? sw__error_nomem(err) : SW_OK;
}
