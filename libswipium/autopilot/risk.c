/*
 * risk.c: what a control would do if touched, read from the words a person sees on it.
 *
 * The label (and the resource id, split at '_', '-', '.' and camelCase humps) is folded to plain lower-case
 * ASCII words first: full-width forms, look-alike Cyrillic and Greek letters, invisible characters and
 * punctuation never hide a word. Then phrases are matched as whole word sequences, most specific first: the
 * high-impact classes (every one of them destructive), other destructive verbs, verbs that change something
 * (unknown), and anything left is safe to touch (navigation, tabs, list items, plain nouns).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "autopilot-internal.h"

#define MAX_WORDS 64
#define MAX_FOLD 1024

/* ---- folding ------------------------------------------------------------------------------ */

/* A look-alike of an ASCII letter (Cyrillic, Greek), or 0. */
static char homoglyph(uint32_t cp)
{
	static const struct {
		uint32_t cp;
		char c;
	} map[] = {
	    {0x0430, 'a'}, {0x0410, 'a'}, {0x0435, 'e'}, {0x0415, 'e'}, {0x043E, 'o'}, {0x041E, 'o'}, {0x0440, 'p'},
	    {0x0420, 'p'}, {0x0441, 'c'}, {0x0421, 'c'}, {0x0445, 'x'}, {0x0425, 'x'}, {0x0443, 'y'}, {0x0423, 'y'},
	    {0x0456, 'i'}, {0x0406, 'i'}, {0x0458, 'j'}, {0x0455, 's'}, {0x0405, 's'}, {0x043A, 'k'}, {0x041A, 'k'},
	    {0x043C, 'm'}, {0x041C, 'm'}, {0x0442, 't'}, {0x0422, 't'}, {0x043D, 'h'}, {0x041D, 'h'}, {0x0412, 'b'},
	    {0x03BF, 'o'}, {0x039F, 'o'}, {0x03B1, 'a'}, {0x0391, 'a'}, {0x03B5, 'e'}, {0x0395, 'e'}, {0x03C1, 'p'},
	    {0x03A1, 'p'}, {0x03C4, 't'}, {0x03A4, 't'}, {0x03BD, 'v'}, {0x03B9, 'i'}, {0x0399, 'i'}, {0x039A, 'k'},
	    {0x03BA, 'k'}, {0x039C, 'm'}, {0x039D, 'n'}, {0x0396, 'z'}, {0x0392, 'b'}, {0x03A7, 'x'}, {0x03C7, 'x'},
	    {0x0131, 'i'}, {0x0261, 'g'},
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i].cp == cp)
			return map[i].c;
	/* Latin letters with diacritics (U+00C0..U+00FF): their base letter */
	static const char latin1[] = "aaaaaaaceeeeiiiidnooooo ouuuuyts"
	                             "aaaaaaaceeeeiiiidnooooo ouuuuyty";
	if (cp >= 0xC0 && cp <= 0xFF && latin1[cp - 0xC0] != ' ')
		return latin1[cp - 0xC0];
	return 0;
}

/* Characters that draw nothing: they are dropped, so "Dele\u200bte" is "delete". */
static bool invisible(uint32_t cp)
{
	return cp == 0x00AD || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E) ||
	       (cp >= 0x2060 && cp <= 0x2064) || cp == 0xFEFF || cp == 0x034F || (cp >= 0xFE00 && cp <= 0xFE0F);
}

/*
 * Folds @s into lower-case ASCII words separated by single spaces in @out. With @split_ids, camelCase humps
 * start new words too (resource ids: "btnDeleteAccount"). Returns the length.
 */
static size_t fold(const char *s, bool split_ids, char *out, size_t cap)
{
	size_t n = 0;
	bool space = true, prev_lower = false;
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t len = strlen((const char *)p);
	for (size_t i = 0; i < len && n + 2 < cap;) {
		uint32_t cp = 0;
		size_t k = sw__utf8_decode(p + i, len - i, &cp);
		if (k == 0) {
			i++;
			continue;
		}
		i += k;
		if (invisible(cp))
			continue;
		if (cp >= 0xFF01 && cp <= 0xFF5E) /* full-width ASCII */
			cp -= 0xFEE0;
		char c = 0;
		if (cp == 0x20AC || cp == 0xA3 || cp == 0xA5 || cp == 0x20B9 || cp == 0x20BD || cp == 0x20A9)
			c = '$'; /* any currency sign reads as a price */
		else if (cp < 0x80)
			c = (char)cp;
		else if (!(c = homoglyph(cp)))
			c = ' ';
		bool upper = c >= 'A' && c <= 'Z';
		if (upper)
			c = (char)(c - 'A' + 'a');
		bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
		if (c == '$')
			alnum = true; /* a price is a word: "$4.99" */
		if (!alnum) {
			if (!space && n < cap - 1)
				out[n++] = ' ';
			space = true;
			prev_lower = false;
			continue;
		}
		if (split_ids && upper && prev_lower && !space)
			out[n++] = ' ';
		out[n++] = c;
		space = false;
		prev_lower = !upper && c >= 'a' && c <= 'z';
	}
	while (n > 0 && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
	return n;
}

/* Splits folded text into words (in place). */
static size_t words(char *text, const char **w, size_t max)
{
	size_t n = 0;
	for (char *p = strtok(text, " "); p && n < max; p = strtok(NULL, " "))
		w[n++] = p;
	return n;
}

/* ---- phrases ----------------------------------------------------------------------------- */

struct rule {
	const char *phrase; /* words separated by spaces; a trailing '*' matches a word prefix ("subscri*") */
	const char *level;  /* "destructive" or "unknown" */
	const char *klass;  /* high-impact class or NULL */
};

/* Most specific first: the first rule that matches decides. */
static const struct rule rules[] = {
    /* account_delete */
    {"delete account", "destructive", "account_delete"},
    {"delete my account", "destructive", "account_delete"},
    {"delete your account", "destructive", "account_delete"},
    {"delete profile", "destructive", "account_delete"},
    {"close account", "destructive", "account_delete"},
    {"close my account", "destructive", "account_delete"},
    {"deactivate*", "destructive", "account_delete"},
    {"remove account", "destructive", "account_delete"},
    {"remove your account", "destructive", "account_delete"},
    {"remove my account", "destructive", "account_delete"},
    {"erase account", "destructive", "account_delete"},
    {"terminate account", "destructive", "account_delete"},
    {"deleteaccount", "destructive", "account_delete"},
    /* bulk_delete */
    {"delete all", "destructive", "bulk_delete"},
    {"clear all", "destructive", "bulk_delete"},
    {"remove all", "destructive", "bulk_delete"},
    {"erase all", "destructive", "bulk_delete"},
    {"empty trash", "destructive", "bulk_delete"},
    {"empty bin", "destructive", "bulk_delete"},
    {"clear history", "destructive", "bulk_delete"},
    {"clear data", "destructive", "bulk_delete"},
    {"delete everything", "destructive", "bulk_delete"},
    {"factory reset", "destructive", "bulk_delete"},
    {"wipe*", "destructive", "bulk_delete"},
    /* logout */
    {"log out", "destructive", "logout"},
    {"logout", "destructive", "logout"},
    {"log off", "destructive", "logout"},
    {"logoff", "destructive", "logout"},
    {"sign out", "destructive", "logout"},
    {"signout", "destructive", "logout"},
    {"sign off", "destructive", "logout"},
    {"switch account", "destructive", "logout"},
    /* payment */
    {"cancel subscription", "destructive", "payment"},
    {"buy*", "destructive", "payment"},
    {"purchas*", "destructive", "payment"},
    {"pay", "destructive", "payment"},
    {"pay now", "destructive", "payment"},
    {"payment*", "destructive", "payment"},
    {"subscrib*", "destructive", "payment"},
    {"upgrad*", "destructive", "payment"},
    {"renew*", "destructive", "payment"},
    {"free trial", "destructive", "payment"},
    {"start trial", "destructive", "payment"},
    {"start my trial", "destructive", "payment"},
    {"try free", "destructive", "payment"},
    {"trial", "destructive", "payment"},
    {"checkout", "destructive", "payment"},
    {"check out", "destructive", "payment"},
    {"place order", "destructive", "payment"},
    {"order now", "destructive", "payment"},
    {"confirm order", "destructive", "payment"},
    {"go pro", "destructive", "payment"},
    {"go premium", "destructive", "payment"},
    {"get premium", "destructive", "payment"},
    {"get pro", "destructive", "payment"},
    {"unlock*", "destructive", "payment"},
    {"donate", "destructive", "payment"},
    {"top up", "destructive", "payment"},
    {"add card", "destructive", "payment"},
    {"add payment*", "destructive", "payment"},
    {"$*", "destructive", "payment"},
    {"usd", "destructive", "payment"},
    {"eur", "destructive", "payment"},
    {"per month", "destructive", "payment"},
    {"billing", "destructive", "payment"},
    /* permission_change */
    {"while using the app", "destructive", "permission_change"},
    {"only this time", "destructive", "permission_change"},
    {"don t allow", "destructive", "permission_change"},
    {"dont allow", "destructive", "permission_change"},
    {"do not allow", "destructive", "permission_change"},
    {"allow*", "destructive", "permission_change"},
    {"deny", "destructive", "permission_change"},
    {"grant*", "destructive", "permission_change"},
    {"revoke*", "destructive", "permission_change"},
    {"permission allow*", "destructive", "permission_change"},
    {"permission deny*", "destructive", "permission_change"},
    /* data_export */
    {"export*", "destructive", "data_export"},
    {"download my data", "destructive", "data_export"},
    {"download your data", "destructive", "data_export"},
    {"download data", "destructive", "data_export"},
    {"request my data", "destructive", "data_export"},
    {"takeout", "destructive", "data_export"},
    /* external_invite */
    {"invit*", "destructive", "external_invite"},
    {"share*", "destructive", "external_invite"},
    {"refer*", "destructive", "external_invite"},
    {"tell a friend", "destructive", "external_invite"},
    {"tell friends", "destructive", "external_invite"},
    /* message_send */
    {"send*", "destructive", "message_send"},
    {"post", "destructive", "message_send"},
    {"publish*", "destructive", "message_send"},
    {"reply*", "destructive", "message_send"},
    {"tweet*", "destructive", "message_send"},
    {"comment", "destructive", "message_send"},
    {"email us", "destructive", "message_send"},
    {"call", "destructive", "message_send"},
    /* other destructive verbs */
    {"delet*", "destructive", NULL},
    {"remov*", "destructive", NULL},
    {"eras*", "destructive", NULL},
    {"discard*", "destructive", NULL},
    {"destroy*", "destructive", NULL},
    {"trash", "destructive", NULL},
    {"uninstall*", "destructive", NULL},
    {"reset*", "destructive", NULL},
    {"unsubscrib*", "destructive", NULL},
    {"unfollow*", "destructive", NULL},
    {"unpair*", "destructive", NULL},
    {"block", "destructive", NULL},
    {"block user", "destructive", NULL},
    {"report", "destructive", NULL},
    {"report abuse", "destructive", NULL},
    {"archive", "destructive", NULL},
    {"revert*", "destructive", NULL},
    {"clear", "destructive", NULL},
    {"disconnect*", "destructive", NULL},
    /* verbs that change something, or an account: unknown */
    {"sign in", "unknown", NULL},
    {"log in", "unknown", NULL},
    {"login", "unknown", NULL},
    {"signin", "unknown", NULL},
    {"sign up", "unknown", NULL},
    {"signup", "unknown", NULL},
    {"register*", "unknown", NULL},
    {"create*", "unknown", NULL},
    {"save*", "unknown", NULL},
    {"submit*", "unknown", NULL},
    {"confirm*", "unknown", NULL},
    {"apply", "unknown", NULL},
    {"accept*", "unknown", NULL},
    {"agree*", "unknown", NULL},
    {"verify*", "unknown", NULL},
    {"add", "unknown", NULL},
    {"edit*", "unknown", NULL},
    {"update*", "unknown", NULL},
    {"change*", "unknown", NULL},
    {"set", "unknown", NULL},
    {"enable*", "unknown", NULL},
    {"disable*", "unknown", NULL},
    {"turn on", "unknown", NULL},
    {"turn off", "unknown", NULL},
    {"follow*", "unknown", NULL},
    {"like", "unknown", NULL},
    {"favorite*", "unknown", NULL},
    {"favourite*", "unknown", NULL},
    {"rate*", "unknown", NULL},
    {"book", "unknown", NULL},
    {"book now", "unknown", NULL},
    {"reserve*", "unknown", NULL},
    {"join*", "unknown", NULL},
    {"upload*", "unknown", NULL},
    {"install*", "unknown", NULL},
    {"connect*", "unknown", NULL},
    {"link account", "unknown", NULL},
    {"transfer*", "unknown", NULL},
    {"restore*", "unknown", NULL},
};

/* Does the phrase match the words at @w[i..]? */
static bool match_at(const char *const *w, size_t n, size_t i, const char *phrase)
{
	const char *p = phrase;
	while (*p) {
		if (i >= n)
			return false;
		const char *e = strchr(p, ' ');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		bool prefix = len > 0 && p[len - 1] == '*';
		size_t cmp = prefix ? len - 1 : len;
		if (prefix ? strncmp(w[i], p, cmp) != 0 : (strlen(w[i]) != cmp || strncmp(w[i], p, cmp) != 0))
			return false;
		i++;
		p += len;
		while (*p == ' ')
			p++;
	}
	return true;
}

static const struct rule *match(const char *const *w, size_t n)
{
	for (size_t r = 0; r < sizeof(rules) / sizeof(rules[0]); r++)
		for (size_t i = 0; i < n; i++)
			if (match_at(w, n, i, rules[r].phrase))
				return &rules[r];
	return NULL;
}

/* The rule for @text, or NULL (no words: *empty true). */
static const struct rule *classify_text(const char *text, bool ids, bool *empty)
{
	char buf[MAX_FOLD];
	const char *w[MAX_WORDS];
	fold(text, ids, buf, sizeof(buf));
	size_t n = words(buf, w, MAX_WORDS);
	*empty = n == 0;
	if (n == 0)
		return NULL;
	const struct rule *r = match(w, n);
	if (!r && n >= 2) {
		/* "Log out" written "Lo gout", "Dele te": the words glued back together */
		char glued[MAX_FOLD];
		size_t g = 0;
		for (size_t i = 0; i < n && g + strlen(w[i]) + 1 < sizeof(glued); i++) {
			memcpy(glued + g, w[i], strlen(w[i]));
			g += strlen(w[i]);
		}
		glued[g] = '\0';
		const char *one[1] = {glued};
		const struct rule *rg = match(one, 1);
		if (rg && !strcmp(rg->level, "destructive"))
			r = rg;
	}
	return r;
}

static int severity(const char *level)
{
	return !strcmp(level, "destructive") ? 2 : !strcmp(level, "unknown") ? 1 : 0;
}

SW_API const char *sw_risk_classify(const char *label, const char *resource_id, const char *role,
                                    const char **high_impact)
{
	if (high_impact)
		*high_impact = NULL;
	bool empty_label = true, empty_id = true;
	const struct rule *rl = classify_text(label, false, &empty_label);
	/* the id's short form only: "com.example:id/btn_delete" is about "btn delete", not the package */
	const char *id = resource_id;
	if (id && strrchr(id, '/'))
		id = strrchr(id, '/') + 1;
	const struct rule *ri = id && *id ? classify_text(id, true, &empty_id) : NULL;
	const struct rule *pick = rl;
	if (ri && (!pick || severity(ri->level) > severity(pick->level) ||
	           (severity(ri->level) == severity(pick->level) && ri->klass && !pick->klass)))
		pick = ri;
	if (pick) {
		if (high_impact)
			*high_impact = pick->klass;
		return pick->level;
	}
	if (empty_label && empty_id)
		return "unknown"; /* nothing says what it does */
	/* a text field or a switch changes state: unknown; everything else is a place to go */
	if (role && (!strcmp(role, "textbox") || !strcmp(role, "text-field") || !strcmp(role, "switch") || !strcmp(role, "checkbox") ||
	             !strcmp(role, "field") || !strcmp(role, "slider")))
		return "unknown";
	return "safe";
}
