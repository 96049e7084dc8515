/* SPDX-License-Identifier: MIT */
/*
 * Emulated ConnectX-3. Firmware refuses a type a port does not support,
 * changing the type of an open port, and, without DPDP, opening a port whose
 * type differs from another open port's.
 */
#include "emu.h"

#include <errno.h>
#include <stdlib.h>

struct mlx4_emu {
	struct mlx4_dev_cap cap;
	bool open[MLX4_MAX_PORTS + 1];
	enum mlx4_port_type cable[MLX4_MAX_PORTS + 1];
	unsigned long accesses;
	unsigned long fail_nth;
};

struct mlx4_emu *mlx4_emu_new(const struct mlx4_dev_cap *board)
{
	struct mlx4_emu *emu = calloc(1, sizeof(*emu));

	if (!emu)
		return NULL;
	emu->cap = *board;
	for (int p = 1; p <= board->num_ports; p++)
		emu->open[p] = true;
	return emu;
}

void mlx4_emu_free(struct mlx4_emu *emu)
{
	free(emu);
}

static int cmd_begin(struct mlx4_emu *emu, int port)
{
	emu->accesses++;
	if (emu->fail_nth && !--emu->fail_nth)
		return -EIO;
	if (port < 0 || port > emu->cap.num_ports)
		return -EINVAL;
	return 0;
}

int mlx4_QUERY_DEV_CAP(struct mlx4_emu *emu, struct mlx4_dev_cap *cap)
{
	int err = cmd_begin(emu, 0);

	if (err)
		return err;
	*cap = emu->cap;
	return 0;
}

int mlx4_CLOSE_PORT(struct mlx4_emu *emu, int port)
{
	int err = cmd_begin(emu, port);

	if (err)
		return err;
	emu->open[port] = false;
	return 0;
}

int mlx4_SET_PORT(struct mlx4_emu *emu, int port, enum mlx4_port_type type)
{
	int err = cmd_begin(emu, port);

	if (err)
		return err;
	if (emu->open[port])
		return -EBUSY;
	if ((type != MLX4_PORT_TYPE_IB && type != MLX4_PORT_TYPE_ETH) || !(type & emu->cap.supported_type[port]))
		return -EOPNOTSUPP;
	emu->cap.port_type[port] = (uint8_t)type;
	return 0;
}

int mlx4_INIT_PORT(struct mlx4_emu *emu, int port)
{
	int err = cmd_begin(emu, port);

	if (err)
		return err;
	if (!(emu->cap.flags & MLX4_DEV_CAP_FLAG_DPDP))
		for (int p = 1; p <= emu->cap.num_ports; p++)
			if (p != port && emu->open[p] && emu->cap.port_type[p] != emu->cap.port_type[port])
				return -EOPNOTSUPP;
	emu->open[port] = true;
	return 0;
}

int mlx4_SENSE_PORT(struct mlx4_emu *emu, int port, enum mlx4_port_type *type)
{
	int err = cmd_begin(emu, port);

	if (err)
		return err;
	if (!(emu->cap.flags & MLX4_DEV_CAP_FLAG_SENSE_SUPPORT))
		return -EOPNOTSUPP;
	*type = emu->cable[port];
	return 0;
}

void mlx4_emu_cable_set(struct mlx4_emu *emu, int port, enum mlx4_port_type partner)
{
	emu->cable[port] = partner;
}

enum mlx4_port_type mlx4_emu_cable(const struct mlx4_emu *emu, int port)
{
	return emu->cable[port];
}

enum mlx4_port_type mlx4_emu_port_type(const struct mlx4_emu *emu, int port)
{
	return (enum mlx4_port_type)emu->cap.port_type[port];
}

bool mlx4_emu_port_open(const struct mlx4_emu *emu, int port)
{
	return emu->open[port];
}

void mlx4_emu_fail_nth(struct mlx4_emu *emu, unsigned long nth)
{
	emu->fail_nth = nth;
}

unsigned long mlx4_emu_fail_pending(const struct mlx4_emu *emu)
{
	return emu->fail_nth;
}

unsigned long mlx4_emu_accesses(const struct mlx4_emu *emu)
{
	return emu->accesses;
}
