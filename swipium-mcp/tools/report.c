/* report.c: qa_report (group `run`): assemble, deep-redact and save the report, render the requested export.
 * Compiled empty until libswipium can assemble a report from a session (then MCP_HAVE_REPORT_ASSEMBLY). */
#include "../mcp.h"

#ifdef MCP_HAVE_REPORT_ASSEMBLY
#endif
