/* scan-apple.c: iOS rules (SwiftUI screens, UIKit view controllers, storyboard scenes). */
#include "appscan-internal.h"

void sw__scan_swift(sw__scan *s, const char *rel, const sw__toks *t, json_t *idx)
{
	(void)s, (void)rel, (void)t, (void)idx;
}

void sw__scan_apple_finish(sw__scan *s, int (*read)(sw__scan *, const char *, char **, size_t *))
{
	(void)s, (void)read;
}
