/* SPDX-License-Identifier: MIT */
/*
 * The emulated hardware's state file: {"version": 1, "devices": {handle:
 * state}} with each driver's own state (dlh_dev_sim_get "state"). Written
 * before a change is acknowledged (and after changes drivers make on their
 * own, before the loop next waits): to FILE.tmp, synced, renamed over FILE,
 * and the directory synced, so that a crash leaves either the old file or
 * the new one, and an acknowledged change is in it.
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

int state_parse(const char *text, size_t len, const char *path, char **devices, char *why, size_t whylen)
{
	json_error_t jerr;
	json_t *root, *devs;

	*devices = NULL;
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		snprintf(why, whylen, "%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
		return -EINVAL;
	}
	devs = json_object_get(root, "devices");
	if (!json_is_integer(json_object_get(root, "version")) ||
	    json_integer_value(json_object_get(root, "version")) != 1 || !json_is_object(devs) ||
	    json_object_size(root) != 2) {
		snprintf(why, whylen, "%s: expected {\"version\": 1, \"devices\": {...}} and nothing else", path);
		json_decref(root);
		return -EINVAL;
	}
	*devices = json_dumps(devs, JSON_COMPACT);
	json_decref(root);
	return *devices ? 0 : -ENOMEM;
}

int state_read(const char *path, char **devices, char *why, size_t whylen)
{
	FILE *f;
	char *text = NULL;
	size_t len = 0;
	int err;

	*devices = NULL;
	f = fopen(path, "re");
	if (!f && errno == ENOENT)
		return 0; /* first start */
	if (!f) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	/* open_memstream grows as needed; a state file is a few KiB. */
	{
		FILE *m = open_memstream(&text, &len);
		char buf[4096];
		size_t n;

		while (m && (n = fread(buf, 1, sizeof(buf), f)) > 0)
			fwrite(buf, 1, n, m);
		if (!m || ferror(f) || fclose(m)) {
			snprintf(why, whylen, "%s: cannot read: %s", path, strerror(errno));
			fclose(f);
			free(text);
			return -EIO;
		}
	}
	fclose(f);
	err = state_parse(text, len, path, devices, why, whylen);
	free(text);
	return err;
}

int state_load(struct dlh_ctx *ctx, const char *profiles, const char *devices, const char *path, char *why,
	       size_t whylen)
{
	char list[1024], *save = NULL, buf[DLH_EXTACK_MSG_MAX + DLH_HANDLE_MAX];
	struct dlh_extack ext;
	const char *handle;
	json_t *all, *v;
	char *st;
	int err = 0;

	if (strlen(profiles) >= sizeof(list)) {
		snprintf(why, whylen, "--sim: profile list too long");
		return -EINVAL;
	}
	snprintf(list, sizeof(list), "%s", profiles);
	for (char *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if (dlh_ctx_sim_load_state(ctx, p, devices, &ext)) {
			if (devices)
				snprintf(why, whylen,
					 "--sim %s with the state in %s: %s (--fresh starts from the profile)", p, path,
					 dlh_extack_str(&ext, buf, sizeof(buf)));
			else
				snprintf(why, whylen, "--sim %s: %s", p, dlh_extack_str(&ext, buf, sizeof(buf)));
			return -EINVAL;
		}
	}
	if (!devices)
		return 0;
	/* Every saved device must be one just loaded: otherwise its state
	 * would be dropped without a word by the next write. */
	all = json_loads(devices, 0, NULL);
	st = malloc(DLHALD_STATE_MAX);
	json_object_foreach(all, handle, v)
	{
		struct dlh_dev *dev = dlh_dev_find(ctx, handle);

		if (!st || !dev || dlh_dev_sim_get(dev, NULL, "state", st, DLHALD_STATE_MAX, NULL)) {
			snprintf(why, whylen,
				 "%s: field \"devices.%s\": no emulated device of --sim %s has this handle "
				 "(--fresh starts from the profiles)",
				 path, handle, profiles);
			err = -EINVAL;
			break;
		}
	}
	json_decref(all);
	free(st);
	return err;
}

int state_write(struct dlh_ctx *ctx, const char *path, char *why, size_t whylen)
{
	json_t *root = json_pack("{s:i, s:o}", "version", 1, "devices", json_object());
	json_t *devs = json_object_get(root, "devices");
	char tmp[4096], dir[4096], *buf = malloc(DLHALD_STATE_MAX);
	int fd, err = 0;

	if (!buf || !root) {
		free(buf);
		json_decref(root);
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}

	for (struct dlh_dev *dev = dlh_dev_first(ctx); dev; dev = dlh_dev_next(dev)) {
		json_t *st;

		struct dlh_extack ext;
		int e = dlh_dev_sim_get(dev, NULL, "state", buf, DLHALD_STATE_MAX, &ext);

		/* Devices without emulated hardware (the kernel's) have no state;
		 * an emulated one whose state cannot be had fails the write
		 * rather than vanish from the file. */
		if (e == -EOPNOTSUPP)
			continue;
		st = e ? NULL : json_loads(buf, 0, NULL);
		if (!st || json_object_set_new(devs, dlh_dev_handle(dev), st)) {
			snprintf(why, whylen, "the state of %s: %s", dlh_dev_handle(dev), e ? ext.msg : "not JSON");
			dlhald_log(LOG_ERR, "%s", why);
			free(buf);
			json_decref(root);
			return e ? e : -EIO;
		}
	}
	free(buf);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || json_dumpfd(root, fd, JSON_INDENT(1)) || write(fd, "\n", 1) != 1 || fsync(fd)) {
		err = errno ? -errno : -EIO;
		snprintf(why, whylen, "cannot write %s: %s", tmp, strerror(-err));
		dlhald_log(LOG_ERR, "%s", why);
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
		snprintf(why, whylen, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
		dlhald_log(LOG_ERR, "%s", why);
		return err;
	}
	/* The rename is durable once the directory is. */
	snprintf(dir, sizeof(dir), "%s", path);
	fd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd)) {
		err = -errno;
		snprintf(why, whylen, "cannot sync the directory of %s: %s", path, strerror(errno));
		dlhald_log(LOG_ERR, "%s", why);
	}
	if (fd >= 0)
		close(fd);
	return err;
}

int state_commit(struct server *srv, char *why, size_t whylen)
{
	int err;

	if (!srv->state || !srv->state_dirty)
		return 0;
	err = state_write(srv->ctx, srv->state, why, whylen);
	if (!err)
		srv->state_dirty = false;
	return err;
}
