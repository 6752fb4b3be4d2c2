/* swipium/swipium.h: umbrella header of libswipium; include this one. */
#ifndef SWIPIUM_SWIPIUM_H
#define SWIPIUM_SWIPIUM_H

#include <swipium/version.h>
#include <swipium/common.h>
#include <swipium/context.h>
#include <swipium/util.h>
#include <swipium/project.h>
#include <swipium/catalog.h>
#include <swipium/report.h>
#include <swipium/snapshot.h>
#include <swipium/driver.h>
#include <swipium/actions.h>
#include <swipium/redact.h>
#include <swipium/consent.h>
#include <swipium/session.h>
#include <swipium/job.h>
#include <swipium/issues.h>
#include <swipium/exports.h>
#include <swipium/visual.h>
#include <swipium/flow.h>
#include <swipium/device.h>
#include <swipium/health.h>
#include <swipium/artifacts.h>
#include <swipium/appscan.h>
#include <swipium/ios.h>
#include <swipium/build.h>
#include <swipium/appmap.h>
#include <swipium/explore.h>
#include <swipium/autopilot.h>
#include <swipium/process.h>
#include <swipium/feature.h>
#include <swipium/generate.h>
#include <swipium/suite.h>
#include <swipium/audit.h>
#include <swipium/metro.h>

#endif
