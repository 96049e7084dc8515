/* SPDX-License-Identifier: MIT */
/* The ConnectX-3 driver, for programs that link it in; and its private state. */
#ifndef MLX4_H
#define MLX4_H

#include <dlhal/sdk.h>

extern const struct dlh_sdk_driver mlx4_driver;

#ifdef MLX4_INTERNAL
#include "rules.h"

#define MLX4_SENSE_RANGE_MS 3000 /* the kernel's MLX4_SENSE_RANGE, HZ * 3 */

struct mlx4_priv {
	struct dlh_dev *dev;
	struct mlx4_emu *emu;
	struct mlx4_dev_cap caps; /* caps.port_type: the actual types */
	struct mlx4_facts *facts; /* what the rules rest on (dlh_sdk_dev_facts()) */
	enum mlx4_port_type possible_type[MLX4_MAX_PORTS + 1];
	bool sense_allowed[MLX4_MAX_PORTS + 1];
	struct dlh_port *port[MLX4_MAX_PORTS + 1];
	struct dlh_sdk_timer *sense_timer;
};

/* main.c */
int mlx4_change_port_types(struct mlx4_priv *priv, const enum mlx4_port_type *port_types, struct dlh_extack *ext);

/* sense.c */
void mlx4_do_sense_ports(struct mlx4_priv *priv, enum mlx4_port_type *stype, const enum mlx4_port_type *defaults,
			 const enum mlx4_port_type *possible);
int mlx4_sense_init(struct mlx4_priv *priv);
void mlx4_start_sense(struct mlx4_priv *priv);
void mlx4_stop_sense(struct mlx4_priv *priv);
#endif

#endif
