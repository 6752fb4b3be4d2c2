/* scan-flutter.c: Flutter rules (MaterialApp routes, onGenerateRoute, go_router, auto_route). */
#include "appscan-internal.h"

void sw__scan_dart(sw__scan *s, const char *rel, const sw__toks *t, json_t *idx)
{
	(void)s, (void)rel, (void)t, (void)idx;
}

void sw__scan_pubspec(sw__scan *s, const char *rel, const char *text, size_t len)
{
	(void)s, (void)rel, (void)text, (void)len;
}
