/* fuzz-report.c: libFuzzer target for the saved report loader (sw_report_load_data), the gate and every export. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <swipium/swipium.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Properties: nothing crashes or leaks; a loaded report always gets a gate
 * verdict that sw_report_gate_verdict() reads back, and renders in every
 * format to a NUL-terminated body of the announced length.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sw_report *report = NULL;
	sw_error *err = NULL;
	if (sw_report_load_data((const char *)data, size, &report, &err) != SW_OK) {
		if (report || !err)
			abort();
		sw_error_free(err);
		return 0;
	}
	char *gate = NULL;
	if (sw_report_gate(report, NULL, &gate, NULL) != SW_OK || !gate)
		abort();
	int block = -1;
	char *reason = NULL;
	if (sw_report_gate_verdict(gate, &block, &reason, NULL) != SW_OK || (block != 0 && block != 1) || !reason)
		abort();
	sw_free(reason);
	sw_free(gate);
	const sw_report_format formats[] = {SW_REPORT_JUNIT, SW_REPORT_SARIF, SW_REPORT_GITHUB_SUMMARY,
	                                    SW_REPORT_MARKDOWN, SW_REPORT_JSON};
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		char *out = NULL;
		size_t len = 0;
		if (sw_report_render(report, formats[i], NULL, &out, &len, NULL, NULL) != SW_OK || !out ||
		    strlen(out) > len)
			abort();
		sw_free(out);
	}
	sw_report_free(report);
	return 0;
}
