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

#define MLXSW_PORT_MAX_PORTS	       1025  /* local ports 1..1024: room for a 64-cage, 8-lane board split by 8 */
#define MLXSW_PORT_MODULE_MAX_WIDTH    8     /* QSFP-DD and OSFP cages */
#define MLXSW_SP_PORTS_PER_CLUSTER_MAX 4     /* Spectrum-1's clusters of local ports (seeds 002-006) */
#define MLXSW_SPLIT_MAX		       8     /* ports a module splits into, at most */
#define MLXSW_SP_PORT_BASE_SPEED       25000 /* Mb/s per lane on Spectrum-1 */
#define MLXSW_MODULE_MAX	       128

/*
 * The generations Linux's mlxsw drives, one driver each (spectrum.c's
 * mlxsw_sp{1,2,3,4}_driver). What differs here: the Linux driver's name,
 * a lane's speed, and where a split's local ports lie (mlxsw_board_split()).
 */
enum mlxsw_asic {
	MLXSW_ASIC_SPECTRUM1 = 1,
	MLXSW_ASIC_SPECTRUM2,
	MLXSW_ASIC_SPECTRUM3,
	MLXSW_ASIC_SPECTRUM4,
};

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
	uint16_t local_port;
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
	uint16_t port_num[MLXSW_SPLIT_MAX];
};
#define MLXSW_REG_PMTDB_STATUS_SUCCESS 0

/*
 * The local ports a module whose unsplit port is @local_port, @width lanes
 * wide, splits into @count ports at, into @ports: what this emulation's
 * firmware answers PMTDB, and what a plan expects of a board's. Spectrum-1
 * (the seeds' SN2700): a split into 2 takes the port and the next local
 * port, into 4 the port's cluster of four. From Spectrum-2: the port and
 * the count - 1 after it, which the board leaves free (a module has as many
 * local ports as lanes). A real board's answers are not published
 * (docs/vendors.md). False: not a split the board takes.
 */
static inline bool mlxsw_board_split(enum mlxsw_asic asic, unsigned int local_port, unsigned int width,
				     unsigned int count, uint16_t *ports)
{
	unsigned int first = local_port;

	if (!local_port || !count || count > width || width % count || count & (count - 1) || count > MLXSW_SPLIT_MAX)
		return false;
	if (asic == MLXSW_ASIC_SPECTRUM1 && count == MLXSW_SP_PORTS_PER_CLUSTER_MAX)
		first = (local_port - 1) / MLXSW_SP_PORTS_PER_CLUSTER_MAX * MLXSW_SP_PORTS_PER_CLUSTER_MAX + 1;
	if (first + count > MLXSW_PORT_MAX_PORTS)
		return false;
	for (unsigned int i = 0; i < count; i++)
		ports[i] = (uint16_t)(first + i);
	return true;
}

struct mlxsw_reg_pspa {
	uint16_t local_port;
	bool enabled;
};

struct mlxsw_reg_ptys {
	uint16_t local_port;
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
