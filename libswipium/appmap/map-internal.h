/* map-internal.h: what the app-map files share: the locked store, the shape checks and small JSON helpers. */
#ifndef SW_APPMAP_MAP_INTERNAL_H
#define SW_APPMAP_MAP_INTERNAL_H

#include <stdbool.h>

#include <jansson.h>

#include "sw-internal.h"

#define SW__MAP_PATH ".swipium/app-map.json"
#define SW__MAP_HISTORY ".swipium/app-map.history"
#define SW__MAP_HISTORY_KEEP 30
#define SW__MAP_MAX_BYTES (64u * 1024u * 1024u)
#define SW__MAP_SCHEMA_VERSION 1

/* One open map: the loaded content and, for writers, the lock held until sw__map_close(). */
typedef struct {
	char *root;  /* real project root */
	char *id;    /* project id (16 hex) */
	char *uri;   /* swipium://project/<id>/app-map */
	int lock_fd; /* >= 0 while the write lock is held */
	json_t *map; /* the map, or NULL when there is none (borrowed by callers, owned here) */
	char *raw;   /* bytes of the good map on disk (kept in history before a replacement) */
	size_t raw_len;
	bool existed;   /* a map file (good or corrupt) was there before this call */
	json_t *notes;  /* array of strings for the answer */
	bool no_repair; /* SW__MAP_NO_REPAIR */
} sw__map;

/*
 * Opens the map of @root. SW__MAP_WRITE: take the lock first (creating .swipium), so a later sw__map_commit()
 * is a read-modify-write. Recovers a corrupt map (renamed aside, newest good history restored) when the
 * lock can be had; a reader that cannot write uses the history copy in memory. h->map is NULL when the
 * project has no map. Registers the project in projects.json (failures there are only notes).
 */
#define SW__MAP_WRITE 1u     /* take the write lock (creating .swipium) */
#define SW__MAP_NO_REPAIR 2u /* never touch the project, not even to set a corrupt map aside */
int sw__map_open(sw_ctx *ctx, const char *root, unsigned flags, sw__map *h, sw_error **err);
/* Writes @map (borrowed) as the new map: history copy of the old one, temp + rename, .gitignore once. */
int sw__map_commit(sw__map *h, json_t *map, sw_error **err);
void sw__map_close(sw__map *h);
/* Adds a note to h->notes. */
void sw__map_note(sw__map *h, const char *fmt, ...) SW_PRINTF(2, 3);
/* Non-zero when @v has the map's shape (object; known sections of the right JSON type). @why names the fault. */
bool sw__map_valid(const json_t *v, const char **why);
/* A new empty map for @root (project facts from the detector). (transfer full) */
json_t *sw__map_new(const char *root);
/* The answer object every call starts from: projectId, uri, projectRoot. (transfer full) */
json_t *sw__map_answer(const sw__map *h);
/* Attaches h->notes to @answer when there are any. */
void sw__map_answer_notes(const sw__map *h, json_t *answer);

/* Summary section of @map (never NULL unless out of memory). (transfer full) */
json_t *sw__map_summary(const json_t *map, const char *uri);

/* JSON helpers tolerant of any shape. */
json_t *sw__mj_arr(json_t *obj, const char *key);           /* array member, or NULL */
json_t *sw__mj_obj(json_t *obj, const char *key);           /* object member, or NULL */
const char *sw__mj_str(const json_t *obj, const char *key); /* string member, or NULL */
/* obj[key] as an array, created (replacing a wrong type) when missing. (transfer none) */
json_t *sw__mj_arr_ensure(json_t *obj, const char *key);
json_t *sw__mj_obj_ensure(json_t *obj, const char *key);
/* The entry of @arr whose @key equals @value, and its index in *idx (nullable). (transfer none) */
json_t *sw__mj_find(json_t *arr, const char *key, const char *value, size_t *idx);

/* ---- shared by the calls (map-ops.c) ---- */
typedef struct {
	const char *key;
	double weight;
} sw__field_spec;
/* Lower-cased words of @s (camelCase and punctuation split) appended to @out. */
void sw__map_words(const char *s, json_t *out);
bool sw__map_stopword(const char *w);
/* Mean match of the query words over @e's @fields (NULL-key terminated); @files adds sourceFiles, path, symbols. */
double sw__map_score(json_t *qwords, json_t *e, const sw__field_spec *fields, bool files);
json_t *sw__map_compact_screen(json_t *e, const char *uri);
json_t *sw__map_entry_uri(const char *map_uri, const char *kind, const char *id);
json_t *sw__map_provenance_of(json_t *e, const char *source);
/* The next call for a result of @type, among @tools (the caller's listed tools; NULL: only qa_app_map_read). */
json_t *sw__map_next_tool(json_t *tools, const char *type, const char *id, const char *query);
void sw__map_push_provenance(json_t *map, json_t *entry);
/* Lower-case dash-joined words of @s. (transfer full) */
char *sw__map_slug(const char *s);

/* Exploration graph: the one with the greatest finishedAt under <session_dir>/explore/ (ties: newest mtime).
 * SW_ENOTFOUND when there is none. @path_out (nullable, transfer full). */
int sw__map_latest_graph(const char *session_dir, json_t **graph_out, char **path_out, sw_error **err);

#endif
