/* appscan-internal.h: the static scanner's tokenizers and the state shared by its framework rules. */
#ifndef SW_APPSCAN_INTERNAL_H
#define SW_APPSCAN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sw-internal.h"

/* ---- tokenizers (tok.c) -------------------------------------------------- */

typedef enum sw__lang {
	SW__LANG_JS,     /* .js .mjs .cjs .jsx .tsx: JSX allowed */
	SW__LANG_TS,     /* .ts .mts .cts: no JSX (a `<` is a type argument or a comparison) */
	SW__LANG_KOTLIN, /* .kt .kts: "$x ${e}" templates, """raw""", 'c', nested comments */
	SW__LANG_GROOVY, /* .gradle: Kotlin's rules plus '...' and '''...''' strings */
	SW__LANG_JAVA,   /* .java: "..", """text blocks""", 'c' */
	SW__LANG_SWIFT,  /* .swift: "\(e)" interpolation, """multi""", #"raw"#, nested comments */
	SW__LANG_DART,   /* .dart: '..' ".." '''..''' r'..', "$x ${e}", nested comments */
} sw__lang;

typedef enum sw__tok_kind {
	SW__T_IDENT = 1,
	SW__T_STR,  /* a string literal with no interpolation; its value is decoded */
	SW__T_TMPL, /* a string literal with interpolation: the value is computed at run time */
	SW__T_NUM,
	SW__T_PUNCT, /* one operator or bracket (multi-character operators are one token) */
} sw__tokkind;

typedef struct sw__tok {
	uint8_t kind;
	uint32_t line; /* 1-based */
	uint32_t off;  /* byte offset in the source */
	uint32_t len;  /* bytes in the source */
	uint32_t sv;   /* SW__T_STR: offset of the decoded NUL-terminated value in sw__toks.strs */
	int32_t match; /* index of the matching bracket for ( [ { and ) ] }; -1 when unmatched or not a bracket */
} sw__tok;

typedef struct sw__toks {
	const char *src;
	size_t src_len;
	sw__tok *v;
	size_t n, cap;
	sw_buf strs;    /* decoded string values */
	bool failed;    /* out of memory: the list is cut short */
	unsigned depth; /* nesting of JSX and interpolations, capped */
} sw__toks;

/* Tokenizes @src (any bytes; NULs and broken UTF-8 are tolerated). Never fails except for memory (->failed). */
void sw__tokenize(sw__lang lang, const char *src, size_t len, sw__toks *out);
void sw__toks_free(sw__toks *t);

/* Token helpers: all take an index and answer false for an index out of range. */
bool sw__tok_is(const sw__toks *t, size_t i, const char *text);    /* punct or ident with exactly this text */
bool sw__tok_ident(const sw__toks *t, size_t i, const char *name); /* an identifier named @name */
bool sw__tok_kind(const sw__toks *t, size_t i, sw__tokkind kind);
const char *sw__tok_str(const sw__toks *t, size_t i); /* SW__T_STR value or NULL */
char *sw__tok_text(const sw__toks *t, size_t i);      /* a copy of the token's source text */
/* A dotted reference A.B.C starting at @i (identifiers joined by '.'); *end gets the next index. NULL if none. */
char *sw__tok_dotted(const sw__toks *t, size_t i, size_t *end);

/* ---- the scan (appscan.c) ------------------------------------------------ */

typedef struct sw__scan {
	char *root; /* real path of the project root */
	size_t root_len;
	json_t *files;   /* rel path -> true, every regular file seen (for "exists" checks) */
	json_t *screens; /* screen objects; fields starting with '_' are resolved at the end and removed */
	json_t *layouts;
	json_t *graphs;
	json_t *edges;
	json_t *deeplinks;
	json_t *notes;      /* code -> {message, count, paths[]} */
	json_t *consts;     /* name -> string value, or null when two definitions disagree */
	json_t *symfile;    /* symbol -> rel path of its first definition (classes, functions, widgets...) */
	json_t *supers;     /* class -> [superclass names] (Kotlin, Swift, Dart, Java) */
	json_t *pwfiles;    /* rel path -> marker: files holding a password field */
	json_t *authlibs;   /* array of {name, source} */
	json_t *index;      /* codeIndex files (NULL when not wanted) */
	json_t *expo_apps;  /* array of {dir, appDir} for packages depending on expo-router */
	json_t *gradle;     /* settings dir -> [module dirs] */
	json_t *namespaces; /* module dir -> namespace from build.gradle */
	json_t *manifests;  /* rel paths of AndroidManifest.xml files */
	json_t *navxml;     /* rel paths of res/navigation/ XML files */
	json_t *storyboards;
	json_t *swift_uses;   /* struct names presented/pushed/used as destinations -> reason */
	json_t *swift_views;  /* top-level `struct X: View` -> rel path */
	json_t *swift_vcs;    /* class X: <UIKit controller or project class> -> rel path */
	json_t *jsinfo;       /* rel path -> {default: component, reexport: resolved file} (Expo route files) */
	json_t *kotlin_objs;  /* [{obj, super, value, file}]: `object Home : Screen("home")` */
	json_t *layoutrefs;   /* Kotlin/Java rel path -> {layout name: true} (R.layout.x) */
	json_t *class_params; /* class -> name of its first constructor parameter */
	const char *mem_rel, *mem_text; /* sw__appscan_buffer: the one file, in memory */
	size_t mem_len;
	bool rn_nav_dep; /* some package.json depends on a @react-navigation package */
	size_t files_seen, files_read, files_skipped, folders_skipped;
	uint64_t bytes_read;
} sw__scan;

void sw__scan_note(sw__scan *s, const char *code, const char *path, const char *fmt, ...) SW_PRINTF(4, 5);
/* A new screen object appended to s->screens (borrowed reference). */
json_t *sw__scan_screen(sw__scan *s, const char *router, const char *kind, const char *file, double confidence,
                        const char *reason);
/* Adds @file to the screen's sourceFiles once. */
void sw__scan_add_source(json_t *screen, const char *file);
void sw__scan_reason(json_t *screen, const char *fmt, ...) SW_PRINTF(2, 3);
void sw__scan_const(sw__scan *s, const char *name, const char *value, const char *file);
void sw__scan_symbol(sw__scan *s, const char *name, const char *file);
void sw__scan_super(sw__scan *s, const char *cls, const char *super);
void sw__scan_index_symbol(sw__scan *s, json_t *entry, const char *name);
/* A project file named by rel path exists (was seen by the walk). */
bool sw__scan_has_file(const sw__scan *s, const char *rel);
void sw__scan_password(sw__scan *s, const char *file, const char *marker);
void sw__scan_authlib(sw__scan *s, const char *name, const char *file);
/* Non-zero for a path of test, type-test, e2e or storybook code (its navigators are not the app's). */
bool sw__scan_is_test_path(const char *rel);

/* Framework rules, one call per file (tokens already made) or per XML document. */
void sw__scan_js(sw__scan *s, const char *rel, const sw__toks *t, json_t *idx);
void sw__scan_package_json(sw__scan *s, const char *rel, const char *text, size_t len);
void sw__scan_kotlin(sw__scan *s, const char *rel, const sw__toks *t, json_t *idx, bool java);
void sw__scan_gradle(sw__scan *s, const char *rel, const sw__toks *t);
void sw__scan_swift(sw__scan *s, const char *rel, const sw__toks *t, json_t *idx);
void sw__scan_dart(sw__scan *s, const char *rel, const sw__toks *t, json_t *idx);
void sw__scan_pubspec(sw__scan *s, const char *rel, const char *text, size_t len);
void sw__scan_layout_xml(sw__scan *s, const char *rel, const char *text, size_t len);
/* After the walk: rules that need the whole tree (Expo routes, manifests of Gradle modules, storyboards...). */
void sw__scan_expo_routes(sw__scan *s);
void sw__scan_android_finish(sw__scan *s, int (*read)(sw__scan *, const char *, char **, size_t *));
void sw__scan_apple_finish(sw__scan *s, int (*read)(sw__scan *, const char *, char **, size_t *));

/* Scans one file given in memory as if it were the only file of a project (@rel its project path, which picks the
 * rules: "App.tsx", "app/src/main/AndroidManifest.xml"...): the fuzz targets' entry. @out_json as sw_appscan_static. */
int sw__appscan_buffer(const char *rel, const char *text, size_t len, char **out_json);

/* Words of an identifier or route ("LoginScreen" -> login screen; "sign-in" -> sign in). */
bool sw__scan_auth_words(const char *name, char *why, size_t why_len);

#endif
