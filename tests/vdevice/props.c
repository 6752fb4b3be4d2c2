/* props.c: system properties (getprop) of an Android 13 x86_64 emulator, or of a physical-looking phone. */
#include "vdevice.h"

#include <stdlib.h>
#include <string.h>

struct prop {
	const char *key;
	const char *emulator; /* value on the emulator; NULL = absent */
	const char *physical; /* value with --physical; NULL = absent */
};

static const struct prop props[] = {
    {"dalvik.vm.heapsize", "512m", "512m"},
    {"dev.bootcomplete", "1", "1"},
    {"init.svc.adbd", "running", "running"},
    {"init.svc.bootanim", "stopped", "stopped"},
    {"persist.sys.locale", "en-US", "en-US"},
    {"persist.sys.timezone", "GMT", "Europe/Paris"},
    {"qemu.hw.mainkeys", "0", NULL},
    {"qemu.sf.lcd_density", "420", NULL},
    {"ro.boot.hardware", "ranchu", "qcom"},
    {"ro.boot.qemu", "1", NULL},
    {"ro.boot.qemu.avd_name", "vdevice_api33", NULL},
    {"ro.boot.serialno", "EMULATOR33X1X1X0", "R5CT1234ABC"},
    {"ro.build.characteristics", "emulator", "phone"},
    {"ro.build.fingerprint", "google/sdk_gphone64_x86_64/emu64xa:13/TE1A.220922.034/10940250:userdebug/dev-keys",
     "samsung/o1sxxx/o1s:13/TP1A.220624.014/G991BXXU5DVKB:user/release-keys"},
    {"ro.build.id", "TE1A.220922.034", "TP1A.220624.014"},
    {"ro.build.tags", "dev-keys", "release-keys"},
    {"ro.build.type", "userdebug", "user"},
    {"ro.build.version.release", "13", "13"},
    {"ro.build.version.sdk", "33", "33"},
    {"ro.build.version.security_patch", "2022-10-05", "2022-11-01"},
    {"ro.debuggable", "1", "0"},
    {"ro.hardware", "ranchu", "qcom"},
    {"ro.kernel.qemu", "1", NULL},
    {"ro.product.board", "goldfish_x86_64", "lahaina"},
    {"ro.product.brand", "google", "samsung"},
    {"ro.product.cpu.abi", "x86_64", "arm64-v8a"},
    {"ro.product.cpu.abilist", "x86_64,arm64-v8a", "arm64-v8a,armeabi-v7a,armeabi"},
    {"ro.product.device", "emu64xa", "o1s"},
    {"ro.product.manufacturer", "Google", "samsung"},
    {"ro.product.model", "sdk_gphone64_x86_64", "SM-G991B"},
    {"ro.product.name", "sdk_gphone64_x86_64", "o1sxxx"},
    {"ro.secure", "1", "1"},
    {"ro.serialno", "EMULATOR33X1X1X0", "R5CT1234ABC"},
    {"ro.sf.lcd_density", "420", "420"},
    {"service.bootanim.exit", "1", "1"},
    {"sys.boot_completed", "1", "1"},
};

static struct {
	char *key;
	char *value;
} overrides[64];

void vd_props_set(struct vd_device *d, const char *key, const char *value)
{
	size_t free_slot = VD_ARRAY_SIZE(overrides);
	for (size_t i = 0; i < VD_ARRAY_SIZE(overrides); i++) {
		if (overrides[i].key && strcmp(overrides[i].key, key) == 0) {
			char *v = vd_strdup(value);
			if (v) {
				free(overrides[i].value);
				overrides[i].value = v;
			}
			return;
		}
		if (!overrides[i].key && free_slot == VD_ARRAY_SIZE(overrides))
			free_slot = i;
	}
	if (free_slot == VD_ARRAY_SIZE(overrides))
		return;
	overrides[free_slot].key = vd_strdup(key);
	overrides[free_slot].value = vd_strdup(value);
	if (!overrides[free_slot].key || !overrides[free_slot].value) {
		free(overrides[free_slot].key);
		free(overrides[free_slot].value);
		overrides[free_slot].key = overrides[free_slot].value = NULL;
	}
}

void vd_props_free(void)
{
	for (size_t i = 0; i < VD_ARRAY_SIZE(overrides); i++) {
		free(overrides[i].key);
		free(overrides[i].value);
		overrides[i].key = overrides[i].value = NULL;
	}
}

static const char *static_value(struct vd_device *d, const char *key)
{
	if (d->opt.model && strcmp(key, "ro.product.model") == 0)
		return d->opt.model;
	if (d->opt.avd_name && !d->opt.physical && strcmp(key, "ro.boot.qemu.avd_name") == 0)
		return d->opt.avd_name;
	for (size_t i = 0; i < VD_ARRAY_SIZE(props); i++)
		if (strcmp(props[i].key, key) == 0)
			return d->opt.physical ? props[i].physical : props[i].emulator;
	return NULL;
}

const char *vd_prop_get(struct vd_device *d, const char *key)
{
	for (size_t i = 0; i < VD_ARRAY_SIZE(overrides); i++)
		if (overrides[i].key && strcmp(overrides[i].key, key) == 0)
			return overrides[i].value;
	bool boot_prop = strcmp(key, "sys.boot_completed") == 0 || strcmp(key, "dev.bootcomplete") == 0;
	if (boot_prop && d->boot_reads < d->opt.boot_after) {
		d->boot_reads++; /* still "booting": the property is not set yet */
		return NULL;
	}
	return static_value(d, key);
}

void vd_props_print(struct vd_device *d, struct vd_out *o)
{
	/* props[] is sorted by key, as getprop prints it */
	for (size_t i = 0; i < VD_ARRAY_SIZE(props); i++) {
		const char *v = vd_prop_get(d, props[i].key);
		if (v)
			vd_out_printf(o, 1, "[%s]: [%s]\n", props[i].key, v);
	}
	for (size_t i = 0; i < VD_ARRAY_SIZE(overrides); i++)
		if (overrides[i].key && !static_value(d, overrides[i].key))
			vd_out_printf(o, 1, "[%s]: [%s]\n", overrides[i].key, overrides[i].value);
}
