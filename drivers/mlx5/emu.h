/* SPDX-License-Identifier: MIT */
/*
 * Emulated ConnectX-4..7 firmware, as far as a port's link type goes: the
 * non-volatile configuration (mstflint's LINK_TYPE_P1, LINK_TYPE_P2), its
 * default, current (what the firmware runs) and next (what the next reset
 * loads) values, and the firmware resets that load it (the MFRL register's
 * levels: 0 live patch, 3 the synchronised reset Linux's fw_activate asks
 * for). A set writes the next value only; the running card changes only
 * at a reset of level 3 or a power cycle.
 */
#ifndef DLHAL_MLX5_EMU_H
#define DLHAL_MLX5_EMU_H

#include <stdbool.h>
#include <stdint.h>

#define MLX5_MAX_PORTS 2 /* a VPI card's ports: one PCI function each */

/* mstflint's LINK_TYPE values for ConnectX-4 and later (mlxconfig_host.db: IB=0x1, ETH=0x2). */
enum mlx5_link_type {
	MLX5_LINK_TYPE_NONE = 0,
	MLX5_LINK_TYPE_IB = 1,
	MLX5_LINK_TYPE_ETH = 2,
};

/* Which value of a parameter a query reads (mstconfig's Default, Current and Next Boot columns). */
enum mlx5_nv_which {
	MLX5_NV_DEFAULT,
	MLX5_NV_CURRENT,
	MLX5_NV_NEXT,
};

#define MLX5_MFRL_REG_RESET_LEVEL0 (1u << 0) /* firmware live patch */
#define MLX5_MFRL_REG_RESET_LEVEL3 (1u << 3) /* driver restart and PCI reset: loads the configuration */

struct mlx5_emu_board {
	unsigned int nports;
	bool vpi;			      /* the configuration has LINK_TYPE_Pn: the ports' type can change */
	uint8_t link_type[3][MLX5_MAX_PORTS]; /* [which][port]: default, current, next */
	uint8_t reset_levels;		      /* MLX5_MFRL_REG_RESET_LEVEL* the firmware performs */
};

struct mlx5_emu;

/* A card as @board says; NULL on bad input (a type no VPI port may have). */
struct mlx5_emu *mlx5_emu_new(const struct mlx5_emu_board *board);
void mlx5_emu_free(struct mlx5_emu *emu);

/*
 * Commands: each is one access, and the fail_nth-th from the time it was set
 * fails with -EIO. -EOPNOTSUPP for a card without the parameter.
 */
int mlx5_emu_link_type(struct mlx5_emu *emu, unsigned int port, enum mlx5_nv_which which, enum mlx5_link_type *type);
/* Writes port @port's next value (mstconfig set): nothing runs differently until a reset. */
int mlx5_emu_link_type_set(struct mlx5_emu *emu, unsigned int port, enum mlx5_link_type type);
/* The reset levels the firmware performs (MFRL query). */
int mlx5_emu_reset_query(struct mlx5_emu *emu, uint8_t *levels);
/* A reset of @level (0 or 3): -EINVAL for one the firmware does not perform; level 3 loads next into current. */
int mlx5_emu_reset(struct mlx5_emu *emu, unsigned int level);
/* Power cycle: as a level 3 reset, without a command (it cannot fail). */
void mlx5_emu_power_cycle(struct mlx5_emu *emu);

/* Emulator controls. */
const struct mlx5_emu_board *mlx5_emu_board(const struct mlx5_emu *emu);
void mlx5_emu_fail_nth(struct mlx5_emu *emu, unsigned long n);
unsigned long mlx5_emu_fail_pending(const struct mlx5_emu *emu);
unsigned long mlx5_emu_accesses(const struct mlx5_emu *emu);
/* Ports bonded (LAG): Linux's mlx5 refuses a reload then. */
void mlx5_emu_lag_set(struct mlx5_emu *emu, bool lag);
bool mlx5_emu_lag(const struct mlx5_emu *emu);

#endif
