/* consent-policy.c: the action table, operator pre-approval, prompt sanitising and mutation-ledger rows. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "consent-internal.h"
#include "consent-policy.h"

static const sw_consent_action actions[] = {
    {"app_clear_data", "high", false, true},
    {"app_fresh_start", "high", false, true},
    {"automation_project_write", "medium", false, true},
    {"build_from_source", "high", true, true},
    {"destructive_ui_candidate", "high", false, true},
    {"erase_device", "high", false, true},
    {"flow_mutation_run", "medium", true, true},
    {"geo_set", "medium", false, true},
    {"install_app", "medium", false, true},
    {"network_change", "medium", false, true},
    {"ocr_run", "medium", true, true},
    {"permission_grant", "medium", false, true},
    {"permission_revoke", "medium", false, true},
    {"prepare_plan", "low", false, true},
    {"privacy_reset", "low", false, true},
    {"screen_record", "medium", false, true},
    {"seed_state", "medium", true, true},
    {"start_metro", "medium", true, true},
    {"suite_fresh_state_replay", "medium", true, true},
    {"test_this_plan", "medium", false, true},
    {"wda_build", "medium", true, true},
    {"wda_non_loopback", "medium", false, false},
    {"wda_start", "medium", true, true},
};

const sw_consent_action *sw__consent_action_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < SW_ARRAY_SIZE(actions); i++)
		if (strcmp(actions[i].name, name) == 0)
			return &actions[i];
	return NULL;
}

bool sw__consent_risk_valid(const char *risk)
{
	return risk && (strcmp(risk, "low") == 0 || strcmp(risk, "medium") == 0 || strcmp(risk, "high") == 0);
}

SW_API int sw_consent_actions_json(char **out, sw_error **err)
{
	if (!out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_consent_actions_json: out is NULL");
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < SW_ARRAY_SIZE(actions); i++)
		json_array_append_new(arr, json_pack("{s:s, s:s, s:b, s:b}", "action", actions[i].name, "risk",
		                                     actions[i].risk, "runsCode", actions[i].runs_code, "preapprovable",
		                                     actions[i].preapprovable));
	char *s = arr ? sw__json_compact(arr) : NULL;
	json_decref(arr);
	if (!s)
		return sw__error_nomem(err);
	*out = s;
	return SW_OK;
}

/* ---- randomness, ids ----------------------------------------------------- */

bool sw__random_hex(char *hex, size_t nbytes)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char buf[64];
	if (nbytes > sizeof(buf))
		return false;
	size_t got = 0;
	while (got < nbytes) {
		ssize_t n = getrandom(buf + got, nbytes - got, 0);
		if (n <= 0)
			return false;
		got += (size_t)n;
	}
	for (size_t i = 0; i < nbytes; i++) {
		hex[2 * i] = digits[buf[i] >> 4];
		hex[2 * i + 1] = digits[buf[i] & 15];
	}
	hex[2 * nbytes] = '\0';
	return true;
}

/* ---- edit distance and suggestions ------------------------------------- */

size_t sw__consent_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 256 || lb > 256)
		return SIZE_MAX;
	size_t prev[257], cur[257];
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, (lb + 1) * sizeof(size_t));
	}
	return prev[lb];
}

const char *sw__consent_suggest(const char *name)
{
	/* normalise: lowercase, runs of '-', '.' and whitespace become '_' */
	char norm[257];
	size_t n = 0;
	for (const char *p = name; *p && n < sizeof(norm) - 1;) {
		if (*p == '-' || *p == '.' || isspace((unsigned char)*p)) {
			while (*p == '-' || *p == '.' || isspace((unsigned char)*p))
				p++;
			norm[n++] = '_';
			continue;
		}
		norm[n++] = (char)tolower((unsigned char)*p);
		p++;
	}
	norm[n] = '\0';
	size_t limit = n / 4 > 1 ? n / 4 : 1;
	const char *best = NULL;
	size_t best_d = SIZE_MAX;
	for (size_t i = 0; i < SW_ARRAY_SIZE(actions); i++) {
		size_t d = sw__consent_edit_distance(norm, actions[i].name);
		if (d < best_d) {
			best_d = d;
			best = actions[i].name;
		}
	}
	return best_d <= limit ? best : NULL;
}

/* ---- pre-approval ------------------------------------------------------ */

static bool env_is_one(const char *name)
{
	const char *v = getenv(name);
	if (!v)
		return false;
	while (isspace((unsigned char)*v))
		v++;
	if (*v != '1')
		return false;
	v++;
	while (isspace((unsigned char)*v))
		v++;
	return *v == '\0';
}

bool sw__consent_require_elicitation(void)
{
	return env_is_one("SWIPIUM_REQUIRE_ELICITATION");
}

json_t *sw__consent_preapproval_read(bool honoured[])
{
	json_t *rep = json_pack("{s:[], s:[], s:[], s:b}", "honoured", "blocked", "unknown", "requireElicitation",
	                        sw__consent_require_elicitation());
	for (size_t i = 0; i < SW_ARRAY_SIZE(actions); i++)
		honoured[i] = false;
	const char *env = getenv("SWIPIUM_CONSENT_PREAPPROVE");
	bool run_code = env_is_one("SWIPIUM_CONSENT_PREAPPROVE_RUN_CODE");
	if (!env)
		return rep;
	char *copy = sw__strdup(env);
	if (!copy) {
		json_decref(rep);
		return NULL;
	}
	char *save = NULL;
	for (char *tok = strtok_r(copy, ", \t\r\n\v\f", &save); tok; tok = strtok_r(NULL, ", \t\r\n\v\f", &save)) {
		const sw_consent_action *a = sw__consent_action_find(tok);
		if (!a) {
			const char *sug = sw__consent_suggest(tok);
			json_t *u = json_pack("{s:s}", "name", tok);
			if (u && sug)
				json_object_set_new(u, "suggestion", json_string(sug));
			json_array_append_new(json_object_get(rep, "unknown"), u);
			continue;
		}
		size_t idx = (size_t)(a - actions);
		if (!a->preapprovable) {
			json_array_append_new(json_object_get(rep, "blocked"),
			                      json_pack("{s:s, s:s}", "name", tok, "why", "can never be pre-approved"));
		} else if (a->runs_code && !run_code) {
			json_array_append_new(json_object_get(rep, "blocked"),
			                      json_pack("{s:s, s:s}", "name", tok, "why",
			                                "runs code: needs SWIPIUM_CONSENT_PREAPPROVE_RUN_CODE=1"));
		} else if (!honoured[idx]) {
			honoured[idx] = true;
			json_array_append_new(json_object_get(rep, "honoured"), json_string(a->name));
		}
	}
	free(copy);
	return rep;
}

size_t sw__consent_action_index(const sw_consent_action *a)
{
	return (size_t)(a - actions);
}

size_t sw__consent_action_count(void)
{
	return SW_ARRAY_SIZE(actions);
}

SW_API int sw_consent_preapproval_json(char **out, sw_error **err)
{
	if (!out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_consent_preapproval_json: out is NULL");
	bool honoured[SW_ARRAY_SIZE(actions)];
	json_t *rep = sw__consent_preapproval_read(honoured);
	char *s = rep ? sw__json_compact(rep) : NULL;
	json_decref(rep);
	if (!s)
		return sw__error_nomem(err);
	*out = s;
	return SW_OK;
}

/* ---- sanitising and the prompt ----------------------------------------- */

/* Characters a prompt must never carry: they fake line breaks or reorder/hide text. */
static bool is_stripped(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 ||
	       (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x2069) ||
	       cp == 0xFEFF;
}

/* JavaScript's \s. */
static bool is_js_space(uint32_t cp)
{
	return cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || cp == 0xA0 || cp == 0x1680 ||
	       (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
	       cp == 0x3000 || cp == 0xFEFF;
}

char *sw__consent_sanitize(const char *in, size_t len, size_t max_units)
{
	sw_buf b = SW_BUF_INIT;
	const unsigned char *s = (const unsigned char *)(in ? in : "");
	size_t units = 0;
	bool space = false;
	if (max_units == 0)
		return sw__strdup("");
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t k = sw__utf8_decode(s + i, len - i, &cp);
		if (k == 0) {
			cp = 0xFFFD;
			k = 1;
		}
		i += k;
		if (is_stripped(cp) || is_js_space(cp)) {
			space = units > 0; /* leading whitespace is trimmed */
			continue;
		}
		if (space) {
			sw__buf_putc(&b, ' ');
			units++;
			space = false;
		}
		char u8[4];
		size_t m = sw__utf8_encode(cp, u8);
		sw__buf_append(&b, u8, m);
		units += cp >= 0x10000 ? 2 : 1;
		if (units > max_units)
			break; /* enough to know it is cut; the rest of a huge input is never read */
	}
	if (b.failed)
		goto fail;
	if (units > max_units) {
		size_t keep = sw__utf16_prefix_bytes(b.data, b.len, max_units - 1);
		b.len = keep;
		b.data[keep] = '\0';
		sw__buf_puts(&b, "\xe2\x80\xa6");
		if (b.failed)
			goto fail;
	}
	if (!b.data)
		return sw__strdup("");
	return sw__buf_steal(&b, NULL);
fail:
	sw__buf_free(&b);
	return NULL;
}

SW_API int sw_consent_sanitize(const char *in, size_t len, size_t max_chars, char **out, sw_error **err)
{
	if ((!in && len) || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_consent_sanitize: NULL argument");
	char *s = sw__consent_sanitize(in, len, max_chars);
	if (!s)
		return sw__error_nomem(err);
	*out = s;
	return SW_OK;
}

/* Appends the JSON quoting of the sanitised @s. */
static void put_quoted(sw_buf *b, const char *s, size_t max)
{
	char *clean = sw__consent_sanitize(s, s ? strlen(s) : 0, max);
	if (!clean) {
		b->failed = true;
		return;
	}
	sw__buf_json_string(b, clean, strlen(clean));
	free(clean);
}

/* Appends the non-blank lines of @text to @steps. */
static void split_lines(const char *text, json_t *steps)
{
	for (const char *line = text; line;) {
		const char *nl = strchr(line, '\n');
		size_t l = nl ? (size_t)(nl - line) : strlen(line);
		bool blank = true;
		for (size_t i = 0; i < l && blank; i++)
			blank = isspace((unsigned char)line[i]) != 0;
		if (!blank)
			json_array_append_new(steps, json_stringn_nocheck(line, l));
		line = nl ? nl + 1 : NULL;
	}
}

/* The steps of @cmd (a string, or an array of strings): its non-blank lines. */
static void collect_steps(const json_t *cmd, json_t *steps)
{
	if (json_is_string(cmd)) {
		split_lines(json_string_value(cmd), steps);
		return;
	}
	size_t i;
	json_t *item;
	json_array_foreach(cmd, i, item) if (json_is_string(item)) split_lines(json_string_value(item), steps);
}

/* UTF-16 length of the sanitised @s capped at @max, and whether the cap cut it. */
static bool sanitized_cut(const char *s, size_t max)
{
	char *clean = sw__consent_sanitize(s, s ? strlen(s) : 0, max + 1);
	bool cut = clean && sw__utf16_len(clean, strlen(clean)) > max;
	free(clean);
	return cut;
}

json_t *sw__consent_steps(const json_t *cmd)
{
	json_t *steps = json_array();
	if (steps && cmd)
		collect_steps(cmd, steps);
	return steps;
}

/*
 * The prompt. The "Will run" part is never cut to make room: when the whole message would pass 2,000
 * characters the details are shortened first (down to 100). *@hidden (nullable) tells whether a shown
 * step is not shown whole: a step over 500 characters, or a message still too long. (Steps beyond the
 * 4th are counted in the message: "(and N more step(s) not shown)".)
 */
static json_t *prompt_build(const char *action, const char *risk, const char *explain, const json_t *cmd,
                            bool *hidden)
{
	sw_buf head = SW_BUF_INIT, run = SW_BUF_INIT, b = SW_BUF_INIT;
	json_t *steps = json_array();
	json_t *res = NULL;
	bool cut = false;
	if (!steps)
		return NULL;
	sw__buf_puts(&head, "Swipium requests consent (risk: ");
	put_quoted(&head, risk, 20);
	sw__buf_puts(&head, ") for action ");
	put_quoted(&head, action, 60);
	sw__buf_puts(&head, ".\nDetails: ");
	if (cmd)
		collect_steps(cmd, steps);
	size_t n = json_array_size(steps);
	for (size_t i = 0; i < n && i < 4; i++) {
		const char *st = json_string_value(json_array_get(steps, i));
		sw__buf_puts(&run, n == 1 ? "\nWill run: " : "\n  ");
		put_quoted(&run, st, 500);
		cut = cut || sanitized_cut(st, 500);
	}
	if (n > 1) {
		/* the heading line goes before the indented steps */
		sw_buf t = SW_BUF_INIT;
		sw__buf_puts(&t, "\nWill run:");
		sw__buf_append(&t, run.data ? run.data : "", run.len);
		sw__buf_free(&run);
		run = t;
	}
	if (n > 4)
		sw__buf_printf(&run, "\n  (and %zu more step(s) not shown)", n - 4);
	if (head.failed || run.failed)
		goto out;
	/* the details get what is left of the 2,000 characters (at most 600, at least 100) */
	size_t fixed = sw__utf16_len(head.data, head.len) + (run.data ? sw__utf16_len(run.data, run.len) : 0);
	size_t room = fixed + 2 + 600 <= 2000 ? 600 : fixed + 2 + 100 <= 2000 ? 2000 - fixed - 2 : 100;
	sw__buf_append(&b, head.data, head.len);
	put_quoted(&b, explain ? explain : "", room);
	if (run.data)
		sw__buf_append(&b, run.data, run.len);
	if (b.failed)
		goto out;
	if (sw__utf16_len(b.data, b.len) > 2000) {
		size_t keep = sw__utf16_prefix_bytes(b.data, b.len, 1999);
		b.len = keep;
		b.data[keep] = '\0';
		sw__buf_puts(&b, "\xe2\x80\xa6");
		cut = cut || n > 0;
		if (b.failed)
			goto out;
	}
	res = json_pack("{s:s%, s:{s:s, s:{s:{s:s, s:s, s:s}}, s:[s]}}", "message", b.data, b.len, "requestedSchema",
	                "type", "object", "properties", "approve", "type", "boolean", "title", "Approve", "description",
	                "Allow Swipium to perform this action.", "required", "approve");
	if (hidden)
		*hidden = cut;
out:
	sw__buf_free(&head);
	sw__buf_free(&run);
	sw__buf_free(&b);
	json_decref(steps);
	return res;
}

json_t *sw__consent_prompt_build(const char *action, const char *risk, const char *explain, const json_t *cmd)
{
	return prompt_build(action, risk, explain, cmd, NULL);
}

char *sw__consent_unshowable(const char *action, const char *risk, const char *explain, const json_t *cmd,
                             bool every_step)
{
	json_t *steps = sw__consent_steps(cmd);
	if (!steps)
		return NULL;
	char *why = NULL;
	size_t n = json_array_size(steps);
	for (size_t i = 0; i < n && !why; i++) {
		const char *st = json_string_value(json_array_get(steps, i));
		if (sanitized_cut(st, 500)) {
			char *clean = sw__consent_sanitize(st, strlen(st), (size_t)-1 / 2);
			why = sw__asprintf("step %zu of the command is %zu characters long, and a consent prompt shows at "
			                   "most 500 per step",
			                   i + 1, clean ? sw__utf16_len(clean, strlen(clean)) : 0);
			free(clean);
		}
	}
	if (!why && every_step && n > 4)
		why = sw__asprintf("the command has %zu steps, and a consent prompt shows at most 4", n);
	json_decref(steps);
	if (why)
		return why;
	bool hidden = false;
	json_t *p = prompt_build(action, risk, explain, cmd, &hidden);
	json_decref(p);
	if (hidden)
		return sw__strdup("the whole command does not fit in a consent prompt of 2,000 characters");
	return NULL;
}

/* Appends argument @a as the prompt shows it: single-quoted the way a POSIX shell reads it, with every
 * character the prompt sanitiser would hide or fold (controls, line separators, zero-width and bidi marks,
 * spaces other than U+0020, a space after a space) written as <U+XXXX>, so what is shown is what runs. */
static void put_arg(sw_buf *b, const char *a)
{
	const unsigned char *s = (const unsigned char *)a;
	size_t len = strlen(a);
	bool prev_space = false;
	sw__buf_putc(b, '\'');
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t k = sw__utf8_decode(s + i, len - i, &cp);
		if (k == 0) {
			sw__buf_printf(b, "<0x%02X>", s[i]);
			i++;
			prev_space = false;
			continue;
		}
		bool visible_space = cp == ' ' && !prev_space;
		if (is_stripped(cp) || (is_js_space(cp) && !visible_space)) {
			sw__buf_printf(b, "<U+%04X>", (unsigned)cp);
		} else if (cp == '\'') {
			sw__buf_puts(b, "'\\''");
		} else {
			sw__buf_append(b, s + i, k);
		}
		prev_space = cp == ' ';
		i += k;
	}
	sw__buf_putc(b, '\'');
}

char *sw__consent_command_step(const json_t *command)
{
	const json_t *argv = json_object_get(command, "argv");
	const char *label = json_string_value(json_object_get(command, "label"));
	const char *origin = json_string_value(json_object_get(command, "origin"));
	if (!json_is_array(argv) || json_array_size(argv) == 0)
		return NULL;
	sw_buf b = SW_BUF_INIT;
	if (label && *label) {
		sw__buf_puts(&b, label);
		sw__buf_puts(&b, ": ");
	}
	size_t i;
	json_t *a;
	json_array_foreach(argv, i, a)
	{
		if (!json_is_string(a)) {
			sw__buf_free(&b);
			return NULL;
		}
		if (i)
			sw__buf_putc(&b, ' ');
		put_arg(&b, json_string_value(a));
	}
	const char *cwd = json_string_value(json_object_get(command, "cwd"));
	if (cwd && *cwd) {
		/* the folder it runs in is part of what runs: quoted like an argument */
		sw__buf_puts(&b, " (in ");
		put_arg(&b, cwd);
		sw__buf_putc(&b, ')');
	}
	if (origin && *origin) {
		sw__buf_puts(&b, " (from ");
		sw__buf_puts(&b, origin);
		sw__buf_putc(&b, ')');
	}
	return sw__buf_steal(&b, NULL);
}

SW_API int sw_consent_prompt(const char *request_json, char **prompt_json, sw_error **err)
{
	if (!request_json || !prompt_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_consent_prompt: NULL argument");
	json_error_t jerr;
	json_t *req = json_loads(request_json, 0, &jerr);
	if (!json_is_object(req)) {
		json_decref(req);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "The consent request is not a JSON object.");
	}
	const char *action = json_string_value(json_object_get(req, "action"));
	const sw_consent_action *a = sw__consent_action_find(action);
	const char *risk = json_string_value(json_object_get(req, "risk"));
	if (!risk)
		risk = a ? a->risk : "medium";
	json_t *p =
	    sw__consent_prompt_build(action ? action : "", risk, json_string_value(json_object_get(req, "explain")),
	                             json_object_get(req, "exactCommand"));
	char *s = p ? sw__json_compact(p) : NULL;
	json_decref(p);
	json_decref(req);
	if (!s)
		return sw__error_nomem(err);
	*prompt_json = s;
	return SW_OK;
}

/* ---- canonical JSON and ledger rows ------------------------------------ */

char *sw__json_canonical(const json_t *v)
{
	if (!v)
		return sw__strdup("null");
	return json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
}

json_t *sw__consent_ledger_row(const char *tool, const char *action, const char *risk, json_t *target,
                               bool required, const char *consent_id, bool approved, const char *payload_hash,
                               const char *mechanism, const char *status, const char *detail)
{
	char id[9];
	if (!sw__random_hex(id, 4))
		return NULL;
	json_t *consent = json_pack("{s:b}", "required", required);
	if (!consent)
		return NULL;
	if (consent_id)
		json_object_set_new(consent, "consentId", json_string(consent_id));
	json_object_set_new(consent, "approved", json_boolean(approved));
	if (payload_hash)
		json_object_set_new(consent, "payloadHash", json_string(payload_hash));
	json_object_set_new(consent, "approvalMechanism", json_string(mechanism ? mechanism : "none"));
	/* target is the ledger's object form ({serial, network} ...); a missing one is {}. */
	json_t *row = json_pack("{s:s, s:I, s:s, s:s, s:s, s:o, s:o, s:s}", "id", id, "at", (json_int_t)sw_wall_ms(),
	                        "tool", tool ? tool : "", "action", action ? action : "", "risk", risk ? risk : "",
	                        "target", target ? json_incref(target) : json_object(), "consent", consent, "status",
	                        status ? status : "");
	if (row && detail)
		json_object_set_new(row, "detail", json_string(detail));
	return row;
}

SW_API int sw_consent_ledger_row(const char *spec_json, char **row_json, sw_error **err)
{
	static const char *const statuses[] = {"requested", "approved", "executed", "refused", "blocked", "restored"};
	if (!spec_json || !row_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_consent_ledger_row: NULL argument");
	json_error_t jerr;
	json_t *spec = json_loads(spec_json, 0, &jerr);
	int rc = SW_OK;
	if (!json_is_object(spec)) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                   "The ledger row spec is not a JSON object.");
		goto out;
	}
	const char *status = json_string_value(json_object_get(spec, "status"));
	bool ok = false;
	for (size_t i = 0; status && i < SW_ARRAY_SIZE(statuses); i++)
		ok |= strcmp(status, statuses[i]) == 0;
	if (!ok) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
		                   "Use requested, approved, executed, refused, blocked or restored.",
		                   "The ledger row status is missing or unknown.");
		goto out;
	}
	const char *tool = json_string_value(json_object_get(spec, "tool"));
	const char *action = json_string_value(json_object_get(spec, "action"));
	if (!tool || !action) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                   "The ledger row spec needs \"tool\" and \"action\".");
		goto out;
	}
	const sw_consent_action *a = sw__consent_action_find(action);
	const char *risk = json_string_value(json_object_get(spec, "risk"));
	json_t *c = json_object_get(spec, "consent");
	json_t *row = sw__consent_ledger_row(
	    tool, action,
	    risk ? risk
	    : a  ? a->risk
	         : "",
	    json_object_get(spec, "target"),
	    c ? json_is_true(json_object_get(c, "required")) || !json_object_get(c, "required") : a != NULL,
	    json_string_value(json_object_get(c, "consentId")), json_is_true(json_object_get(c, "approved")),
	    json_string_value(json_object_get(c, "payloadHash")),
	    json_string_value(json_object_get(c, "approvalMechanism")), status,
	    json_string_value(json_object_get(spec, "detail")));
	char *s = row ? sw__json_compact(row) : NULL;
	json_decref(row);
	if (!s) {
		rc = sw__error_nomem(err);
		goto out;
	}
	*row_json = s;
out:
	json_decref(spec);
	return rc;
}
