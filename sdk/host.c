/* SPDX-License-Identifier: MIT */
/*
 * The embedded host: turns a board profile into a probed device, finding the
 * driver among the linked-in ones or as a module on the module path.
 */
#include "../core/core.h"
#include "host.h"
#include "profiles.h" /* generated next to profiles.c; see sdk/meson.build */

#include <dlfcn.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef DLH_MODULE_DIR
#define DLH_MODULE_DIR "/usr/local/lib/dlhal"
#endif

DLH_EXPORT const char *const *dlh_sim_profiles(void)
{
	return dlh__profile_names;
}

int (*dlh__module_load_hook)(const char *path, struct dlh_extack *ext);

/* Loads the module at @path; with @want, only if the driver inside is named @want. */
static int module_load(struct dlh_ctx *ctx, const char *path, const char *want, struct dlh_extack *ext)
{
	const struct dlh_sdk_module *mod;
	void *h;
	int err;

	if (dlh__module_load_hook)
		return dlh__module_load_hook(path, ext);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return dlh__extack_set(ext, -ENOENT, path, "Cannot load module: %s", dlerror());
	mod = dlsym(h, DLH_SDK_MODULE_SYMBOL);
	if (!mod) {
		err = dlh__extack_set(ext, -ENOEXEC, path, "Not a dlhal driver module (no %s)", DLH_SDK_MODULE_SYMBOL);
		goto err_close;
	}
	/* Check the entry's ABI before reading anything else of it. */
	if (mod->abi_version != DLH_SDK_ABI_VERSION) {
		err = dlh__extack_set(ext, -ENOEXEC, path, "Module ABI version %u, host ABI version %u",
				      mod->abi_version, DLH_SDK_ABI_VERSION);
		goto err_close;
	}
	if (!mod->driver) {
		err = dlh__extack_set(ext, -ENOEXEC, path, "Module entry names no driver");
		goto err_close;
	}
	/* NAME.so must hold driver NAME: profiles name drivers, not files. */
	if (want && (!mod->driver->name || strcmp(mod->driver->name, want))) {
		err = dlh__extack_set(ext, -ENOEXEC, path, "Module holds driver \"%s\", not \"%s\"",
				      mod->driver->name ? mod->driver->name : "", want);
		goto err_close;
	}
	err = dlh__driver_add(ctx, mod->driver, h, path, ext);
	if (err)
		goto err_close;
	return 0;

err_close:
	dlclose(h);
	return err;
}

DLH_EXPORT int dlh_ctx_module_load(struct dlh_ctx *ctx, const char *path, struct dlh_extack *ext)
{
	dlh__extack_clear(ext);
	return module_load(ctx, path, NULL, ext);
}

/*
 * Finds DRIVER.so in $DLHAL_MODULE_PATH, then in the installed module
 * directory: $DLHAL_MODULE_DIR when set (empty: none, as a test suite wants
 * whatever is installed on its machine), else the one built in.
 */
int dlh__driver_autoload(struct dlh_ctx *ctx, const char *name, struct dlh_extack *ext)
{
	const char *env = getenv("DLHAL_MODULE_PATH"), *sys = getenv("DLHAL_MODULE_DIR");
	char dirs[4096], path[4352];
	char *save = NULL;

	if (!sys)
		sys = DLH_MODULE_DIR;
	snprintf(dirs, sizeof(dirs), "%s%s%s", env ? env : "", env && *sys ? ":" : "", sys);
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(path, sizeof(path), "%s/%s.so", d, name);
		if (access(path, R_OK))
			continue;
		return module_load(ctx, path, name, ext);
	}
	return dlh__extack_set(ext, -ENOENT, NULL, "No driver \"%s\" (not linked in, no %s.so on the module path)",
			       name, name);
}

DLH_EXPORT int dlh_ctx_bus_attach(struct dlh_ctx *ctx, const char *driver, const char *config, struct dlh_extack *ext)
{
	const struct dlh_sdk_driver *drv;
	int err;

	dlh__extack_clear(ext);
	drv = dlh__driver_find(ctx, driver);
	if (!drv) {
		err = dlh__driver_autoload(ctx, driver, ext);
		if (err)
			return err;
		drv = dlh__driver_find(ctx, driver);
	}
	return dlh__bus_attach(ctx, drv, config, NULL, ext);
}

static int is_path(const char *s)
{
	size_t n = strlen(s);

	return strchr(s, '/') || (n > 5 && !strcmp(s + n - 5, ".json"));
}

/* Reads the profile text: a path, NAME.json on $DLHAL_PROFILE_PATH, or a built-in. */
int dlh__profile_open(const char *profile, json_t **root, char *src, size_t srclen, struct dlh_extack *ext)
{
	const char *env = getenv("DLHAL_PROFILE_PATH");
	json_error_t jerr;
	char path[4352];

	if (is_path(profile)) {
		snprintf(src, srclen, "%s", profile);
		*root = json_load_file(profile, JSON_REJECT_DUPLICATES, &jerr);
		goto parsed;
	}
	if (env) {
		char dirs[4096], *save = NULL;

		snprintf(dirs, sizeof(dirs), "%s", env);
		for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			snprintf(path, sizeof(path), "%s/%s.json", d, profile);
			if (access(path, R_OK))
				continue;
			snprintf(src, srclen, "%s", path);
			*root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
			goto parsed;
		}
	}
	for (size_t i = 0; dlh__profile_names[i]; i++) {
		if (strcmp(dlh__profile_names[i], profile))
			continue;
		snprintf(src, srclen, "%s", profile);
		*root = json_loads(dlh__profile_texts[i], JSON_REJECT_DUPLICATES, &jerr);
		goto parsed;
	}
	return dlh__extack_set(ext, -ENOENT, NULL, "Unknown profile \"%s\"", DLH__QUOTE(profile, strlen(profile)));
parsed:
	if (!*root) {
		if (jerr.line < 0)
			return dlh__extack_set(ext, -ENOENT, NULL, "%s: %s", src, jerr.text);
		return dlh__extack_set(ext, -EINVAL, NULL, "%s:%d:%d: %s", src, jerr.line, jerr.column, jerr.text);
	}
	return 0;
}

/*
 * "faceplate": {"form": "QSFP28", "cages": [{"number": 1, "row": 0, "col": 0, "form": ..., "label": ...,
 * "module": 0}]}: each cage's front-panel number and place, its form (the faceplate's by default), label
 * (its number by default) and, for a cage found by module rather than number, the module its ports
 * report. Checked whole here; against the ports once the device has probed (or the card is up).
 */
int dlh__faceplate_parse(json_t *fp, const char *src, struct dlh_cage **out, size_t *n, struct dlh_extack *ext)
{
	json_t *cages = json_object_get(fp, "cages"), *c;
	const char *form = json_string_value(json_object_get(fp, "form"));
	const char *key;
	json_t *v;
	size_t i;

	*out = NULL;
	*n = 0;
	if (!json_is_object(fp) || !json_is_array(cages) || !json_array_size(cages) || json_array_size(cages) > 1024)
		return dlh__extack_set(
		    ext, -EINVAL, NULL,
		    "%s: field \"faceplate\": expected {\"form\": ..., \"cages\": [1 to 1024 cages]}", src);
	json_object_foreach(fp, key, v)
	{
		if (strcmp(key, "form") && strcmp(key, "cages"))
			return dlh__extack_set(ext, -EINVAL, NULL, "%s: field \"faceplate.%s\": unknown", src,
					       DLH__QUOTE(key, strlen(key)));
	}
	if (json_object_get(fp, "form") && (!form || !*form || strlen(form) >= DLH_CAGE_NAME_MAX))
		return dlh__extack_set(ext, -EINVAL, NULL, "%s: field \"faceplate.form\": expected 1 to %d characters",
				       src, DLH_CAGE_NAME_MAX - 1);
	*out = calloc(json_array_size(cages), sizeof(**out));
	if (!*out)
		return dlh__extack_set(ext, -ENOMEM, NULL, "Out of memory");
	json_array_foreach(cages, i, c)
	{
		struct dlh_cage *g = &(*out)[i];
		json_int_t num, row, col, module = -1;
		const char *f = form, *label = NULL;

		if (json_unpack(c, "{s:I,s:I,s:I,s?s,s?s,s?I!}", "number", &num, "row", &row, "col", &col, "form", &f,
				"label", &label, "module", &module) ||
		    num < 0 || num > UINT32_MAX || row < 0 || row > 63 || col < 0 || col > 63 ||
		    (json_object_get(c, "module") && (module < 0 || module > UINT32_MAX))) {
			free(*out);
			*out = NULL;
			return dlh__extack_set(
			    ext, -EINVAL, NULL,
			    "%s: field \"faceplate.cages[%zu]\": expected {\"number\": 0 to 4294967295, "
			    "\"row\": 0 to 63, \"col\": 0 to 63, \"form\", \"label\" and \"module\" optional}",
			    src, i);
		}
		g->number = (uint32_t)num;
		g->has_module = json_object_get(c, "module") != NULL;
		g->module = g->has_module ? (uint32_t)module : 0;
		g->row = (unsigned int)row;
		g->col = (unsigned int)col;
		if (!f || !*f || strlen(f) >= DLH_CAGE_NAME_MAX ||
		    (label && (!*label || strlen(label) >= DLH_CAGE_NAME_MAX))) {
			free(*out);
			*out = NULL;
			return dlh__extack_set(
			    ext, -EINVAL, NULL,
			    "%s: field \"faceplate.cages[%zu]\": form and label are 1 to %d characters%s", src, i,
			    DLH_CAGE_NAME_MAX - 1, f ? "" : " (no form, and none for the faceplate)");
		}
		snprintf(g->form, sizeof(g->form), "%s", f);
		if (label)
			snprintf(g->label, sizeof(g->label), "%s", label);
		else
			snprintf(g->label, sizeof(g->label), "%u", g->number);
	}
	*n = json_array_size(cages);
	return 0;
}

/* The faceplate on the device it was written for: every cage's number (or module) is one of its ports'. */
static int faceplate_apply(struct dlh_ctx *ctx, const char *handle, const struct dlh_cage *cages, size_t n,
			   bool restored, const char *src, struct dlh_extack *ext)
{
	struct dlh_dev *dev = dlh__dev_find(ctx, handle);

	if (!dev)
		return dlh__extack_set(ext, -ENODEV, NULL, "%s: field \"faceplate\": no device %s", src, handle);
	/* a device brought back from saved state may have split ports over a cage's lanes: its ports as
	 * the profile starts them are what the numbers are checked against, on a load without state */
	for (size_t i = 0; i < n && !restored; i++) {
		bool found = false;

		for (struct dlh_port *p = dlh_port_first(dev); p && !found; p = dlh_port_next(p))
			found = cages[i].has_module ? p->attrs.has_module && p->attrs.module == cages[i].module
						    : p->attrs.number == cages[i].number;
		if (!found && cages[i].has_module)
			return dlh__extack_set(
			    ext, -EINVAL, NULL,
			    "%s: field \"faceplate.cages[%zu].module\": no port of %s is on module %u", src, i, handle,
			    cages[i].module);
		if (!found)
			return dlh__extack_set(ext, -EINVAL, NULL,
					       "%s: field \"faceplate.cages[%zu].number\": no port of %s has number %u",
					       src, i, handle, cages[i].number);
	}
	if (dlh_sdk_dev_cages_set(dev, cages, n, ext)) {
		char why[DLH_EXTACK_MSG_MAX];

		snprintf(why, sizeof(why), "%s", ext->msg);
		return dlh__extack_set(ext, -EINVAL, NULL, "%s: field \"faceplate\": %s", src, why);
	}
	return 0;
}

DLH_EXPORT int dlh_ctx_sim_load(struct dlh_ctx *ctx, const char *profile, struct dlh_extack *ext)
{
	return dlh_ctx_sim_load_state(ctx, profile, NULL, ext);
}

DLH_EXPORT int dlh_ctx_sim_load_state(struct dlh_ctx *ctx, const char *profile, const char *states,
				      struct dlh_extack *ext)
{
	char src[4352], msg[DLH_EXTACK_MSG_MAX + 64];
	const struct dlh_sdk_driver *drv;
	const char *driver, *handle;
	json_t *root = NULL, *hw, *fp;
	struct dlh_cage *cages = NULL;
	bool restored = false;
	size_t ncages = 0;
	char *config = NULL;
	int err;

	dlh__extack_clear(ext);
	err = dlh__profile_open(profile, &root, src, sizeof(src), ext);
	if (err)
		return err;
	if (!json_is_object(root)) {
		err = dlh__extack_set(ext, -EINVAL, NULL, "%s: expected a JSON object", src);
		goto out_root;
	}
	driver = json_string_value(json_object_get(root, "driver"));
	handle = json_string_value(json_object_get(root, "handle"));
	hw = json_object_get(root, "hw");
	/* A name, not a path: it becomes NAME.so on the module path. */
	if (!driver || !driver[0] || strlen(driver) >= 64 ||
	    strspn(driver, "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(driver)) {
		err = dlh__extack_set(ext, -EINVAL, NULL,
				      "%s: field \"driver\": expected a driver name (a-z, 0-9, '_', '-')", src);
		goto out_root;
	}
	if (!handle) {
		err = dlh__extack_set(ext, -EINVAL, NULL, "%s: field \"handle\": expected a string \"bus/dev\"", src);
		goto out_root;
	}
	if (hw && !json_is_object(hw)) {
		err = dlh__extack_set(ext, -EINVAL, NULL, "%s: field \"hw\": expected an object", src);
		goto out_root;
	}
	err = dlh__profile_kernel_check(root, src, ext);
	if (err)
		goto out_root;
	fp = json_object_get(root, "faceplate");
	if (fp) {
		err = dlh__faceplate_parse(fp, src, &cages, &ncages, ext);
		if (err)
			goto out_root;
	}
	if (states) {
		json_t *all = json_loads(states, 0, NULL), *st;

		if (!json_is_object(all)) {
			json_decref(all);
			err = dlh__extack_set(ext, -EINVAL, NULL, "saved state: expected an object of devices");
			goto out_root;
		}
		st = json_object_get(all, handle);
		/* The driver reads its saved hardware from hw.state. */
		if (st && hw)
			json_object_set(hw, "state", st);
		restored = st != NULL;
		json_decref(all);
	}
	drv = dlh__driver_find(ctx, driver);
	if (!drv) {
		err = dlh__driver_autoload(ctx, driver, ext);
		if (err)
			goto out_prefix;
		drv = dlh__driver_find(ctx, driver);
	}
	/* A card of several devices (its driver a bus of its own, DLH_SDK_F_BUS_LOCAL) is attached, not
	 * probed: it reads the profile's handle, its first device's, from hw.handle. */
	if (DLH__OP(drv, bus_attach) && hw)
		json_object_set_new(hw, "handle", json_string(handle));
	if (hw) {
		config = json_dumps(hw, JSON_COMPACT);
		if (!config) {
			err = dlh__extack_set(ext, -ENOMEM, NULL, "Out of memory");
			goto out_root;
		}
	}
	if (DLH__OP(drv, bus_attach)) {
		/* a card's faceplate is the card's: each device gets it as the driver adds it, after any reset */
		struct dlh__card card = {.name = handle, .cages = cages, .n = ncages, .src = src};

		err = DLH__OPVAL(drv, flags) & DLH_SDK_F_BUS_LOCAL
			  ? dlh__bus_attach(ctx, drv, config, &card, ext)
			  : dlh__extack_set(ext, -EINVAL, NULL, "Driver %s relays a kernel or a daemon: no profile",
					    driver);
		if (err && ext && !strncmp(ext->msg, src, strlen(src)))
			goto out_config; /* the faceplate's message names the profile already */
		goto out_prefix;
	}
	err = dlh__dev_add(ctx, handle, drv, config, ext);
	/* A faceplate that does not fit the device is refused, and the device with it. */
	if (!err && ncages) {
		err = faceplate_apply(ctx, handle, cages, ncages, restored, src, ext);
		if (err) {
			dlh__dev_remove(dlh__dev_find(ctx, handle));
			goto out_config;
		}
	}
out_prefix:
	if (err && ext) {
		/* Say which profile the failure came from. */
		/* Keep the end of a long path: the file name is what matters. */
		size_t n = strlen(src);
		const char *tail = n > 96 ? src + n - 96 : src;

		snprintf(msg, sizeof(msg), "%s: %s", tail, ext->msg);
		dlh_sdk_extack(ext, 0, "%s", msg);
	}
out_config:
	free(config);
out_root:
	free(cages);
	json_decref(root);
	return err;
}
