/* SPDX-License-Identifier: MIT */
/* ConnectX-3 port types: DPDP rules, supported types, auto with link sensing. */
#include "helpers.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEV "pci/0000:01:00.0"

static struct dlh_ctx *hca(bool dpdp, bool sense, const char *sup1, const char *sup2, const char *t1, const char *t2)
{
	char json[1024], *path;
	struct dlh_extack ext;
	struct dlh_ctx *ctx = ctx_with("");

	snprintf(json, sizeof(json),
		 "{\"driver\": \"mlx4\", \"handle\": \"" DEV "\", \"hw\": {\"dpdp\": %s, \"sense\": %s, "
		 "\"ibdev\": \"mlx4_0\", \"ports\": ["
		 "{\"supported\": %s, \"type\": \"%s\", \"netdev\": \"ens4\", \"cable\": \"eth\"},"
		 "{\"supported\": %s, \"type\": \"%s\", \"netdev\": \"ens4d1\", \"cable\": \"ib\"}]}}",
		 dpdp ? "true" : "false", sense ? "true" : "false", sup1, t1, sup2, t2);
	path = profile_tmp(json);
	cr_assert_eq(dlh_ctx_sim_load(ctx, path, &ext), 0, "%s", ext.msg);
	unlink(path);
	free(path);
	return ctx;
}

#define VPI "[\"eth\", \"ib\"]"

static struct dlh_port *port(struct dlh_ctx *ctx, unsigned i)
{
	return dlh_port_find(dlh_dev_find(ctx, DEV), i);
}

/* The model agrees with what the emulated firmware has. */
static void check_hw(struct dlh_ctx *ctx)
{
	for (unsigned i = 1; i <= 2; i++) {
		char buf[32];

		cr_assert_eq(dlh_dev_sim_get(dlh_dev_find(ctx, DEV), port(ctx, i), "type", buf, sizeof(buf), NULL), 0);
		cr_assert_str_eq(buf, dlh_port_type_name(dlh_port_type(port(ctx, i))), "port %u", i);
	}
}

static int set(struct dlh_ctx *ctx, unsigned i, enum dlh_port_type t, struct dlh_extack *ext)
{
	int err = dlh_port_type_set(port(ctx, i), t, ext);

	check_hw(ctx);
	return err;
}

static void cable(struct dlh_ctx *ctx, unsigned i, const char *partner)
{
	cr_assert_eq(dlh_dev_sim_set(dlh_dev_find(ctx, DEV), port(ctx, i), "cable", partner, NULL), 0);
}

Test(mlx4, seed_transcript)
{
	struct dlh_ctx *ctx = ctx_with("cx3-vpi");
	struct dlh_extack ext;
	char *dump = model_dump(ctx);

	cr_expect_str_eq(dump, DEV "/1 ib notset - mlx4_0 0 0 0 0 0\n" DEV "/2 ib notset - mlx4_0 0 0 0 0 0\n");
	free(dump);
	cr_assert_eq(set(ctx, 1, DLH_PORT_TYPE_ETH, &ext), 0, "%s", ext.msg);
	cr_expect_str_eq(dlh_port_netdev(port(ctx, 1)), "ens4");
	cr_expect_str_eq(dlh_port_ibdev(port(ctx, 2)), "mlx4_0");
	cr_assert_eq(dlh_port_lookup(ctx, "ens4", &(struct dlh_port *){NULL}, &ext), 0);
	cr_assert_eq(set(ctx, 1, DLH_PORT_TYPE_AUTO, &ext), 0, "%s", ext.msg);
	cr_expect_eq(dlh_port_type(port(ctx, 1)), DLH_PORT_TYPE_ETH, "the cable's partner is Ethernet");
	cr_expect_eq(dlh_port_desired_type(port(ctx, 1)), DLH_PORT_TYPE_AUTO);
	dlh_ctx_free(ctx);
}

Test(mlx4, mixed_types_need_dpdp)
{
	struct dlh_ctx *ctx = hca(false, true, VPI, VPI, "ib", "ib");
	struct dlh_extack ext;

	cr_expect_eq(set(ctx, 1, DLH_PORT_TYPE_ETH, &ext), -EOPNOTSUPP);
	cr_expect_str_eq(ext.msg, "Only same port types supported on this HCA");
	cr_expect_str_eq(ext.obj, DEV "/1");
	cr_expect_eq(dlh_port_type(port(ctx, 1)), DLH_PORT_TYPE_IB, "unchanged");
	cr_expect_eq(dlh_port_desired_type(port(ctx, 1)), DLH_PORT_TYPE_NOTSET, "unchanged");
	dlh_ctx_free(ctx);

	ctx = hca(true, false, VPI, VPI, "ib", "ib");
	cr_expect_eq(set(ctx, 1, DLH_PORT_TYPE_ETH, &ext), 0, "%s", ext.msg);
	cr_expect_eq(set(ctx, 2, DLH_PORT_TYPE_ETH, &ext), 0, "%s", ext.msg);
	cr_expect_str_eq(dlh_port_netdev(port(ctx, 2)), "ens4d1");
	dlh_ctx_free(ctx);
}

Test(mlx4, same_types_without_dpdp)
{
	struct dlh_ctx *ctx = hca(false, false, VPI, VPI, "eth", "eth");
	struct dlh_extack ext;

	cr_expect_eq(set(ctx, 2, DLH_PORT_TYPE_ETH, &ext), 0, "already eth: no change");
	cr_expect_eq(set(ctx, 2, DLH_PORT_TYPE_IB, &ext), -EOPNOTSUPP);
	cr_expect_eq(dlh_port_type(port(ctx, 2)), DLH_PORT_TYPE_ETH);
	dlh_ctx_free(ctx);
}

Test(mlx4, unsupported_type)
{
	struct dlh_ctx *ctx = hca(true, true, VPI, "[\"ib\"]", "ib", "ib");
	struct dlh_extack ext;

	cr_expect_eq(set(ctx, 2, DLH_PORT_TYPE_ETH, &ext), -EOPNOTSUPP);
	cr_expect_str_eq(ext.msg, "Requested port type for port 2 is not supported on this HCA");
	cr_expect_eq(set(ctx, 2, DLH_PORT_TYPE_AUTO, &ext), -EOPNOTSUPP, "auto needs both protocols");
	cr_expect_str_eq(ext.msg, "Requested port type for port 2 is not supported on this HCA");
	cr_expect_eq(set(ctx, 1, DLH_PORT_TYPE_ETH, &ext), 0);
	dlh_ctx_free(ctx);
}

Test(mlx4, auto_needs_dpdp_or_sense)
{
	struct dlh_ctx *ctx = hca(false, false, VPI, VPI, "ib", "ib");
	struct dlh_extack ext;

	cr_expect_eq(set(ctx, 1, DLH_PORT_TYPE_AUTO, &ext), -EOPNOTSUPP);
	cr_expect_str_eq(ext.msg, "Auto sensing is not supported on this HCA. Set only 'eth' or 'ib' for both ports "
				  "(should be the same)");
	cr_expect_eq(dlh_port_desired_type(port(ctx, 1)), DLH_PORT_TYPE_NOTSET, "the refused auto is not kept");
	dlh_ctx_free(ctx);
}

Test(mlx4, auto_follows_the_cable_every_3s)
{
	struct dlh_ctx *ctx = ctx_with("cx3-vpi");
	struct dlh_extack ext;
	struct recorder rec;

	cr_assert_eq(set(ctx, 1, DLH_PORT_TYPE_AUTO, &ext), 0, "%s", ext.msg);
	cr_expect_eq(dlh_port_type(port(ctx, 1)), DLH_PORT_TYPE_ETH, "sensed eth at once");
	cr_expect_eq(dlh_ctx_timeout(ctx), 3000);
	recorder_attach(&rec, ctx);
	cable(ctx, 1, "ib");
	dlh_ctx_clock_advance(ctx, 2999);
	cr_expect_eq(dlh_port_type(port(ctx, 1)), DLH_PORT_TYPE_ETH, "not before the 3 s poll");
	dlh_ctx_clock_advance(ctx, 1);
	cr_expect_eq(dlh_port_type(port(ctx, 1)), DLH_PORT_TYPE_IB);
	cr_expect_str_eq(dlh_port_ibdev(port(ctx, 1)), "mlx4_0");
	cr_expect_null(dlh_port_find_netdev(ctx, "ens4"), "netdev removed");
	cr_expect_eq(dlh_port_desired_type(port(ctx, 1)), DLH_PORT_TYPE_AUTO);
	cr_expect_str_eq(rec.log, "port,new " DEV "/1 notset\nport,new " DEV "/1 mlx4_0\n", "ib device re-created");
	check_hw(ctx);

	recorder_clear(&rec);
	cable(ctx, 1, "none");
	dlh_ctx_clock_advance(ctx, 30000);
	cr_expect_eq(dlh_port_type(port(ctx, 1)), DLH_PORT_TYPE_IB, "no link: keep the current type");
	cr_expect_eq(rec.count, 0);

	cable(ctx, 1, "eth");
	dlh_ctx_clock_advance(ctx, 3000);
	cr_expect_str_eq(dlh_port_netdev(port(ctx, 1)), "ens4", "netdev re-created");
	cr_expect_str_eq(rec.log, "port,new " DEV "/1 notset\nport,new " DEV "/1 ens4\n");
	check_hw(ctx);

	/* A port with a fixed type ignores its cable. */
	cable(ctx, 2, "eth");
	dlh_ctx_clock_advance(ctx, 9000);
	cr_expect_eq(dlh_port_type(port(ctx, 2)), DLH_PORT_TYPE_IB);

	/* eth again, although the actual type is already eth: dlhal compares with the desired type. */
	cr_expect_eq(set(ctx, 1, DLH_PORT_TYPE_ETH, &ext), 0);
	cr_expect_eq(dlh_port_desired_type(port(ctx, 1)), DLH_PORT_TYPE_ETH);
	cable(ctx, 1, "ib");
	dlh_ctx_clock_advance(ctx, 9000);
	cr_expect_eq(dlh_port_type(port(ctx, 1)), DLH_PORT_TYPE_ETH, "no longer in auto");
	dlh_ctx_free(ctx);
	free(rec.log);
}

Test(mlx4, no_sensing_without_dpdp)
{
	struct dlh_ctx *ctx = hca(false, true, VPI, VPI, "eth", "eth");
	struct dlh_extack ext;

	cr_assert_eq(set(ctx, 1, DLH_PORT_TYPE_AUTO, &ext), 0, "%s", ext.msg);
	cr_expect_eq(dlh_ctx_timeout(ctx), -1, "the sense poll runs only with DPDP");
	cable(ctx, 1, "ib");
	dlh_ctx_clock_advance(ctx, 10000);
	cr_expect_eq(dlh_port_type(port(ctx, 1)), DLH_PORT_TYPE_ETH);
	dlh_ctx_free(ctx);
}

Test(mlx4, firmware_failures_leave_types_as_they_were)
{
	unsigned n;

	for (n = 1;; n++) {
		struct dlh_ctx *ctx = hca(true, true, VPI, VPI, "ib", "ib");
		struct dlh_extack ext;
		char nth[16], *before;
		int err;

		snprintf(nth, sizeof(nth), "%u", n);
		before = model_dump(ctx);
		cr_assert_eq(dlh_dev_sim_set(dlh_dev_find(ctx, DEV), NULL, "fail_nth", nth, NULL), 0);
		err = set(ctx, 1, DLH_PORT_TYPE_ETH, &ext);
		if (!err) {
			cr_assert_gt(n, 3, "close, set, init");
			dlh_ctx_free(ctx);
			free(before);
			break;
		}
		cr_assert_eq(err, -EIO, "command %u: %s", n, ext.msg);
		{
			char *after = model_dump(ctx);

			cr_assert_str_eq(after, before, "command %u", n);
			free(after);
		}
		cr_assert_eq(set(ctx, 1, DLH_PORT_TYPE_ETH, &ext), 0, "not wedged after command %u", n);
		dlh_ctx_free(ctx);
		free(before);
	}
}
