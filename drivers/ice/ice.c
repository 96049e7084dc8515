/* SPDX-License-Identifier: MIT */
/*
 * Intel E810 port options, after Linux 6.1's drivers/net/ethernet/intel/ice
 * (ice_devlink.c). The firmware holds a table of options for the whole card,
 * each a number of ports (one PCI function, one devlink device, one port
 * each) with its lanes' speeds. Splitting port 0 of PF 0 chooses the next
 * option with that many ports after the active (or pending) one, stores it
 * in the NVM, and nothing else changes until the card resets: then it comes
 * up with as many devices as the option says. Messages are ice's.
 *
 * A card is a bus of its own (DLH_SDK_F_BUS_LOCAL): its devices go and come
 * with its resets.
 */
#include "ice.h"

#include "emu.h"
#include "rules.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ICE_SPLIT_MSG "Reboot required to finish port split"

struct ice_card {
	struct dlh_sdk_bus *bus;
	struct ice_emu *emu;
	struct ice_facts facts; /* as the firmware reported them last: what the rules plan from */
	struct dlh_dev *pf[ICE_MAX_PORT_PER_PCI_DEV];
	unsigned int npf;
};

static struct ice_card *card_of(const struct dlh_dev *dev)
{
	return dlh_sdk_bus_priv(dlh_sdk_dev_bus(dev));
}

/* Each PF's facts are the card's. */
static void facts_sync(struct ice_card *card)
{
	for (unsigned int i = 0; i < card->npf; i++)
		*(struct ice_facts *)dlh_sdk_dev_facts(card->pf[i]) = card->facts;
}

/* The option table and the active and pending options, as the firmware says them now. */
static int facts_read(struct ice_card *card)
{
	struct ice_facts f = card->facts;
	uint8_t active, pending;
	bool active_valid, pending_valid;

	f.count = ICE_AQC_PORT_OPT_MAX;
	if (ice_aq_get_port_options(card->emu, f.options, &f.count, &active, &active_valid, &pending, &pending_valid))
		return -EIO;
	f.active = active;
	f.pending = pending_valid ? pending : -1;
	card->facts = f;
	facts_sync(card);
	return 0;
}

static int set_port_option(struct ice_card *card, uint8_t option_idx, struct dlh_extack *ext)
{
	if (ice_aq_set_port_option(card->emu, option_idx))
		return dlh_sdk_extack(ext, -EIO, "Port split request failed");
	if (ice_acquire_nvm(card->emu))
		return dlh_sdk_extack(ext, -EIO, "Failed to acquire NVM semaphore");
	if (ice_nvm_write_activate(card->emu)) {
		ice_release_nvm(card->emu);
		return dlh_sdk_extack(ext, -EIO, "Port split request failed to save data");
	}
	ice_release_nvm(card->emu);
	dlh_sdk_extack(ext, 0, ICE_SPLIT_MSG);
	return 0;
}

/* PF 0 says what the card has pending: the options are the whole card's. */
static void pending_report(struct ice_card *card)
{
	struct dlh_pending p = {0};

	if (!card->npf)
		return;
	if (card->facts.pending >= 0) {
		p.split = card->facts.options[card->facts.pending].pmd;
		snprintf(p.message, sizeof(p.message), "%s", ICE_SPLIT_MSG);
	}
	dlh_sdk_dev_pending_set(card->pf[0], &p);
}

/* As ice_devlink_port_split(): the table read, the rules' choice, the option stored. */
static int ice_port_split_to(struct dlh_port *port, unsigned int count, struct dlh_extack *ext)
{
	struct ice_card *card = card_of(dlh_port_dev(port));
	uint8_t new_option;
	int err;

	if (facts_read(card))
		return dlh_sdk_extack(ext, -EIO, "Failed to get available port split options");
	err = ice_split_option(&card->facts, count, &new_option, ext);
	if (err)
		return err;
	err = set_port_option(card, new_option, ext);
	if (err)
		return err;
	card->facts.pending = new_option;
	facts_sync(card);
	pending_report(card);
	return 0;
}

static int ice_port_split(struct dlh_port *port, unsigned int count, struct dlh_extack *ext)
{
	return ice_port_split_to(port, count, ext);
}

/* There may be no option of one port: then ice's own "unsupported port config". */
static int ice_port_unsplit(struct dlh_port *port, struct dlh_extack *ext)
{
	return ice_port_split_to(port, 1, ext);
}

static void card_down(struct ice_card *card)
{
	while (card->npf)
		dlh_sdk_dev_remove(card->pf[--card->npf]);
}

/* One device per PCI function the active option gives, one port each, as ice registers them. */
static int card_up(struct ice_card *card, struct dlh_extack *ext)
{
	const struct ice_facts *f = &card->facts;
	char handle[160], netdev[16];
	int err;

	if (facts_read(card))
		return dlh_sdk_extack(ext, -EIO, "Couldn't read port split options");
	for (unsigned int pf = 0; pf < f->options[f->active].pmd && pf < ICE_MAX_PORT_PER_PCI_DEV; pf++) {
		struct dlh_sdk_port_attrs attrs;
		struct dlh_port *port;

		ice_port_attrs(f, f->active, pf, &attrs);
		snprintf(handle, sizeof(handle), "%s/%s.%u", f->bus_name, f->slot, pf);
		err = dlh_sdk_bus_dev_add(card->bus, handle, &card->pf[card->npf], ext);
		if (err)
			goto err_down;
		card->npf++;
		*(struct ice_facts *)dlh_sdk_dev_facts(card->pf[card->npf - 1]) = *f;
		snprintf(netdev, sizeof(netdev), "%s%u", f->netdev_prefix, pf);
		err = dlh_sdk_port_register(card->pf[card->npf - 1], 0, &attrs, &port, ext);
		if (!err)
			err = dlh_sdk_port_type_eth(port, netdev, ext);
		if (err)
			goto err_down;
	}
	pending_report(card);
	return 0;

err_down:
	card_down(card);
	return err;
}

/* "0x" and 16 hex digits: the DSN as lspci prints it, read whole. */
static bool ident_dsn(const char *s, uint64_t *dsn)
{
	char *end;

	if (!s || strncmp(s, "0x", 2) || strlen(s) != 18 || strspn(s + 2, "0123456789abcdefABCDEF") != 16)
		return false;
	*dsn = strtoull(s + 2, &end, 16);
	return !*end;
}

/*
 * The profile's "hw": the option table, the active (and pending) option, the netdev names; read with
 * the SDK's checked reads, so that a saved state of another shape ("active": "2") stops the start.
 */
static int card_parse(struct ice_card *card, const char *config, struct dlh_extack *ext)
{
	struct ice_port_option opts[ICE_AQC_PORT_OPT_MAX] = {0};
	struct ice_emu_ident id;
	char handle[DLH_HANDLE_MAX], dsn[24], pba[sizeof(id.pba)] = "";
	struct dlh_sdk_json *hw;
	uint64_t active = 0, pending = 0;
	bool emp = true, has_pending = false;
	uint64_t serial = 0;
	const char *dot;
	size_t n;
	int err;

	if (!config || dlh_sdk_json_parse(config, "hw", &hw, NULL))
		return dlh_sdk_extack(ext, -EINVAL, "hw: expected the card's options");
	err = -EINVAL;
	if (dlh_sdk_json_str(hw, "handle", handle, sizeof(handle), NULL) || ice_handle_parse(handle, &card->facts) ||
	    !(dot = strrchr(handle, '.')) || strcmp(dot, ".0")) {
		dlh_sdk_extack(ext, -EINVAL, "handle: expected PF 0's, \"pci/DDDD:BB:SS.0\"");
		goto out;
	}
	if (dlh_sdk_json_str(hw, "netdev_prefix", card->facts.netdev_prefix, sizeof(card->facts.netdev_prefix) - 1,
			     NULL) ||
	    !card->facts.netdev_prefix[0]) {
		dlh_sdk_extack(ext, -EINVAL, "netdev_prefix: expected 1 to %zu characters",
			       sizeof(card->facts.netdev_prefix) - 2);
		goto out;
	}
	err = ice_options_parse(hw, opts, &n, ext);
	if (err)
		goto out;
	if (dlh_sdk_json_has(hw, "emp_reset") && (err = dlh_sdk_json_bool(hw, "emp_reset", &emp, ext)))
		goto out;
	/* What the card's NVM held when it was saved (dlhald --state) wins over the first boot's. */
	err = -EINVAL;
	if (dlh_sdk_json_has(hw, "state")) {
		if (dlh_sdk_json_only(hw, "state", (const char *const[]){"active", "pending", NULL}, ext) ||
		    dlh_sdk_json_uint(hw, "state.active", 0, n - 1, &active, ext) ||
		    (dlh_sdk_json_has(hw, "state.pending") &&
		     dlh_sdk_json_uint(hw, "state.pending", 0, n - 1, &pending, ext)))
			goto out;
		has_pending = dlh_sdk_json_has(hw, "state.pending");
	} else if (dlh_sdk_json_has(hw, "active") && dlh_sdk_json_uint(hw, "active", 0, n - 1, &active, NULL)) {
		dlh_sdk_extack(ext, -EINVAL, "active: expected an option index below %zu", n);
		goto out;
	}
	if (dlh_sdk_json_has(hw, "dsn") &&
	    (dlh_sdk_json_str(hw, "dsn", dsn, sizeof(dsn), NULL) || !ident_dsn(dsn, &serial))) {
		dlh_sdk_extack(ext, -EINVAL, "dsn: expected the PCI Device Serial Number, \"0x\" and 16 hex digits");
		goto out;
	}
	if (dlh_sdk_json_has(hw, "pba") &&
	    (dlh_sdk_json_str(hw, "pba", pba, sizeof(pba), NULL) || strcspn(pba, " \t\n") != strlen(pba))) {
		dlh_sdk_extack(ext, -EINVAL,
			       "pba: expected the Product Board Assembly string, up to 31 characters, no blank");
		goto out;
	}
	card->emu = ice_emu_new(opts, (unsigned int)n, (unsigned int)active, has_pending ? (int)pending : -1, emp);
	err = card->emu ? 0 : dlh_sdk_extack(ext, -ENOMEM, "Out of memory");
	if (!err)
		ice_emu_ident_set(card->emu, serial, pba);
out:
	dlh_sdk_json_free(hw);
	return err;
}

static int ice_bus_attach(struct dlh_sdk_bus *bus, struct dlh_extack *ext)
{
	struct ice_card *card = dlh_sdk_bus_priv(bus);
	int err;

	card->bus = bus;
	err = card_parse(card, dlh_sdk_bus_config(bus), ext);
	if (err)
		return err;
	err = card_up(card, ext);
	if (err)
		ice_emu_free(card->emu);
	return err;
}

static void ice_bus_detach(struct dlh_sdk_bus *bus)
{
	struct ice_card *card = dlh_sdk_bus_priv(bus);

	card->npf = 0; /* core has removed the devices */
	ice_emu_free(card->emu);
}

/* devlink dev reload DEV action fw_activate: the EMP reset, then the card as it comes up. */
static int ice_dev_reload(struct dlh_dev *dev, enum dlh_reload_action action, enum dlh_reload_limit limit,
			  uint32_t *performed, struct dlh_extack *ext)
{
	struct ice_card *card = card_of(dev);
	struct ice_port_option options[ICE_AQC_PORT_OPT_MAX];
	uint8_t option_count = ICE_AQC_PORT_OPT_MAX, active_idx, pending_idx;
	bool active_valid, pending_valid;
	int err;

	(void)action;
	(void)limit;
	/* ice asks the NVM which banks have an update pending; here, the port option. */
	if (ice_aq_get_port_options(card->emu, options, &option_count, &active_idx, &active_valid, &pending_idx,
				    &pending_valid))
		return dlh_sdk_extack(ext, -EIO, "Failed to check for pending firmware updates");
	if (!pending_valid)
		return dlh_sdk_extack(ext, -ECANCELED, "No pending firmware update");
	if (!ice_emu_emp_reset_available(card->emu))
		return dlh_sdk_extack(
		    ext, -ECANCELED,
		    "EMP reset is not available. To activate firmware, a reboot or power cycle is needed");
	err = ice_aq_nvm_update_empr(card->emu);
	if (err)
		return dlh_sdk_extack(ext, err, "Failed to trigger EMP device reset to reload firmware");
	card_down(card);
	*performed = 1u << DLH_RELOAD_ACTION_FW_ACTIVATE;
	return card_up(card, ext);
}

static int ice_sim_reset(struct dlh_dev *dev, struct dlh_extack *ext)
{
	struct ice_card *card = card_of(dev);

	ice_emu_power_cycle(card->emu);
	card_down(card);
	return card_up(card, ext);
}

static int ice_fw_options(struct dlh_dev *dev, struct dlh_fw_option *opts, size_t max, size_t *n,
			  struct dlh_extack *ext)
{
	struct ice_card *card = card_of(dev);
	struct ice_port_option options[ICE_AQC_PORT_OPT_MAX];
	uint8_t option_count = ICE_AQC_PORT_OPT_MAX, active_idx, pending_idx;
	bool active_valid, pending_valid;

	if (ice_aq_get_port_options(card->emu, options, &option_count, &active_idx, &active_valid, &pending_idx,
				    &pending_valid))
		return dlh_sdk_extack(ext, -EIO, "Couldn't read port split options");
	for (size_t i = 0; i < option_count && i < max; i++) {
		opts[i].split = options[i].pmd;
		memcpy(opts[i].speed, options[i].lane_mbps, sizeof(opts[i].speed));
		opts[i].active = active_valid && i == active_idx;
		opts[i].pending = pending_valid && i == pending_idx;
	}
	*n = option_count;
	return 0;
}

/* One version, formatted as ice formats it; running and stored alike where Linux combines them. */
__attribute__((format(printf, 5, 6))) static int
version_put(struct dlh_sdk_info *info, bool combined, struct dlh_extack *ext, const char *key, const char *fmt, ...)
{
	char buf[64];
	va_list ap;
	int err;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!buf[0])
		return 0; /* ice does not report a missing version */
	err = dlh_sdk_info_version_put(info, DLH_VERSION_RUNNING, key, buf, ext);
	/* stored: the pending flash image's, else the running one (the emulator has no flash update) */
	if (!err && combined)
		err = dlh_sdk_info_version_put(info, DLH_VERSION_STORED, key, buf, ext);
	return err;
}

/*
 * As Linux 6.1's ice_devlink_info_get(): the driver's name (6.2 on: the core's), the PCI
 * function's DSN as the serial number, the board's PBA (left out when the NVM cannot give it, as
 * ice does), then ice's versions in ice's order and formats.
 */
static int ice_dev_info_get(struct dlh_dev *dev, struct dlh_sdk_info *info, struct dlh_extack *ext)
{
	struct ice_card *card = card_of(dev);
	struct ice_emu_ident id;
	char serial[32];
	int err;

	ice_emu_ident(card->emu, &id);
	err = dlh_sdk_info_driver_put(info, "ice", ext);
	if (err)
		return err;
	snprintf(serial, sizeof(serial), "%02x-%02x-%02x-%02x-%02x-%02x-%02x-%02x", (unsigned int)(id.dsn >> 56) & 0xff,
		 (unsigned int)(id.dsn >> 48) & 0xff, (unsigned int)(id.dsn >> 40) & 0xff,
		 (unsigned int)(id.dsn >> 32) & 0xff, (unsigned int)(id.dsn >> 24) & 0xff,
		 (unsigned int)(id.dsn >> 16) & 0xff, (unsigned int)(id.dsn >> 8) & 0xff, (unsigned int)id.dsn & 0xff);
	err = dlh_sdk_info_serial_put(info, false, serial, ext);
	if (!err && id.pba[0])
		err = dlh_sdk_info_version_put(info, DLH_VERSION_FIXED, "board.id", id.pba, ext);
	if (!err)
		err = version_put(info, false, ext, "fw.mgmt", "%u.%u.%u", id.fw[0], id.fw[1], id.fw[2]);
	if (!err)
		err = version_put(info, false, ext, "fw.mgmt.api", "%u.%u.%u", id.api[0], id.api[1], id.api[2]);
	if (!err)
		err = version_put(info, false, ext, "fw.mgmt.build", "0x%08x", id.fw_build);
	if (!err)
		err = version_put(info, true, ext, "fw.undi", "%u.%u.%u", id.orom_major, id.orom_build, id.orom_patch);
	if (!err)
		err = version_put(info, true, ext, "fw.psid.api", "%x.%02x", id.nvm_major, id.nvm_minor);
	if (!err)
		err = version_put(info, true, ext, "fw.bundle_id", "0x%08x", id.eetrack);
	if (!err)
		err = version_put(info, false, ext, "fw.app.name", "%s", id.pkg_name);
	if (!err)
		err =
		    version_put(info, false, ext, "fw.app", "%u.%u.%u.%u", id.pkg[0], id.pkg[1], id.pkg[2], id.pkg[3]);
	if (!err)
		err = version_put(info, false, ext, "fw.app.bundle_id", "0x%08x", id.track_id);
	if (!err)
		err = version_put(info, true, ext, "fw.netlist", "%x.%x.%x-%x.%x.%x", id.nl_major, id.nl_minor,
				  id.nl_type >> 16, id.nl_type & 0xffff, id.nl_rev, id.nl_cust);
	if (!err)
		err = version_put(info, true, ext, "fw.netlist.build", "0x%08x", id.nl_hash);
	return err;
}

static int ice_sim_set(struct dlh_dev *dev, struct dlh_port *port, const char *key, const char *value,
		       struct dlh_extack *ext)
{
	struct ice_card *card = card_of(dev);
	unsigned long n;
	char *end;

	if (!port && !strcmp(key, "fail_nth")) {
		errno = 0;
		n = strtoul(value, &end, 10);
		if (!*value || *value == '-' || *end || errno)
			return dlh_sdk_extack(ext, -EINVAL, "fail_nth: expected a number of commands, got \"%s\"",
					      value);
		ice_emu_fail_nth(card->emu, n);
		return 0;
	}
	if (!port && !strcmp(key, "nvm_busy")) {
		if (strcmp(value, "0") && strcmp(value, "1"))
			return dlh_sdk_extack(ext, -EINVAL, "nvm_busy: expected 0 or 1, got \"%s\"", value);
		ice_emu_nvm_busy(card->emu, value[0] == '1');
		return 0;
	}
	return dlh_sdk_extack(ext, -EINVAL,
			      "Unknown emulator control \"%s\" (E810 has: fail_nth and nvm_busy on a device)", key);
}

static int ice_sim_get(struct dlh_dev *dev, struct dlh_port *port, const char *key, char *buf, size_t len,
		       struct dlh_extack *ext)
{
	struct ice_card *card = card_of(dev);
	struct ice_port_option options[ICE_AQC_PORT_OPT_MAX];
	uint8_t option_count = ICE_AQC_PORT_OPT_MAX, active_idx, pending_idx;
	bool active_valid, pending_valid;
	unsigned long fail = ice_emu_fail_pending(card->emu);
	int n;

	if (!port && !strcmp(key, "fail_nth")) {
		n = snprintf(buf, len, "%lu", fail);
	} else if (!port && !strcmp(key, "accesses")) {
		n = snprintf(buf, len, "%lu", ice_emu_accesses(card->emu));
	} else if (!port && !strcmp(key, "state")) {
		/* Read without taking an injected failure (it still counts as an access). */
		ice_emu_fail_nth(card->emu, 0);
		if (ice_aq_get_port_options(card->emu, options, &option_count, &active_idx, &active_valid, &pending_idx,
					    &pending_valid))
			return dlh_sdk_extack(ext, -EIO, "Couldn't read port split options");
		ice_emu_fail_nth(card->emu, fail);
		n = pending_valid ? snprintf(buf, len, "{\"active\":%u,\"pending\":%u}", active_idx, pending_idx)
				  : snprintf(buf, len, "{\"active\":%u}", active_idx);
	} else {
		return dlh_sdk_extack(
		    ext, -EINVAL,
		    "Unknown emulator control \"%s\" (E810 has: fail_nth, accesses and state on a device)", key);
	}
	return n < 0 || (size_t)n >= len ? dlh_sdk_extack(ext, -ENOSPC, "Buffer too small") : 0;
}

static const struct dlh_sdk_ops ice_ops = {
    .port_split = ice_port_split,
    .port_unsplit = ice_port_unsplit,
    .sim_set = ice_sim_set,
    .sim_get = ice_sim_get,
    .bus_attach = ice_bus_attach,
    .bus_detach = ice_bus_detach,
    .dev_reload = ice_dev_reload,
    .reload_actions = 1u << DLH_RELOAD_ACTION_FW_ACTIVATE,
    .staged = DLH_SDK_STAGED_SPLIT,
    .flags = DLH_SDK_F_BUS_LOCAL,
    .sim_reset = ice_sim_reset,
    .dev_fw_options = ice_fw_options,
    .dev_info_get = ice_dev_info_get,
};

const struct dlh_sdk_driver ice_driver = {
    DLH_SDK_DRIVER_INIT("ice", &ice_ops),
    .bus_priv_size = sizeof(struct ice_card),
    .rules = &ice_rules,
};
