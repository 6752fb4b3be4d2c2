/* harden.c: process-wide protections the frontends turn on at start (no core files). */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include "sw-internal.h"

SW_API int sw_process_disable_core_dumps(sw_error **err)
{
	/* a core file would hold typed secrets and tokens, and lands in the working directory (often the
	 * repository); the limit is inherited by children, PR_SET_DUMPABLE also keeps other processes of the
	 * same user from attaching to read memory */
	struct rlimit none = {0, 0};
	if (setrlimit(RLIMIT_CORE, &none) != 0)
		return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot set RLIMIT_CORE to 0: %s", strerror(errno));
#if defined(__linux__)
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
		return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot clear PR_SET_DUMPABLE: %s", strerror(errno));
#endif
	return SW_OK;
}
