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
	uint8_t lane_owner[MLXSW_MODULE_MAX][MLXSW_PORT_MODULE_MAX_WIDTH]; /* local port, 0 = free */
	struct mlxsw_reg_mgir mgir;
	uint8_t module_port[MLXSW_MODULE_MAX]; /* the port-module database: a module's unsplit port, 0 = none */
	unsigned long accesses;
	unsigned long fail_nth;
};

struct mlxsw_emu *mlxsw_emu_new(void)
{
	return calloc(1, sizeof(struct mlxsw_emu));
}

void mlxsw_emu_free(struct mlxsw_emu *emu)
{
	free(emu);
}

static int port_ok(uint8_t lp)
{
	return lp >= 1 && lp < MLXSW_PORT_MAX_PORTS;
}

static int pmlp_apply(struct mlxsw_emu *emu, const struct mlxsw_reg_pmlp *p)
{
	struct emu_port *ep = &emu->port[p->local_port];

	if (p->width != 0 && p->width != 1 && p->width != 2 && p->width != 4)
		return -EINVAL;
	for (int i = 0; i < p->width; i++) {
		uint8_t owner;

		if (p->module[i] >= MLXSW_MODULE_MAX || p->lane[i] >= MLXSW_PORT_MODULE_MAX_WIDTH)
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

int mlxsw_emu_board_map(struct mlxsw_emu *emu, uint8_t local_port, uint8_t module, uint8_t width)
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

int mlxsw_emu_wire(struct mlxsw_emu *emu, uint8_t local_port, uint8_t module)
{
	if (!port_ok(local_port) || module >= MLXSW_MODULE_MAX)
		return -EINVAL;
	emu->module_port[module] = local_port;
	return 0;
}

/*
 * PMTDB as this emulation's firmware answers it (a real SN2700's answers are
 * not published): a module's split into 2 takes its port and the next, into
 * 4 the four local ports of its port's cluster; anything else, or a module
 * without a port, is not a split the board takes.
 */
static void pmtdb_answer(const struct mlxsw_emu *emu, struct mlxsw_reg_pmtdb *q)
{
	uint8_t lp = q->module < MLXSW_MODULE_MAX ? emu->module_port[q->module] : 0;
	uint8_t first = q->num_ports == 4 ? (uint8_t)((lp - 1) / 4 * 4 + 1) : lp;

	memset(q->port_num, 0, sizeof(q->port_num));
	q->status = 1;
	if (!lp || (q->num_ports != 1 && q->num_ports != 2 && q->num_ports != 4) ||
	    q->ports_width * q->num_ports != MLXSW_PORT_MODULE_MAX_WIDTH || first + q->num_ports > MLXSW_PORT_MAX_PORTS)
		return;
	for (uint8_t i = 0; i < q->num_ports; i++)
		q->port_num[i] = (uint8_t)(first + i);
	q->status = MLXSW_REG_PMTDB_STATUS_SUCCESS;
}

int mlxsw_emu_map(struct mlxsw_emu *emu, uint8_t local_port, uint8_t module, uint8_t width, uint8_t lane)
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
	uint8_t lp;

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
	lp = *(uint8_t *)payload; /* every other register starts with local_port */
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
	uint8_t lp;

	if (err)
		return err;
	if (id == MLXSW_REG_MGIR || id == MLXSW_REG_PMTDB) /* read-only */
		return -EINVAL;
	lp = *(const uint8_t *)payload;
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
