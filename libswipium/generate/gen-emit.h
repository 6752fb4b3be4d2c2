/* gen-emit.h: the documents generate/ builds from the model (json_t, written as YAML by sw__gen_yaml). */
#ifndef SW_GEN_EMIT_H
#define SW_GEN_EMIT_H

#include "sw-internal.h"

/* The Flow V2 selector of a model locator, NULL for a point (transfer full). Text holding `${` or a redacted
 * value is matched by its longest clean part; a text that reads as a prefix form loses the prefix. */
char *sw__gen_flow_selector(const json_t *loc, const char *platform);
/* Free text bound for a flow (a visual checkpoint's description, a name): every "${" becomes "$ {", so it never
 * reads as a variable reference. (transfer full) */
char *sw__gen_defuse(const char *text);
/* The Flow V2 document of @model: prepareTarget, then the steps. *unemitted: steps with no flow form. */
json_t *sw__gen_flow_doc(const json_t *model, const char *name, const char *budget_profile, size_t *unemitted);
/* Page objects by page name {name, screen, platform, elements}; *refs_out: per step {page, element} or null. */
json_t *sw__gen_pom(const json_t *model, json_t **refs_out);
json_t *sw__gen_page_doc(const json_t *page);
json_t *sw__gen_locator_audit(const json_t *pages, const char *name, double brittle_threshold);
json_t *sw__gen_test_doc(const json_t *model, const json_t *pages, const json_t *refs, const char *name);
/* The TC-xxx cases (array); the Markdown catalog of them (transfer full). */
json_t *sw__gen_testcases(const json_t *model, const char *name, const char *flow_path, const char *replay_status);
char *sw__gen_testcases_md(const json_t *cases, const char *name);

#endif
