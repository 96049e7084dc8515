/* SPDX-License-Identifier: MIT */
/* Emulated Spectrum ASIC: registers with the checks its firmware makes. */
#ifndef MLXSW_EMU_H
#define MLXSW_EMU_H

#include "reg.h"

#include <stddef.h>

struct mlxsw_emu;

struct mlxsw_emu *mlxsw_emu_new(enum mlxsw_asic asic);
void mlxsw_emu_free(struct mlxsw_emu *emu);
/* Board wiring as firmware sets it at reset; before the bus is handed over. */
int mlxsw_emu_board_map(struct mlxsw_emu *emu, uint16_t local_port, uint8_t module, uint8_t width);
/*
 * The board's wiring as the firmware's port-module database holds it (what
 * PMTDB answers from): @module's unsplit port is @local_port, @width lanes.
 * Fixed, whatever is mapped later; before the bus is handed over.
 */
int mlxsw_emu_wire(struct mlxsw_emu *emu, uint16_t local_port, uint8_t module, uint8_t width);
/* A saved mapping (lanes lane..lane+width-1 of module), before the bus is handed over. */
int mlxsw_emu_map(struct mlxsw_emu *emu, uint16_t local_port, uint8_t module, uint8_t width, uint8_t lane);
/* What MGIR answers (the board's identity), before the bus is handed over. */
void mlxsw_emu_identity(struct mlxsw_emu *emu, const struct mlxsw_reg_mgir *mgir);
void mlxsw_emu_bus(struct mlxsw_emu *emu, struct mlxsw_bus *bus);
/* Make the nth register access from now fail with -EIO (0 cancels). */
void mlxsw_emu_fail_nth(struct mlxsw_emu *emu, unsigned long nth);
unsigned long mlxsw_emu_fail_pending(const struct mlxsw_emu *emu);
unsigned long mlxsw_emu_accesses(const struct mlxsw_emu *emu);
/* "lp:width:module:lane:e|d" for every mapped local port, space-separated. */
int mlxsw_emu_dump(const struct mlxsw_emu *emu, char *buf, size_t len);

#endif
