/* SPDX-License-Identifier: MIT */
/* Emulated ConnectX-4..7 firmware configuration (emu.h). */
#include "emu.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct mlx5_emu {
	struct mlx5_emu_board b;
	unsigned long accesses, fail_nth;
	bool lag;
};

static bool type_valid(uint8_t t)
{
	return t == MLX5_LINK_TYPE_IB || t == MLX5_LINK_TYPE_ETH;
}

struct mlx5_emu *mlx5_emu_new(const struct mlx5_emu_board *board)
{
	struct mlx5_emu *emu;

	if (!board->nports || board->nports > MLX5_MAX_PORTS)
		return NULL;
	for (unsigned int w = 0; w < 3; w++)
		for (unsigned int p = 0; p < board->nports; p++)
			if (!type_valid(board->link_type[w][p]))
				return NULL;
	emu = calloc(1, sizeof(*emu));
	if (emu)
		emu->b = *board;
	return emu;
}

void mlx5_emu_free(struct mlx5_emu *emu)
{
	free(emu);
}

static int cmd(struct mlx5_emu *emu)
{
	emu->accesses++;
	if (emu->fail_nth && !--emu->fail_nth)
		return -EIO;
	return 0;
}

int mlx5_emu_link_type(struct mlx5_emu *emu, unsigned int port, enum mlx5_nv_which which, enum mlx5_link_type *type)
{
	int err = cmd(emu);

	if (err)
		return err;
	if (port >= emu->b.nports || which > MLX5_NV_NEXT)
		return -EINVAL;
	*type = emu->b.vpi ? (enum mlx5_link_type)emu->b.link_type[which][port] : MLX5_LINK_TYPE_ETH;
	return 0;
}

int mlx5_emu_link_type_set(struct mlx5_emu *emu, unsigned int port, enum mlx5_link_type type)
{
	int err = cmd(emu);

	if (err)
		return err;
	if (!emu->b.vpi)
		return -EOPNOTSUPP;
	if (port >= emu->b.nports || !type_valid((uint8_t)type))
		return -EINVAL;
	emu->b.link_type[MLX5_NV_NEXT][port] = (uint8_t)type;
	return 0;
}

int mlx5_emu_reset_query(struct mlx5_emu *emu, uint8_t *levels)
{
	int err = cmd(emu);

	if (!err)
		*levels = emu->b.reset_levels;
	return err;
}

int mlx5_emu_reset(struct mlx5_emu *emu, unsigned int level)
{
	int err = cmd(emu);

	if (err)
		return err;
	if ((level != 0 && level != 3) || !(emu->b.reset_levels & (1u << level)))
		return -EINVAL;
	if (level == 3)
		mlx5_emu_power_cycle(emu);
	return 0;
}

void mlx5_emu_power_cycle(struct mlx5_emu *emu)
{
	memcpy(emu->b.link_type[MLX5_NV_CURRENT], emu->b.link_type[MLX5_NV_NEXT], sizeof(emu->b.link_type[0]));
}

const struct mlx5_emu_board *mlx5_emu_board(const struct mlx5_emu *emu)
{
	return &emu->b;
}

void mlx5_emu_fail_nth(struct mlx5_emu *emu, unsigned long n)
{
	emu->fail_nth = n;
}

unsigned long mlx5_emu_fail_pending(const struct mlx5_emu *emu)
{
	return emu->fail_nth;
}

unsigned long mlx5_emu_accesses(const struct mlx5_emu *emu)
{
	return emu->accesses;
}

void mlx5_emu_lag_set(struct mlx5_emu *emu, bool lag)
{
	emu->lag = lag;
}

bool mlx5_emu_lag(const struct mlx5_emu *emu)
{
	return emu->lag;
}
