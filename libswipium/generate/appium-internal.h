/* appium-internal.h: the Appium emitter's resolved suite (screens, elements, steps) shared by its writers. */
#ifndef SW_APPIUM_INTERNAL_H
#define SW_APPIUM_INTERNAL_H

#include "codegen-internal.h"
#include "gen-internal.h"

/* One locator a screen object holds. Strings are borrowed from the model unless noted. */
typedef struct ap_elem {
	char *member;         /* (owned) identifier inside the screen class */
	const char *strategy; /* id | accessibility_id | text | coordinates */
	const char *value;    /* NULL for coordinates */
	long x, y;            /* coordinates only */
	const char *label;    /* on-screen label (untrusted), may be NULL */
	const char *quality;  /* durable | semi | brittle */
} ap_elem;

typedef struct ap_screen {
	const char *raw; /* the recorded screen name (untrusted); "app" when the step had none */
	char *cls;       /* (owned) class name */
	char *module;    /* (owned) file / module base name */
	ap_elem *elems;
	size_t n, cap;
	sw_cg_scope *members;
	json_t *index;   /* locator key -> element index (linear time on long recordings) */
	bool referenced; /* a step uses one of its locators (the test imports it) */
} ap_screen;

/* One piece of a typed value: literal text or an environment variable. */
typedef struct ap_piece {
	char *text;  /* (owned) literal text, or the variable name */
	bool is_var; /* a `${VAR}` placeholder: read from the environment, no default */
} ap_piece;

typedef struct ap_step {
	const json_t *json; /* the model step (borrowed) */
	const char *kind;
	size_t screen; /* index into screens */
	long elem;     /* element of the step's target, -1 when none */
	long until;    /* scroll: element to scroll to, -1 when none */
	const char *direction;
	long max_scrolls;
	const char *key; /* normalised key name */
	long wait_ms;    /* wait without a locator */
	const char *expected;
	const char *url;  /* openUrl: the deep link (untrusted) */
	bool submit;      /* type: press enter after typing */
	ap_piece *pieces; /* type: the value */
	size_t npieces;
	char *data_var; /* (owned) type with literal text: the variable that overrides it */
} ap_step;

typedef struct ap_suite {
	bool python;
	bool typescript; /* else JavaScript when !python */
	bool pytest;     /* python: pytest, else unittest */
	bool include_ci;
	const char *app_id;
	const char *primary;         /* android | ios */
	const char *recorded;        /* the platform the run was recorded on (the app id's platform) */
	const char *platform_source; /* argument | session_device | project_profile | default */
	bool both;                   /* platform "both": the suite names both platforms in its CI example */
	char *title;                 /* (owned) the suite's name (untrusted) */
	char *package_name;          /* (owned) npm-safe name */
	ap_screen *screens;
	size_t nscreens;
	ap_step *steps;
	size_t nsteps;
	size_t manual;        /* visual checkpoints (manual) */
	json_t *notes;        /* strings */
	json_t *screen_index; /* raw screen name -> index */
} ap_suite;

/* The root folder of the suite, relative to the project root. */
#define AP_JS_ROOT ".swipium/automation/js"
#define AP_PY_ROOT ".swipium/automation/python"

/* Android key codes of the keys qa_act can press (back, home, enter) and a few more; -1 when unknown. */
int sw__ap_android_keycode(const char *key);

/* Appends {"path": root/rel, "content": takes @content} to @files. */
int sw__ap_add_file(json_t *files, const char *root, const char *rel, char *content, sw_error **err);

/* A static file of appium-templates/ by its name (appium-templates.c, generated at build time), or NULL. */
const char *sw__ap_template(const char *name);

/* Literals and comments in the suite's language; a comment holds at most AP_COMMENT_MAX UTF-16 units of @text. */
#define AP_COMMENT_MAX 160
void sw__ap_lit(const ap_suite *s, sw_buf *b, const char *text);
void sw__ap_comment(const ap_suite *s, sw_buf *b, const char *text);
/* The smoke test's body: one statement (or a manual-check comment) per step, each line starting with @indent. */
void sw__ap_emit_steps(const ap_suite *s, sw_buf *b, const char *indent);

/* The writers: every file of the suite appended to @files. */
int sw__ap_emit_js(const ap_suite *s, json_t *files, sw_error **err);
int sw__ap_emit_py(const ap_suite *s, json_t *files, sw_error **err);
/* The CI example (ci.example.yml) for the suite's language. */
char *sw__ap_ci_example(const ap_suite *s);

/* Project hints: which language and runner a project already uses. (transfer none strings) */
typedef struct ap_project {
	bool typescript, javascript, python, pytest;
	const char *only_platform; /* the project's one platform (android | ios), or NULL */
} ap_project;
void sw__ap_project_detect(const char *root, ap_project *out);

#endif
