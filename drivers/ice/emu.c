/* SPDX-License-Identifier: MIT */
/*
 * Emulated Intel E810 firmware. The NVM keeps the active option and a
 * pending one; a chosen option becomes pending only when written with the
 * semaphore held, so a command that fails half way leaves the NVM as it was.
 */
#include "emu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ice_emu {
	struct ice_port_option opts[ICE_AQC_PORT_OPT_MAX];
	unsigned int nopts;
	unsigned int active;
	int pending; /* in the NVM, -1: none */
	int chosen;  /* by set_port_option, not yet written: -1 none */
	bool nvm_held, nvm_busy, emp_reset;
	unsigned long accesses, fail_nth;
	struct ice_emu_ident ident;
};

/* Linux 6.1's Documentation/networking/devlink/ice.rst, its example of each version (the PBA: the profile's). */
static const struct ice_emu_ident example = {
    .fw = {2, 1, 7},
    .api = {1, 5, 1},
    .fw_build = 0x305d955f,
    .orom_major = 1,
    .orom_build = 2581,
    .orom_patch = 0,
    .nvm_major = 0x0,
    .nvm_minor = 0x80,
    .eetrack = 0x80002ec0,
    .pkg_name = "ICE OS Default Package",
    .pkg = {1, 3, 1, 0},
    .track_id = 0xc0000001,
    .nl_major = 1,
    .nl_minor = 1,
    .nl_type = 0x20000006,
    .nl_rev = 7,
    .nl_cust = 0,
    .nl_hash = 0xee16ced7,
};

struct ice_emu *ice_emu_new(const struct ice_port_option *opts, unsigned int n, unsigned int active, int pending,
			    bool emp_reset)
{
	struct ice_emu *emu;

	if (!n || n > ICE_AQC_PORT_OPT_MAX || active >= n || pending >= (int)n || pending < -1)
		return NULL;
	emu = calloc(1, sizeof(*emu));
	if (!emu)
		return NULL;
	memcpy(emu->opts, opts, n * sizeof(*opts));
	emu->nopts = n;
	emu->active = active;
	emu->pending = pending;
	emu->chosen = -1;
	emu->emp_reset = emp_reset;
	emu->ident = example;
	return emu;
}

void ice_emu_free(struct ice_emu *emu)
{
	free(emu);
}

static int cmd(struct ice_emu *emu)
{
	emu->accesses++;
	if (emu->fail_nth && !--emu->fail_nth)
		return -EIO;
	return 0;
}

void ice_emu_ident_set(struct ice_emu *emu, uint64_t dsn, const char *pba)
{
	emu->ident.dsn = dsn;
	snprintf(emu->ident.pba, sizeof(emu->ident.pba), "%s", pba);
}

int ice_emu_ident(struct ice_emu *emu, struct ice_emu_ident *ident)
{
	int err = cmd(emu); /* the PBA is read from the NVM; the rest is the driver's at probe */

	*ident = emu->ident;
	if (err)
		ident->pba[0] = '\0';
	return err;
}

int ice_aq_get_port_options(struct ice_emu *emu, struct ice_port_option *opts, uint8_t *count, uint8_t *active,
			    bool *active_valid, uint8_t *pending, bool *pending_valid)
{
	int err = cmd(emu);

	if (err)
		return err;
	if (*count < emu->nopts)
		return -EINVAL;
	memcpy(opts, emu->opts, emu->nopts * sizeof(*opts));
	*count = (uint8_t)emu->nopts;
	*active = (uint8_t)emu->active;
	*active_valid = true;
	*pending = emu->pending < 0 ? 0 : (uint8_t)emu->pending;
	*pending_valid = emu->pending >= 0;
	return 0;
}

int ice_aq_set_port_option(struct ice_emu *emu, uint8_t idx)
{
	int err = cmd(emu);

	if (err)
		return err;
	if (idx >= emu->nopts)
		return -EINVAL;
	emu->chosen = idx;
	return 0;
}

int ice_acquire_nvm(struct ice_emu *emu)
{
	int err = cmd(emu);

	if (err)
		return err;
	if (emu->nvm_busy || emu->nvm_held)
		return -EBUSY;
	emu->nvm_held = true;
	return 0;
}

void ice_release_nvm(struct ice_emu *emu)
{
	emu->nvm_held = false;
}

int ice_nvm_write_activate(struct ice_emu *emu)
{
	int err = cmd(emu);

	if (err)
		return err;
	if (!emu->nvm_held || emu->chosen < 0)
		return -EACCES;
	emu->pending = emu->chosen;
	emu->chosen = -1;
	return 0;
}

bool ice_emu_emp_reset_available(const struct ice_emu *emu)
{
	return emu->emp_reset;
}

void ice_emu_power_cycle(struct ice_emu *emu)
{
	if (emu->pending >= 0)
		emu->active = (unsigned int)emu->pending;
	emu->pending = emu->chosen = -1;
	emu->nvm_held = false;
}

int ice_aq_nvm_update_empr(struct ice_emu *emu)
{
	int err = cmd(emu);

	if (err)
		return err;
	if (!emu->emp_reset)
		return -EPERM;
	ice_emu_power_cycle(emu);
	return 0;
}

void ice_emu_fail_nth(struct ice_emu *emu, unsigned long n)
{
	emu->fail_nth = n;
}

unsigned long ice_emu_fail_pending(const struct ice_emu *emu)
{
	return emu->fail_nth;
}

unsigned long ice_emu_accesses(const struct ice_emu *emu)
{
	return emu->accesses;
}

void ice_emu_nvm_busy(struct ice_emu *emu, bool busy)
{
	emu->nvm_busy = busy;
}
