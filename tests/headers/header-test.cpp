/* header-test.cpp: the umbrella header compiles as C++ and the library links. */
#include <cstdio>
#include <cstring>

#include <swipium/swipium.h>

int main()
{
	if (strcmp(sw_version(), SW_VERSION_STRING) != 0) {
		fprintf(stderr, "header version %s != library %s\n", SW_VERSION_STRING, sw_version());
		return 1;
	}
	return 0;
}
