/* tools.c: the tool registry: every tool the server lists, in registration order (the 2025-era tools/list order). */
#include <stddef.h>

#include "tool.h"

/* start */
extern const struct mcp_tool mcp_tool_qa_test_this;
extern const struct mcp_tool mcp_tool_qa_status;
extern const struct mcp_tool mcp_tool_qa_job_status;
extern const struct mcp_tool mcp_tool_qa_job_cancel;
extern const struct mcp_tool mcp_tool_qa_explain_blocker;
extern const struct mcp_tool mcp_tool_qa_continue_from_blocker;
extern const struct mcp_tool mcp_tool_qa_get_artifact;
/* setup */
extern const struct mcp_tool mcp_tool_qa_doctor;
extern const struct mcp_tool mcp_tool_qa_start_session;
extern const struct mcp_tool mcp_tool_qa_prepare_target;
extern const struct mcp_tool mcp_tool_qa_ios;
extern const struct mcp_tool mcp_tool_qa_wda;
extern const struct mcp_tool mcp_tool_qa_prepare_ios_target;
/* build */
extern const struct mcp_tool mcp_tool_qa_resolve_target;
extern const struct mcp_tool mcp_tool_qa_resolve_artifact;
extern const struct mcp_tool mcp_tool_qa_build;
extern const struct mcp_tool mcp_tool_qa_bundletool;
/* drive */
extern const struct mcp_tool mcp_tool_qa_snapshot;
extern const struct mcp_tool mcp_tool_qa_inspect;
extern const struct mcp_tool mcp_tool_qa_act;
extern const struct mcp_tool mcp_tool_qa_screenshot;
extern const struct mcp_tool mcp_tool_qa_note;
extern const struct mcp_tool mcp_tool_qa_visual;
/* device control and app health (tools/device.c) */
extern const struct mcp_tool mcp_tool_qa_device_info;
extern const struct mcp_tool mcp_tool_qa_orientation;
extern const struct mcp_tool mcp_tool_qa_geolocation;
extern const struct mcp_tool mcp_tool_qa_network;
extern const struct mcp_tool mcp_tool_qa_metro;
extern const struct mcp_tool mcp_tool_qa_app_control;
extern const struct mcp_tool mcp_tool_qa_screen_record;
extern const struct mcp_tool mcp_tool_qa_clear_overlay;
extern const struct mcp_tool mcp_tool_qa_check_health;
extern const struct mcp_tool mcp_tool_qa_wait;
extern const struct mcp_tool mcp_tool_qa_smoke;
/* flows */
extern const struct mcp_tool mcp_tool_qa_flow_check;
extern const struct mcp_tool mcp_tool_qa_flow_run;
extern const struct mcp_tool mcp_tool_qa_flow_repair;
extern const struct mcp_tool mcp_tool_qa_flow_compile;
/* test-suite (tools/suite.c) */
extern const struct mcp_tool mcp_tool_qa_suite_read;
extern const struct mcp_tool mcp_tool_qa_suite_update;
extern const struct mcp_tool mcp_tool_qa_suite_generate;
extern const struct mcp_tool mcp_tool_qa_suite_export;
extern const struct mcp_tool mcp_tool_qa_suite_lint;
/* issues */
extern const struct mcp_tool mcp_tool_qa_issue_log;
extern const struct mcp_tool mcp_tool_qa_mobile_audit;
/* run */
extern const struct mcp_tool mcp_tool_qa_report;
/* app-map */
extern const struct mcp_tool mcp_tool_qa_app_map_build;
extern const struct mcp_tool mcp_tool_qa_app_map_read;
extern const struct mcp_tool mcp_tool_qa_app_map_query;
extern const struct mcp_tool mcp_tool_qa_app_map_feature_scope;
extern const struct mcp_tool mcp_tool_qa_app_map_update;
extern const struct mcp_tool mcp_tool_qa_explore;
/* feature */
extern const struct mcp_tool mcp_tool_qa_test_feature;
/* first-run */
extern const struct mcp_tool mcp_tool_qa_first_run;
/* generate */
extern const struct mcp_tool mcp_tool_qa_generate;

#ifdef MCP_TEST_TOOLS
/* Test fixtures, only in the test build swipium-mcp-consent-test (tests/integration/mcp/). */
extern const struct mcp_tool mcp_tool_qa_consent_probe;
extern const struct mcp_tool mcp_tool_qa_job_probe;
#endif

/*
 * One line per tool, grouped as the README groups them. Add a tool here only once it works
 * end to end: a listed tool is a promise to the agent.
 */
const struct mcp_tool *const mcp_tools[] = {
	/* start */
	&mcp_tool_qa_status,
	&mcp_tool_qa_test_this,
	&mcp_tool_qa_job_status,
	&mcp_tool_qa_job_cancel,
	&mcp_tool_qa_explain_blocker,
	&mcp_tool_qa_continue_from_blocker,
	&mcp_tool_qa_get_artifact,
	/* setup */
	&mcp_tool_qa_doctor,
	&mcp_tool_qa_start_session,
	&mcp_tool_qa_prepare_target,
	&mcp_tool_qa_ios,
	&mcp_tool_qa_wda,
	&mcp_tool_qa_prepare_ios_target,
	/* build */
	&mcp_tool_qa_resolve_target,
	&mcp_tool_qa_resolve_artifact,
	&mcp_tool_qa_build,
	&mcp_tool_qa_bundletool,
	/* device */
	&mcp_tool_qa_device_info,
	&mcp_tool_qa_orientation,
	&mcp_tool_qa_geolocation,
	&mcp_tool_qa_network,
	&mcp_tool_qa_metro,
	&mcp_tool_qa_app_control,
	&mcp_tool_qa_screen_record,
	/* drive */
	&mcp_tool_qa_snapshot,
	&mcp_tool_qa_inspect,
	&mcp_tool_qa_act,
	&mcp_tool_qa_screenshot,
	&mcp_tool_qa_note,
	&mcp_tool_qa_visual,
	&mcp_tool_qa_clear_overlay,
	&mcp_tool_qa_check_health,
	&mcp_tool_qa_wait,
	/* run */
	&mcp_tool_qa_smoke,
	&mcp_tool_qa_explore,
	&mcp_tool_qa_report,
	/* app-map */
	&mcp_tool_qa_app_map_build,
	&mcp_tool_qa_app_map_read,
	&mcp_tool_qa_app_map_query,
	&mcp_tool_qa_app_map_feature_scope,
	&mcp_tool_qa_app_map_update,
	/* feature */
	&mcp_tool_qa_test_feature,
	/* flows */
	&mcp_tool_qa_flow_check,
	&mcp_tool_qa_flow_run,
	&mcp_tool_qa_flow_repair,
	/* generate */
	&mcp_tool_qa_generate,
	&mcp_tool_qa_flow_compile,
	/* test-suite */
	&mcp_tool_qa_suite_read,
	&mcp_tool_qa_suite_update,
	&mcp_tool_qa_suite_generate,
	&mcp_tool_qa_suite_export,
	&mcp_tool_qa_suite_lint,
	/* issues */
	&mcp_tool_qa_issue_log,
	&mcp_tool_qa_mobile_audit,
	/* first-run */
	&mcp_tool_qa_first_run,
#ifdef MCP_TEST_TOOLS
	&mcp_tool_qa_consent_probe,
	&mcp_tool_qa_job_probe,
#endif
	NULL,
};
