/* SPDX-License-Identifier: MIT */
/*
 * ConnectX-3's type rules (Linux's mlx4 main.c), apart from the emulated
 * firmware: what setting a port's type makes of every port, decided from the
 * ports' types and desired types and from the HCA's facts. The driver's op
 * decides with them (and senses the link where a port is auto); plans decide
 * with them on a plan's ports, of the driver's own device or of a kernel
 * device that Linux's mlx4_core runs.
 */
#ifndef MLX4_RULES_H
#define MLX4_RULES_H

#include "emu.h"

#include <dlhal/sdk.h>
#include <stdbool.h>

/* What the rules rest on besides the ports (the device's dlh_sdk_dev_facts()). */
struct mlx4_facts {
	int num_ports;
	uint32_t flags; /* MLX4_DEV_CAP_FLAG_DPDP, MLX4_DEV_CAP_FLAG_SENSE_SUPPORT */
	uint8_t supported_type[MLX4_MAX_PORTS + 1];
	/* the names a type brings; "" where not known (a kernel device's netdev before it had one) */
	char netdev[MLX4_MAX_PORTS + 1][DLH_NETDEV_NAME_MAX];
	char ibdev[DLH_IBDEV_NAME_MAX];
};

extern const struct dlh_sdk_rules mlx4_rules;

enum mlx4_port_type mlx4_type_of(enum dlh_port_type type);
int mlx4_type_word(const char *word, enum mlx4_port_type *type);
int mlx4_hw_parse(struct mlx4_facts *facts, const char *config, struct mlx4_dev_cap *board, enum mlx4_port_type *cable,
		  struct dlh_extack *ext);
int mlx4_check_port_params(const struct mlx4_facts *facts, struct dlh_dev *log, const enum mlx4_port_type *port_type,
			   struct dlh_extack *ext);
int mlx4_type_decide(const struct mlx4_facts *facts, struct dlh_dev *log, const enum mlx4_port_type *cur, int port,
		     enum mlx4_port_type port_type, enum mlx4_port_type *possible, enum mlx4_port_type *types,
		     struct dlh_extack *ext);

#endif
