/* SPDX-License-Identifier: MIT */
/*
 * Which backends a context takes, once for every front end (dl, Lua, the
 * kit): a dlhald when asked or when its default socket exists and nothing
 * else was asked; the kernel when asked or when nothing else was; then each
 * emulated profile.
 */
#include "../core/core.h"

#include <dlhal/protocol.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int fail(struct dlh_backends_failure *failed, enum dlh_backend backend, bool asked, const char *profile, int err)
{
	if (failed) {
		failed->backend = backend;
		failed->asked = asked;
		snprintf(failed->profile, sizeof(failed->profile), "%s", profile ? profile : "");
	}
	return err;
}

static int sim_one(struct dlh_ctx *ctx, const char *name, struct dlh_backends_failure *failed, struct dlh_extack *ext)
{
	int err;

	if (!name[0])
		return fail(failed, DLH_BACKEND_SIM, true, name,
			    dlh__extack_set(ext, -EINVAL, NULL, "A profile name is empty"));
	err = dlh_ctx_sim_load(ctx, name, ext);
	return err ? fail(failed, DLH_BACKEND_SIM, true, name, err) : 0;
}

/*
 * A device handle two backends serve (a dlhald's switch and an emulated one
 * of the same address) would be one backend's, the other's hidden: a change
 * reported done could go to the one the user did not mean. With more than
 * one backend the devices are read now, and such a handle refuses the lot.
 */
static int clash_check(struct dlh_ctx *ctx, const struct dlh_backends *b, struct dlh_backends_failure *failed,
		       struct dlh_extack *ext)
{
	int relays = 0;

	for (struct dlh__list *it = ctx->buses.next; it != &ctx->buses; it = it->next)
		relays += DLH__RELAY(dlh__container_of(it, struct dlh_sdk_bus, node)->drv);
	if (relays + ((b->sim || b->sims) ? 1 : 0) < 2)
		return 0;
	dlh_dev_first(ctx);
	if (!ctx->clash[0])
		return 0;
	return fail(failed, (b->sim || b->sims) ? DLH_BACKEND_SIM : DLH_BACKEND_KERNEL, true, NULL,
		    dlh__extack_set(ext, -EEXIST, NULL, "%s", ctx->clash));
}

DLH_EXPORT int dlh_ctx_backends_attach(struct dlh_ctx *ctx, const struct dlh_backends *b,
				       struct dlh_backends_failure *failed, struct dlh_extack *ext)
{
	bool sim = b->sim || b->sims, daemon_default;
	char list[1024], scope[DLH_HANDLE_MAX + 8], *save = NULL;
	int err;

	dlh__extack_clear(ext);
	fail(failed, DLH_BACKEND_NONE, false, NULL, 0);
	daemon_default = !sim && !b->kernel && !b->socket && !access(DLHAL_SOCKET_DEFAULT, F_OK);
	if (b->socket || daemon_default) {
		err = dlh_ctx_bus_attach(ctx, "daemon", b->socket, ext);
		if (err)
			return fail(failed, DLH_BACKEND_DAEMON, b->socket != NULL, NULL, err);
	}
	if (b->kernel || (!sim && !b->socket && !daemon_default)) {
		if (b->kernel_scope &&
		    (size_t)snprintf(scope, sizeof(scope), "dev=%s", b->kernel_scope) >= sizeof(scope))
			return fail(failed, DLH_BACKEND_KERNEL, true, NULL,
				    dlh__extack_set(ext, -EINVAL, NULL, "Device handle is too long"));
		err = dlh_ctx_bus_attach(ctx, "kernel", b->kernel_scope ? scope : NULL, ext);
		if (err)
			return fail(failed, DLH_BACKEND_KERNEL, b->kernel, NULL, err);
	}
	for (const char *const *p = b->sims; p && *p; p++) {
		err = sim_one(ctx, *p, failed, ext);
		if (err)
			return err;
	}
	if (!b->sim)
		return clash_check(ctx, b, failed, ext);
	if (strlen(b->sim) >= sizeof(list))
		return fail(failed, DLH_BACKEND_SIM, true, NULL,
			    dlh__extack_set(ext, -EINVAL, NULL, "Profile list is longer than %zu characters",
					    sizeof(list) - 1));
	snprintf(list, sizeof(list), "%s", b->sim);
	for (char *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		err = sim_one(ctx, p, failed, ext);
		if (err)
			return err;
	}
	return clash_check(ctx, b, failed, ext);
}
