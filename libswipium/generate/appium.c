/* appium.c: placeholder for the Appium emitter until its own module replaces this file. */
#include "gen-internal.h"

int sw__gen_appium(const json_t *model, const json_t *params, json_t **files_out, json_t **report_out, sw_error **err)
{
	(void)model;
	(void)params;
	if (files_out)
		*files_out = NULL;
	if (report_out)
		*report_out = NULL;
	return sw__error_set(err, SW_EUNSUPPORTED, "UNEMITTABLE_STEP",
	                     "Use target flow, pom, suite or testcases until the Appium emitter is built.",
	                     "appium emitter not built: this build cannot write an Appium suite yet");
}
