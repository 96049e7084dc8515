/* SPDX-License-Identifier: MIT */
/*
 * Recognising a kernel device: which profile stands for it, by what it
 * reports of itself (`devlink dev info`: its Linux driver and versions), so
 * that the profile's driver's rules plan for it with the profile's facts. A
 * profile says what it stands for in its "kernel" object:
 *   "kernel": {"driver": "mlxsw_spectrum", "info": {"fw.psid": "MT_2860111033"}}
 * Every version named must be reported with that value (of any kind).
 */
#include "../core/core.h"
#include "host.h"
#include "profiles.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KERNEL_INFO_MAX 8 /* versions a profile may match on */

/* The "kernel" object of a profile, checked whole wherever a profile is read. */
int dlh__profile_kernel_check(json_t *root, const char *src, struct dlh_extack *ext)
{
	json_t *k = json_object_get(root, "kernel"), *info, *v;
	const char *drv, *key;

	if (!k)
		return 0;
	if (!json_is_object(k))
		return dlh__extack_set(ext, -EINVAL, NULL, "%s: field \"kernel\": expected an object", src);
	drv = json_string_value(json_object_get(k, "driver"));
	if (!drv || !drv[0] || strlen(drv) >= DLH_DRIVER_NAME_MAX || strcspn(drv, " \t\n/") != strlen(drv))
		return dlh__extack_set(ext, -EINVAL, NULL,
				       "%s: field \"kernel.driver\": expected a Linux driver name (1 to %d characters, "
				       "no blank or '/')",
				       src, DLH_DRIVER_NAME_MAX - 1);
	info = json_object_get(k, "info");
	if (info && (!json_is_object(info) || json_object_size(info) > KERNEL_INFO_MAX))
		return dlh__extack_set(ext, -EINVAL, NULL,
				       "%s: field \"kernel.info\": expected an object of up to %d versions", src,
				       KERNEL_INFO_MAX);
	json_object_foreach(info, key, v)
	{
		const char *s = json_string_value(v);

		if (!key[0] || strlen(key) >= DLH_VERSION_NAME_MAX || !s || !s[0] || strlen(s) >= DLH_VERSION_VALUE_MAX)
			return dlh__extack_set(ext, -EINVAL, NULL,
					       "%s: field \"kernel.info\": \"%s\": expected a version's name and value",
					       src, DLH__QUOTE(key, strlen(key)));
	}
	json_object_foreach(k, key, v)
	{
		if (strcmp(key, "driver") && strcmp(key, "info"))
			return dlh__extack_set(ext, -EINVAL, NULL, "%s: field \"kernel.%s\": unknown", src,
					       DLH__QUOTE(key, strlen(key)));
	}
	return 0;
}

static const char *version_of(const struct dlh_dev_info *info, const char *name)
{
	for (size_t i = 0; i < info->nversions; i++)
		if (!strcmp(info->versions[i].name, name))
			return info->versions[i].value;
	return NULL;
}

/* 1: @root stands for the device; 0: not; *named set when it names the device's driver. */
static int stands_for(json_t *root, const struct dlh_dev_info *info, bool *named)
{
	json_t *k = json_object_get(root, "kernel"), *v;
	const char *drv = json_string_value(json_object_get(k, "driver")), *key;

	if (!drv || strcmp(drv, info->driver))
		return 0;
	*named = true;
	json_object_foreach(json_object_get(k, "info"), key, v)
	{
		const char *have = version_of(info, key);

		if (!have || !json_is_string(v) || strcmp(have, json_string_value(v)))
			return 0;
	}
	return 1;
}

struct candidate {
	char name[256]; /* built-in name or path */
	json_t *root;
};

/* The next profile to try: built-ins first, then each NAME.json of $DLHAL_PROFILE_PATH's folders. */
struct walk {
	size_t builtin;
	char dirs[4096];
	char *save, *dir;
	DIR *d;
};

static bool walk_next(struct walk *w, struct candidate *c)
{
	struct dlh_extack ext;
	struct dirent *e;

	json_decref(c->root);
	c->root = NULL;
	while (dlh__profile_names[w->builtin]) {
		const char *name = dlh__profile_names[w->builtin++];

		if (!dlh__profile_open(name, &c->root, c->name, sizeof(c->name), &ext))
			return true;
	}
	for (;;) {
		while (w->d && (e = readdir(w->d))) {
			size_t n = strlen(e->d_name);

			char path[sizeof(c->name)];

			if (n < 6 || strcmp(e->d_name + n - 5, ".json") ||
			    (size_t)snprintf(path, sizeof(path), "%s/%s", w->dir, e->d_name) >= sizeof(path))
				continue;
			if (!dlh__profile_open(path, &c->root, c->name, sizeof(c->name), &ext) &&
			    !dlh__profile_kernel_check(c->root, c->name, &ext))
				return true;
			json_decref(c->root);
			c->root = NULL;
		}
		if (w->d)
			closedir(w->d);
		w->d = NULL;
		w->dir = strtok_r(w->dir ? NULL : w->dirs, ":", &w->save);
		if (!w->dir)
			return false;
		w->d = opendir(w->dir);
	}
}

/* @linux_drv: the device's own Linux driver (a nested instance's, not its parent's that the profile names) */
static int attach(struct dlh_dev *dev, const struct candidate *c, const char *linux_drv, struct dlh_extack *ext)
{
	const char *driver = json_string_value(json_object_get(c->root, "driver"));
	json_t *hw = json_object_get(c->root, "hw"), *fp = json_object_get(c->root, "faceplate");
	const struct dlh_sdk_driver *drv;
	struct dlh_cage *cages = NULL;
	char *config = NULL;
	size_t ncages = 0;
	int err;

	if (!driver)
		return dlh__extack_set(ext, -EINVAL, dev->handle, "%s: field \"driver\": expected a string", c->name);
	drv = dlh__driver_find(dev->ctx, driver);
	if (!drv) {
		err = dlh__driver_autoload(dev->ctx, driver, ext);
		if (err) {
			/* the plans stay partial: saying so, not as if no profile stood for the device */
			char why[DLH_EXTACK_MSG_MAX + 300];

			snprintf(why, sizeof(why), "profile %s stands for it, but its driver %s cannot be loaded: %s",
				 c->name, driver, ext && ext->msg[0] ? ext->msg : strerror(-err));
			dlh__dev_rules_missing(dev, why);
			return err;
		}
		drv = dlh__driver_find(dev->ctx, driver);
	}
	if (hw) {
		config = json_dumps(hw, JSON_COMPACT);
		if (!config)
			return dlh__extack_set(ext, -ENOMEM, dev->handle, "Out of memory");
	}
	err = dlh__dev_rules_attach(dev, drv, linux_drv, config, c->name, ext);
	free(config);
	if (err)
		return err;
	/* the board's faceplate: a panel draws the device as the profile's own would be */
	if (fp && !dlh__faceplate_parse(fp, c->name, &cages, &ncages, ext) && ncages &&
	    dlh_sdk_dev_cages_set(dev, cages, ncages, ext))
		dlh__log(dev->ctx, DLH_LOG_WARNING, dev, "faceplate of profile %s does not fit: %s", c->name, ext->msg);
	free(cages);
	return 0;
}

/*
 * A nested instance (Linux 6.12's auxiliary/mlx5_core.eth.N) reports only its driver: the profile
 * that stands for the instance it is nested in stands for it, when that profile's rules know its
 * driver too. 1: @info now holds the parent's; 0: no parent.
 */
static int parent_info(struct dlh_dev *dev, struct dlh_dev_info *info, struct dlh_extack *ext)
{
	struct dlh_dev *parent = dlh_dev_nested_in(dev);
	int err;

	if (!parent)
		return 0;
	err = dlh_dev_info_get(parent, info, ext);
	return err ? err : 1;
}

static int recognise(struct dlh_dev *dev, struct dlh_extack *ext)
{
	struct candidate c = {.root = NULL};
	struct walk w = {0};
	struct dlh_dev_info info, own;
	const char *env = getenv("DLHAL_PROFILE_PATH");
	bool named = false, nested = false;
	char why[DLH_EXTACK_MSG_MAX];
	int err, misfit = 0;

	err = dlh_dev_info_get(dev, &info, ext);
	if (err == -EBUSY)
		return err;
	if (err || !info.driver[0]) {
		dlh__dev_rules_missing(dev, "the kernel names no driver for it");
		return -ENODEV;
	}
	own = info;
again:
	snprintf(w.dirs, sizeof(w.dirs), "%s", env ? env : "");
	while (walk_next(&w, &c)) {
		if (!stands_for(c.root, &info, &named))
			continue;
		err = attach(dev, &c, own.driver, ext);
		/* a board whose layout does not fit: another of the same driver may (no PSID tells them apart) */
		if (err == -EINVAL) {
			if (!misfit) {
				misfit = err;
				snprintf(why, sizeof(why), "%s", ext && ext->msg[0] ? ext->msg : "does not fit");
			}
			continue;
		}
		json_decref(c.root);
		if (w.d)
			closedir(w.d);
		return err;
	}
	if (misfit) {
		/* the first profile that stood for it says why, as if it had been the only one */
		dlh__dev_rules_missing(dev, why);
		return dlh__extack_set(ext, misfit, dev->handle, "%s", why);
	}
	if (!named && !nested) {
		err = parent_info(dev, &info, ext);
		if (err == -EBUSY)
			return err;
		if (err == 1) {
			nested = true;
			memset(&w, 0, sizeof(w));
			goto again;
		}
		info = own;
	}
	if (nested)
		snprintf(why, sizeof(why), "no profile stands for driver %s, nor for the %s instance it is nested in",
			 own.driver, info.driver);
	else if (named)
		snprintf(why, sizeof(why), "no profile stands for this %s board (its info matches none)", info.driver);
	else
		snprintf(why, sizeof(why), "no profile stands for driver %s", info.driver);
	dlh__dev_rules_missing(dev, why);
	return -ENODEV;
}

__attribute__((constructor)) static void recognise_register(void)
{
	dlh__recognise_hook = recognise;
}
