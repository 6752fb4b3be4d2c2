/* appium-project.c: what a project already uses (TypeScript, JavaScript, Python, pytest; its one platform). */
#include "appium-internal.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <swipium/project.h>

/* Project files read for hints are small; a larger one is read only up to this size. */
#define HINT_MAX (64 * 1024)

/* The start of a project file, read through the confinement rule (a link out of the project reads nothing). */
static char *read_hint(const char *root, const char *rel)
{
	int fd = sw__confine_open(root, rel, O_RDONLY, 0, SW__CONFINE_EXISTING, NULL, NULL);
	if (fd < 0)
		return NULL;
	char *buf = malloc(HINT_MAX + 1);
	size_t len = 0;
	if (buf) {
		while (len < HINT_MAX) {
			ssize_t n = read(fd, buf + len, HINT_MAX - len);
			if (n <= 0)
				break;
			len += (size_t)n;
		}
		buf[len] = '\0';
	}
	close(fd);
	return buf;
}

static bool file_mentions(const char *root, const char *rel, const char *word)
{
	char *text = read_hint(root, rel);
	bool hit = text && (!word || strstr(text, word) != NULL);
	free(text);
	return hit;
}

void sw__ap_project_detect(const char *root, ap_project *out)
{
	memset(out, 0, sizeof(*out));
	if (!root || !*root)
		return;
	out->typescript =
	    file_mentions(root, "tsconfig.json", NULL) || file_mentions(root, "package.json", "\"typescript\"");
	out->javascript = !out->typescript && file_mentions(root, "package.json", NULL);
	static const char *const py_files[] = {"pyproject.toml", "requirements.txt", "requirements-dev.txt",
	                                       "setup.py",       "setup.cfg",        "Pipfile",
	                                       "tox.ini",        "pytest.ini",       "conftest.py"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(py_files); i++) {
		if (!file_mentions(root, py_files[i], NULL))
			continue;
		out->python = true;
		if (!strcmp(py_files[i], "pytest.ini") || !strcmp(py_files[i], "conftest.py") ||
		    file_mentions(root, py_files[i], "pytest"))
			out->pytest = true;
	}
	char *json = NULL;
	if (sw_project_detect(root, &json, NULL) == SW_OK && json) {
		json_t *ctx = json_loads(json, 0, NULL);
		json_t *pl = json_object_get(ctx, "platforms");
		if (json_array_size(pl) == 1) {
			const char *p = json_string_value(json_array_get(pl, 0));
			if (p && !strcmp(p, "ios"))
				out->only_platform = "ios";
			else if (p && !strcmp(p, "android"))
				out->only_platform = "android";
		}
		json_decref(ctx);
	}
	sw_free(json);
}
