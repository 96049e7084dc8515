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

void ice_emu_fail_nth(struct ice_emu *emu, unsigned long n);
unsigned long ice_emu_fail_pending(const struct ice_emu *emu);
unsigned long ice_emu_accesses(const struct ice_emu *emu);
void ice_emu_nvm_busy(struct ice_emu *emu, bool busy);

#endif
