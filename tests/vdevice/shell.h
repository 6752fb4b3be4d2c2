/* shell.h: what the shell parser (shell.c) and the shell's programs (commands.c) share. */
#ifndef VDEVICE_SHELL_H
#define VDEVICE_SHELL_H

#include "vdevice.h"

/* One program invocation inside a pipeline. */
struct vd_cmd {
	struct vd_device *d;
	int argc;
	char **argv;
	const char *in; /* stdin: the previous stage's output or the stream's stdin (may be NULL) */
	size_t in_len;
	struct vd_buf *out; /* stdout */
	struct vd_buf *err; /* stderr */
};

/* Runs the program named by argv[0]; unknown ones exit 127 like mksh. */
int vd_command_run(struct vd_cmd *c);
/* Parses a decimal number the way `input` and friends accept it ("540", "540.5"). */
bool vd_shell_parse_number(const char *s, long *v);
/* Installs an uploaded package file; appends `Success` or a `Failure [...]` line to @out. */
int vd_install_bytes(struct vd_device *d, const char *data, size_t len, struct vd_buf *out);

#endif
