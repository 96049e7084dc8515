/* SPDX-License-Identifier: MIT */
/*
 * Emulated Intel E810 firmware: the port options of the whole card and the
 * admin queue commands Linux 6.1's ice uses to read and choose them, with
 * the NVM semaphore and the EMP reset that activates a stored choice.
 */
#ifndef DLHAL_ICE_EMU_H
#define DLHAL_ICE_EMU_H

#include <stdbool.h>
#include <stdint.h>

#define ICE_AQC_PORT_OPT_MAX	 16 /* options the firmware table holds at most */
#define ICE_MAX_PORT_PER_PCI_DEV 8  /* lanes: two quads of four */
#define ICE_LANES_PER_QUAD	 4  /* a quad: one QSFP28 cage */

struct ice_port_option {
	uint8_t pmd;				      /* ports (PCI functions) the option gives */
	uint32_t lane_mbps[ICE_MAX_PORT_PER_PCI_DEV]; /* each lane's maximum speed, 0: not used */
};

struct ice_emu;

/* A card with @n options, running @active, with @pending stored (or -1). NULL on bad input. */
struct ice_emu *ice_emu_new(const struct ice_port_option *opts, unsigned int n, unsigned int active, int pending,
			    bool emp_reset);
void ice_emu_free(struct ice_emu *emu);

/*
 * Admin queue commands. Each is one hardware access: the fail_nth-th from
 * the time it was set fails with -EIO, whatever it is.
 */
int ice_aq_get_port_options(struct ice_emu *emu, struct ice_port_option *opts, uint8_t *count, uint8_t *active,
			    bool *active_valid, uint8_t *pending, bool *pending_valid);
/* Chooses option @idx; it is stored only by ice_nvm_write_activate(). */
int ice_aq_set_port_option(struct ice_emu *emu, uint8_t idx);
/* The NVM write semaphore: -EBUSY while another owner (emulated: "nvm_busy") holds it. */
int ice_acquire_nvm(struct ice_emu *emu);
void ice_release_nvm(struct ice_emu *emu);
/* Stores the chosen option in the NVM, to be activated by an EMP reset: it is pending from now on. */
int ice_nvm_write_activate(struct ice_emu *emu);
/* Whether the firmware can reset itself (EMP reset) rather than only at a power cycle. */
bool ice_emu_emp_reset_available(const struct ice_emu *emu);
/* EMP reset: the card comes up with the pending option. */
int ice_aq_nvm_update_empr(struct ice_emu *emu);
/* Power cycle: the same, without a command (it cannot fail). */
void ice_emu_power_cycle(struct ice_emu *emu);

/*
 * What the card says of itself, as ice's info_get reads it (the values of Linux 6.1's ice.rst
 * example, but for the board's own serial and PBA, which the profile gives).
 */
struct ice_emu_ident {
	uint64_t dsn;	/* the PCI function's Device Serial Number */
	char pba[32];	/* Product Board Assembly string, "" if the NVM has none */
	uint8_t fw[3];	/* management firmware major.minor.patch */
	uint8_t api[3]; /* its admin queue API */
	uint32_t fw_build;
	uint8_t orom_major, orom_patch; /* Option ROM (UNDI) */
	uint16_t orom_build;
	uint8_t nvm_major, nvm_minor; /* flash format (fw.psid.api) */
	uint32_t eetrack;	      /* the NVM image (fw.bundle_id) */
	char pkg_name[32];	      /* the DDP package */
	uint8_t pkg[4];
	uint32_t track_id;
	uint8_t nl_major, nl_minor, nl_rev, nl_cust; /* netlist, BCD */
	uint32_t nl_type, nl_hash;
};

/* Sets the card's serial and PBA (the rest is the example's). */
void ice_emu_ident_set(struct ice_emu *emu, uint64_t dsn, const char *pba);
/* The identity; reading the PBA from the NVM is a command, which may fail (then pba is ""). */
int ice_emu_ident(struct ice_emu *emu, struct ice_emu_ident *ident);

void ice_emu_fail_nth(struct ice_emu *emu, unsigned long n);
unsigned long ice_emu_fail_pending(const struct ice_emu *emu);
unsigned long ice_emu_accesses(const struct ice_emu *emu);
void ice_emu_nvm_busy(struct ice_emu *emu, bool busy);

#endif
