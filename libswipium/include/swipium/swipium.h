/* swipium/swipium.h: umbrella header of libswipium; include this one. */
#ifndef SWIPIUM_SWIPIUM_H
#define SWIPIUM_SWIPIUM_H

#include <swipium/version.h>
#include <swipium/common.h>
#include <swipium/context.h>
#include <swipium/util.h>
#include <swipium/project.h>

#endif
