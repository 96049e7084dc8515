/* SPDX-License-Identifier: MIT */
/*
 * The state file: {"version": 3, "devices": {handle: state}, "desired":
 * {handle: {"INDEX": "auto"}}, "kernel": {"boot": ID, "learnt": {handle:
 * {...}}}} with each emulated driver's own state (dlh_dev_sim_get "state"),
 * the ports' desired types, which are the host's (core's), not the
 * hardware's, and what vendors' rules learnt of kernel devices that the
 * kernel does not report (dlh_dev_learnt_get: an E810's pending port
 * option), kept for the boot it was learnt in: a reboot resets the cards,
 * so what was pending is gone. Written
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
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <syslog.h>
#include <unistd.h>

/* {"boot": "ID", "learnt": {DEV: {...}}, "reloads": {DEV: N}}, "reloads" optional: files written before it have none */
static bool learnt_valid(json_t *kernel)
{
	json_t *learnt = json_object_get(kernel, "learnt"), *reloads = json_object_get(kernel, "reloads"), *v;
	const char *handle;

	if (!json_is_object(kernel) || json_object_size(kernel) != 2u + !!reloads ||
	    !json_is_string(json_object_get(kernel, "boot")) || !json_is_object(learnt) ||
	    (reloads && !json_is_object(reloads)))
		return false;
	json_object_foreach(learnt, handle, v) if (!json_is_object(v)) return false;
	json_object_foreach(reloads, handle, v) if (!json_is_integer(v) || json_integer_value(v) < 0) return false;
	return true;
}

int state_parse(const char *text, size_t len, const char *path, char **devices, char *why, size_t whylen)
{
	json_error_t jerr;
	json_t *root, *devs;
	json_int_t version;

	*devices = NULL;
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		snprintf(why, whylen, "%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
		return -EINVAL;
	}
	devs = json_object_get(root, "devices");
	version = json_integer_value(json_object_get(root, "version"));
	/* Version 1 had no desired types; 2 keeps them (an mlx4 port in auto stays in auto); 3 what
	 * rules learnt of kernel devices. */
	if (!json_is_integer(json_object_get(root, "version")) || version < 1 || version > 3 || !json_is_object(devs) ||
	    json_object_size(root) != (size_t)version + 1 ||
	    (version >= 2 && !json_is_object(json_object_get(root, "desired"))) ||
	    (version == 3 && !learnt_valid(json_object_get(root, "kernel")))) {
		snprintf(why, whylen,
			 "%s: expected {\"version\": 3, \"devices\": {...}, \"desired\": {...}, \"kernel\": "
			 "{\"boot\": \"ID\", \"learnt\": {DEV: {...}}, \"reloads\": {DEV: N}}} (\"reloads\" "
			 "optional; version 2 without \"kernel\", 1 without \"desired\") and nothing else",
			 path);
		json_decref(root);
		return -EINVAL;
	}
	*devices = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	return *devices ? 0 : -ENOMEM;
}

int state_lock(const char *path, char *why, size_t whylen)
{
	char lock[PATH_MAX], pid[24] = "";
	ssize_t n;
	int fd;

	if ((size_t)snprintf(lock, sizeof(lock), "%s.lock", path) >= sizeof(lock)) {
		snprintf(why, whylen, "%s: path too long", path);
		return -1;
	}
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(why, whylen, "cannot open %s: %s", lock, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int err = errno;

		n = pread(fd, pid, sizeof(pid) - 1, 0);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		if (err == EWOULDBLOCK)
			snprintf(why, whylen, "%s is in use by another dlhald (pid %s; lock %s)", path,
				 pid[0] ? pid : "unknown", lock);
		else
			snprintf(why, whylen, "cannot lock %s: %s", lock, strerror(err));
		close(fd);
		return -1;
	}
	state_lock_pid(fd);
	return fd;
}

void state_lock_pid(int fd)
{
	char pid[24];
	int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());

	if (fd >= 0 && !ftruncate(fd, 0) && pwrite(fd, pid, (size_t)n, 0) != n)
		dlhald_log(LOG_WARNING, "cannot write the state lock's pid: %s", strerror(errno));
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

/* The saved desired types (auto, for mlx4) back on their ports: the driver's op runs again. */
static int desired_types_restore(struct dlh_ctx *ctx, json_t *desired, const char *path, char *why, size_t whylen)
{
	char buf[DLH_EXTACK_MSG_MAX + DLH_HANDLE_MAX];
	const char *handle, *key;
	json_t *ports, *v;

	json_object_foreach(desired, handle, ports)
	{
		struct dlh_dev *dev = dlh_dev_find(ctx, handle);

		if (!dev || !json_is_object(ports)) {
			snprintf(why, whylen, "%s: field \"desired.%s\": %s", path, handle,
				 dev ? "expected an object of ports" : "no emulated device has this handle");
			return -EINVAL;
		}
		json_object_foreach(ports, key, v)
		{
			enum dlh_port_type type;
			struct dlh_extack ext;
			struct dlh_port *port;
			char *end;
			unsigned long index = strtoul(key, &end, 10);

			if (!*key || *end || index > UINT32_MAX || !(port = dlh_port_find(dev, (uint32_t)index)) ||
			    !json_is_string(v) || dlh_port_type_parse(json_string_value(v), &type) ||
			    type == DLH_PORT_TYPE_NOTSET) {
				snprintf(why, whylen,
					 "%s: field \"desired.%s.%s\": expected a port index of the device and "
					 "\"eth\", \"ib\" or \"auto\"",
					 path, handle, key);
				return -EINVAL;
			}
			if (dlh_port_desired_type(port) != type && dlh_port_type_set(port, type, &ext)) {
				snprintf(why, whylen, "%s: field \"desired.%s.%s\": %s", path, handle, key,
					 dlh_extack_str(&ext, buf, sizeof(buf)));
				return -EINVAL;
			}
		}
	}
	return 0;
}

int state_load(struct dlh_ctx *ctx, const char *profiles, const char *saved, const char *path, char *why, size_t whylen)
{
	char list[1024], *save = NULL, buf[DLH_EXTACK_MSG_MAX + DLH_HANDLE_MAX];
	json_t *root = saved ? json_loads(saved, 0, NULL) : NULL, *all, *v;
	char *devices = root ? json_dumps(json_object_get(root, "devices"), JSON_COMPACT) : NULL;
	struct dlh_extack ext;
	const char *handle;
	char *st;
	int err = 0;

	if (saved && !devices) {
		json_decref(root);
		snprintf(why, whylen, "%s: out of memory", path);
		return -ENOMEM;
	}

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
			free(devices);
			json_decref(root);
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
	free(devices);
	if (!err && json_object_get(root, "desired"))
		err = desired_types_restore(ctx, json_object_get(root, "desired"), path, why, whylen);
	json_decref(root);
	return err;
}

/* This boot's id: what the rules learnt of kernel devices holds until the next. "" if unknown. */
static const char *boot_id(void)
{
	static char id[64];
	FILE *f;

	if (id[0])
		return id;
	f = fopen("/proc/sys/kernel/random/boot_id", "re");
	if (f && fgets(id, sizeof(id), f))
		id[strcspn(id, "\n")] = '\0';
	else
		id[0] = '\0';
	if (f)
		fclose(f);
	return id;
}

void state_kernel_restore(struct dlh_ctx *ctx, const char *saved, const char *path)
{
	json_t *root = saved ? json_loads(saved, 0, NULL) : NULL, *kernel = json_object_get(root, "kernel"), *v;
	const char *handle, *boot = json_string_value(json_object_get(kernel, "boot"));
	char buf[DLH_EXTACK_MSG_MAX + DLH_HANDLE_MAX];

	if (!kernel) {
		json_decref(root);
		return;
	}
	/* A reboot resets the cards: what was pending then is gone, and so is what was learnt. */
	if (!boot_id()[0] || strcmp(boot, boot_id())) {
		dlhald_log(LOG_INFO, "%s: what vendors' rules learnt of kernel devices is of another boot: dropped",
			   path);
		json_decref(root);
		return;
	}
	json_object_foreach(json_object_get(kernel, "learnt"), handle, v)
	{
		struct dlh_dev *dev = dlh_dev_find(ctx, handle);
		char *text = json_dumps(v, JSON_COMPACT);
		json_t *then = json_object_get(json_object_get(kernel, "reloads"), handle);
		struct dlh_extack ext;
		uint64_t now;

		/* The kernel is the truth: a device gone, reset since, or what no longer fits, is said and dropped. */
		if (!dev)
			dlhald_log(LOG_WARNING, "%s: what was learnt of %s is dropped: the kernel has no such device",
				   path, handle);
		else if (then && !dlh_dev_reloads(dev, &now) && now != (uint64_t)json_integer_value(then))
			dlhald_log(LOG_WARNING,
				   "%s: what was learnt of %s is dropped: it was reset while dlhald was not running "
				   "(the kernel counts %llu reloads of it, %lld when it was learnt)",
				   path, handle, (unsigned long long)now, (long long)json_integer_value(then));
		else if (!text || dlh_dev_learnt_set(dev, text, &ext))
			dlhald_log(LOG_WARNING, "%s: what was learnt of %s is dropped: %s", path, handle,
				   text ? dlh_extack_str(&ext, buf, sizeof(buf)) : "out of memory");
		else
			dlhald_log(LOG_INFO, "%s: taken back what was learnt of %s: %s", path, handle, text);
		free(text);
	}
	json_decref(root);
}

/*
 * What @dev's rules learnt, into @learnt by its handle, with the kernel's
 * count of its reloads then, into @reloads (a reset while dlhald is not
 * running is seen by it); a device not recognised, or learning nothing, has none.
 */
static int learnt_save(struct dlh_dev *dev, json_t *learnt, json_t *reloads, char *buf, size_t len,
		       struct dlh_extack *ext)
{
	json_t *v;
	uint64_t n;
	int err = dlh_dev_learnt_get(dev, buf, len, ext);

	if (err == -EOPNOTSUPP || (!err && !buf[0]))
		return 0;
	if (err)
		return err;
	v = json_loads(buf, JSON_REJECT_DUPLICATES, NULL);
	if (!json_is_object(v) || json_object_set_new(learnt, dlh_dev_handle(dev), v)) {
		json_decref(v);
		return dlh_extack_set(ext, -EIO, NULL, "what its rules learnt is no JSON object");
	}
	if (!dlh_dev_reloads(dev, &n) && n <= (uint64_t)INT64_MAX &&
	    json_object_set_new(reloads, dlh_dev_handle(dev), json_integer((json_int_t)n)))
		return dlh_extack_set(ext, -ENOMEM, NULL, "out of memory");
	return 0;
}

/* The device's ports with a desired type, as {"INDEX": "auto"}; none, no entry. */
static int desired_save(struct dlh_dev *dev, json_t *desired)
{
	json_t *ports = json_object();
	char key[16];

	for (struct dlh_port *p = dlh_port_first(dev); ports && p; p = dlh_port_next(p)) {
		if (dlh_port_desired_type(p) == DLH_PORT_TYPE_NOTSET)
			continue;
		snprintf(key, sizeof(key), "%u", dlh_port_index(p));
		if (json_object_set_new(ports, key, json_string(dlh_port_type_name(dlh_port_desired_type(p)))))
			break;
	}
	if (!ports)
		return -ENOMEM;
	if (!json_object_size(ports)) {
		json_decref(ports);
		return 0;
	}
	return json_object_set_new(desired, dlh_dev_handle(dev), ports) ? -ENOMEM : 0;
}

/* 0 once all of @len bytes are written; -1 with errno (EIO for a write that wrote nothing). */
static int write_all(int fd, const char *s, size_t len)
{
	while (len) {
		ssize_t n = write(fd, s, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = EIO;
			return -1;
		}
		s += n;
		len -= (size_t)n;
	}
	return 0;
}

int state_write(struct dlh_ctx *ctx, const char *path, char *why, size_t whylen)
{
	json_t *root =
	    json_pack("{s:i, s:o, s:o, s:{s:s, s:o, s:o}}", "version", 3, "devices", json_object(), "desired",
		      json_object(), "kernel", "boot", boot_id(), "learnt", json_object(), "reloads", json_object());
	json_t *devs = json_object_get(root, "devices"), *desired = json_object_get(root, "desired");
	json_t *learnt = json_object_get(json_object_get(root, "kernel"), "learnt");
	json_t *reloads = json_object_get(json_object_get(root, "kernel"), "reloads");
	char tmp[4096], dir[4096], *buf = malloc(DLHALD_STATE_MAX), *text;
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

		/* Devices without emulated hardware (the kernel's) have no state,
		 * but what their rules learnt; an emulated one whose state cannot
		 * be had fails the write rather than vanish from the file. */
		if (e == -EOPNOTSUPP) {
			e = learnt_save(dev, learnt, reloads, buf, DLHALD_STATE_MAX, &ext);
			if (!e)
				continue;
		}
		st = e ? NULL : json_loads(buf, 0, NULL);
		if (st && desired_save(dev, desired)) {
			json_decref(st);
			st = NULL;
			e = dlh_extack_set(&ext, -ENOMEM, NULL, "out of memory");
		}
		if (!st || json_object_set_new(devs, dlh_dev_handle(dev), st)) {
			snprintf(why, whylen, "the state of %s: %s", dlh_dev_handle(dev), e ? ext.msg : "not JSON");
			free(buf);
			json_decref(root);
			return e ? e : -EIO;
		}
	}
	free(buf);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	/* one text, written whole: json_dumpfd() writes token by token (a thousand calls for a switch) */
	text = json_dumps(root, JSON_INDENT(1));
	json_decref(root);
	errno = 0;
	fd = text ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
	if (fd < 0 || write_all(fd, text, strlen(text)) || write_all(fd, "\n", 1) || fsync(fd)) {
		err = errno ? -errno : -EIO;
		snprintf(why, whylen, "cannot write %s: %s", tmp, strerror(-err));
		if (fd >= 0)
			close(fd);
		unlink(tmp);
		free(text);
		return err;
	}
	close(fd);
	free(text);
	if (rename(tmp, path)) {
		err = -errno;
		snprintf(why, whylen, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
		return err;
	}
	/* The rename is durable once the directory is. */
	snprintf(dir, sizeof(dir), "%s", path);
	fd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd)) {
		err = -errno;
		snprintf(why, whylen, "cannot sync the directory of %s: %s", path, strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	return err;
}

/*
 * A failed write is tried again at every turn of the loop until it goes
 * through: logged once, not at every turn, again only when the reason
 * changes, and its end is logged too.
 */
int state_commit(struct server *srv, char *why, size_t whylen)
{
	int err;

	if (!srv->state || !srv->state_dirty)
		return 0;
	err = state_write(srv->ctx, srv->state, why, whylen);
	if (!err) {
		srv->state_dirty = false;
		if (srv->state_failed[0])
			dlhald_log(LOG_INFO, "%s: saved again", srv->state);
		srv->state_failed[0] = '\0';
		return 0;
	}
	if (strcmp(srv->state_failed, why)) {
		dlhald_log(LOG_ERR, "%s", why);
		snprintf(srv->state_failed, sizeof(srv->state_failed), "%s", why);
	}
	return err;
}
