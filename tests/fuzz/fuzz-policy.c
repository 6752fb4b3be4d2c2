/* fuzz-policy.c: libFuzzer target for the release-gate policy (.swipium/policy.json) parser and its evaluation. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../libswipium/report/report-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Three failing verdicts (two outcomes, one high finding) of several code sources. */
static const char REPORT[] =
    "{\"findings\":[{\"severity\":\"high\",\"kind\":\"native_crash\",\"failureCode\":\"NATIVE_CRASH\"},"
    "{\"severity\":\"low\",\"kind\":\"x\"}],\"testOutcomes\":["
    "{\"workflow\":\"checkout\",\"outcome\":\"fail\",\"category\":\"app_bug\",\"steps\":[{\"ok\":true},"
    "{\"ok\":false,\"failureCode\":\"ASSERTION_FAILED\"}]},"
    "{\"workflow\":\"profile\",\"outcome\":\"blocked\",\"category\":\"missing_test_data\"},"
    "{\"workflow\":\"search\",\"outcome\":\"fail\"}]}";

/*
 * Input: the bytes of policy.json. The policy is read as sw__policy_load()
 * reads the file (JSON null is no policy), then judged against REPORT.
 * Properties: nothing crashes or leaks; every failing verdict lands in exactly
 * one of blocked / warned / suppressed; block is true exactly when blocked is
 * not empty; the reason is a string.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static json_t *report;
	if (!report) {
		char *msg = NULL;
		report = sw__report_parse_json(REPORT, sizeof(REPORT) - 1, &msg);
		free(msg);
		if (!report)
			abort();
	}
	char *msg = NULL;
	json_t *policy = sw__report_parse_json((const char *)data, size, &msg);
	free(msg);
	if (policy && json_is_null(policy)) {
		json_decref(policy);
		policy = NULL;
	}
	json_t *gate = sw__gate_eval(report, policy);
	if (!gate)
		abort();
	size_t blocked = json_array_size(json_object_get(gate, "blocked"));
	size_t total = blocked + json_array_size(json_object_get(gate, "warned")) +
	               json_array_size(json_object_get(gate, "suppressed"));
	if (total != 3 || json_is_true(json_object_get(gate, "block")) != (blocked > 0) ||
	    !json_is_string(json_object_get(gate, "reason")))
		abort();
	json_decref(gate);
	json_decref(policy);
	return 0;
}
