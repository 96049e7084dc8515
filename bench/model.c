/* SPDX-License-Identifier: MIT */
/*
 * Cost of the model itself: register N ports the way the kernel backend
 * mirrors a dump (register, attributes, eth with a fixed netdev name, desired
 * type), then look each up by handle and by netdev name, then tear down.
 * Prints nanoseconds per port for each phase and the command to reproduce.
 *   build/bench/bench-model [N]     (default 1024)
 */
#include <dlhal/sdk.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct bench_bus {
	unsigned n;
};

static unsigned nports = 1024;

static int bench_attach(struct dlh_sdk_bus *bus, struct dlh_extack *ext)
{
	struct dlh_dev *dev;
	char name[16];
	int err = dlh_sdk_bus_dev_add(bus, "netdevsim/netdevsim12", &dev, ext);

	for (unsigned i = 0; !err && i < nports; i++) {
		struct dlh_sdk_port_attrs a = {.flavour = DLH_PORT_FLAVOUR_PHYSICAL, .number = i + 1};
		struct dlh_port *p;

		snprintf(name, sizeof(name), "eth%u", i);
		err = dlh_sdk_port_register(dev, i, &a, &p, ext);
		if (!err) {
			dlh_sdk_port_attrs_set(p, &a);
			err = dlh_sdk_port_type_eth(p, name, ext);
			dlh_sdk_port_desired_type_set(p, DLH_PORT_TYPE_NOTSET);
		}
	}
	return err;
}

static const struct dlh_sdk_ops bench_ops = {.bus_attach = bench_attach};
static const struct dlh_sdk_driver bench_driver = {
    DLH_SDK_DRIVER_INIT("bench", &bench_ops),
    .bus_priv_size = sizeof(struct bench_bus),
};

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	struct dlh_extack ext;
	struct dlh_ctx *ctx;
	struct dlh_port *p;
	double t0, t1, t2, t3, t4;
	char what[64];
	unsigned found = 0;

	if (argc > 1)
		nports = (unsigned)strtoul(argv[1], NULL, 10);
	if (dlh_ctx_new(&ctx, &ext) || dlh_sdk_driver_register(ctx, &bench_driver, &ext))
		return 1;
	t0 = now_ns();
	if (dlh_ctx_bus_attach(ctx, "bench", NULL, &ext)) {
		fprintf(stderr, "%s\n", ext.msg);
		return 1;
	}
	t1 = now_ns();
	for (unsigned i = 0; i < nports; i++) {
		snprintf(what, sizeof(what), "netdevsim/netdevsim12/%u", i);
		found += !dlh_port_lookup(ctx, what, &p, NULL);
	}
	t2 = now_ns();
	for (unsigned i = 0; i < nports; i++) {
		snprintf(what, sizeof(what), "eth%u", i);
		found += !dlh_port_lookup(ctx, what, &p, NULL);
	}
	t3 = now_ns();
	dlh_ctx_free(ctx);
	t4 = now_ns();
	if (found != 2 * nports)
		return 1;
	printf("ports %u\n", nports);
	printf("register+attrs+eth+desired  %8.0f ns/port\n", (t1 - t0) / nports);
	printf("lookup by handle            %8.0f ns/port\n", (t2 - t1) / nports);
	printf("lookup by netdev name       %8.0f ns/port\n", (t3 - t2) / nports);
	printf("teardown                    %8.0f ns/port\n", (t4 - t3) / nports);
	printf("reproduce: build/bench/bench-model %u\n", nports);
	return 0;
}
