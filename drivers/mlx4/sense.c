/* SPDX-License-Identifier: MIT */
/*
 * Link sensing for ports in auto, as Linux's mlx4 sense.c: every 3 s ask
 * firmware what the link partner speaks and switch the port to it.
 */
#define MLX4_INTERNAL
#include "mlx4.h"

#include <string.h>

/* stype[i] = sensed type of port i+1, or defaults[i] where nothing was sensed. */
void mlx4_do_sense_ports(struct mlx4_priv *priv, enum mlx4_port_type *stype, const enum mlx4_port_type *defaults,
			 const enum mlx4_port_type *possible)
{
	for (int i = 1; i <= priv->caps.num_ports; i++) {
		stype[i - 1] = MLX4_PORT_TYPE_NONE;
		if (priv->sense_allowed[i] && possible[i] == MLX4_PORT_TYPE_AUTO) {
			if (mlx4_SENSE_PORT(priv->emu, i, &stype[i - 1]))
				stype[i - 1] = defaults[i - 1];
		} else {
			stype[i - 1] = defaults[i - 1];
		}
	}
	/* If sensed nothing, remain in current configuration. */
	for (int i = 0; i < priv->caps.num_ports; i++)
		if (stype[i] != MLX4_PORT_TYPE_IB && stype[i] != MLX4_PORT_TYPE_ETH)
			stype[i] = defaults[i];
}

static void mlx4_sense_port(struct dlh_sdk_timer *timer, void *arg)
{
	struct mlx4_priv *priv = arg;
	enum mlx4_port_type stype[MLX4_MAX_PORTS], cur[MLX4_MAX_PORTS];

	for (int i = 0; i < priv->caps.num_ports; i++)
		cur[i] = (enum mlx4_port_type)priv->caps.port_type[i + 1];
	mlx4_do_sense_ports(priv, stype, cur, priv->possible_type);
	if (memcmp(stype, cur, sizeof(cur)) && !mlx4_check_port_params(priv->facts, priv->dev, stype, NULL) &&
	    mlx4_change_port_types(priv, stype, NULL))
		dlh_sdk_log(priv->dev, DLH_LOG_ERR, "Failed to change port_types");
	dlh_sdk_timer_arm(timer, MLX4_SENSE_RANGE_MS);
}

int mlx4_sense_init(struct mlx4_priv *priv)
{
	return dlh_sdk_timer_new(priv->dev, mlx4_sense_port, priv, &priv->sense_timer);
}

void mlx4_start_sense(struct mlx4_priv *priv)
{
	if (!(priv->caps.flags & MLX4_DEV_CAP_FLAG_DPDP))
		return;
	dlh_sdk_timer_arm(priv->sense_timer, MLX4_SENSE_RANGE_MS);
}

void mlx4_stop_sense(struct mlx4_priv *priv)
{
	dlh_sdk_timer_cancel(priv->sense_timer);
}
