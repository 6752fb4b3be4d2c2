/* fuzz-axml.c: libFuzzer target for the binary AndroidManifest.xml and resources.arsc reader (artifacts/axml.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "artifacts-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Input: a 4-byte little-endian manifest length, the manifest, then the resource table (the rest). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	size_t xml_len = (size_t)data[0] | ((size_t)data[1] << 8) | ((size_t)data[2] << 16) | ((size_t)data[3] << 24);
	if (xml_len > size - 4)
		xml_len = size - 4;
	/* copies of exactly the right size, so that ASan sees any read past either buffer */
	uint8_t *xml = malloc(xml_len ? xml_len : 1);
	size_t arsc_len = size - 4 - xml_len;
	uint8_t *arsc = malloc(arsc_len ? arsc_len : 1);
	if (!xml || !arsc)
		abort();
	memcpy(xml, data + 4, xml_len);
	memcpy(arsc, data + 4 + xml_len, arsc_len);
	char why[200];
	sw__axml_manifest m;
	if (sw__axml_parse_manifest(xml, xml_len, &m, why, sizeof(why)) == 0) {
		sw__axml_value *vals[] = {&m.package, &m.version_code, &m.version_name, &m.min_sdk};
		for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
			if (vals[i]->str && !sw__utf8_valid(vals[i]->str, strlen(vals[i]->str)))
				abort(); /* every string handed out is valid UTF-8 */
			if (sw__arsc_resolve(arsc_len ? arsc : NULL, arsc_len, vals[i], why, sizeof(why)) == 0 &&
			    vals[i]->str && !sw__utf8_valid(vals[i]->str, strlen(vals[i]->str)))
				abort();
		}
	}
	sw__axml_manifest_clear(&m);
	free(xml);
	free(arsc);
	return 0;
}
