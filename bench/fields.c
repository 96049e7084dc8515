/* SPDX-License-Identifier: MIT */
/*
 * The C side of the Lua binding's benchmark (bench/fields.lua is the Lua
 * side): five fields of every port read ROUNDS times, and split+unsplit
 * pairs, on Spectrum split to 64 ports, in the process or through a dlhald.
 * Prints nanoseconds per field read and per pair, and how to reproduce:
 *   DLHAL_MODULE_PATH=build/drivers/mlxsw build/bench/bench-fields [SOCKET]
 */
#include <dlhal/dlhal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	const char *sock = argc > 1 ? argv[1] : NULL;
	struct dlh_extack ext;
	struct dlh_ctx *ctx;
	struct dlh_port *p;
	char handle[DLH_HANDLE_MAX];
	size_t ports = 0, sum = 0, rounds = 3200, pairs = sock ? 200 : 2000;
	double t0, t1;

	if (dlh_ctx_new(&ctx, &ext) ||
	    (sock ? dlh_ctx_bus_attach(ctx, "daemon", sock, &ext) : dlh_ctx_sim_load(ctx, "sn2700", &ext))) {
		fprintf(stderr, "bench-fields: %s\n", ext.msg);
		return 1;
	}
	/* every front-panel port split in two: 64 ports */
	for (int lp = 1; lp < 64; lp += 2) {
		snprintf(handle, sizeof(handle), "pci/0000:03:00.0/%d", lp);
		if (!dlh_port_lookup(ctx, handle, &p, &ext) && !dlh_port_is_split(p))
			dlh_port_split(p, 2, &ext);
	}
	for (p = dlh_port_first_all(ctx); p; p = dlh_port_next_all(p))
		ports++;
	t0 = now_ns();
	for (size_t r = 0; r < rounds; r++)
		for (p = dlh_port_first_all(ctx); p; p = dlh_port_next_all(p))
			sum += strlen(dlh_port_type_name(dlh_port_type(p))) + strlen(dlh_port_netdev(p)) +
			       dlh_port_lanes(p) + dlh_port_split_group(p) + dlh_port_speed(p);
	t1 = now_ns();
	printf("C   %s: %zu ports, %zu field reads: %.1f ns per field read (checksum %zu)\n",
	       sock ? "dlhald" : "embedded", ports, rounds * ports * 5, (t1 - t0) / (double)(rounds * ports * 5), sum);
	t0 = now_ns();
	for (size_t i = 0; i < pairs; i++) {
		if (dlh_port_lookup(ctx, "pci/0000:03:00.0/1", &p, &ext) || dlh_port_unsplit(p, &ext) ||
		    dlh_port_lookup(ctx, "pci/0000:03:00.0/1", &p, &ext) || dlh_port_split(p, 2, &ext)) {
			fprintf(stderr, "bench-fields: %s\n", ext.msg);
			return 1;
		}
	}
	t1 = now_ns();
	printf("C   %s: %.1f us per unsplit+split pair (%zu pairs)\n", sock ? "dlhald" : "embedded",
	       (t1 - t0) / 1e3 / (double)pairs, pairs);
	printf("reproduce: DLHAL_MODULE_PATH=build/drivers/mlxsw:build/kernel build/bench/bench-fields%s%s\n",
	       sock ? " " : "", sock ? sock : "");
	dlh_ctx_free(ctx);
	return 0;
}
