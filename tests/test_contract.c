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
static enum { NESTED, POSITIVE, SILENT_FAILURE, STALE_MESSAGE, HALF_DONE, UNDONE, SPLIT } behaviour;
static int split_calls;
static int inner_err;

static const struct dlh_sdk_port_attrs whole = {.flavour = DLH_PORT_FLAVOUR_PHYSICAL, .lanes = 4, .splittable = true};

/* Port 1: four lanes, splittable. Port 5: one lane. Port 6: half of a split. */
static int rogue_probe(struct dlh_dev *dev, const char *config, struct dlh_extack *ext)
{
	struct dlh_sdk_port_attrs one = {.flavour = DLH_PORT_FLAVOUR_PHYSICAL, .number = 2, .lanes = 1};
	struct dlh_sdk_port_attrs half = {
	    .flavour = DLH_PORT_FLAVOUR_PHYSICAL, .number = 3, .split = true, .split_group = 3, .lanes = 2};
	struct dlh_port *p;

	(void)config;
	return dlh_sdk_port_register(dev, 1, &whole, &p, ext) ?: dlh_sdk_port_type_eth(p, "rogue%d", ext)
	   ?: dlh_sdk_port_register(dev, 5, &one, &p, ext) ?: dlh_sdk_port_type_eth(p, "rogue%d", ext)
	   ?: dlh_sdk_port_register(dev, 6, &half, &p, ext) ?: dlh_sdk_port_type_eth(p, "rogue%d", ext);
}

/* Port 1 into two: what a correct split does to the model. */
static int split_in_two(struct dlh_dev *dev, struct dlh_port *port, struct dlh_extack *ext)
{
	struct dlh_sdk_port_attrs a = {
	    .flavour = DLH_PORT_FLAVOUR_PHYSICAL, .split = true, .split_group = 1, .lanes = 2};
	struct dlh_port *p;
	int err;

	dlh_sdk_port_unregister(port);
	for (uint32_t i = 0; i < 2; i++) {
		a.split_subport = i;
		err = dlh_sdk_port_register(dev, 1 + i, &a, &p, ext) ?: dlh_sdk_port_type_eth(p, "rogue%d", ext);
		if (err)
			return err;
	}
	return 0;
}

static int rogue_split(struct dlh_port *port, unsigned int count, struct dlh_extack *ext)
{
	struct dlh_dev *dev = dlh_port_dev(port);
	struct dlh_port *p;

	split_calls++;
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
	case HALF_DONE: /* the new ports are in, then the hardware fails: no unwinding */
		split_in_two(dev, port, ext);
		return dlh_sdk_extack(ext, -EIO, "Failed to enable port 2");
	case UNDONE: /* fails late and puts the port back as it was */
		dlh_sdk_port_unregister(port);
		if (dlh_sdk_port_register(dev, 1, &whole, &p, ext) || dlh_sdk_port_type_eth(p, "rogue0", ext))
			return -ENOMEM;
		return dlh_sdk_extack(ext, -EIO, "Failed to enable port 2");
	case SPLIT:
		return split_in_two(dev, port, ext);
	}
	return 0;
}

static int rogue_type_set(struct dlh_port *port, enum dlh_port_type type, struct dlh_extack *ext)
{
	inner_err = dlh_port_type_set(port, type == DLH_PORT_TYPE_ETH ? DLH_PORT_TYPE_IB : DLH_PORT_TYPE_ETH, ext);
	return inner_err;
}

static const struct dlh_sdk_ops rogue_ops = {
    .probe = rogue_probe, .port_split = rogue_split, .port_type_set = rogue_type_set};
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
	cr_expect_str_eq(dlh_extack_str(&ext, buf, sizeof(buf)), "test/rogue0/1: split failed: Operation not permitted",
			 "a failure without a message says what failed, with the errno's text");
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

/* Core refuses, in Linux 6.1's words, what its devlink core refuses before port_split. */
Test(contract, core_refuses_what_the_kernel_core_refuses_before_the_driver_runs)
{
	static const struct {
		const char *port;
		unsigned count;
		const char *msg;
	} cases[] = {
	    {"test/rogue0/5", 2, "Port cannot be split"},	   {"test/rogue0/6", 2, "Port cannot be split further"},
	    {"test/rogue0/6", 3, "Port cannot be split further"},  {"test/rogue0/1", 3, "Invalid split count"},
	    {"test/rogue0/1", 8, "Invalid split count"},	   {"test/rogue0/1", 1, "Invalid split count"},
	    {"test/rogue0/1", 0x80000000u, "Invalid split count"},
	};
	struct dlh_extack ext;
	struct dlh_port *port, *p;
	struct dlh_ctx *ctx = rogue_ctx(&port);
	char *before = model_dump(ctx), *after;

	split_calls = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_assert_eq(dlh_port_lookup(ctx, cases[i].port, &p, &ext), 0);
		cr_expect_eq(dlh_port_split(p, cases[i].count, &ext), -EINVAL, "%s by %u", cases[i].port,
			     cases[i].count);
		cr_expect_str_eq(ext.msg, cases[i].msg, "%s by %u", cases[i].port, cases[i].count);
		cr_expect_str_eq(ext.obj, cases[i].port);
	}
	cr_expect_eq(split_calls, 0, "the driver never ran");
	after = model_dump(ctx);
	cr_expect_str_eq(after, before);
	free(before);
	free(after);
	dlh_ctx_free(ctx);
}

Test(contract, a_failed_op_that_left_ports_changed_is_undone_in_the_model_without_events)
{
	struct dlh_extack ext;
	struct dlh_port *port, *p;
	struct dlh_ctx *ctx = rogue_ctx(&port);
	char *before = model_dump(ctx), *after;
	struct recorder rec;

	recorder_attach(&rec, ctx);
	behaviour = HALF_DONE;
	cr_expect_eq(dlh_port_split(port, 2, &ext), -EIO);
	cr_expect_str_eq(ext.msg, "Failed to enable port 2", "the driver's message stays");
	after = model_dump(ctx);
	cr_expect_str_eq(after, before, "ports, names and order as before");
	cr_expect_eq(rec.count, 0, "no event for a failed op: %s", rec.log);
	cr_expect_not_null(strstr(logbuf, "driver rogue: port_split on test/rogue0/1 failed but left the ports "
					  "changed (driver bug): restored"),
			   "%s", logbuf);
	/* the very object the caller held is the port again, and lookups agree */
	cr_expect_eq(dlh_port_find(dlh_port_dev(port), 1), port);
	cr_expect_eq(dlh_port_find_netdev(ctx, "rogue0"), port);
	cr_expect_null(dlh_port_find(dlh_port_dev(port), 2), "the port the op added is gone");
	cr_expect_eq(dlh_port_is_split(port), false);
	/* and the model still takes a correct op */
	behaviour = SPLIT;
	cr_expect_eq(dlh_port_split(port, 2, &ext), 0, "%s", ext.msg);
	cr_assert_eq(dlh_port_lookup(ctx, "test/rogue0/2", &p, &ext), 0);
	cr_expect_eq(dlh_port_is_split(p), true);
	free(before);
	free(after);
	dlh_ctx_free(ctx);
	free(rec.log);
}

Test(contract, a_failed_op_that_undid_itself_keeps_the_same_objects_and_logs_nothing)
{
	struct dlh_extack ext;
	struct dlh_port *port;
	struct dlh_ctx *ctx = rogue_ctx(&port);
	char *before = model_dump(ctx), *after;
	struct recorder rec;

	recorder_attach(&rec, ctx);
	behaviour = UNDONE;
	cr_expect_eq(dlh_port_split(port, 2, &ext), -EIO);
	after = model_dump(ctx);
	cr_expect_str_eq(after, before);
	cr_expect_eq(rec.count, 0, "%s", rec.log);
	cr_expect_eq(dlh_port_find(dlh_port_dev(port), 1), port, "the caller's pointer is the port");
	cr_expect_str_eq(logbuf, "", "not a driver bug");
	free(before);
	free(after);
	dlh_ctx_free(ctx);
	free(rec.log);
}

static struct {
	struct dlh_ctx *ctx;
	int err;
	int calls;
} inside;

static void split_from_callback(const struct dlh_event *ev, void *arg)
{
	struct dlh_port *p;

	(void)arg;
	if (ev->type != DLH_EVENT_PORT_NEW || inside.calls++)
		return;
	if (!dlh_port_lookup(inside.ctx, "test/rogue0/5", &p, NULL))
		inside.err = dlh_port_type_set(p, DLH_PORT_TYPE_IB, NULL);
}

Test(contract, a_successful_op_delivers_its_events_afterwards_as_they_were_emitted)
{
	struct dlh_extack ext;
	struct dlh_port *port;
	struct dlh_ctx *ctx = rogue_ctx(&port);
	struct recorder rec;

	recorder_attach(&rec, ctx);
	inside.ctx = ctx;
	cr_assert_eq(dlh_ctx_subscribe(ctx, split_from_callback, NULL, NULL), 0);
	behaviour = SPLIT;
	cr_expect_eq(dlh_port_split(port, 2, &ext), 0, "%s", ext.msg);
	cr_expect_str_eq(rec.log, "port,del test/rogue0/1 rogue0\n"
				  "port,new test/rogue0/1 notset\n"
				  "port,new test/rogue0/1 rogue0\n"
				  "port,new test/rogue0/2 notset\n"
				  "port,new test/rogue0/2 rogue3\n");
	cr_expect_eq(inside.err, -EBUSY, "a subscriber cannot start an op from inside an event");
	dlh_ctx_free(ctx);
	free(rec.log);
}
