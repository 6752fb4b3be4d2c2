/* build-internal.h: what the build concern's files share (never installed). */
#ifndef SW_BUILD_INTERNAL_H
#define SW_BUILD_INTERNAL_H

#include <stdarg.h>

#include <jansson.h>

#include "sw-internal.h"

#include <swipium/artifacts.h>
#include <swipium/build.h>
#include <swipium/project.h>
#include <swipium/session.h>

/* Step kinds of a plan. */
#define SW_BUILD_KIND_DEPS "dependencies"
#define SW_BUILD_KIND_PREBUILD "prebuild"
#define SW_BUILD_KIND_BUILD "build"

/* The absolute path of an executable @name (looked up on PATH unless it holds a '/'), or NULL. */
char *sw__build_which(const char *name);

/* The classification of a failed step: {failureCode, signature?, line?, why}. (transfer full) */
json_t *sw__build_classify(const char *kind, const char *tool, int exit_status, int exec_errno, bool timed_out,
                           const char *log, size_t len);

#endif
