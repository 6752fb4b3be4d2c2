/* driver.c: the device handle: binds a driver's ops table and answers BACKEND_UNSUPPORTED for missing slots. */
#include <stdlib.h>

#include "sw-internal.h"
#include <swipium/driver.h>

struct sw_device {
	const struct sw_driver_ops *ops;
	void *state;
};

int sw_device_open(sw_ctx *ctx, const struct sw_driver_ops *ops, const char *options_json, sw_device **out,
                   sw_error **err)
{
	if (!ops || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "ops and out must not be NULL");
	if (ops->version == 0 || ops->version > SW_DRIVER_OPS_VERSION || !ops->probe)
		return sw__error_set(err, SW_EUNSUPPORTED, "BACKEND_UNSUPPORTED", NULL,
		                     "Driver %s uses ops version %u; this library knows up to %d",
		                     ops->name ? ops->name : "?", ops->version, SW_DRIVER_OPS_VERSION);
	sw_device *dev = calloc(1, sizeof(*dev));
	if (!dev)
		return sw__error_nomem(err);
	dev->ops = ops;
	int rc = ops->probe(ctx, options_json, &dev->state, err);
	if (rc < 0) {
		free(dev);
		return rc;
	}
	*out = dev;
	return SW_OK;
}

void sw_device_free(sw_device *dev)
{
	if (!dev)
		return;
	if (dev->ops->release)
		dev->ops->release(dev->state);
	free(dev);
}

const struct sw_driver_ops *sw_device_ops(const sw_device *dev)
{
	return dev ? dev->ops : NULL;
}

static int unsupported(const sw_device *dev, const char *what, sw_error **err)
{
	if (!dev)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "device must not be NULL");
	return sw__error_set(err, SW_EUNSUPPORTED, "BACKEND_UNSUPPORTED", NULL, "The %s driver cannot %s",
	                     dev->ops->name ? dev->ops->name : "device", what);
}

#define HAS(dev, cap, slot) ((dev) && ((dev)->ops->caps & (cap)) && (dev)->ops->slot)

int sw_device_describe(sw_device *dev, char **out_json, sw_error **err)
{
	if (!dev || !dev->ops->describe || !out_json)
		return unsupported(dev, "describe the device", err);
	return dev->ops->describe(dev->state, out_json, err);
}

int sw_device_dump_ui(sw_device *dev, char **xml, size_t *len, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_DUMP, dump_ui) || !xml || !len)
		return unsupported(dev, "read the UI hierarchy", err);
	return dev->ops->dump_ui(dev->state, xml, len, err);
}

int sw_device_screencap(sw_device *dev, unsigned char **png, size_t *len, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_SCREENCAP, screencap) || !png || !len)
		return unsupported(dev, "capture the screen", err);
	return dev->ops->screencap(dev->state, png, len, err);
}

int sw_device_screen_size(sw_device *dev, int *width, int *height, sw_error **err)
{
	if (!dev || !dev->ops->screen_size || !width || !height)
		return unsupported(dev, "report the screen size", err);
	return dev->ops->screen_size(dev->state, width, height, err);
}

int sw_device_tap(sw_device *dev, int x, int y, int duration_ms, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_INPUT, tap))
		return unsupported(dev, "tap", err);
	return dev->ops->tap(dev->state, x, y, duration_ms, err);
}

int sw_device_type_text(sw_device *dev, const char *text, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_INPUT, type_text) || !text)
		return unsupported(dev, "type text", err);
	return dev->ops->type_text(dev->state, text, err);
}

int sw_device_swipe(sw_device *dev, int x1, int y1, int x2, int y2, int duration_ms, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_INPUT, swipe))
		return unsupported(dev, "swipe", err);
	return dev->ops->swipe(dev->state, x1, y1, x2, y2, duration_ms, err);
}

int sw_device_press_key(sw_device *dev, const char *key, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_INPUT, press_key) || !key)
		return unsupported(dev, "press keys", err);
	return dev->ops->press_key(dev->state, key, err);
}

int sw_device_open_url(sw_device *dev, const char *url, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_OPEN_URL, open_url) || !url)
		return unsupported(dev, "open URLs", err);
	return dev->ops->open_url(dev->state, url, err);
}

int sw_device_keyboard(sw_device *dev, char **out_json, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_KEYBOARD, keyboard) || !out_json)
		return unsupported(dev, "report the keyboard", err);
	return dev->ops->keyboard(dev->state, out_json, err);
}

int sw_device_hide_keyboard(sw_device *dev, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_KEYBOARD, hide_keyboard))
		return unsupported(dev, "hide the keyboard", err);
	return dev->ops->hide_keyboard(dev->state, err);
}

int sw_device_foreground(sw_device *dev, char **out_json, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_FOREGROUND, foreground) || !out_json)
		return unsupported(dev, "report the foreground app", err);
	return dev->ops->foreground(dev->state, out_json, err);
}

int sw_device_install(sw_device *dev, const char *path, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_APP, install) || !path)
		return unsupported(dev, "install apps", err);
	return dev->ops->install(dev->state, path, err);
}

int sw_device_launch(sw_device *dev, const char *app_id, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_APP, launch))
		return unsupported(dev, "launch apps", err);
	return dev->ops->launch(dev->state, app_id, err);
}

int sw_device_force_stop(sw_device *dev, const char *app_id, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_APP, force_stop))
		return unsupported(dev, "stop apps", err);
	return dev->ops->force_stop(dev->state, app_id, err);
}

int sw_device_clear_text(sw_device *dev, size_t chars, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_INPUT, clear_text))
		return unsupported(dev, "clear text fields", err);
	return dev->ops->clear_text(dev->state, chars, err);
}
