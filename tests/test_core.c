/* SPDX-License-Identifier: MIT */
/* Core: lookups, generic validation before drivers run, events, names, timers. */
#include "helpers.h"

#include <criterion/criterion.h>
#include <dlhal/sdk.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A driver that registers "ports" eth ports named "fake%d" and counts calls. */
static int calls_type_set, calls_split;

static int fake_probe(struct dlh_dev *dev, const char *config, struct dlh_extack *ext)
{
	json_t *root = json_loads(config, 0, NULL);
	int n = (int)json_integer_value(json_object_get(root, "ports"));
	int fail_at = (int)json_integer_value(json_object_get(root, "fail_at"));
	struct dlh_port *ports[64];
	int i, err = 0;

	json_decref(root);
	for (i = 0; i < n; i++) {
		struct dlh_sdk_port_attrs a = {.flavour = DLH_PORT_FLAVOUR_PHYSICAL, .lanes = 4, .splittable = true};

		if (i + 1 == fail_at) {
			err = dlh_sdk_extack(ext, -EIO, "Injected failure at port %d", i);
			break;
		}
		err = dlh_sdk_port_register(dev, (uint32_t)i, &a, &ports[i], ext);
		if (!err)
			err = dlh_sdk_port_type_eth(ports[i], "fake%d", ext);
		if (err)
			break;
	}
	if (err)
		while (i-- > 0)
			dlh_sdk_port_unregister(ports[i]);
	return err;
}

static int fake_type_set(struct dlh_port *port, enum dlh_port_type type, struct dlh_extack *ext)
{
	calls_type_set++;
	if (type == DLH_PORT_TYPE_IB)
		return dlh_sdk_port_type_ib(port, "fake_ib0", ext);
	if (type == DLH_PORT_TYPE_AUTO)
		return dlh_sdk_extack(ext, -EOPNOTSUPP, "Auto is not for fakes");
	return 0;
}

static int fake_split(struct dlh_port *port, unsigned int count, struct dlh_extack *ext)
{
	(void)port;
	(void)count;
	(void)ext;
	calls_split++;
	return 0;
}

static const struct dlh_sdk_ops fake_ops = {
    .probe = fake_probe,
    .port_type_set = fake_type_set,
    .port_split = fake_split,
};

static const struct dlh_sdk_driver fake_driver = {
    DLH_SDK_DRIVER_INIT("fake", &fake_ops),
};

static char profile_path[64];

static struct dlh_ctx *fake_ctx(int ports, int fail_at, int *err_out, struct dlh_extack *ext)
{
	struct dlh_ctx *ctx;
	FILE *f;
	int fd, err;

	snprintf(profile_path, sizeof(profile_path), "/tmp/dlhal-fake-XXXXXX.json");
	fd = mkstemps(profile_path, 5);
	cr_assert(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "{\"driver\": \"fake\", \"handle\": \"test/fake0\", \"hw\": {\"ports\": %d, \"fail_at\": %d}}",
		ports, fail_at);
	fclose(f);
	cr_assert_eq(dlh_ctx_new(&ctx, ext), 0);
	cr_assert_eq(dlh_sdk_driver_register(ctx, &fake_driver, ext), 0);
	err = dlh_ctx_sim_load(ctx, profile_path, ext);
	unlink(profile_path);
	if (err_out)
		*err_out = err;
	else
		cr_assert_eq(err, 0, "%s", ext->msg);
	calls_type_set = calls_split = 0;
	return ctx;
}

Test(lookup, malformed_handles_are_einval_and_say_why)
{
	struct dlh_ctx *ctx = fake_ctx(2, 0, NULL, &(struct dlh_extack){0});
	static const struct {
		const char *what, *msg;
	} cases[] = {
	    {"pci/", "Port handle \"pci/\" is not of the form bus/dev/index"},
	    {"pci//1", "Device name missing after \"pci/\""},
	    {"/1", "is not of the form bus/dev/index"},
	    {"test/fake0/x", "Port index \"x\" is not a number"},
	    {"test/fake0/", "Port index \"\" is not a number"},
	    {"test/fake0/99999999999", "is not a number from 0 to 4294967295"},
	    {"//1", "Bus name missing"},
	    {"test/fa ke0/1", "invalid character"},
	    {"this-netdev-name-is-too-long", "neither DEV/PORT_INDEX nor a netdev name"},
	    {"", "neither DEV/PORT_INDEX nor a netdev name"},
	    {"bus-name-that-is-much-too-long-for-devlink/x/1", "Bus name is longer than 31"},
	};
	struct dlh_extack ext;
	struct dlh_port *port;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		port = NULL;
		cr_expect_eq(dlh_port_lookup(ctx, cases[i].what, &port, &ext), -EINVAL, "%s", cases[i].what);
		cr_expect_not_null(strstr(ext.msg, cases[i].msg), "%s: got \"%s\"", cases[i].what, ext.msg);
		cr_expect_null(port);
	}
	dlh_ctx_free(ctx);
}

Test(lookup, missing_objects_are_enodev_and_named)
{
	struct dlh_ctx *ctx = fake_ctx(2, 0, NULL, &(struct dlh_extack){0});
	struct dlh_extack ext;
	struct dlh_port *port;
	struct dlh_dev *dev;

	cr_expect_eq(dlh_port_lookup(ctx, "test/fake1/0", &port, &ext), -ENODEV);
	cr_expect_str_eq(ext.obj, "test/fake1");
	cr_expect_str_eq(ext.msg, "Device does not exist");
	cr_expect_eq(dlh_port_lookup(ctx, "test/fake0/2", &port, &ext), -ENODEV);
	cr_expect_str_eq(ext.obj, "test/fake0/2");
	cr_expect_str_eq(ext.msg, "Port does not exist");
	cr_expect_eq(dlh_port_lookup(ctx, "fake7", &port, &ext), -ENODEV);
	cr_expect_str_eq(ext.obj, "fake7");
	cr_expect_eq(dlh_dev_lookup(ctx, "test/nope", &dev, &ext), -ENODEV);
	cr_expect_eq(dlh_dev_lookup(ctx, "test", &dev, &ext), -EINVAL);
	cr_expect_eq(dlh_port_lookup(ctx, "test/fake0/1", &port, &ext), 0);
	cr_expect_eq(dlh_port_index(port), 1);
	cr_expect_eq(dlh_port_lookup(ctx, "fake1", &port, &ext), 0);
	cr_expect_str_eq(dlh_port_handle(port), "test/fake0/1");
	dlh_ctx_free(ctx);
}

Test(validation, bad_type_is_refused_before_the_driver)
{
	struct dlh_ctx *ctx = fake_ctx(1, 0, NULL, &(struct dlh_extack){0});
	struct dlh_port *port = dlh_port_find(dlh_dev_first(ctx), 0);
	struct dlh_extack ext;

	cr_expect_eq(dlh_port_type_set(port, DLH_PORT_TYPE_NOTSET, &ext), -EINVAL);
	cr_expect_eq(dlh_port_type_set(port, (enum dlh_port_type)42, &ext), -EINVAL);
	cr_expect_str_eq(ext.msg, "Port type must be eth, ib or auto");
	cr_expect_str_eq(ext.obj, "test/fake0/0");
	cr_expect_eq(calls_type_set, 0);
	dlh_ctx_free(ctx);
}

/* A change as data (dlhald's protocol) is the call it names, with that call's checks and words. */
Test(validation, a_change_as_data_is_the_call_it_names)
{
	struct dlh_ctx *ctx = ctx_with("sn2700,cx3-vpi");
	struct dlh_dev *sw = dlh_dev_find(ctx, "pci/0000:03:00.0"), *hca = dlh_dev_find(ctx, "pci/0000:01:00.0");
	struct dlh_extack ext;

	cr_assert_eq(
	    dlh_port_change(dlh_port_find(sw, 1), &(struct dlh_change_req){.kind = DLH_CHANGE_SPLIT, .count = 2}, &ext),
	    0, "%s", ext.msg);
	cr_expect_not_null(dlh_port_find(sw, 2), "split by 2");
	cr_expect_eq(
	    dlh_port_change(dlh_port_find(sw, 1), &(struct dlh_change_req){.kind = DLH_CHANGE_SPLIT, .count = 2}, &ext),
	    -EINVAL);
	cr_expect_str_eq(ext.msg, "Port cannot be split further");
	cr_assert_eq(dlh_port_change(dlh_port_find(sw, 2), &(struct dlh_change_req){.kind = DLH_CHANGE_UNSPLIT}, &ext),
		     0, "%s", ext.msg);
	cr_expect_null(dlh_port_find(sw, 2), "unsplit");
	cr_assert_eq(dlh_port_change(dlh_port_find(hca, 1),
				     &(struct dlh_change_req){.kind = DLH_CHANGE_TYPE, .type = DLH_PORT_TYPE_IB}, &ext),
		     0, "%s", ext.msg);
	cr_expect_eq(dlh_port_type(dlh_port_find(hca, 1)), DLH_PORT_TYPE_IB);
	cr_expect_eq(dlh_port_change(dlh_port_find(hca, 1), &(struct dlh_change_req){.kind = (enum dlh_change)7}, &ext),
		     -EINVAL);
	cr_expect_str_eq(ext.msg, "Unknown change 7");
	cr_expect_str_eq(ext.obj, "pci/0000:01:00.0/1");
	dlh_ctx_free(ctx);
}

Test(validation, desired_type_again_is_a_noop_without_the_driver)
{
	struct dlh_ctx *ctx = fake_ctx(1, 0, NULL, &(struct dlh_extack){0});
	struct dlh_port *port = dlh_port_find(dlh_dev_first(ctx), 0);
	struct dlh_extack ext;

	cr_expect_eq(dlh_port_desired_type(port), DLH_PORT_TYPE_NOTSET);
	cr_expect_eq(dlh_port_type_set(port, DLH_PORT_TYPE_ETH, &ext), 0);
	cr_expect_eq(calls_type_set, 1, "actual type eth but desired notset: the driver is asked");
	cr_expect_eq(dlh_port_desired_type(port), DLH_PORT_TYPE_ETH);
	cr_expect_eq(dlh_port_type_set(port, DLH_PORT_TYPE_ETH, &ext), 0);
	cr_expect_eq(calls_type_set, 1, "desired eth already: no driver call");
	cr_expect_eq(dlh_port_type_set(port, DLH_PORT_TYPE_IB, &ext), 0);
	cr_expect_eq(calls_type_set, 2);
	cr_expect_str_eq(dlh_port_ibdev(port), "fake_ib0");
	cr_expect_null(dlh_port_netdev(port));
	cr_expect_null(dlh_port_find_netdev(ctx, "fake0"), "the netdev name is released with the type");
	dlh_ctx_free(ctx);
}

Test(validation, failed_type_set_keeps_desired_type)
{
	struct dlh_ctx *ctx = fake_ctx(1, 0, NULL, &(struct dlh_extack){0});
	struct dlh_port *port = dlh_port_find(dlh_dev_first(ctx), 0);
	struct dlh_extack ext;

	cr_expect_eq(dlh_port_type_set(port, DLH_PORT_TYPE_AUTO, &ext), -EOPNOTSUPP);
	cr_expect_str_eq(ext.msg, "Auto is not for fakes");
	cr_expect_str_eq(ext.obj, "test/fake0/0");
	cr_expect_eq(dlh_port_desired_type(port), DLH_PORT_TYPE_NOTSET);
	dlh_ctx_free(ctx);
}

Test(validation, split_count_below_two_and_missing_ops)
{
	struct dlh_ctx *ctx = fake_ctx(1, 0, NULL, &(struct dlh_extack){0});
	struct dlh_port *port = dlh_port_find(dlh_dev_first(ctx), 0);
	struct dlh_extack ext;

	cr_expect_eq(dlh_port_split(port, 0, &ext), -EINVAL);
	cr_expect_eq(dlh_port_split(port, 1, &ext), -EINVAL);
	cr_expect_str_eq(ext.msg, "Invalid split count");
	cr_expect_eq(calls_split, 0);
	cr_expect_eq(dlh_port_split(port, 2, &ext), 0);
	cr_expect_eq(calls_split, 1);
	cr_expect_eq(dlh_port_unsplit(port, &ext), -EOPNOTSUPP, "no unsplit op");
	cr_expect_str_eq(ext.obj, "test/fake0/0");
	cr_expect_eq(dlh_dev_sim_set(dlh_dev_first(ctx), NULL, "fail_nth", "1", &ext), -EOPNOTSUPP);
	dlh_ctx_free(ctx);
}

Test(events, delivered_in_order_to_every_subscriber)
{
	struct dlh_extack ext;
	struct dlh_ctx *ctx;
	struct recorder a, b;
	FILE *f;
	int fd;

	cr_assert_eq(dlh_ctx_new(&ctx, &ext), 0);
	cr_assert_eq(dlh_sdk_driver_register(ctx, &fake_driver, &ext), 0);
	recorder_attach(&a, ctx);
	recorder_attach(&b, ctx);
	snprintf(profile_path, sizeof(profile_path), "/tmp/dlhal-fake-XXXXXX.json");
	fd = mkstemps(profile_path, 5);
	f = fdopen(fd, "w");
	fprintf(f, "{\"driver\": \"fake\", \"handle\": \"test/fake0\", \"hw\": {\"ports\": 2}}");
	fclose(f);
	cr_assert_eq(dlh_ctx_sim_load(ctx, profile_path, &ext), 0, "%s", ext.msg);
	unlink(profile_path);
	cr_expect_str_eq(a.log, "dev,new test/fake0\n"
				"port,new test/fake0/0 notset\n"
				"port,new test/fake0/0 fake0\n"
				"port,new test/fake0/1 notset\n"
				"port,new test/fake0/1 fake1\n");
	cr_expect_str_eq(a.log, b.log);
	recorder_clear(&a);
	dlh_ctx_free(ctx);
	cr_expect_str_eq(a.log, "port,del test/fake0/1 fake1\nport,del test/fake0/0 fake0\ndev,del test/fake0\n");
	free(a.log);
	free(b.log);
}

static void unsub_self(const struct dlh_event *ev, void *arg)
{
	struct dlh_sub **sub = arg;

	(void)ev;
	dlh_ctx_unsubscribe(*sub);
	*sub = NULL;
}

Test(events, unsubscribe_inside_a_callback)
{
	struct dlh_ctx *ctx = fake_ctx(1, 0, NULL, &(struct dlh_extack){0});
	struct dlh_port *port = dlh_port_find(dlh_dev_first(ctx), 0);
	struct dlh_sub *sub;
	struct recorder rec;

	cr_assert_eq(dlh_ctx_subscribe(ctx, unsub_self, &sub, &sub), 0);
	recorder_attach(&rec, ctx);
	dlh_port_type_set(port, DLH_PORT_TYPE_IB, NULL);
	cr_expect_null(sub);
	cr_expect_eq(rec.count, 2, "ib change, then desired type change: %s", rec.log);
	dlh_ctx_free(ctx);
	free(rec.log);
}

Test(probe, failure_leaves_no_device_and_names_the_profile)
{
	struct dlh_extack ext;
	int err;
	struct dlh_ctx *ctx = fake_ctx(4, 3, &err, &ext);

	cr_expect_eq(err, -EIO);
	cr_expect_not_null(strstr(ext.msg, "Injected failure at port 2"), "%s", ext.msg);
	cr_expect_not_null(strstr(ext.msg, ".json"), "profile named: %s", ext.msg);
	cr_expect_str_eq(ext.obj, "test/fake0");
	cr_expect_null(dlh_dev_first(ctx));
	cr_expect_null(dlh_port_find_netdev(ctx, "fake0"), "names released");
	dlh_ctx_free(ctx);
}

Test(names, pattern_takes_the_lowest_free_number)
{
	struct dlh_ctx *ctx = fake_ctx(3, 0, NULL, &(struct dlh_extack){0});
	struct dlh_dev *dev = dlh_dev_first(ctx);
	struct dlh_extack ext;
	char name[DLH_NETDEV_NAME_MAX];

	cr_expect_eq(dlh_sdk_netdev_name_alloc(ctx, "fake%d", name, sizeof(name), &ext), 0);
	cr_expect_str_eq(name, "fake3");
	dlh_sdk_port_unregister(dlh_port_find(dev, 1));
	cr_expect_eq(dlh_sdk_netdev_name_alloc(ctx, "fake%d", name, sizeof(name), &ext), 0);
	cr_expect_str_eq(name, "fake1");
	cr_expect_eq(dlh_sdk_netdev_name_alloc(ctx, "sw%dp1", name, sizeof(name), &ext), 0);
	cr_expect_str_eq(name, "sw0p1");
	cr_expect_eq(dlh_sdk_netdev_name_alloc(ctx, "fake", name, sizeof(name), &ext), -EINVAL);
	cr_expect_eq(dlh_sdk_netdev_name_alloc(ctx, "a%d%d", name, sizeof(name), &ext), -EINVAL);
	cr_expect_eq(dlh_sdk_netdev_name_alloc(ctx, "a%s", name, sizeof(name), &ext), -EINVAL);
	cr_expect_eq(dlh_sdk_netdev_name_alloc(ctx, "fake%d", name, 3, &ext), -ENOSPC);
	dlh_ctx_free(ctx);
}

Test(names, taken_and_invalid_names_are_refused)
{
	struct dlh_ctx *ctx = fake_ctx(2, 0, NULL, &(struct dlh_extack){0});
	struct dlh_port *p1 = dlh_port_find(dlh_dev_first(ctx), 1);
	struct dlh_extack ext;

	cr_expect_eq(dlh_sdk_port_type_eth(p1, "fake0", &ext), -EEXIST);
	cr_expect_not_null(strstr(ext.msg, "in use by test/fake0/0"), "%s", ext.msg);
	cr_expect_str_eq(dlh_port_netdev(p1), "fake1", "unchanged after refusal");
	cr_expect_eq(dlh_sdk_port_type_eth(p1, "a/b", &ext), -EINVAL);
	cr_expect_eq(dlh_sdk_port_type_eth(p1, "sixteen-chars-xx", &ext), -EINVAL);
	cr_expect_eq(dlh_sdk_port_type_ib(p1, "", &ext), -EINVAL);
	cr_expect_eq(dlh_sdk_port_type_eth(p1, "renamed", &ext), 0);
	cr_expect_null(dlh_port_find_netdev(ctx, "fake1"));
	cr_expect_eq(dlh_port_find_netdev(ctx, "renamed"), p1);
	dlh_ctx_free(ctx);
}

Test(registry, many_ports_keep_order_and_lookups)
{
	struct dlh_ctx *ctx = fake_ctx(0, 0, NULL, &(struct dlh_extack){0});
	struct dlh_dev *dev = dlh_dev_first(ctx);
	struct dlh_extack ext;
	uint32_t expect = 0;

	for (uint32_t i = 0; i < 2000; i++) {
		struct dlh_port *p;

		cr_assert_eq(dlh_sdk_port_register(dev, i * 7, NULL, &p, &ext), 0);
		cr_assert_eq(dlh_sdk_port_type_eth(p, "p%d", &ext), 0);
	}
	cr_expect_eq(dlh_sdk_port_register(dev, 7, NULL, NULL, &ext), -EEXIST);
	for (uint32_t i = 0; i < 2000; i += 2)
		dlh_sdk_port_unregister(dlh_port_find(dev, i * 7));
	cr_expect_eq(dlh_dev_port_count(dev), 1000);
	for (struct dlh_port *p = dlh_port_first(dev); p; p = dlh_port_next(p)) {
		expect += expect % 2 ? 2 : 1;
		cr_expect_eq(dlh_port_index(p), (expect)*7, "registration order");
		cr_expect_eq(dlh_port_find(dev, dlh_port_index(p)), p);
		cr_expect_eq(dlh_port_find_netdev(ctx, dlh_port_netdev(p)), p);
	}
	cr_expect_null(dlh_port_find(dev, 0));
	cr_expect_null(dlh_port_find_netdev(ctx, "p0"));
	dlh_ctx_free(ctx);
}

Test(drivers, duplicate_and_foreign_abi_are_refused)
{
	struct dlh_sdk_driver other = fake_driver;
	struct dlh_extack ext;
	struct dlh_ctx *ctx;

	cr_assert_eq(dlh_ctx_new(&ctx, &ext), 0);
	cr_expect_eq(dlh_sdk_driver_register(ctx, &fake_driver, &ext), 0);
	cr_expect_eq(dlh_sdk_driver_register(ctx, &fake_driver, &ext), -EEXIST);
	other.name = "fake2";
	other.abi_version = DLH_SDK_ABI_VERSION + 1;
	cr_expect_eq(dlh_sdk_driver_register(ctx, &other, &ext), -ENOEXEC);
	cr_expect_not_null(strstr(ext.msg, "Driver ABI version 8, host ABI version 7"), "%s", ext.msg);
	cr_expect_eq(dlh_ctx_sim_load(ctx, "no-such-profile", &ext), -ENOENT);
	cr_expect_str_eq(ext.msg, "Unknown profile \"no-such-profile\"");
	dlh_ctx_free(ctx);
}

/* A relay's driver: the name it is asked for once, the relay's own on an error or a bad name. */
static int driver_asks;
static const char *driver_answer;

static int relay_driver_get(struct dlh_dev *dev, char *buf, size_t len, struct dlh_extack *ext)
{
	(void)dev;
	driver_asks++;
	if (!driver_answer)
		return dlh_sdk_extack(ext, -EOPNOTSUPP, "No driver name");
	snprintf(buf, len, "%s", driver_answer);
	return 0;
}

Test(drivers, a_relays_device_is_its_drivers_and_the_relay_its_backend)
{
	static const struct dlh_sdk_ops relay_ops = {.probe = fake_probe, .dev_driver_get = relay_driver_get};
	static const struct dlh_sdk_driver relay = {DLH_SDK_DRIVER_INIT("fake", &relay_ops)};
	static const char *const answers[] = {"mlxsw_spectrum", NULL, "has space", ""};
	static const char *const want[] = {"mlxsw_spectrum", "fake", "fake", "fake"};

	for (size_t i = 0; i < sizeof(answers) / sizeof(answers[0]); i++) {
		struct dlh_extack ext;
		struct dlh_ctx *ctx;
		struct dlh_dev *dev;
		char path[] = "/tmp/dlhal-relay-XXXXXX.json";
		int fd = mkstemps(path, 5);
		FILE *f = fdopen(fd, "w");

		fprintf(f, "{\"driver\": \"fake\", \"handle\": \"test/fake0\", \"hw\": {\"ports\": 1}}");
		fclose(f);
		cr_assert_eq(dlh_ctx_new(&ctx, &ext), 0);
		cr_assert_eq(dlh_sdk_driver_register(ctx, &relay, &ext), 0);
		cr_assert_eq(dlh_ctx_sim_load(ctx, path, &ext), 0, "%s", ext.msg);
		unlink(path);
		dev = dlh_dev_find(ctx, "test/fake0");
		driver_asks = 0;
		driver_answer = answers[i];
		cr_expect_str_eq(dlh_dev_driver(dev), want[i], "answer %zu", i);
		cr_expect_str_eq(dlh_dev_driver(dev), want[i], "answer %zu, again", i);
		cr_expect_eq(driver_asks, 1, "asked once: %d", driver_asks);
		cr_expect_str_eq(dlh_dev_backend(dev), "fake");
		dlh_ctx_free(ctx);
	}
}

Test(drivers, a_relayed_driver_name_is_checked)
{
	struct dlh_ctx *ctx = fake_ctx(1, 0, NULL, &(struct dlh_extack){0});
	struct dlh_dev *dev = dlh_dev_find(ctx, "test/fake0");
	struct dlh_extack ext;

	cr_expect_eq(dlh_sdk_dev_driver_set(dev, "mlxsw", &ext), 0);
	cr_expect_str_eq(dlh_dev_driver(dev), "mlxsw");
	cr_expect_str_eq(dlh_dev_backend(dev), "fake");
	cr_expect_eq(dlh_sdk_dev_driver_set(dev, "", &ext), -EINVAL);
	cr_expect_str_eq(ext.msg, "Driver name must be 1 to 31 characters");
	cr_expect_eq(dlh_sdk_dev_driver_set(dev, "a\nb", &ext), -EINVAL);
	cr_expect_eq(dlh_sdk_dev_driver_set(dev, "0123456789012345678901234567890123", &ext), -EINVAL);
	cr_expect_str_eq(dlh_dev_driver(dev), "mlxsw", "a refused name leaves the one before");
	cr_expect_eq(dlh_sdk_dev_driver_set(dev, NULL, &ext), 0);
	cr_expect_str_eq(dlh_dev_driver(dev), "fake");
	dlh_ctx_free(ctx);
}

/* The instances nested in a device: handles checked whole, a refusal leaving what was there. */
Test(drivers, nested_instances_are_checked)
{
	struct dlh_ctx *ctx = fake_ctx(2, 0, NULL, &(struct dlh_extack){0});
	struct dlh_dev *dev = dlh_dev_find(ctx, "test/fake0"), *other;
	const char *one[] = {"test/fake1"}, *bad[] = {"auxiliary/mlx5_core.eth.0", "test/fake1/7"};
	const char *many[DLH_NESTED_MAX + 1];
	struct dlh_extack ext;

	FILE *f;

	/* a second device to nest */
	snprintf(profile_path, sizeof(profile_path), "/tmp/dlhal-fake-XXXXXX.json");
	f = fdopen(mkstemps(profile_path, 5), "w");
	cr_assert_not_null(f);
	fprintf(f, "{\"driver\": \"fake\", \"handle\": \"test/fake1\", \"hw\": {\"ports\": 1, \"fail_at\": 0}}");
	fclose(f);
	cr_assert_eq(dlh_ctx_sim_load(ctx, profile_path, &ext), 0, "%s", ext.msg);
	unlink(profile_path);
	other = dlh_dev_find(ctx, "test/fake1");
	cr_assert_not_null(dev);
	cr_assert_not_null(other);
	for (size_t i = 0; i <= DLH_NESTED_MAX; i++)
		many[i] = "auxiliary/x.0";
	cr_expect_null(dlh_dev_nested(dev, 0));
	cr_expect_null(dlh_dev_nested_in(other));
	cr_assert_eq(dlh_sdk_dev_nested_set(dev, one, 1, &ext), 0, "%s", ext.msg);
	cr_expect_str_eq(dlh_dev_nested(dev, 0), "test/fake1");
	cr_expect_null(dlh_dev_nested(dev, 1));
	cr_expect_eq(dlh_dev_nested_in(other), dev);
	cr_expect_null(dlh_dev_nested_in(dev));
	cr_expect_eq(dlh_sdk_dev_nested_set(dev, bad, 2, &ext), -EINVAL, "a port's handle");
	cr_expect(strstr(ext.msg, "test/fake1/7"), "%s", ext.msg);
	cr_expect_eq(dlh_sdk_dev_nested_set(dev, many, DLH_NESTED_MAX + 1, &ext), -E2BIG);
	cr_expect_str_eq(dlh_dev_nested(dev, 0), "test/fake1", "a refusal leaves what was there");
	cr_expect_eq(dlh_sdk_dev_nested_set(dev, NULL, 0, &ext), 0);
	cr_expect_null(dlh_dev_nested(dev, 0));
	cr_expect_null(dlh_dev_nested_in(other));
	dlh_ctx_free(ctx);
}

static int fired[8], nfired;

static void timer_fn(struct dlh_sdk_timer *t, void *arg)
{
	fired[nfired++ % 8] = (int)(intptr_t)arg;
	if ((intptr_t)arg == 1)
		dlh_sdk_timer_arm(t, 300);
}

Test(timers, manual_clock_fires_in_order_and_periodically)
{
	struct dlh_ctx *ctx = fake_ctx(0, 0, NULL, &(struct dlh_extack){0});
	struct dlh_dev *dev = dlh_dev_first(ctx);
	struct dlh_sdk_timer *a, *b;

	nfired = 0;
	cr_assert_eq(dlh_sdk_timer_new(dev, timer_fn, (void *)1, &a), 0);
	cr_assert_eq(dlh_sdk_timer_new(dev, timer_fn, (void *)2, &b), 0);
	cr_expect_eq(dlh_ctx_timeout(ctx), -1);
	dlh_sdk_timer_arm(a, 300);
	dlh_sdk_timer_arm(b, 500);
	cr_expect_eq(dlh_ctx_timeout(ctx), 300);
	dlh_ctx_clock_advance(ctx, 299);
	cr_expect_eq(nfired, 0);
	dlh_ctx_clock_advance(ctx, 1000); /* now 1299: a at 300, 600, 900, 1200; b at 500 */
	cr_expect_eq(nfired, 5);
	cr_expect_eq(fired[0], 1);
	cr_expect_eq(fired[1], 2);
	cr_expect_eq(fired[2], 1);
	cr_expect_eq(dlh_ctx_timeout(ctx), 1500 - 1299);
	dlh_sdk_timer_cancel(a);
	cr_expect_not(dlh_sdk_timer_armed(a));
	cr_expect_eq(dlh_ctx_timeout(ctx), -1);
	dlh_sdk_timer_arm(b, 10);
	/* b is freed with the device, armed or not */
	dlh_ctx_free(ctx);
}

Test(enums, words_round_trip)
{
	enum dlh_port_type t;

	cr_expect_str_eq(dlh_port_type_name(DLH_PORT_TYPE_ETH), "eth");
	cr_expect_str_eq(dlh_port_type_name((enum dlh_port_type)9), "unknown");
	cr_expect_eq(dlh_port_type_parse("auto", &t), 0);
	cr_expect_eq(t, DLH_PORT_TYPE_AUTO);
	cr_expect_eq(dlh_port_type_parse("Ethernet", &t), -EINVAL);
	cr_expect_str_eq(dlh_port_flavour_name(DLH_PORT_FLAVOUR_PCI_VF), "pcivf");
	cr_expect_str_eq(dlh_event_object(DLH_EVENT_PORT_CHANGE), "port");
	cr_expect_str_eq(dlh_event_action(DLH_EVENT_PORT_CHANGE), "new");
	cr_expect_str_eq(dlh_event_action(DLH_EVENT_DEV_DEL), "del");
}

Test(messages, cuts_are_marked_never_silent)
{
	struct dlh_ctx *ctx = fake_ctx(1, 0, NULL, &(struct dlh_extack){0});
	char longword[301], longmsg[400];
	struct dlh_extack ext;
	struct dlh_port *port;

	memset(longword, 'x', 300);
	longword[300] = '\0';
	cr_expect_eq(dlh_port_lookup(ctx, longword, &port, &ext), -EINVAL);
	cr_expect_not_null(strstr(ext.msg, "xxx...\" is neither DEV/PORT_INDEX nor a netdev name"), "%s", ext.msg);
	memset(longmsg, 'm', sizeof(longmsg) - 1);
	longmsg[sizeof(longmsg) - 1] = '\0';
	cr_expect_eq(dlh_sdk_extack(&ext, -EIO, "%s", longmsg), -EIO);
	cr_expect_eq(strlen(ext.msg), sizeof(ext.msg) - 1);
	cr_expect_str_eq(ext.msg + sizeof(ext.msg) - 4, "...");
	dlh_ctx_free(ctx);
}

/* What a relay hands core for a faceplate and a card is checked: a bad one leaves what was there. */
Test(faceplate, a_relayed_faceplate_and_card_name_are_checked)
{
	struct dlh_extack ext;
	struct dlh_ctx *ctx = fake_ctx(2, 0, NULL, &ext);
	struct dlh_dev *dev = dlh_dev_first(ctx);
	struct dlh_cage c[2] = {{.number = 0, .row = 0, .col = 0, .form = "QSFP28", .label = "0", .has_module = true},
				{.number = 1, .row = 0, .col = 1, .form = "QSFP28", .label = "1", .has_module = true}};
	const struct dlh_cage *got;
	char longname[DLH_CARD_NAME_MAX + 1];

	cr_expect_eq(dlh_sdk_dev_cages_set(dev, c, 2, &ext), -EINVAL);
	cr_expect_str_eq(ext.msg, "Faceplate: cages 0 and 1 on one module 0");
	cr_expect_eq(dlh_dev_cages(dev, &got), 0, "nothing kept");
	c[1].module = 1;
	cr_expect_eq(dlh_sdk_dev_cages_set(dev, c, 2, &ext), 0, "%s", ext.msg);
	cr_expect_eq(dlh_dev_cages(dev, &got), 2);
	cr_expect(got[1].has_module && got[1].module == 1);
	cr_expect_null(dlh_dev_card(dev));
	cr_expect_eq(dlh_sdk_dev_card_set(dev, "pci/0000:16:00.0", &ext), 0);
	cr_expect_str_eq(dlh_dev_card(dev), "pci/0000:16:00.0");
	cr_expect_eq(dlh_sdk_dev_card_set(dev, "", &ext), -EINVAL);
	cr_expect_str_eq(ext.msg, "Card name: 1 to 111 characters");
	cr_expect_eq(dlh_sdk_dev_card_set(dev, "a card", &ext), -EINVAL);
	cr_expect_str_eq(ext.msg, "Card name: a blank or control character");
	memset(longname, 'c', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	cr_expect_eq(dlh_sdk_dev_card_set(dev, longname, &ext), -EINVAL);
	cr_expect_str_eq(dlh_dev_card(dev), "pci/0000:16:00.0", "the refused names left the card as it was");
	cr_expect_eq(dlh_sdk_dev_card_set(dev, NULL, &ext), 0);
	cr_expect_null(dlh_dev_card(dev));
	dlh_ctx_free(ctx);
}

/* A bus driver that fills devices and ports only when asked, counting fills. */
static int fills_devs, fills_ports;

static int lazy_fill(struct dlh_sdk_bus *bus, unsigned int what, struct dlh_extack *ext)
{
	struct dlh_ctx *ctx = dlh_sdk_bus_ctx(bus);
	struct dlh_dev *dev;
	struct dlh_port *port;

	if (what & DLH_SDK_FILL_DEVS) {
		fills_devs++;
		/* listing devices from inside a fill must not fill again */
		cr_expect_null(dlh_dev_find(ctx, "lazy/noports"));
		if (dlh_sdk_bus_dev_add(bus, "lazy/noports", NULL, ext))
			return -EIO;
	}
	if (what & DLH_SDK_FILL_PORTS) {
		fills_ports++;
		if (!(dev = dlh_dev_find(ctx, "lazy/withports")) &&
		    dlh_sdk_bus_dev_add(bus, "lazy/withports", &dev, ext))
			return -EIO;
		if (dlh_sdk_port_register(dev, 7, NULL, &port, ext) || dlh_sdk_port_type_eth(port, "lazy7", ext))
			return -EIO;
	}
	return 0;
}

/*
 * A relay whose every op is answered after the device went away: the kernel
 * instance was unregistered while the op was on its way, and the
 * notifications read with the answer remove the device (what dlhald
 * --desired met when a publisher stopped under it). Nothing may read the
 * device or port after the driver ran: under ASan and valgrind a read is an
 * error, and the answer must still reach the caller, naming the object.
 */
static int gone_err;

static int gone_attach(struct dlh_sdk_bus *bus, struct dlh_extack *ext)
{
	struct dlh_sdk_port_attrs a = {
	    .flavour = DLH_PORT_FLAVOUR_PHYSICAL, .number = 1, .lanes = 4, .splittable = true};
	struct dlh_dev *dev;
	struct dlh_port *p;
	int err = dlh_sdk_bus_dev_add(bus, "pci/0000:09:00.0", &dev, ext);

	if (!err)
		err = dlh_sdk_port_register(dev, 1, &a, &p, ext);
	return err ? err : dlh_sdk_port_type_eth(p, "gone0", ext);
}

static int gone_now(struct dlh_dev *dev, struct dlh_extack *ext)
{
	dlh_sdk_dev_remove(dev);
	return gone_err ? dlh_sdk_extack(ext, gone_err, "No such device") : 0;
}

static int gone_split(struct dlh_port *port, unsigned int count, struct dlh_extack *ext)
{
	(void)count;
	return gone_now(dlh_port_dev(port), ext);
}

static int gone_unsplit(struct dlh_port *port, struct dlh_extack *ext)
{
	return gone_now(dlh_port_dev(port), ext);
}

static int gone_type_set(struct dlh_port *port, enum dlh_port_type type, struct dlh_extack *ext)
{
	(void)type;
	return gone_now(dlh_port_dev(port), ext);
}

static int gone_sim_set(struct dlh_dev *dev, struct dlh_port *port, const char *key, const char *value,
			struct dlh_extack *ext)
{
	(void)port, (void)key, (void)value;
	return gone_now(dev, ext);
}

static int gone_reload(struct dlh_dev *dev, enum dlh_reload_action action, enum dlh_reload_limit limit,
		       uint32_t *performed, struct dlh_extack *ext)
{
	(void)limit;
	*performed = 1u << action;
	return gone_now(dev, ext);
}

static const struct dlh_sdk_ops gone_ops = {.bus_attach = gone_attach,
					    .port_split = gone_split,
					    .port_unsplit = gone_unsplit,
					    .port_type_set = gone_type_set,
					    .sim_set = gone_sim_set,
					    .dev_reload = gone_reload,
					    .reload_actions = 1u << DLH_RELOAD_ACTION_DRIVER_REINIT};
static const struct dlh_sdk_driver gone_driver = {DLH_SDK_DRIVER_INIT("gone", &gone_ops)};

static void gone_count(const struct dlh_event *ev, void *arg)
{
	*(int *)arg += ev->type == DLH_EVENT_DEV_DEL;
}

Test(relay, an_op_answered_after_its_device_went_touches_it_no_more)
{
	const char *const ops[] = {"split", "unsplit", "type", "sim", "reload"};

	for (int e = 0; e < 2; e++) {
		for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
			struct dlh_extack ext;
			struct dlh_ctx *ctx;
			struct dlh_port *port;
			struct dlh_sub *sub;
			struct dlh_dev *dev;
			uint32_t done;
			int err = -1, dels = 0;

			gone_err = e ? -ENODEV : 0;
			cr_assert_eq(dlh_ctx_new(&ctx, &ext), 0);
			cr_assert_eq(dlh_sdk_driver_register(ctx, &gone_driver, &ext), 0);
			cr_assert_eq(dlh_ctx_bus_attach(ctx, "gone", NULL, &ext), 0, "%s", ext.msg);
			cr_assert_eq(dlh_ctx_subscribe(ctx, gone_count, &dels, &sub), 0);
			dev = dlh_dev_find(ctx, "pci/0000:09:00.0");
			cr_assert_not_null(dev);
			port = dlh_port_first(dev);
			cr_assert_not_null(port);
			if (!strcmp(ops[i], "split"))
				err = dlh_port_split(port, 2, &ext);
			else if (!strcmp(ops[i], "unsplit"))
				err = dlh_port_unsplit(port, &ext);
			else if (!strcmp(ops[i], "type"))
				err = dlh_port_type_set(port, DLH_PORT_TYPE_IB, &ext);
			else if (!strcmp(ops[i], "sim"))
				err = dlh_dev_sim_set(dev, port, "key", "value", &ext);
			else
				err = dlh_dev_reload(dev, DLH_RELOAD_ACTION_DRIVER_REINIT, DLH_RELOAD_LIMIT_UNSPEC,
						     &done, &ext);
			cr_expect_eq(err, gone_err, "%s: %d (%s)", ops[i], err, ext.msg);
			if (gone_err) {
				cr_expect_str_eq(ext.msg, "No such device", "%s", ops[i]);
				cr_expect_str_eq(ext.obj,
						 strcmp(ops[i], "reload") ? "pci/0000:09:00.0/1" : "pci/0000:09:00.0",
						 "%s: the answer names what was asked of", ops[i]);
			}
			cr_expect_eq(dels, 1, "%s: the device's removal was delivered", ops[i]);
			cr_expect_null(dlh_dev_find(ctx, "pci/0000:09:00.0"), "%s", ops[i]);
			/* and the context goes on: another op finds nothing, a walk is empty */
			cr_expect_eq(dlh_port_lookup(ctx, "pci/0000:09:00.0/1", &port, &ext), -ENODEV, "%s", ops[i]);
			cr_expect_null(dlh_dev_first(ctx), "%s", ops[i]);
			dlh_ctx_free(ctx);
		}
	}
}

static int lazy_attach(struct dlh_sdk_bus *bus, struct dlh_extack *ext)
{
	(void)ext;
	cr_expect_str_eq(dlh_sdk_bus_config(bus), "some config");
	dlh_sdk_bus_fill_pending(bus, DLH_SDK_FILL_DEVS | DLH_SDK_FILL_PORTS);
	return 0;
}

static const struct dlh_sdk_ops lazy_ops = {.bus_attach = lazy_attach, .bus_fill = lazy_fill};
static const struct dlh_sdk_driver lazy_driver = {DLH_SDK_DRIVER_INIT("lazy", &lazy_ops)};

Test(bus, lazy_fill_once_and_only_what_is_needed)
{
	struct dlh_extack ext;
	struct dlh_ctx *ctx;
	struct dlh_port *port;
	struct dlh_dev *dev;
	int n = 0;

	fills_devs = fills_ports = 0;
	cr_assert_eq(dlh_ctx_new(&ctx, &ext), 0);
	cr_assert_eq(dlh_sdk_driver_register(ctx, &lazy_driver, &ext), 0);
	cr_assert_eq(dlh_ctx_bus_attach(ctx, "lazy", "some config", &ext), 0, "%s", ext.msg);
	cr_expect_eq(dlh_ctx_bus_attach(ctx, "lazy", NULL, &ext), -EEXIST);
	cr_expect_eq(fills_devs + fills_ports, 0, "nothing read at attach");
	/* Listing every port needs the ports, not the device list. */
	port = dlh_port_first_all(ctx);
	cr_expect_str_eq(dlh_port_handle(port), "lazy/withports/7");
	cr_expect_null(dlh_port_next_all(port));
	cr_expect_eq(fills_ports, 1);
	cr_expect_eq(fills_devs, 0);
	/* A port by netdev name needs the ports only. */
	cr_assert_eq(dlh_port_lookup(ctx, "lazy7", &port, &ext), 0, "%s", ext.msg);
	cr_expect_str_eq(dlh_port_handle(port), "lazy/withports/7");
	cr_expect_eq(fills_ports, 1, "still once");
	cr_expect_eq(fills_devs, 0);
	/* A device without ports needs the device list. */
	cr_expect_eq(dlh_port_lookup(ctx, "lazy/noports/0", &port, &ext), -ENODEV);
	cr_expect_str_eq(ext.msg, "Port does not exist");
	cr_expect_eq(fills_devs, 1);
	for (dev = dlh_dev_first(ctx); dev; dev = dlh_dev_next(dev))
		n++;
	cr_expect_eq(n, 2);
	cr_expect_eq(fills_devs, 1, "once");
	cr_expect_eq(fills_ports, 1, "once");
	cr_expect_eq(dlh_sdk_driver_register(ctx, &fake_driver, &ext), 0);
	cr_expect_eq(dlh_ctx_bus_attach(ctx, "fake", NULL, &ext), -EOPNOTSUPP, "a profile driver does not attach");
	dlh_ctx_free(ctx);
}

/*
 * A mirror that cannot read while it applies an answer of its own (the kernel
 * backend's request socket): its fills say -EBUSY then. Nothing may be lost
 * for it: the parts stay pending, nothing is logged, nothing falls back.
 */
static int busy_now, busy_fills, busy_dev_fills, busy_logs;

static int busy_fill(struct dlh_sdk_bus *bus, unsigned int what, struct dlh_extack *ext)
{
	struct dlh_dev *dev = dlh_dev_find(dlh_sdk_bus_ctx(bus), "busy/a");

	busy_fills++;
	if (busy_now)
		return dlh_sdk_extack(ext, -EBUSY, "A request to the source is being answered");
	if ((what & DLH_SDK_FILL_PORTS) && dev && !dlh_port_find(dev, 3))
		return dlh_sdk_port_register(dev, 3, NULL, NULL, ext);
	return 0;
}

static int busy_fill_dev(struct dlh_sdk_bus *bus, const char *handle, struct dlh_extack *ext)
{
	(void)handle;
	busy_dev_fills++;
	return busy_now ? -EBUSY : busy_fill(bus, DLH_SDK_FILL_PORTS, ext);
}

static int busy_attach(struct dlh_sdk_bus *bus, struct dlh_extack *ext)
{
	if (dlh_sdk_bus_dev_add(bus, "busy/a", NULL, ext))
		return -EIO;
	dlh_sdk_bus_fill_pending(bus, DLH_SDK_FILL_PORTS);
	return 0;
}

static void busy_log(void *arg, enum dlh_log_level level, const struct dlh_dev *dev, const char *msg)
{
	(void)arg;
	(void)dev;
	(void)msg;
	busy_logs += level <= DLH_LOG_WARNING;
}

static const struct dlh_sdk_ops busy_ops = {
    .bus_attach = busy_attach, .bus_fill = busy_fill, .bus_fill_dev = busy_fill_dev};
static const struct dlh_sdk_driver busy_driver = {DLH_SDK_DRIVER_INIT("busy", &busy_ops)};

Test(bus, a_fill_the_bus_cannot_do_now_stays_pending)
{
	struct dlh_extack ext;
	struct dlh_ctx *ctx;
	struct dlh_dev *dev;

	busy_now = busy_fills = busy_dev_fills = busy_logs = 0;
	cr_assert_eq(dlh_ctx_new(&ctx, &ext), 0);
	dlh_ctx_log_set(ctx, busy_log, NULL);
	cr_assert_eq(dlh_sdk_driver_register(ctx, &busy_driver, &ext), 0);
	cr_assert_eq(dlh_ctx_bus_attach(ctx, "busy", NULL, &ext), 0, "%s", ext.msg);
	dev = dlh_dev_find(ctx, "busy/a");
	cr_assert_not_null(dev);
	busy_now = 1;
	/* One device's ports: the bus says later; core does not read every port instead. */
	cr_expect_null(dlh_port_first(dev));
	cr_expect_eq(busy_dev_fills, 1);
	cr_expect_eq(busy_fills, 0, "no fallback to every port while the bus is busy");
	/* Every port: asked, refused for now. */
	cr_expect_null(dlh_port_first_all(ctx));
	cr_expect_eq(busy_fills, 1);
	cr_expect_eq(busy_logs, 0, "a fill for later is no error");
	/* The bus free again: the same questions read the ports. */
	busy_now = 0;
	cr_expect_not_null(dlh_port_first(dev), "the device's ports were still pending");
	cr_expect_eq(busy_dev_fills, 2);
	cr_expect_not_null(dlh_port_first_all(ctx), "every port was still pending");
	cr_expect_eq(busy_fills, 3);
	cr_expect_eq(busy_logs, 0);
	dlh_ctx_free(ctx);
}

/*
 * A mirror of two devices, "mirror/a" (ports 0-3, netdevs ma0-ma3) and
 * "mirror/b" (mb0-mb3), that can also find one port by netdev
 * (bus_fill_netdev), as the kernel backend does by stopping its dump.
 */
static int one_calls, all_calls, one_err;

static int mirror_port(struct dlh_sdk_bus *bus, const char *dev_handle, uint32_t index, struct dlh_extack *ext)
{
	struct dlh_dev *dev = dlh_dev_find(dlh_sdk_bus_ctx(bus), dev_handle);
	struct dlh_sdk_port_attrs attrs = {.flavour = DLH_PORT_FLAVOUR_PHYSICAL, .number = index + 1};
	struct dlh_port *port;
	char netdev[8];

	if (!dev && dlh_sdk_bus_dev_add(bus, dev_handle, &dev, ext))
		return -EIO;
	snprintf(netdev, sizeof(netdev), "m%c%u", dev_handle[7], index);
	port = dlh_port_find(dev, index);
	if (port)
		dlh_sdk_port_attrs_set(port, &attrs);
	else if (dlh_sdk_port_register(dev, index, &attrs, &port, ext))
		return -EIO;
	return dlh_sdk_port_type_eth(port, netdev, ext);
}

static int mirror_fill(struct dlh_sdk_bus *bus, unsigned int what, struct dlh_extack *ext)
{
	all_calls += !!(what & DLH_SDK_FILL_PORTS);
	for (uint32_t i = 0; (what & DLH_SDK_FILL_PORTS) && i < 8; i++)
		if (mirror_port(bus, i < 4 ? "mirror/a" : "mirror/b", i % 4, ext))
			return -EIO;
	return 0;
}

static int mirror_fill_netdev(struct dlh_sdk_bus *bus, const char *netdev, struct dlh_extack *ext)
{
	one_calls++;
	if (one_err)
		return dlh_sdk_extack(ext, one_err, "Cannot look %s up", netdev);
	if (strlen(netdev) != 3 || netdev[0] != 'm' || (netdev[1] != 'a' && netdev[1] != 'b') || netdev[2] > '3')
		return 0;
	return mirror_port(bus, netdev[1] == 'a' ? "mirror/a" : "mirror/b", (uint32_t)(netdev[2] - '0'), ext);
}

static int mirror_attach(struct dlh_sdk_bus *bus, struct dlh_extack *ext)
{
	(void)ext;
	dlh_sdk_bus_fill_pending(bus, DLH_SDK_FILL_DEVS | DLH_SDK_FILL_PORTS);
	return 0;
}

/* The same ports streamed, plus reports core must refuse (a driver bug or a hostile peer). */
static int mirror_walk(struct dlh_sdk_bus *bus, int (*fn)(const struct dlh_sdk_port_info *, void *), void *arg,
		       struct dlh_extack *ext)
{
	struct dlh_sdk_port_attrs bad_flavour = {.flavour = (enum dlh_port_flavour)99};
	const struct dlh_sdk_port_info bad[] = {
	    {.dev = "no-slash", .attrs = &bad_flavour},
	    {.dev = "mirror/a", .index = 9, .attrs = &bad_flavour},
	    {.dev = "mirror/a", .index = UINT32_MAX, .attrs = &(struct dlh_sdk_port_attrs){0}},
	    {.dev = "mirror/a",
	     .index = 8,
	     .attrs = &(struct dlh_sdk_port_attrs){0},
	     .type = DLH_PORT_TYPE_ETH,
	     .netdev = "bad name"},
	};

	(void)bus;
	(void)ext;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (fn(&bad[i], arg))
			return 0;
	for (uint32_t i = 0; i < 8; i++) {
		struct dlh_sdk_port_attrs attrs = {.flavour = DLH_PORT_FLAVOUR_PHYSICAL, .number = i % 4 + 1};
		char netdev[8];
		struct dlh_sdk_port_info info = {.dev = i < 4 ? "mirror/a" : "mirror/b",
						 .index = i % 4,
						 .attrs = &attrs,
						 .type = DLH_PORT_TYPE_ETH,
						 .netdev = netdev};

		snprintf(netdev, sizeof(netdev), "m%c%u", i < 4 ? 'a' : 'b', i % 4);
		if (fn(&info, arg))
			return 0;
	}
	return 0;
}

static const struct dlh_sdk_ops mirror_ops = {.bus_attach = mirror_attach,
					      .bus_fill = mirror_fill,
					      .bus_fill_netdev = mirror_fill_netdev,
					      .bus_ports_walk = mirror_walk};
static const struct dlh_sdk_driver mirror_driver = {DLH_SDK_DRIVER_INIT("mirror", &mirror_ops)};

static struct dlh_ctx *mirror_ctx(void)
{
	struct dlh_extack ext;
	struct dlh_ctx *ctx;

	one_calls = all_calls = one_err = 0;
	cr_assert_eq(dlh_ctx_new(&ctx, &ext), 0);
	cr_assert_eq(dlh_sdk_driver_register(ctx, &mirror_driver, &ext), 0);
	cr_assert_eq(dlh_ctx_bus_attach(ctx, "mirror", NULL, &ext), 0, "%s", ext.msg);
	return ctx;
}

/* The ports of the whole model, "handle,handle,...", as a listing sees them. */
static void listing(const struct dlh_ctx *ctx, char *out, size_t len)
{
	size_t n = 0;

	out[0] = '\0';
	for (struct dlh_port *p = dlh_port_first_all(ctx); p; p = dlh_port_next_all(p))
		n += (size_t)snprintf(out + n, len - n, "%s%s", n ? "," : "", dlh_port_handle(p));
}

Test(bus, one_port_by_netdev_without_every_port)
{
	struct dlh_ctx *ctx = mirror_ctx();
	struct dlh_extack ext;
	struct dlh_port *port;
	char all[256];

	cr_assert_eq(dlh_port_lookup(ctx, "mb2", &port, &ext), 0, "%s", ext.msg);
	cr_expect_str_eq(dlh_port_handle(port), "mirror/b/2");
	cr_expect_eq(dlh_port_number(port), 3);
	cr_expect_eq(one_calls, 1);
	cr_expect_eq(all_calls, 0, "no fill of every port for one");
	/* Known now: asked again, nobody is asked. */
	cr_expect_eq(dlh_port_find_netdev(ctx, "mb2"), port);
	cr_expect_eq(one_calls, 1);
	/* A name the bus does not have: its answer is final. */
	cr_expect_eq(dlh_port_lookup(ctx, "zz9", &port, &ext), -ENODEV);
	cr_expect_str_eq(ext.msg, "No port has this netdev");
	cr_expect_eq(one_calls, 2);
	cr_expect_eq(all_calls, 0);
	/* A listing fills every port, in the bus's order: the early port and its device take their places. */
	listing(ctx, all, sizeof(all));
	cr_expect_str_eq(all,
			 "mirror/a/0,mirror/a/1,mirror/a/2,mirror/a/3,mirror/b/0,mirror/b/1,mirror/b/2,mirror/b/3");
	cr_expect_eq(all_calls, 1);
	cr_expect_eq(dlh_port_find_netdev(ctx, "mb2"), port, "the same object as the lookup gave");
	cr_expect_str_eq(dlh_dev_handle(dlh_dev_first(ctx)), "mirror/a");
	/* Filled: lookups no longer ask the bus. */
	cr_expect_eq(dlh_port_lookup(ctx, "ma1", &port, &ext), 0);
	cr_expect_eq(dlh_port_lookup(ctx, "zz9", &port, &ext), -ENODEV);
	cr_expect_eq(one_calls, 2, "filled: nobody asked");
	cr_expect_eq(all_calls, 1);
	dlh_ctx_free(ctx);
}

struct seen {
	char text[512];
	size_t n;
	int stop_at; /* stop the walk at this port (1-based), 0: never */
	int count;
	int op_err;
	bool model; /* the ports are the model's, not streamed */
	const struct dlh_ctx *ctx;
};

static int seen_port(const struct dlh_port *port, void *arg)
{
	struct seen *s = arg;
	struct dlh_extack ext;

	if (!s->count)
		cr_expect_eq(dlh_port_walk(s->ctx, seen_port, s, &ext), -EBUSY, "no walk in a walk");

	s->n += (size_t)snprintf(s->text + s->n, sizeof(s->text) - s->n, "%s%s=%s:%u", s->n ? "," : "",
				 dlh_port_handle(port), dlh_port_netdev(port), dlh_port_number(port));
	cr_expect_str_eq(dlh_dev_handle(dlh_port_dev(port)), s->count < 4 ? "mirror/a" : "mirror/b");
	if (!s->model) {
		s->op_err = dlh_port_split((struct dlh_port *)port, 2, &ext);
		cr_expect_null(dlh_port_next(port));
	}
	return ++s->count == s->stop_at ? 42 : 0;
}

/* A walk streams a lazy bus's ports: the same ports, handles and order as a listing, and no model kept. */
Test(bus, walk_streams_without_mirroring)
{
	struct dlh_ctx *ctx = mirror_ctx();
	struct seen s = {.ctx = ctx}, stop = {.stop_at = 3, .ctx = ctx};
	struct dlh_extack ext;
	char all[512];

	cr_expect_eq(dlh_port_walk(ctx, NULL, &s, &ext), -EINVAL);
	cr_expect_str_eq(ext.msg, "No function to call for each port");
	cr_assert_eq(dlh_port_walk(ctx, seen_port, &s, &ext), 0, "%s", ext.msg);
	cr_expect_str_eq(s.text, "mirror/a/0=ma0:1,mirror/a/1=ma1:2,mirror/a/2=ma2:3,mirror/a/3=ma3:4,"
				 "mirror/b/0=mb0:1,mirror/b/1=mb1:2,mirror/b/2=mb2:3,mirror/b/3=mb3:4");
	cr_expect_eq(s.op_err, -ENODEV, "a streamed port takes no operation");
	cr_expect_eq(all_calls, 0, "nothing mirrored");
	cr_expect_null(dlh_dev_find(ctx, "mirror/a"));
	cr_expect_eq(dlh_port_walk(ctx, seen_port, &stop, &ext), 42, "the callback's value stops the walk");
	cr_expect_eq(stop.count, 3);
	/* Once the model has the bus's devices, the walk is over the model, in the same order. */
	listing(ctx, all, sizeof(all));
	s = (struct seen){.model = true, .ctx = ctx};
	cr_assert_eq(dlh_port_walk(ctx, seen_port, &s, &ext), 0, "%s", ext.msg);
	cr_expect_str_eq(s.text, "mirror/a/0=ma0:1,mirror/a/1=ma1:2,mirror/a/2=ma2:3,mirror/a/3=ma3:4,"
				 "mirror/b/0=mb0:1,mirror/b/1=mb1:2,mirror/b/2=mb2:3,mirror/b/3=mb3:4");
	cr_expect_eq(all_calls, 1);
	dlh_ctx_free(ctx);
}

Test(bus, one_port_falls_back_to_every_port)
{
	struct dlh_ctx *ctx = mirror_ctx();
	struct dlh_extack ext;
	struct dlh_port *port;

	/* A bus that cannot answer for one port (or fails): every port is filled instead. */
	one_err = -EOPNOTSUPP;
	cr_assert_eq(dlh_port_lookup(ctx, "ma3", &port, &ext), 0, "%s", ext.msg);
	cr_expect_str_eq(dlh_port_handle(port), "mirror/a/3");
	cr_expect_eq(all_calls, 1);
	dlh_ctx_free(ctx);
	ctx = mirror_ctx();
	one_err = -EIO;
	cr_assert_eq(dlh_port_lookup(ctx, "mb0", &port, &ext), 0, "%s", ext.msg);
	cr_expect_str_eq(dlh_port_handle(port), "mirror/b/0");
	cr_expect_eq(all_calls, 1);
	dlh_ctx_free(ctx);
}

Test(registry, all_ports_across_devices_in_order)
{
	struct dlh_ctx *ctx = ctx_with("cx3-vpi,sn2700");
	struct dlh_port *p;
	int n = 0;

	for (p = dlh_port_first_all(ctx); p; p = dlh_port_next_all(p), n++) {
		if (n == 0)
			cr_expect_str_eq(dlh_port_handle(p), "pci/0000:01:00.0/1");
		if (n == 2)
			cr_expect_str_eq(dlh_port_handle(p), "pci/0000:03:00.0/1", "then the next device's");
	}
	cr_expect_eq(n, 34);
	dlh_ctx_free(ctx);
}

/*
 * What a device reports of itself (dlh_dev_info_get()): the driver's puts in
 * order, each checked, and the driver's name when it puts none.
 */
static int info_mode;

static int info_get(struct dlh_dev *dev, struct dlh_sdk_info *info, struct dlh_extack *ext)
{
	char long_value[DLH_VERSION_VALUE_MAX + 1];
	struct dlh_extack bad;

	(void)dev;
	if (info_mode == 1)
		return dlh_sdk_extack(ext, -EIO, "Firmware does not answer");
	if (info_mode == 2)
		return -EIO;
	memset(long_value, 'x', sizeof(long_value) - 1);
	long_value[sizeof(long_value) - 1] = '\0';
	/* refusals first: none may leave a trace */
	cr_expect_eq(dlh_sdk_info_driver_put(info, "two words", &bad), -EINVAL);
	cr_expect_str_eq(bad.msg, "Info driver name has a blank or an unprintable character");
	cr_expect_eq(dlh_sdk_info_driver_put(info, "", &bad), -EINVAL);
	cr_expect_eq(dlh_sdk_info_serial_put(info, false, "bell\a", &bad), -EINVAL);
	cr_expect_eq(dlh_sdk_info_version_put(info, DLH_VERSION_RUNNING, "fw.version", long_value, &bad), -EINVAL);
	cr_expect_eq(dlh_sdk_info_version_put(info, (enum dlh_version_kind)3, "fw", "1", &bad), -EINVAL);
	cr_expect_eq(dlh_sdk_info_version_put(info, DLH_VERSION_FIXED, "hw revision", "1", &bad), -EINVAL);
	if (dlh_sdk_info_driver_put(info, "mlxsw_spectrum", ext) ||
	    dlh_sdk_info_serial_put(info, true, "MT1234X00001", ext) ||
	    dlh_sdk_info_version_put(info, DLH_VERSION_RUNNING, "fw.version", "13.2010.1006", ext) ||
	    dlh_sdk_info_version_put(info, DLH_VERSION_FIXED, "hw.revision", "A1", ext) ||
	    dlh_sdk_info_version_put(info, DLH_VERSION_FIXED, "fw.psid", "MT_2860111033", ext))
		return -EIO;
	for (int i = 3; i < DLH_VERSIONS_MAX; i++)
		if (info_mode == 3 && dlh_sdk_info_version_put(info, DLH_VERSION_STORED, "fw", "1", ext))
			return -EIO;
	if (info_mode == 3)
		return dlh_sdk_info_version_put(info, DLH_VERSION_STORED, "fw", "1", ext);
	return 0;
}

static int info_attach(struct dlh_sdk_bus *bus, struct dlh_extack *ext)
{
	return dlh_sdk_bus_dev_add(bus, "info/a", NULL, ext);
}

static const struct dlh_sdk_ops info_ops = {.bus_attach = info_attach, .dev_info_get = info_get};
static const struct dlh_sdk_driver info_driver = {DLH_SDK_DRIVER_INIT("info", &info_ops)};

Test(info, what_a_device_reports_checked_in_order)
{
	struct dlh_dev_info *info = malloc(sizeof(*info));
	struct dlh_extack ext;
	struct dlh_ctx *ctx;
	struct dlh_dev *dev;

	cr_assert_not_null(info);
	info_mode = 0;
	cr_assert_eq(dlh_ctx_new(&ctx, &ext), 0);
	cr_assert_eq(dlh_sdk_driver_register(ctx, &info_driver, &ext), 0);
	cr_assert_eq(dlh_ctx_bus_attach(ctx, "info", NULL, &ext), 0, "%s", ext.msg);
	dev = dlh_dev_find(ctx, "info/a");
	cr_assert_not_null(dev);
	cr_assert_eq(dlh_dev_info_get(dev, info, &ext), 0, "%s", ext.msg);
	cr_expect_str_eq(info->driver, "mlxsw_spectrum");
	cr_expect_str_eq(info->serial, "");
	cr_expect_str_eq(info->board_serial, "MT1234X00001");
	cr_assert_eq(info->nversions, 3);
	cr_expect_eq(info->versions[0].kind, DLH_VERSION_RUNNING);
	cr_expect_str_eq(info->versions[0].name, "fw.version");
	cr_expect_str_eq(info->versions[0].value, "13.2010.1006");
	cr_expect_str_eq(info->versions[2].name, "fw.psid");
	cr_expect_str_eq(dlh_version_kind_name(info->versions[1].kind), "fixed");
	cr_expect_str_eq(dlh_version_kind_name((enum dlh_version_kind)7), "unknown");
	/* a driver's failure: its message, or one that names the device; nothing half filled */
	info_mode = 1;
	cr_expect_eq(dlh_dev_info_get(dev, info, &ext), -EIO);
	cr_expect_str_eq(ext.msg, "Firmware does not answer");
	cr_expect_eq(info->nversions, 0);
	info_mode = 2;
	cr_expect_eq(dlh_dev_info_get(dev, info, &ext), -EIO);
	cr_expect_str_eq(ext.obj, "info/a");
	cr_expect_str_eq(ext.msg, "Driver cannot report the device's info");
	/* one version too many */
	info_mode = 3;
	cr_expect_eq(dlh_dev_info_get(dev, info, &ext), -E2BIG);
	cr_expect_str_eq(ext.msg, "More than 64 info versions");
	dlh_ctx_free(ctx);

	/* A profile's device whose driver reports nothing: its driver's name alone. */
	ctx = fake_ctx(1, 0, NULL, &ext);
	cr_assert_eq(dlh_dev_info_get(dlh_dev_find(ctx, "test/fake0"), info, &ext), 0);
	cr_expect_str_eq(info->driver, "fake");
	cr_expect_eq(info->nversions, 0);
	dlh_ctx_free(ctx);
	free(info);
}

/* A front end's own refusal goes through the same setter as core's: the object replaced, nothing cut silently. */
Test(core, a_front_ends_refusal_names_its_object_and_marks_a_cut)
{
	struct dlh_extack ext = {.msg = "old", .obj = "pci/0000:03:00.0/1"};
	char buf[DLH_EXTACK_MSG_MAX + 64];
	size_t n;

	cr_expect_eq(dlh_extack_set(&ext, -ENODEV, NULL, "Port %u is gone", 5u), -ENODEV);
	cr_expect_str_eq(ext.msg, "Port 5 is gone");
	cr_expect_str_eq(ext.obj, "", "no object left over from before");
	cr_expect_eq(dlh_extack_set(&ext, -EINVAL, "pci/0000:01:00.0", "Bad"), -EINVAL);
	cr_expect_str_eq(dlh_extack_str(&ext, buf, sizeof(buf)), "pci/0000:01:00.0: Bad");
	memset(buf, 'x', sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = '\0';
	dlh_extack_set(&ext, -EINVAL, NULL, "%s", buf);
	n = strlen(ext.msg);
	cr_expect_eq(n, sizeof(ext.msg) - 1);
	cr_expect_str_eq(ext.msg + n - 3, "...", "a message too long ends in ...");
	cr_expect_eq(dlh_extack_set(NULL, -EIO, NULL, "nowhere"), -EIO);
}

/* A port's fields, said once by core for every front end: each one's value, and when a port has none. */
Test(fields, each_field_is_what_the_port_is_and_none_where_it_has_none)
{
	struct dlh_ctx *ctx = ctx_with("sn2700");
	struct dlh_extack ext;
	struct dlh_port *p;
	struct dlh_value v;

	cr_expect_str_eq(dlh_port_field_name(DLH_PORT_FIELD_NUMBER), "port");
	cr_expect_str_eq(dlh_port_field_name(DLH_PORT_FIELD_DESIRED_TYPE), "desired_type");
	cr_expect_str_eq(dlh_port_field_name(DLH_PORT_FIELD_COUNT), "unknown");
	cr_assert_eq(dlh_port_lookup(ctx, "pci/0000:03:00.0/1", &p, &ext), 0, "%s", ext.msg);
	cr_expect_eq(dlh_port_field(p, DLH_PORT_FIELD_TYPE, &v), DLH_VALUE_STR);
	cr_expect_str_eq(v.str, "eth");
	cr_expect_eq(dlh_port_field(p, DLH_PORT_FIELD_DESIRED_TYPE, &v), DLH_VALUE_NONE, "none was set");
	cr_expect_eq(dlh_port_field(p, DLH_PORT_FIELD_NETDEV, &v), DLH_VALUE_STR);
	cr_expect_str_eq(v.str, "eth0");
	cr_expect_eq(dlh_port_field(p, DLH_PORT_FIELD_IBDEV, &v), DLH_VALUE_NONE);
	cr_expect_eq(dlh_port_field(p, DLH_PORT_FIELD_NUMBER, &v), DLH_VALUE_UINT);
	cr_expect_eq(v.uint, 17);
	cr_expect_eq(dlh_port_field(p, DLH_PORT_FIELD_SPLIT_GROUP, &v), DLH_VALUE_NONE, "not split");
	cr_expect_eq(dlh_port_field(p, DLH_PORT_FIELD_SPLIT_SUBPORT, &v), DLH_VALUE_NONE);
	cr_expect_eq(dlh_port_field(p, DLH_PORT_FIELD_LANES, &v), DLH_VALUE_UINT);
	cr_expect_eq(v.uint, 4);
	cr_expect_eq(dlh_port_field(p, DLH_PORT_FIELD_SPLITTABLE, &v), DLH_VALUE_BOOL);
	cr_expect(v.boolean);
	cr_expect_eq(dlh_port_field(p, DLH_PORT_FIELD_SPEED, &v), DLH_VALUE_UINT);
	cr_expect_eq(v.uint, 100000);
	cr_expect_eq(dlh_port_field(p, DLH_PORT_FIELD_MODULE, &v), DLH_VALUE_UINT);
	cr_expect_eq(v.uint, 16);
	cr_expect_eq(dlh_port_field(p, DLH_PORT_FIELD_LANE, &v), DLH_VALUE_UINT);
	cr_expect_eq(v.uint, 0);
	cr_expect_eq(dlh_port_field(p, DLH_PORT_FIELD_COUNT, &v), DLH_VALUE_NONE, "outside the table");
	cr_assert_eq(dlh_port_split(p, 2, &ext), 0, "%s", ext.msg);
	cr_assert_eq(dlh_port_lookup(ctx, "pci/0000:03:00.0/2", &p, &ext), 0, "%s", ext.msg);
	cr_expect_eq(dlh_port_field(p, DLH_PORT_FIELD_SPLIT_GROUP, &v), DLH_VALUE_UINT);
	cr_expect_eq(v.uint, 16);
	cr_expect_eq(dlh_port_field(p, DLH_PORT_FIELD_SPLIT_SUBPORT, &v), DLH_VALUE_UINT);
	cr_expect_eq(v.uint, 1);
	cr_expect_eq(dlh_port_field(p, DLH_PORT_FIELD_SPLITTABLE, &v), DLH_VALUE_BOOL);
	cr_expect(!v.boolean, "a split port is not splittable");
	cr_expect_eq(dlh_port_field(p, DLH_PORT_FIELD_LANE, &v), DLH_VALUE_UINT);
	cr_expect_eq(v.uint, 2);
	dlh_ctx_free(ctx);
}
