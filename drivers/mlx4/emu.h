/* SPDX-License-Identifier: MIT */
/*
 * Emulated ConnectX-3 HCA: the firmware commands the driver uses for port
 * types (QUERY_DEV_CAP, CLOSE_PORT, SET_PORT, INIT_PORT, SENSE_PORT) and an
 * emulated cable per port whose link partner decides what sensing finds.
 */
#ifndef MLX4_EMU_H
#define MLX4_EMU_H

#include <stdbool.h>
#include <stdint.h>

#define MLX4_MAX_PORTS 2

/* As the kernel's enum mlx4_port_type: AUTO is both bits. */
enum mlx4_port_type {
	MLX4_PORT_TYPE_NONE = 0,
	MLX4_PORT_TYPE_IB = 1,
	MLX4_PORT_TYPE_ETH = 2,
	MLX4_PORT_TYPE_AUTO = 3,
};

#define MLX4_DEV_CAP_FLAG_DPDP		(1u << 0) /* dual-port, different protocols */
#define MLX4_DEV_CAP_FLAG_SENSE_SUPPORT (1u << 1) /* firmware can sense the link partner */

struct mlx4_dev_cap {
	int num_ports;
	uint32_t flags;
	uint8_t supported_type[MLX4_MAX_PORTS + 1]; /* 1-based, as the kernel's caps */
	uint8_t port_type[MLX4_MAX_PORTS + 1];	    /* type firmware reports at reset */
};

struct mlx4_emu;

struct mlx4_emu *mlx4_emu_new(const struct mlx4_dev_cap *board);
void mlx4_emu_free(struct mlx4_emu *emu);

int mlx4_QUERY_DEV_CAP(struct mlx4_emu *emu, struct mlx4_dev_cap *cap);
int mlx4_CLOSE_PORT(struct mlx4_emu *emu, int port);
int mlx4_SET_PORT(struct mlx4_emu *emu, int port, enum mlx4_port_type type);
int mlx4_INIT_PORT(struct mlx4_emu *emu, int port);
/* What the link partner speaks: IB, ETH, or NONE when there is no link. */
int mlx4_SENSE_PORT(struct mlx4_emu *emu, int port, enum mlx4_port_type *type);

/* Emulator controls. */
void mlx4_emu_cable_set(struct mlx4_emu *emu, int port, enum mlx4_port_type partner);
enum mlx4_port_type mlx4_emu_cable(const struct mlx4_emu *emu, int port);
enum mlx4_port_type mlx4_emu_port_type(const struct mlx4_emu *emu, int port);
bool mlx4_emu_port_open(const struct mlx4_emu *emu, int port);
void mlx4_emu_fail_nth(struct mlx4_emu *emu, unsigned long nth);
unsigned long mlx4_emu_fail_pending(const struct mlx4_emu *emu);
unsigned long mlx4_emu_accesses(const struct mlx4_emu *emu);

#endif
