/* artifacts-internal.h: the pieces of the artifacts concern (binary XML, resource table, zip, plist, walk). */
#ifndef SW_ARTIFACTS_INTERNAL_H
#define SW_ARTIFACTS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sw-internal.h"

/* Limits of the metadata reader (issue 13): the manifest or plist, the zip directory, bombs. */
#define SW__ART_MAX_MANIFEST ((size_t)8 << 20) /* 8 MiB inflated */
#define SW__ART_MAX_ARSC ((size_t)64 << 20)    /* resources.arsc: only read when a value is a reference */
#define SW__ART_MAX_ENTRIES 100000
#define SW__ART_MAX_RATIO 200 /* inflated / compressed, above 1 MiB inflated: a bomb */

/* Res_value data types this reader needs (ResourceTypes.h). */
enum {
	SW__RV_NULL = 0x00,
	SW__RV_REFERENCE = 0x01,
	SW__RV_STRING = 0x03,
	SW__RV_FIRST_INT = 0x10,
	SW__RV_LAST_INT = 0x1f,
};

/* One attribute value of the manifest, as the binary XML holds it. */
typedef struct sw__axml_value {
	bool present;
	uint8_t type;  /* Res_value dataType */
	uint32_t data; /* Res_value data */
	char *str;     /* the string (typed TYPE_STRING or the raw value); NULL when none */
} sw__axml_value;

/* What `aapt dump badging` reads from AndroidManifest.xml. */
typedef struct sw__axml_manifest {
	sw__axml_value package;      /* <manifest package> */
	sw__axml_value version_code; /* android:versionCode (0x0101021b) */
	sw__axml_value version_name; /* android:versionName (0x0101021c) */
	sw__axml_value min_sdk;      /* <uses-sdk android:minSdkVersion> (0x0101020c) */
	bool has_uses_sdk;
} sw__axml_manifest;

/*
 * Parses a binary AndroidManifest.xml of @len bytes. Fills @out (clear it with
 * sw__axml_manifest_clear, also after a failure). Returns 0, or -1 with a reason in @why.
 */
int sw__axml_parse_manifest(const uint8_t *xml, size_t len, sw__axml_manifest *out, char *why, size_t whylen);
void sw__axml_manifest_clear(sw__axml_manifest *m);
/* True when one of the values is a resource reference (resources.arsc is needed). */
bool sw__axml_manifest_has_refs(const sw__axml_manifest *m);

/*
 * Resolves @v (a TYPE_REFERENCE) through the resource table @arsc: follows references (at most 8),
 * takes the default configuration's entry when there is one, else the first. On success @v holds the
 * final type/data (and str for strings) and 0 is returned; -1 with @why when it cannot be resolved.
 */
int sw__arsc_resolve(const uint8_t *arsc, size_t len, sw__axml_value *v, char *why, size_t whylen);

/*
 * Reads an Info.plist (XML or binary `bplist00`, through libplist) of @len bytes (at most 8 MiB) into
 * @out (transfer full): {bundleId, platforms[] (CFBundleSupportedPlatforms), dtPlatformName, urlSchemes[]
 * (every CFBundleURLTypes[].CFBundleURLSchemes[] string)}; absent values are null or empty. Returns 0, or
 * -1 with a reason in @why when it is not a property list holding a dictionary.
 */
int sw__info_plist_read(const char *data, size_t len, json_t **out, char *why, size_t whylen);

/* sw_artifact_inspect() as a JSON object (transfer full). */
int sw__artifact_inspect_json(const char *path, json_t **out, sw_error **err);
/* sw_artifact_resolve() with parsed options (nullable) and the home folder for DerivedData (nullable). */
int sw__artifact_resolve_json(const char *root, json_t *opts, const char *home, json_t **out, sw_error **err);

#endif
