/* SPDX-License-Identifier: MIT */
/*
 * A small staged driver for the kit (tests/conform-buggy.sh): one port whose
 * split is stored in an emulated NVM and applied at the next power cycle,
 * and, chosen by $DLHAL_BUG, the two bugs the kit's staged check is for:
 *   forget   the NVM is not in the saved state: a restart forgets what is pending
 *   at_once  the split is applied at once although the driver says it is staged
 */
#include <dlhal/sdk.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MSG "Reboot required to finish port split"

struct priv {
	unsigned int active, pending; /* the split in force (1: whole) and the one stored, 0 if none */
};

static bool bug(const char *name)
{
	const char *b = getenv("DLHAL_BUG");

	return b && !strcmp(b, name);
}

static struct priv *priv_of(struct dlh_dev *dev)
{
	return dlh_sdk_dev_priv(dev);
}

/* The ports of split @n: one whole port 1, or ports 1..n of one group. */
static int ports_up(struct dlh_dev *dev, unsigned int n, struct dlh_extack *ext)
{
	char name[16];

	for (unsigned int i = 1; i <= n; i++) {
		struct dlh_sdk_port_attrs a = {.number = 1, .lanes = n == 1 ? 4 : 4 / n, .splittable = n == 1};
		struct dlh_port *p;
		int err;

		a.split = n > 1;
		a.split_group = n > 1 ? 1 : 0;
		a.split_subport = i - 1;
		snprintf(name, sizeof(name), n == 1 ? "stg1" : "stg1s%u", i - 1);
		err = dlh_sdk_port_register(dev, i, &a, &p, ext);
		if (!err)
			err = dlh_sdk_port_type_eth(p, name, ext);
		if (err)
			return err;
	}
	return 0;
}

static void pending_say(struct dlh_dev *dev)
{
	struct dlh_pending p = {.split = priv_of(dev)->pending};

	if (p.split)
		snprintf(p.message, sizeof(p.message), "%s", MSG);
	dlh_sdk_dev_pending_set(dev, &p);
}

static int stg_probe(struct dlh_dev *dev, const char *config, struct dlh_extack *ext)
{
	json_t *hw = config ? json_loads(config, 0, NULL) : NULL, *st = json_object_get(hw, "state");
	struct priv *pv = priv_of(dev);
	int err;

	pv->active = 1;
	if (json_is_object(st)) {
		json_int_t a = json_integer_value(json_object_get(st, "active"));
		json_int_t p = json_integer_value(json_object_get(st, "pending"));

		pv->active = a == 2 || a == 4 ? (unsigned int)a : 1;
		pv->pending = p == 1 || p == 2 || p == 4 ? (unsigned int)p : 0;
	}
	json_decref(hw);
	err = ports_up(dev, pv->active, ext);
	if (!err)
		pending_say(dev);
	return err;
}

static int stg_split_to(struct dlh_port *port, unsigned int n, struct dlh_extack *ext)
{
	struct dlh_dev *dev = dlh_port_dev(port);

	if (n == priv_of(dev)->active && !priv_of(dev)->pending)
		return dlh_sdk_extack(ext, -EINVAL, "Requested split count is already set");
	if (bug("at_once")) {
		for (struct dlh_port *p = dlh_port_first(dev), *next; p; p = next) {
			next = dlh_port_next(p);
			dlh_sdk_port_unregister(p);
		}
		return ports_up(dev, n, ext);
	}
	priv_of(dev)->pending = n;
	pending_say(dev);
	return dlh_sdk_extack(ext, 0, MSG);
}

static int stg_split(struct dlh_port *port, unsigned int count, struct dlh_extack *ext)
{
	return stg_split_to(port, count, ext);
}

static int stg_unsplit(struct dlh_port *port, struct dlh_extack *ext)
{
	return stg_split_to(port, 1, ext);
}

static int stg_split_plan(struct dlh_port *port, unsigned int count, struct dlh_sdk_plan *plan, struct dlh_extack *ext)
{
	char name[16];

	for (unsigned int i = 1; i <= count; i++) {
		struct dlh_sdk_port_attrs a = {.number = 1, .lanes = 4 / count, .split = count > 1};
		int err;

		snprintf(name, sizeof(name), "stg1s%u", i - 1);
		err = dlh_sdk_plan_after(plan, dlh_dev_handle(dlh_port_dev(port)), i, &a, DLH_PORT_TYPE_ETH, name, ext);
		if (err)
			return err;
	}
	return 0;
}

/* The power cycle: the NVM's split comes up. */
static int stg_sim_reset(struct dlh_dev *dev, struct dlh_extack *ext)
{
	struct priv *pv = priv_of(dev);

	if (pv->pending)
		pv->active = pv->pending;
	pv->pending = 0;
	for (struct dlh_port *p = dlh_port_first(dev), *next; p; p = next) {
		next = dlh_port_next(p);
		dlh_sdk_port_unregister(p);
	}
	pending_say(dev);
	return ports_up(dev, pv->active, ext);
}

static int stg_sim_get(struct dlh_dev *dev, struct dlh_port *port, const char *key, char *buf, size_t len,
		       struct dlh_extack *ext)
{
	struct priv *pv = priv_of(dev);
	int n;

	if (port || strcmp(key, "state"))
		return dlh_sdk_extack(ext, -EINVAL, "Unknown emulator control \"%s\" (state on the device)", key);
	n = pv->pending && !bug("forget")
		? snprintf(buf, len, "{\"active\":%u,\"pending\":%u}", pv->active, pv->pending)
		: snprintf(buf, len, "{\"active\":%u}", pv->active);
	return n < 0 || (size_t)n >= len ? dlh_sdk_extack(ext, -ENOSPC, "Buffer too small") : 0;
}

static int stg_sim_set(struct dlh_dev *dev, struct dlh_port *port, const char *key, const char *value,
		       struct dlh_extack *ext)
{
	(void)dev;
	(void)port;
	(void)value;
	return dlh_sdk_extack(ext, -EINVAL, "Unknown emulator control \"%s\"", key);
}

static const struct dlh_sdk_ops stg_ops = {
    .probe = stg_probe,
    .port_split = stg_split,
    .port_unsplit = stg_unsplit,
    .port_split_plan = stg_split_plan,
    .sim_set = stg_sim_set,
    .sim_get = stg_sim_get,
    .staged = DLH_SDK_STAGED_SPLIT,
    .sim_reset = stg_sim_reset,
};

static const struct dlh_sdk_driver stg_driver = {
    DLH_SDK_DRIVER_INIT("buggy_staged", &stg_ops),
    .dev_priv_size = sizeof(struct priv),
};

DLH_SDK_MODULE(stg_driver);
