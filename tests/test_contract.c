/* SPDX-License-Identifier: MIT */
/*
 * What core enforces on drivers: one operation at a time (a driver calling
 * back in gets -EBUSY, not a stack overflow), checked results (a positive
 * return is -EIO, a failure always has a message, a success none), and
 * drivers and ports that are well formed before they are used.
 */
#include "helpers.h"

#include <criterion/criterion.h>
#include <dlhal/sdk.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What each op of the "rogue" driver does, set by the test. */
static enum { NESTED, POSITIVE, SILENT_FAILURE, STALE_MESSAGE } behaviour;
static int inner_err;

static int rogue_probe(struct dlh_dev *dev, const char *config, struct dlh_extack *ext)
{
	struct dlh_sdk_port_attrs a = {.flavour = DLH_PORT_FLAVOUR_PHYSICAL, .lanes = 4, .splittable = true};
	struct dlh_port *p;

	(void)config;
	return dlh_sdk_port_register(dev, 1, &a, &p, ext) ?: dlh_sdk_port_type_eth(p, "rogue%d", ext);
}

static int rogue_split(struct dlh_port *port, unsigned int count, struct dlh_extack *ext)
{
	switch (behaviour) {
	case NESTED:
		/* a driver that "splits" by calling the public API on its own port */
		inner_err = dlh_port_split(port, count, ext);
		return inner_err;
	case POSITIVE:
		return 5;
	case SILENT_FAILURE:
		return -EPERM;
	case STALE_MESSAGE:
		dlh_sdk_extack(ext, -EIO, "left over from an attempt");
		return 0;
	}
	return 0;
}

static int rogue_type_set(struct dlh_port *port, enum dlh_port_type type, struct dlh_extack *ext)
{
	inner_err = dlh_port_type_set(port, type == DLH_PORT_TYPE_ETH ? DLH_PORT_TYPE_IB : DLH_PORT_TYPE_ETH, ext);
	return inner_err;
}

static const struct dlh_sdk_ops rogue_ops = {.probe = rogue_probe, .port_split = rogue_split,
					      .port_type_set = rogue_type_set};
static const struct dlh_sdk_driver rogue_driver = {DLH_SDK_DRIVER_INIT("rogue", &rogue_ops)};

static char logbuf[4096];

static void log_line(void *arg, enum dlh_log_level level, const struct dlh_dev *dev, const char *msg)
{
	(void)arg;
	(void)level;
	(void)dev;
	strncat(logbuf, msg, sizeof(logbuf) - strlen(logbuf) - 2);
	strcat(logbuf, "\n");
}

static struct dlh_ctx *rogue_ctx(struct dlh_port **port)
{
	char *path = profile_tmp("{\"driver\": \"rogue\", \"handle\": \"test/rogue0\", \"hw\": {}}");
	struct dlh_extack ext;
	struct dlh_ctx *ctx;

	cr_assert_eq(dlh_ctx_new(&ctx, &ext), 0);
	dlh_ctx_log_set(ctx, log_line, NULL);
	cr_assert_eq(dlh_sdk_driver_register(ctx, &rogue_driver, &ext), 0);
	cr_assert_eq(dlh_ctx_sim_load(ctx, path, &ext), 0, "%s", ext.msg);
	unlink(path);
	free(path);
	cr_assert_eq(dlh_port_lookup(ctx, "test/rogue0/1", port, &ext), 0);
	logbuf[0] = '\0';
	return ctx;
}

Test(contract, a_driver_calling_back_in_gets_ebusy_not_a_stack_overflow)
{
	struct dlh_extack ext;
	struct dlh_port *port;
	struct dlh_ctx *ctx = rogue_ctx(&port);
	char buf[512];

	behaviour = NESTED;
	cr_expect_eq(dlh_port_split(port, 2, &ext), -EBUSY);
	cr_expect_eq(inner_err, -EBUSY);
	cr_expect_str_eq(dlh_extack_str(&ext, buf, sizeof(buf)), "test/rogue0/1: Another operation is in progress");
	cr_expect_not_null(strstr(logbuf, "driver rogue: port_split on test/rogue0/1 while port_split runs"), "%s",
			   logbuf);
	cr_expect_eq(dlh_port_type_set(port, DLH_PORT_TYPE_IB, &ext), -EBUSY, "type set too");
	cr_expect_not_null(strstr(logbuf, "port_type_set on test/rogue0/1 while port_type_set runs"), "%s", logbuf);
	/* and the context is usable afterwards: the guard was released */
	behaviour = SILENT_FAILURE;
	cr_expect_eq(dlh_port_split(port, 2, &ext), -EPERM);
	dlh_ctx_free(ctx);
}

Test(contract, results_are_checked)
{
	struct dlh_extack ext;
	struct dlh_port *port;
	struct dlh_ctx *ctx = rogue_ctx(&port);
	char buf[512];

	behaviour = POSITIVE;
	cr_expect_eq(dlh_port_split(port, 2, &ext), -EIO, "a positive return is a driver bug");
	cr_expect_str_eq(dlh_extack_str(&ext, buf, sizeof(buf)), "test/rogue0/1: Driver bug: port_split returned 5");
	cr_expect_not_null(strstr(logbuf, "driver rogue: port_split returned 5, not 0 or a negative errno"), "%s",
			   logbuf);
	behaviour = SILENT_FAILURE;
	cr_expect_eq(dlh_port_split(port, 2, &ext), -EPERM);
	cr_expect_str_eq(dlh_extack_str(&ext, buf, sizeof(buf)), "test/rogue0/1: Operation not permitted",
			 "a failure without a message gets the errno's text");
	behaviour = STALE_MESSAGE;
	cr_expect_eq(dlh_port_split(port, 2, &ext), 0);
	cr_expect_str_eq(ext.msg, "", "a success carries no message");
	dlh_ctx_free(ctx);
}

static const struct dlh_sdk_driver no_ops = {.abi_version = DLH_SDK_ABI_VERSION, .name = "noops"};
static const struct dlh_sdk_driver zero_size = {
    .abi_version = DLH_SDK_ABI_VERSION, .name = "zerosize", .ops = &rogue_ops, .ops_size = 0};

Test(contract, malformed_drivers_and_ports_are_refused)
{
	struct dlh_sdk_port_attrs a = {.flavour = DLH_PORT_FLAVOUR_PHYSICAL};
	struct dlh_extack ext;
	struct dlh_port *port, *p;
	struct dlh_ctx *ctx = rogue_ctx(&port);

	cr_expect_eq(dlh_sdk_driver_register(ctx, &no_ops, &ext), -EINVAL);
	cr_expect_str_eq(ext.msg, "Driver \"noops\" has no ops table (ops NULL or ops_size 0)");
	cr_expect_eq(dlh_sdk_driver_register(ctx, &zero_size, &ext), -EINVAL);
	cr_expect_eq(dlh_sdk_port_register(dlh_port_dev(port), UINT32_MAX, &a, &p, &ext), -EINVAL);
	cr_expect_str_eq(ext.msg, "Port index 4294967295 is out of range (driver rogue)");
	dlh_ctx_free(ctx);
}

/* mismatch.so holds driver "bar": a profile naming driver "mismatch" loads it and is refused, without a crash. */
Test(contract, a_module_holding_another_driver_is_refused_with_both_names)
{
	char *path = profile_tmp("{\"driver\": \"mismatch\", \"handle\": \"test/m0\", \"hw\": {}}");
	char dir[4096], buf[1024];
	struct dlh_extack ext;
	struct dlh_ctx *ctx;

	snprintf(dir, sizeof(dir), "%s", getenv("MODULE_MISMATCH"));
	*strrchr(dir, '/') = '\0';
	setenv("DLHAL_MODULE_PATH", dir, 1);
	cr_assert_eq(dlh_ctx_new(&ctx, &ext), 0);
	cr_expect_eq(dlh_ctx_sim_load(ctx, path, &ext), -ENOEXEC);
	dlh_extack_str(&ext, buf, sizeof(buf));
	cr_expect_not_null(strstr(buf, "mismatch.so: "), "the file: %s", buf);
	cr_expect_not_null(strstr(buf, ": Module holds driver \"bar\", not \"mismatch\""), "%s", buf);
	/* nothing was registered: the same refusal again, and through a bus attach */
	cr_expect_eq(dlh_ctx_bus_attach(ctx, "mismatch", NULL, &ext), -ENOEXEC, "%s", ext.msg);
	cr_expect_str_eq(ext.msg, "Module holds driver \"bar\", not \"mismatch\"");
	dlh_ctx_free(ctx);
	unlink(path);
	free(path);
}
