/* SPDX-License-Identifier: MIT */
/*
 * The example switch with one bug, chosen by $DLHAL_BUG, for each check of
 * dlhal-conform: tests/conform-buggy.sh runs the kit against each and
 * expects that check, and only a check, to fail. Module buggy.so, driver "buggy".
 */
#include <dlhal/sdk.h>

#undef DLH_SDK_MODULE
#define DLH_SDK_MODULE(drv) extern int example_module_entry_unused
#include "../examples/driver/example.c"

static const char *bug(void)
{
	const char *b = getenv("DLHAL_BUG");

	return b ? b : "";
}

static int is(const char *name)
{
	return !strcmp(bug(), name);
}

static int buggy_probe(struct dlh_dev *dev, const char *config, struct dlh_extack *ext)
{
	struct dlh_sdk_port_attrs a;
	struct dlh_port *p;
	int err;

	if (is("noports")) /* forgets to register its ports */
		return 0;
	if (is("silent")) /* fails its probe and says nothing */
		return -EIO;
	err = example_probe(dev, config, ext);
	if (!err && is("lanes") && (p = dlh_port_find(dev, 4))) {
		/* claims a one-lane port can be split */
		a = (struct dlh_sdk_port_attrs){
		    .flavour = DLH_PORT_FLAVOUR_PHYSICAL, .number = 2, .lanes = 1, .splittable = true};
		dlh_sdk_port_attrs_set(p, &a);
	}
	return err;
}

static unsigned int unsplits;

static int buggy_port_split(struct dlh_port *port, unsigned int count, struct dlh_extack *ext)
{
	struct dlh_dev *dev = dlh_port_dev(port);
	struct example *ex = dlh_sdk_dev_priv(dev);
	unsigned int base = dlh_port_index(port) / EX_LANES * EX_LANES;
	struct dlh_sdk_port_attrs a;
	struct dlh_port *p;
	int err;

	if (is("silent_op")) /* fails an op and says nothing */
		return -EIO;
	/* cages 2k and 2k+1 share a SerDes: at most one of them split. The op knows; the plan does not. */
	if (is("serdes")) {
		unsigned int pair = (base / EX_LANES) ^ 1;

		for (unsigned int i = 0; i < EX_LANES; i++)
			if (pair * EX_LANES + i < ex->cages * EX_LANES && ex->width[pair * EX_LANES + i] &&
			    ex->width[pair * EX_LANES + i] < EX_LANES)
				return dlh_sdk_extack(ext, -EINVAL, "Cage shares its SerDes with a split cage");
	}
	err = example_port_split(port, count, ext);
	if (err) {
		if (is("atomic") && err == -EIO)
			ex->width[base + 1] = 3; /* a register its rollback forgot */
		return err;
	}
	if (is("split_count")) /* the last port of the split never appears */
		dlh_sdk_port_unregister(dlh_port_find(dev, base + EX_LANES - EX_LANES / count));
	if (is("splittable_split")) /* split ports say they can be split again */
		for (unsigned int i = 0; i < EX_LANES; i++)
			if ((p = dlh_port_find(dev, base + i))) {
				a = (struct dlh_sdk_port_attrs){.flavour = DLH_PORT_FLAVOUR_PHYSICAL,
								.number = dlh_port_number(p),
								.lanes = dlh_port_lanes(p),
								.split = true,
								.split_group = dlh_port_split_group(p),
								.split_subport = dlh_port_split_subport(p),
								.splittable = true,
								.speed = dlh_port_speed(p)};
				dlh_sdk_port_attrs_set(p, &a);
			}
	if (is("events") && base && (p = dlh_port_find(dev, 0))) {
		/* touches a port the split has nothing to do with, and back */
		a = (struct dlh_sdk_port_attrs){.flavour = DLH_PORT_FLAVOUR_PHYSICAL,
						.number = 1,
						.lanes = dlh_port_lanes(p),
						.splittable = dlh_port_splittable(p),
						.speed = dlh_port_speed(p) + 1};
		dlh_sdk_port_attrs_set(p, &a);
		a.speed--;
		dlh_sdk_port_attrs_set(p, &a);
	}
	return 0;
}

static int buggy_port_unsplit(struct dlh_port *port, struct dlh_extack *ext)
{
	struct dlh_dev *dev = dlh_port_dev(port);
	uint32_t cage = dlh_port_index(port) / EX_LANES;
	struct dlh_port *p;
	int err;

	if (is("refuse") && !dlh_port_is_split(port)) /* "unsplits" a whole port */
		return 0;
	err = example_port_unsplit(port, ext);
	/* wears out: from the 16th unsplit of cage 1 on, the port comes back renamed */
	if (!err && is("cycles") && !cage && ++unsplits >= 16 && (p = dlh_port_find(dev, 0)))
		dlh_sdk_port_type_eth(p, "swp1worn", NULL);
	return err;
}

/*
 * Says DLH_SDK_F_PLAN_VIEW but plans from its register file, not from the
 * plan's ports: right for a change alone, wrong for one planned after another.
 */
static int plan_from_registers(struct dlh_port *port, unsigned int count, struct dlh_sdk_plan *plan,
			       struct dlh_extack *ext)
{
	struct example *ex = dlh_sdk_dev_priv(dlh_port_dev(port));
	unsigned int base = dlh_port_index(port) / EX_LANES * EX_LANES;
	unsigned char w[EX_LANES] = {0};
	struct dlh_sdk_port_attrs a;
	char name[16];
	int err = 0;

	for (unsigned int i = 0; i < count; i++)
		w[i * EX_LANES / count] = (unsigned char)(EX_LANES / count);
	for (unsigned int i = 0; i < EX_LANES && !err; i++)
		if (ex->width[base + i])
			err = dlh_sdk_plan_gone(plan, base + i, ext);
	for (unsigned int i = 0; i < EX_LANES && !err; i++)
		if (w[i]) {
			port_desc(base + i, w[i], &a, name);
			err = dlh_sdk_plan_come(plan, base + i, &a, DLH_PORT_TYPE_ETH, name, ext);
		}
	return err;
}

static int buggy_port_split_plan(struct dlh_port *port, unsigned int count, struct dlh_sdk_plan *plan,
				 struct dlh_extack *ext)
{
	if (is("plan")) /* plans from other rules than the op's: an unsplit's */
		return example_cage_set(port, 1, plan, ext);
	if (is("plan_view"))
		return plan_from_registers(port, count, plan, ext);
	return example_cage_set(port, count, plan, ext);
}

static int buggy_port_unsplit_plan(struct dlh_port *port, struct dlh_sdk_plan *plan, struct dlh_extack *ext)
{
	if (is("plan_view"))
		return dlh_port_is_split(port) ? plan_from_registers(port, 1, plan, ext)
					       : dlh_sdk_extack(ext, -EINVAL, "Port was not split");
	return example_port_unsplit_plan(port, plan, ext);
}

static int buggy_port_type_set(struct dlh_port *port, enum dlh_port_type type, struct dlh_extack *ext)
{
	if (is("type") && type == DLH_PORT_TYPE_IB) /* says yes, does nothing */
		return 0;
	return example_port_type_set(port, type, ext);
}

static int buggy_sim_get(struct dlh_dev *dev, struct dlh_port *port, const char *key, char *buf, size_t len,
			 struct dlh_extack *ext)
{
	struct example *ex = dlh_sdk_dev_priv(dev);
	unsigned char saved[sizeof(ex->width)];
	int err;

	if (!is("state") || strcmp(key, "state"))
		return example_sim_get(dev, port, key, buf, len, ext);
	/* saves the lanes as they were at probe, not as they are */
	memcpy(saved, ex->width, sizeof(saved));
	for (unsigned int i = 0; i < ex->cages * EX_LANES; i++)
		ex->width[i] = i % EX_LANES ? 0 : EX_LANES;
	err = example_sim_get(dev, port, key, buf, len, ext);
	memcpy(ex->width, saved, sizeof(saved));
	return err;
}

static const struct dlh_sdk_ops buggy_ops = {
    .probe = buggy_probe,
    .port_type_set = buggy_port_type_set,
    .port_split = buggy_port_split,
    .port_unsplit = buggy_port_unsplit,
    .port_split_plan = buggy_port_split_plan,
    .port_unsplit_plan = buggy_port_unsplit_plan,
    .sim_set = example_sim_set,
    .sim_get = buggy_sim_get,
    .flags = DLH_SDK_F_PLAN_VIEW,
};

static struct dlh_sdk_driver buggy_driver = {
    DLH_SDK_DRIVER_INIT("buggy", &buggy_ops),
    .dev_priv_size = sizeof(struct example),
};

/* Names its split counts but gives core an empty message for the others. */
__attribute__((constructor)) static void buggy_init(void)
{
	if (is("count_msg")) {
		buggy_driver.split_counts = 1u << 2 | 1u << 4;
		buggy_driver.split_count_msg = "";
	}
	/* no bug: four-lane ports that split by 2 only, as a driver may say (the kit must hold it alike both ways) */
	if (is("by_two"))
		buggy_driver.split_counts = 1u << 2;
}

DLH_EXPORT const struct dlh_sdk_module dlh_sdk_module_entry = {
    .abi_version = DLH_SDK_ABI_VERSION,
    .driver = &buggy_driver,
};
