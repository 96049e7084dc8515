/* SPDX-License-Identifier: MIT */
/*
 * The emulated hardware's state file: {"version": 1, "devices": {handle:
 * state}} with each driver's own state (dlh_dev_sim_get "state"). Written
 * after every change, once per turn of the loop: to FILE.tmp, synced, renamed
 * over FILE, and the directory synced, so that a crash leaves either the old
 * file or the new one.
 */
#include "dlhald.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

int state_read(const char *path, char **devices, char *why, size_t whylen)
{
	json_error_t jerr;
	json_t *root, *devs;

	*devices = NULL;
	if (access(path, F_OK))
		return 0; /* first start */
	root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		snprintf(why, whylen, "%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
		return -EINVAL;
	}
	devs = json_object_get(root, "devices");
	if (json_integer_value(json_object_get(root, "version")) != 1 || !json_is_object(devs)) {
		snprintf(why, whylen, "%s: expected {\"version\": 1, \"devices\": {...}}", path);
		json_decref(root);
		return -EINVAL;
	}
	*devices = json_dumps(devs, JSON_COMPACT);
	json_decref(root);
	return *devices ? 0 : -ENOMEM;
}

int state_write(struct dlh_ctx *ctx, const char *path)
{
	json_t *root = json_pack("{s:i, s:o}", "version", 1, "devices", json_object());
	json_t *devs = json_object_get(root, "devices");
	char tmp[4096], dir[4096], buf[8192];
	int fd, err = 0;

	for (struct dlh_dev *dev = dlh_dev_first(ctx); dev; dev = dlh_dev_next(dev)) {
		json_t *st;

		/* Devices without emulated hardware (the kernel's) have no state. */
		if (dlh_dev_sim_get(dev, NULL, "state", buf, sizeof(buf), NULL))
			continue;
		st = json_loads(buf, 0, NULL);
		if (st)
			json_object_set_new(devs, dlh_dev_handle(dev), st);
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || json_dumpfd(root, fd, JSON_INDENT(1)) || write(fd, "\n", 1) != 1 || fsync(fd)) {
		err = -errno;
		dlhald_log(LOG_ERR, "cannot write %s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		unlink(tmp);
		json_decref(root);
		return err;
	}
	close(fd);
	json_decref(root);
	if (rename(tmp, path)) {
		err = -errno;
		dlhald_log(LOG_ERR, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
		return err;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	fd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	return 0;
}
