/* header-test.c: the umbrella header compiles as strict C11 and the library links. */
#include <stdio.h>
#include <string.h>

#include <swipium/swipium.h>

int main(void)
{
	if (strcmp(sw_version(), SW_VERSION_STRING) != 0) {
		fprintf(stderr, "header version %s != library %s\n", SW_VERSION_STRING, sw_version());
		return 1;
	}
	return 0;
}
