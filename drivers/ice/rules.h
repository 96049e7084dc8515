/* SPDX-License-Identifier: MIT */
/*
 * E810's port-option rules (Linux's ice_devlink_port_split()), apart from
 * the emulated firmware: which option a split by a count chooses, and what
 * the card brings up with it, decided from the card's option table and its
 * active and pending options. The driver's op decides with them on what it
 * has just read from the firmware; plans decide with them on the device's
 * facts, which the driver keeps as the firmware reported them last.
 */
#ifndef DLHAL_ICE_RULES_H
#define DLHAL_ICE_RULES_H

#include "emu.h"

#include <dlhal/sdk.h>
#include <jansson.h>

/* What the rules rest on besides the ports (each PF's dlh_sdk_dev_facts(): the card's, alike). */
struct ice_facts {
	struct ice_port_option options[ICE_AQC_PORT_OPT_MAX];
	uint8_t count;	/* options in the table */
	uint8_t active; /* the option the card runs */
	int pending;	/* the option stored for the next reset, -1: none */
	/*
	 * A kernel device's: Linux reports neither the active option nor the pending one, only as
	 * many PFs as the active option has ports. @from holds the options a split may search from
	 * (a bit each): every one, since any may be pending. Where they decide alike the plan is
	 * exact; where not, it says why it is not. Which options the card may run follows from its
	 * PFs, counted when asked: they come and go one by one around a reset.
	 */
	bool kernel;
	uint16_t from;
	char bus_name[32];
	char slot[64]; /* "0000:16:00": the card's functions are SLOT.0 to SLOT.7 */
	char netdev_prefix[12];
};

extern const struct dlh_sdk_rules ice_rules;

/* The option a split by @count chooses, from the one after the active (or pending) one; ice's refusals. */
int ice_split_option(const struct ice_facts *f, unsigned int count, uint8_t *new_option, struct dlh_extack *ext);
/* PF @pf's port under option @opt (only PF 0's is splittable: the options are the whole card's). */
void ice_port_attrs(const struct ice_facts *f, uint8_t opt, unsigned int pf, struct dlh_sdk_port_attrs *attrs);
/* The profile's option table ("options" of its "hw"), checked: a port per lane in use. */
/* The profile's "options" (hw), read with the SDK's checked reads. */
int ice_options_parse(const struct dlh_sdk_json *hw, struct ice_port_option *opts, size_t *n, struct dlh_extack *ext);
/* "pci/0000:16:00.N" into its bus and slot; -EINVAL for anything else. */
int ice_handle_parse(const char *handle, struct ice_facts *f);

#endif
