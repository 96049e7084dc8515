/* SPDX-License-Identifier: MIT */
/*
 * Spectrum's rules (seeds 002-006, and Linux 6.1's where it differs), apart
 * from the emulated ASIC: what a split or an unsplit does, decided from the
 * ports as a view has them and from the board's wiring (the facts). The driver's ops decide with them on
 * the ASIC's ports; plans decide with them on a plan's ports, of the
 * driver's own device or of a kernel device that Linux's mlxsw_spectrum runs.
 */
#ifndef MLXSW_RULES_H
#define MLXSW_RULES_H

#include "reg.h"

#include <dlhal/sdk.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* What a port is, in hardware terms: enough to take it down and bring it back. */
struct port_spec {
	uint16_t local_port;
	bool split;
	uint8_t module;
	uint8_t width;
	uint8_t lane;
	uint8_t subport;
	char netdev[DLH_NETDEV_NAME_MAX]; /* a name, or the pattern */
};

/* One port of the board as wired: a profile's hw.ports[i]. */
struct mlxsw_wire {
	uint16_t local_port;
	uint8_t module;
	uint8_t width;
};

/* The facts a decision rests on besides the ports (the device's dlh_sdk_dev_facts()). */
struct mlxsw_facts {
	enum mlxsw_asic asic; /* hw.asic: the generation, which names its Linux driver */
	char netdev_pattern[DLH_NETDEV_NAME_MAX];
	uint8_t port_to_module[MLXSW_PORT_MAX_PORTS]; /* the board's wiring, which unsplit restores (seed 004) */
	bool port_at_probe[MLXSW_PORT_MAX_PORTS];
	uint16_t module_port[MLXSW_MODULE_MAX]; /* a module's unsplit port; 0: the board has none on it */
	uint8_t module_width[MLXSW_MODULE_MAX]; /* its lanes */
	uint32_t lane_speed[MLXSW_MODULE_MAX]; /* Mb/s a lane of its cage runs at; 0: the ASIC's (mlxsw_asic_speed()) */
	struct mlxsw_wire wires[MLXSW_PORT_MAX_PORTS]; /* hw.ports in order */
	unsigned int nwires;
	uint16_t max_local_port; /* the highest a module's port or split may take: the ASIC's ports */
	bool kernel;		 /* a kernel device: its split group is the port number, as Linux 6.1 reports it */
};

/*
 * Which Linux's mlxsw_spectrum the rules decide as (mlxsw_linux_of()): where
 * a split's local ports come from, and the words of a refusal.
 */
enum mlxsw_linux {
	MLXSW_LINUX_SEEDS, /* Linux 4.6's (seeds 002-006): the cluster decides; the emulated device's own */
	MLXSW_LINUX_PMTDB, /* Linux 6.1 and 6.12: the firmware names the local ports (PMTDB) */
};

/* What PMTDB answers for a module split into a count: its local ports, or not a split the board takes. */
struct mlxsw_pmtdb {
	bool ok;
	uint16_t port[MLXSW_SPLIT_MAX];
};

/*
 * The ports a decision is made on: an op's are the driver's own (@own); a
 * plan's are those the plan finds (dlh_sdk_plan_port()), which in a sequence
 * of planned changes are the ports the changes before leave.
 */
struct ports_view {
	const struct mlxsw_facts *facts;
	enum mlxsw_linux linux;
	const struct dlh_sdk_plan *plan; /* NULL: @own's */
	bool (*own)(const void *arg, unsigned int local_port, struct port_spec *ps);
	const void *arg;
};

extern const struct dlh_sdk_rules mlxsw_rules;

/* The Linux whose mlxsw an emulated Spectrum-2, -3 or -4 follows (no seed is of them): its devlink core checks. */
#define MLXSW_LINUX_RELEASE "6.12"

uint16_t mlxsw_cluster_base_port(uint16_t local_port);
/* The Linux driver that runs @asic ("mlxsw_spectrum2"), and what its port of @lanes runs at, Mb/s. */
const char *mlxsw_asic_driver(enum mlxsw_asic asic);
uint32_t mlxsw_asic_speed(enum mlxsw_asic asic, unsigned int lanes);
/* What a port of @lanes on @module runs at, Mb/s: its cage's lane speed, else the ASIC's. */
uint32_t mlxsw_port_speed(const struct mlxsw_facts *facts, unsigned int module, unsigned int lanes);
/* The Linux whose mlxsw_spectrum runs @dev, or which it stands for (dlh_sdk_dev_linux()); the seeds' if none. */
enum mlxsw_linux mlxsw_linux_of(const struct dlh_dev *dev);
/* What PMTDB answers for @module split into @count, as the board's profile knows its wiring (a plan's). */
void mlxsw_pmtdb_of(const struct mlxsw_facts *facts, uint8_t module, unsigned int count, struct mlxsw_pmtdb *db);
void mlxsw_port_attrs_of(const struct mlxsw_facts *facts, const struct port_spec *ps, struct dlh_sdk_port_attrs *attrs);
int mlxsw_facts_parse(struct mlxsw_facts *facts, const struct dlh_sdk_json *hw, struct dlh_extack *ext);
int mlxsw_split_port_of(const struct ports_view *v, struct dlh_port *port, unsigned int count, uint16_t *local_port,
			struct dlh_extack *ext);
/* @db: PMTDB's answer where v->linux asks it (an op reads the ASIC's, a plan mlxsw_pmtdb_of()); else NULL. */
int mlxsw_split_decide(const struct ports_view *v, uint16_t local_port, unsigned int count, uint8_t module,
		       uint8_t cur_width, const struct mlxsw_pmtdb *db, struct port_spec *old, int *nold,
		       struct port_spec *new, struct dlh_extack *ext);
int mlxsw_unsplit_port_of(const struct ports_view *v, struct dlh_port *port, uint16_t *local_port, struct port_spec *ps,
			  struct dlh_extack *ext);
/* 0, or (from 6.1) -EINVAL when PMTDB gave no answer: nothing would be taken down. */
int mlxsw_unsplit_decide(const struct ports_view *v, uint16_t local_port, uint8_t module, uint8_t cur_width,
			 const struct mlxsw_pmtdb *db, struct port_spec *old, int *nold, struct port_spec *new,
			 int *nnew, struct dlh_extack *ext);

#endif
