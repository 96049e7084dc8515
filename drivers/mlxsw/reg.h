/* SPDX-License-Identifier: MIT */
/*
 * Spectrum registers the driver uses, as plain structs, and the bus that
 * carries them. Everything the driver does to the hardware goes through
 * mlxsw_reg_query()/mlxsw_reg_write(); the emulated ASIC (emu.c) is one bus.
 */
#ifndef MLXSW_REG_H
#define MLXSW_REG_H

#include <stdbool.h>
#include <stdint.h>

#define MLXSW_PORT_MAX_PORTS	       65 /* local ports 1..64 */
#define MLXSW_PORT_MODULE_MAX_WIDTH    4
#define MLXSW_SP_PORTS_PER_CLUSTER_MAX 4
#define MLXSW_SP_PORT_BASE_SPEED       25000 /* Mb/s per lane */
#define MLXSW_MODULE_MAX	       64

enum mlxsw_reg_id {
	MLXSW_REG_PMLP,	 /* Port Module Lane map: which module lanes a local port uses */
	MLXSW_REG_PSPA,	 /* Port Switch Partition: enabled (swid 0) or disabled */
	MLXSW_REG_PTYS,	 /* Port Type and Speed: admin speed cap */
	MLXSW_REG_MGIR,	 /* Management General Information: hardware revision, PSID, firmware version */
	MLXSW_REG_PMTDB, /* Port Module To local DataBase: the local ports a module's split takes */
};

#define MLXSW_REG_MGIR_FW_INFO_PSID_SIZE 16

/* The one register not of a port: what the ASIC and its firmware say of themselves. */
struct mlxsw_reg_mgir {
	uint32_t hw_revision;
	char psid[MLXSW_REG_MGIR_FW_INFO_PSID_SIZE]; /* NUL-padded; may fill all 16 bytes */
	uint32_t fw_major, fw_minor, fw_sub_minor;
};

struct mlxsw_reg_pmlp {
	uint8_t local_port;
	uint8_t width; /* 0 = unmapped */
	uint8_t module[MLXSW_PORT_MODULE_MAX_WIDTH];
	uint8_t lane[MLXSW_PORT_MODULE_MAX_WIDTH];
};

/*
 * Which local ports a module split into @num_ports ports of @ports_width
 * lanes may use (what the firmware allows, not what is mapped: PMLP says
 * that); read-only. Linux's mlxsw asks it from 5.17 on, as 6.1 and 6.12 do.
 */
struct mlxsw_reg_pmtdb {
	uint8_t module;	     /* index */
	uint8_t ports_width; /* index */
	uint8_t num_ports;   /* index */
	uint8_t status;	     /* MLXSW_REG_PMTDB_STATUS_SUCCESS, or the split is not one the board takes */
	uint8_t port_num[MLXSW_SP_PORTS_PER_CLUSTER_MAX];
};
#define MLXSW_REG_PMTDB_STATUS_SUCCESS 0

struct mlxsw_reg_pspa {
	uint8_t local_port;
	bool enabled;
};

struct mlxsw_reg_ptys {
	uint8_t local_port;
	uint32_t speed_admin; /* Mb/s upper bound */
};

struct mlxsw_bus {
	int (*query)(void *priv, enum mlxsw_reg_id id, void *payload);
	int (*write)(void *priv, enum mlxsw_reg_id id, const void *payload);
	void *priv;
};

static inline int mlxsw_reg_query(const struct mlxsw_bus *bus, enum mlxsw_reg_id id, void *payload)
{
	return bus->query(bus->priv, id, payload);
}

static inline int mlxsw_reg_write(const struct mlxsw_bus *bus, enum mlxsw_reg_id id, const void *payload)
{
	return bus->write(bus->priv, id, payload);
}

#endif
