/* SPDX-License-Identifier: MIT */
/*
 * Emulated Spectrum ASIC. It holds what the firmware holds (lane map, port
 * enable, speed cap) and refuses what the firmware refuses: mapping a module
 * lane another local port holds, changing the map of an enabled port,
 * enabling an unmapped one. Any access can be made to fail for fault
 * injection.
 */
#include "emu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct emu_port {
	struct mlxsw_reg_pmlp map;
	bool enabled;
	uint32_t speed_admin;
};

struct mlxsw_emu {
	struct emu_port port[MLXSW_PORT_MAX_PORTS];
	uint16_t lane_owner[MLXSW_MODULE_MAX][MLXSW_PORT_MODULE_MAX_WIDTH]; /* local port, 0 = free */
	struct mlxsw_reg_mgir mgir;
	enum mlxsw_asic asic;
	/* the port-module database: a module's unsplit port (0 = none) and its lanes */
	uint16_t module_port[MLXSW_MODULE_MAX];
	uint8_t module_width[MLXSW_MODULE_MAX];
	unsigned long accesses;
	unsigned long fail_nth;
};

struct mlxsw_emu *mlxsw_emu_new(enum mlxsw_asic asic)
{
	struct mlxsw_emu *emu = calloc(1, sizeof(struct mlxsw_emu));

	if (emu)
		emu->asic = asic;
	return emu;
}

void mlxsw_emu_free(struct mlxsw_emu *emu)
{
	free(emu);
}

static int port_ok(unsigned int lp)
{
	return lp >= 1 && lp < MLXSW_PORT_MAX_PORTS;
}

static int pmlp_apply(struct mlxsw_emu *emu, const struct mlxsw_reg_pmlp *p)
{
	struct emu_port *ep = &emu->port[p->local_port];

	if (p->width > MLXSW_PORT_MODULE_MAX_WIDTH || p->width & (p->width - 1))
		return -EINVAL;
	for (int i = 0; i < p->width; i++) {
		uint16_t owner;

		/* a lane of a module the board has (the port-module database's) */
		if (p->module[i] >= MLXSW_MODULE_MAX || p->lane[i] >= emu->module_width[p->module[i]])
			return -EINVAL;
		owner = emu->lane_owner[p->module[i]][p->lane[i]];
		if (owner && owner != p->local_port)
			return -EBUSY;
		for (int j = 0; j < i; j++)
			if (p->module[j] == p->module[i] && p->lane[j] == p->lane[i])
				return -EINVAL;
	}
	for (int i = 0; i < ep->map.width; i++)
		emu->lane_owner[ep->map.module[i]][ep->map.lane[i]] = 0;
	for (int i = 0; i < p->width; i++)
		emu->lane_owner[p->module[i]][p->lane[i]] = p->local_port;
	ep->map = *p;
	return 0;
}

int mlxsw_emu_board_map(struct mlxsw_emu *emu, uint16_t local_port, uint8_t module, uint8_t width)
{
	struct mlxsw_reg_pmlp p = {.local_port = local_port, .width = width};

	if (!port_ok(local_port))
		return -EINVAL;
	for (int i = 0; i < width && i < MLXSW_PORT_MODULE_MAX_WIDTH; i++) {
		p.module[i] = module;
		p.lane[i] = (uint8_t)i;
	}
	return pmlp_apply(emu, &p);
}

int mlxsw_emu_wire(struct mlxsw_emu *emu, uint16_t local_port, uint8_t module, uint8_t width)
{
	if (!port_ok(local_port) || module >= MLXSW_MODULE_MAX || width > MLXSW_PORT_MODULE_MAX_WIDTH)
		return -EINVAL;
	emu->module_port[module] = local_port;
	emu->module_width[module] = width;
	return 0;
}

/*
 * PMTDB as this emulation's firmware answers it (mlxsw_board_split(): a real
 * board's answers are not published): a split of the module's lanes into
 * equal ports it has local ports for; anything else, or a module without a
 * port, is not a split the board takes.
 */
static void pmtdb_answer(const struct mlxsw_emu *emu, struct mlxsw_reg_pmtdb *q)
{
	unsigned int width = q->module < MLXSW_MODULE_MAX ? emu->module_width[q->module] : 0;

	memset(q->port_num, 0, sizeof(q->port_num));
	q->status = 1;
	if (width && q->ports_width * q->num_ports == width &&
	    mlxsw_board_split(emu->asic, emu->module_port[q->module], width, q->num_ports, q->port_num))
		q->status = MLXSW_REG_PMTDB_STATUS_SUCCESS;
}

int mlxsw_emu_map(struct mlxsw_emu *emu, uint16_t local_port, uint8_t module, uint8_t width, uint8_t lane)
{
	struct mlxsw_reg_pmlp p = {.local_port = local_port, .width = width};

	if (!port_ok(local_port) || width > MLXSW_PORT_MODULE_MAX_WIDTH)
		return -EINVAL;
	for (int i = 0; i < width; i++) {
		p.module[i] = module;
		p.lane[i] = (uint8_t)(lane + i);
	}
	return pmlp_apply(emu, &p);
}

static int access_begin(struct mlxsw_emu *emu)
{
	emu->accesses++;
	if (emu->fail_nth && !--emu->fail_nth)
		return -EIO;
	return 0;
}

static int emu_query(void *priv, enum mlxsw_reg_id id, void *payload)
{
	struct mlxsw_emu *emu = priv;
	int err = access_begin(emu);
	uint16_t lp;

	if (err)
		return err;
	if (id == MLXSW_REG_MGIR) {
		*(struct mlxsw_reg_mgir *)payload = emu->mgir;
		return 0;
	}
	if (id == MLXSW_REG_PMTDB) {
		pmtdb_answer(emu, payload);
		return 0;
	}
	lp = *(uint16_t *)payload; /* every other register starts with local_port */
	if (!port_ok(lp))
		return -EINVAL;
	switch (id) {
	case MLXSW_REG_PMLP:
		*(struct mlxsw_reg_pmlp *)payload = emu->port[lp].map;
		return 0;
	case MLXSW_REG_PSPA:
		((struct mlxsw_reg_pspa *)payload)->enabled = emu->port[lp].enabled;
		return 0;
	case MLXSW_REG_PTYS:
		((struct mlxsw_reg_ptys *)payload)->speed_admin = emu->port[lp].speed_admin;
		return 0;
	case MLXSW_REG_MGIR:
	case MLXSW_REG_PMTDB:
		break;
	}
	return -EINVAL;
}

static int emu_write(void *priv, enum mlxsw_reg_id id, const void *payload)
{
	struct mlxsw_emu *emu = priv;
	int err = access_begin(emu);
	struct emu_port *ep;
	uint16_t lp;

	if (err)
		return err;
	if (id == MLXSW_REG_MGIR || id == MLXSW_REG_PMTDB) /* read-only */
		return -EINVAL;
	lp = *(const uint16_t *)payload;
	if (!port_ok(lp))
		return -EINVAL;
	ep = &emu->port[lp];
	switch (id) {
	case MLXSW_REG_PMLP:
		/* Firmware does not remap (or unmap) a port that is in use. */
		if (ep->enabled)
			return -EBUSY;
		return pmlp_apply(emu, payload);
	case MLXSW_REG_PSPA: {
		const struct mlxsw_reg_pspa *p = payload;

		if (p->enabled && !ep->map.width)
			return -EINVAL;
		ep->enabled = p->enabled;
		return 0;
	}
	case MLXSW_REG_PTYS:
		ep->speed_admin = ((const struct mlxsw_reg_ptys *)payload)->speed_admin;
		return 0;
	case MLXSW_REG_MGIR:
	case MLXSW_REG_PMTDB:
		break;
	}
	return -EINVAL;
}

void mlxsw_emu_identity(struct mlxsw_emu *emu, const struct mlxsw_reg_mgir *mgir)
{
	emu->mgir = *mgir;
}

void mlxsw_emu_bus(struct mlxsw_emu *emu, struct mlxsw_bus *bus)
{
	bus->query = emu_query;
	bus->write = emu_write;
	bus->priv = emu;
}

void mlxsw_emu_fail_nth(struct mlxsw_emu *emu, unsigned long nth)
{
	emu->fail_nth = nth;
}

unsigned long mlxsw_emu_fail_pending(const struct mlxsw_emu *emu)
{
	return emu->fail_nth;
}

unsigned long mlxsw_emu_accesses(const struct mlxsw_emu *emu)
{
	return emu->accesses;
}

int mlxsw_emu_dump(const struct mlxsw_emu *emu, char *buf, size_t len)
{
	size_t off = 0;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	for (int lp = 1; lp < MLXSW_PORT_MAX_PORTS; lp++) {
		const struct emu_port *ep = &emu->port[lp];
		int n;

		if (!ep->map.width)
			continue;
		n = snprintf(buf + off, len - off, "%s%d:%u:%u:%u:%c", off ? " " : "", lp, ep->map.width,
			     ep->map.module[0], ep->map.lane[0], ep->enabled ? 'e' : 'd');
		if (n < 0 || (size_t)n >= len - off)
			return -ENOSPC;
		off += (size_t)n;
	}
	return 0;
}
