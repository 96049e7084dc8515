/* SPDX-License-Identifier: MIT */
/*
 * A complete small switch driver, out of tree: N cages of four lanes, each a
 * port that splits into 2 or 4 (index cage * 4 + subport; netdevs swpN,
 * swpNsM), over a register file of lane widths with fault injection; a timer
 * polls the cages. Build with the Makefile beside it, check with the kit:
 *   dlhal-conform --module ./example.so --profile ./example.json
 */
#include <dlhal/sdk.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EX_CAGES_MAX 16
#define EX_LANES     4
#define EX_POLL_MS   1000

struct example {
	struct dlh_dev *dev;
	unsigned int cages;
	unsigned char width[EX_CAGES_MAX * EX_LANES]; /* the register file: lanes of each port, 0: none */
	unsigned long accesses, fail_nth;	      /* fault injection: access fail_nth fails */
	unsigned int present, seen;		      /* cages with a module, as the timer last saw them */
	struct dlh_sdk_timer *poll;
};

/* Writes @n widths from @base, an access each; when one fails, what was written is put back. */
static int regs_write(struct example *ex, unsigned int base, const unsigned char *w, unsigned int n)
{
	unsigned char old[EX_LANES];

	memcpy(old, &ex->width[base], n);
	for (unsigned int i = 0; i < n; i++) {
		ex->accesses++;
		if (ex->fail_nth && !--ex->fail_nth) {
			memcpy(&ex->width[base], old, n);
			return -EIO;
		}
		ex->width[base + i] = w[i];
	}
	return 0;
}

/* What port @idx registers as with @lanes lanes: the op and the plan both ask this. */
static void port_desc(unsigned int idx, unsigned int lanes, struct dlh_sdk_port_attrs *a, char *name)
{
	unsigned int cage = idx / EX_LANES, sub = idx % EX_LANES;

	/* clang-format off */
	*a = (struct dlh_sdk_port_attrs){.flavour = DLH_PORT_FLAVOUR_PHYSICAL, .number = cage + 1, .lanes = lanes,
		.split = lanes < EX_LANES, .split_group = cage, .split_subport = sub / lanes,
		.splittable = lanes == EX_LANES, .speed = 25000 * lanes};
	/* clang-format on */
	snprintf(name, 16, lanes < EX_LANES ? "swp%us%u" : "swp%u", cage + 1, sub / lanes);
}

static int port_add(struct example *ex, unsigned int idx, struct dlh_extack *ext)
{
	struct dlh_sdk_port_attrs a;
	struct dlh_port *p;
	char name[16];
	int err;

	port_desc(idx, ex->width[idx], &a, name);
	err = dlh_sdk_port_register(ex->dev, idx, &a, &p, ext);
	if (!err && (err = dlh_sdk_port_type_eth(p, name, ext)))
		dlh_sdk_port_unregister(p);
	return err;
}

/* The cage's ports in the model: remove those of the old widths, add those of the register file. */
static int cage_sync(struct example *ex, unsigned int cage, const unsigned char *old, struct dlh_extack *ext)
{
	unsigned int base = cage * EX_LANES, i;
	int err = 0;

	for (i = 0; i < EX_LANES; i++)
		dlh_sdk_port_unregister(old[i] ? dlh_port_find(ex->dev, base + i) : NULL);
	for (i = 0; i < EX_LANES && !err; i++)
		if (ex->width[base + i])
			err = port_add(ex, base + i, ext);
	return err;
}

/* The cage as @count ports (core checked a split); with @plan, only says what would go and come. */
static int example_cage_set(struct dlh_port *port, unsigned int count, struct dlh_sdk_plan *plan,
			    struct dlh_extack *ext)
{
	struct example *ex = dlh_sdk_dev_priv(dlh_port_dev(port));
	unsigned int cage = dlh_port_index(port) / EX_LANES, base = cage * EX_LANES;
	unsigned char old[EX_LANES], w[EX_LANES] = {0};
	struct dlh_sdk_port_attrs a;
	char name[16];
	int err = 0;

	if (count == 1 && !dlh_port_is_split(port))
		return dlh_sdk_extack(ext, -EINVAL, "Port was not split");
	for (unsigned int i = 0; i < count; i++)
		w[i * EX_LANES / count] = (unsigned char)(EX_LANES / count);
	/* a plan reads the cage as the plan finds it (after the changes a sequence planned before) */
	for (unsigned int i = 0; i < EX_LANES; i++) {
		const struct dlh_port *p = plan ? dlh_sdk_plan_port(plan, base + i) : NULL;

		old[i] = plan ? (unsigned char)(p ? dlh_port_lanes(p) : 0) : ex->width[base + i];
	}
	for (unsigned int i = 0; plan && i < 2 * EX_LANES && !err; i++) {
		if (i < EX_LANES && old[i])
			err = dlh_sdk_plan_gone(plan, base + i, ext);
		else if (i >= EX_LANES && w[i - EX_LANES]) {
			port_desc(base + i - EX_LANES, w[i - EX_LANES], &a, name);
			err = dlh_sdk_plan_come(plan, base + i - EX_LANES, &a, DLH_PORT_TYPE_ETH, name, ext);
		}
	}
	if (plan)
		return err;
	err = regs_write(ex, base, w, EX_LANES);
	if (err)
		return dlh_sdk_extack(ext, err, "Failed to set the lanes of cage %u", cage + 1);
	err = cage_sync(ex, cage, old, ext);
	if (err) { /* a name taken, memory: hardware back, then the old ports */
		memcpy(&ex->width[base], old, EX_LANES);
		cage_sync(ex, cage, w, NULL);
	}
	return err;
}

static int example_port_split(struct dlh_port *port, unsigned int count, struct dlh_extack *ext)
{
	return example_cage_set(port, count, NULL, ext);
}

static int example_port_unsplit(struct dlh_port *port, struct dlh_extack *ext)
{
	return example_cage_set(port, 1, NULL, ext);
}

static int example_port_unsplit_plan(struct dlh_port *port, struct dlh_sdk_plan *plan, struct dlh_extack *ext)
{
	return example_cage_set(port, 1, plan, ext);
}

static int example_port_type_set(struct dlh_port *port, enum dlh_port_type type, struct dlh_extack *ext)
{
	(void)port;
	return type == DLH_PORT_TYPE_ETH ? 0 : dlh_sdk_extack(ext, -EOPNOTSUPP, "This switch runs Ethernet only");
}

static void poll_cages(struct dlh_sdk_timer *timer, void *arg)
{
	struct example *ex = arg;

	for (unsigned int c = 0; c < ex->cages; c++)
		if ((ex->present ^ ex->seen) & (1u << c))
			dlh_sdk_log(ex->dev, DLH_LOG_INFO, "cage %u: module %s", c + 1,
				    ex->present & 1u << c ? "in" : "out");
	ex->seen = ex->present;
	dlh_sdk_timer_arm(timer, EX_POLL_MS);
}

/*
 * The profile's "hw" ({"ports": N, "fail_nth": N, "state": [lane widths]}),
 * read through the SDK's checked JSON reads: a field of another type or
 * shape refuses the probe naming it, so a saved state that does not fit
 * stops dlhald's start rather than being ignored and overwritten.
 */
static int config_read(struct example *ex, const char *config, struct dlh_extack *ext)
{
	static const char *const keys[] = {"ports", "fail_nth", "state", NULL};
	struct dlh_sdk_json *j;
	uint64_t v = 0;
	size_t n;
	int err = dlh_sdk_json_parse(config, "hw", &j, ext);

	if (!err)
		err = dlh_sdk_json_only(j, "", keys, ext);
	if (!err)
		err = dlh_sdk_json_uint(j, "ports", 1, EX_CAGES_MAX, &v, ext);
	ex->cages = (unsigned int)v;
	if (!err && dlh_sdk_json_has(j, "fail_nth") && !(err = dlh_sdk_json_uint(j, "fail_nth", 0, ~0ul, &v, ext)))
		ex->fail_nth = (unsigned long)v;
	for (unsigned int i = 0; i < ex->cages * EX_LANES; i++)
		ex->width[i] = i % EX_LANES ? 0 : EX_LANES;
	if (!err && dlh_sdk_json_has(j, "state") && !(err = dlh_sdk_json_count(j, "state", &n, ext)) &&
	    n != ex->cages * EX_LANES)
		err = dlh_sdk_extack(ext, -EINVAL, "field \"hw.state\": expected %u lane widths, one a lane",
				     ex->cages * EX_LANES);
	for (unsigned int i = 0; !err && dlh_sdk_json_has(j, "state") && i < ex->cages * EX_LANES; i++) {
		char path[32];

		snprintf(path, sizeof(path), "state[%u]", i);
		err = dlh_sdk_json_uint(j, path, 0, EX_LANES, &v, ext);
		/* a port of w lanes starts at a lane its width divides, and holds the ones after it */
		if (!err && v && (i % v || v == 3))
			err = dlh_sdk_extack(ext, -EINVAL, "field \"hw.%s\": %u lanes cannot start at lane %u", path,
					     (unsigned int)v, i % EX_LANES);
		ex->width[i] = (unsigned char)v;
	}
	dlh_sdk_json_free(j);
	return err;
}

static int example_probe(struct dlh_dev *dev, const char *config, struct dlh_extack *ext)
{
	struct example *ex = dlh_sdk_dev_priv(dev);
	unsigned int i;
	int err;

	ex->dev = dev;
	err = config_read(ex, config, ext);
	for (i = 0; i < ex->cages * EX_LANES && !err; i++)
		if (ex->width[i])
			err = port_add(ex, i, ext);
	if (!err && !(err = dlh_sdk_timer_new(dev, poll_cages, ex, &ex->poll)))
		dlh_sdk_timer_arm(ex->poll, EX_POLL_MS);
	return err; /* on failure core removes the ports registered so far, and the timer */
}

static int example_sim_set(struct dlh_dev *dev, struct dlh_port *port, const char *key, const char *value,
			   struct dlh_extack *ext)
{
	struct example *ex = dlh_sdk_dev_priv(dev);
	char *end;
	unsigned long v = strtoul(value, &end, 10);

	if (*end || !*value)
		return dlh_sdk_extack(ext, -EINVAL, "%s: expected a number", key);
	if (!port && !strcmp(key, "fail_nth"))
		ex->fail_nth = v;
	else if (port && !strcmp(key, "module") && v <= 1)
		ex->present = v ? ex->present | 1u << dlh_port_number(port) >> 1
				: ex->present & ~(1u << dlh_port_number(port) >> 1);
	else
		return dlh_sdk_extack(ext, -EINVAL, "Unknown emulator control \"%s\"", key);
	return 0;
}

static int example_sim_get(struct dlh_dev *dev, struct dlh_port *port, const char *key, char *buf, size_t len,
			   struct dlh_extack *ext)
{
	struct example *ex = dlh_sdk_dev_priv(dev);
	size_t n = 0;

	if (!port && !strcmp(key, "fail_nth"))
		n = (size_t)snprintf(buf, len, "%lu", ex->fail_nth);
	else if (!port && !strcmp(key, "accesses"))
		n = (size_t)snprintf(buf, len, "%lu", ex->accesses);
	else if (!port && !strcmp(key, "state"))
		for (unsigned int i = 0; i < ex->cages * EX_LANES && n < len; i++)
			n += (size_t)snprintf(buf + n, len - n, "%s%u%s", i ? "," : "[", ex->width[i],
					      i + 1 < ex->cages * EX_LANES ? "" : "]");
	else
		return dlh_sdk_extack(ext, -EINVAL, "Unknown emulator control \"%s\"", key);
	return n < len ? 0 : dlh_sdk_extack(ext, -ENOSPC, "Buffer too small");
}

static const struct dlh_sdk_ops example_ops = {
    .probe = example_probe,
    .port_type_set = example_port_type_set,
    .port_split = example_port_split,
    .port_unsplit = example_port_unsplit,
    .port_split_plan = example_cage_set,
    .port_unsplit_plan = example_port_unsplit_plan,
    .sim_set = example_sim_set,
    .sim_get = example_sim_get,
    .flags = DLH_SDK_F_PLAN_VIEW, /* plans read the cage through the plan */
};

static const struct dlh_sdk_driver example_driver = {
    DLH_SDK_DRIVER_INIT("example", &example_ops),
    .dev_priv_size = sizeof(struct example),
};

DLH_SDK_MODULE(example_driver);
