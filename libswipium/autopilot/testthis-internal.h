/* testthis-internal.h: what the plan and the job of qa_test_this share inside autopilot/. */
#ifndef SW_TESTTHIS_INTERNAL_H
#define SW_TESTTHIS_INTERNAL_H

#include <jansson.h>

#include "sw-internal.h"
#include <swipium/swipium.h>
#include <swipium/autopilot.h>

/* A blocker object {failureCode, owner, retrySafe, canSwipiumFix, whatItMeans, howToFix} from the catalog;
 * @detail (nullable) is appended to whatItMeans. (transfer full) */
json_t *sw__tt_blocker(const char *code, const char *detail);
/* A {tool, args (stolen), why} object. (transfer full) */
json_t *sw__tt_action(const char *tool, json_t *args, const char *why);
/* True when @name is in the plan's listedTools (an absent list means every tool is listed). */
bool sw__tt_listed(const json_t *plan, const char *name);
/* True when the session already holds a password-like answer or the environment has SWIPIUM_TEST_PASSWORD. */
bool sw__tt_have_credentials(sw_session *s);
/* The credentials question (needsInput) of @plan's original call: {kind, question, fields, resume}. */
json_t *sw__tt_credentials_question(const json_t *plan, const char *why);
/* The resume call of @plan: qa_test_this with the original goal, goalText, flags and @extra (borrowed) merged. */
json_t *sw__tt_resume(const json_t *plan, const json_t *extra);

/* True when this build has the explorer qa_test_this can run. */
bool sw__tt_explore_available(void);

#endif
