/* SPDX-License-Identifier: MIT */
/*
 * ConnectX-4..7 VPI cards, as Linux's mlx5_core runs them and mstflint
 * configures them: each port is its own PCI function and devlink instance;
 * its type (eth or ib) is the card's LINK_TYPE_Pn, which a set stores for the
 * next firmware reset (DLH_SDK_STAGED_TYPE) and `devlink dev reload DEV
 * action fw_activate` (mlx5's synchronised level-3 reset) or a power cycle
 * loads. The reset takes every function of the card down and brings each up
 * with its port of the type the configuration says.
 *
 * A port's desired type is its next value: what the card will run. A set to
 * the type a port runs while another is pending writes that one back
 * (nothing is pending then); mstconfig says "Please reboot" even then
 * (mstflint #551), dlhal says the change is cancelled.
 *
 * A card is a bus of its own (DLH_SDK_F_BUS_LOCAL): its devices go and come
 * with its resets.
 */
#include "mlx5.h"

#include "emu.h"
#include "rules.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mlx5_card {
	struct dlh_sdk_bus *bus;
	struct mlx5_emu *emu;
	struct mlx5_facts facts; /* as the firmware reported them last: what the rules plan from */
	struct mlx5_ident id;
	struct dlh_dev *fn[MLX5_MAX_PORTS];
	unsigned int nfn;
};

static struct mlx5_card *card_of(const struct dlh_dev *dev)
{
	return dlh_sdk_bus_priv(dlh_sdk_dev_bus(dev));
}

static void facts_sync(struct mlx5_card *card)
{
	for (unsigned int i = 0; i < card->nfn; i++)
		*(struct mlx5_facts *)dlh_sdk_dev_facts(card->fn[i]) = card->facts;
}

/* The configuration's three values of each port, as mstconfig -e q reads them. */
static int facts_read(struct mlx5_card *card)
{
	struct mlx5_facts f = card->facts;

	for (unsigned int w = MLX5_NV_DEFAULT; w <= MLX5_NV_NEXT; w++) {
		for (unsigned int i = 0; i < f.nports; i++) {
			enum mlx5_link_type t;

			if (mlx5_emu_link_type(card->emu, i, (enum mlx5_nv_which)w, &t))
				return -EIO;
			f.link_type[w][i] = (uint8_t)t;
		}
	}
	f.known = true;
	card->facts = f;
	facts_sync(card);
	return 0;
}

static struct dlh_port *port_of(struct mlx5_card *card, unsigned int i)
{
	return i < card->nfn ? dlh_port_first(card->fn[i]) : NULL;
}

/* What each port has pending (next != current), and its desired type: the next value. */
static void pending_report(struct mlx5_card *card)
{
	const struct mlx5_facts *f = &card->facts;

	for (unsigned int i = 0; i < card->nfn; i++) {
		struct dlh_port *port = port_of(card, i);
		struct dlh_pending p = {0};

		if (!port)
			continue;
		if (f->link_type[MLX5_NV_NEXT][i] != f->link_type[MLX5_NV_CURRENT][i]) {
			p.type = mlx5_type_of((enum mlx5_link_type)f->link_type[MLX5_NV_NEXT][i]);
			snprintf(p.message, sizeof(p.message), "%s", MLX5_TYPE_PENDING_MSG);
		}
		dlh_sdk_port_pending_set(port, &p);
	}
}

static void desired_report(struct mlx5_card *card)
{
	for (unsigned int i = 0; i < card->nfn; i++) {
		struct dlh_port *port = port_of(card, i);

		if (port)
			dlh_sdk_port_desired_type_set(
			    port, mlx5_type_of((enum mlx5_link_type)card->facts.link_type[MLX5_NV_NEXT][i]));
	}
}

static int mlx5_port_type_set(struct dlh_port *port, enum dlh_port_type type, struct dlh_extack *ext)
{
	struct mlx5_card *card = card_of(dlh_port_dev(port));
	int fn = mlx5_function_of(&card->facts, dlh_dev_handle(dlh_port_dev(port)));
	int err;

	if (fn < 0)
		return dlh_sdk_extack(ext, -ENODEV, "Device is not one of the card's functions");
	if (facts_read(card))
		return dlh_sdk_extack(ext, -EIO, "Failed to query the firmware configuration");
	err = mlx5_type_check(&card->facts, (unsigned int)fn, type, ext);
	if (err)
		return err;
	if (mlx5_emu_link_type_set(card->emu, (unsigned int)fn, mlx5_link_of(type)))
		return dlh_sdk_extack(ext, -EIO, "Failed to set LINK_TYPE_P%d", fn + 1);
	card->facts.link_type[MLX5_NV_NEXT][fn] = (uint8_t)mlx5_link_of(type);
	facts_sync(card);
	pending_report(card);
	if (card->facts.link_type[MLX5_NV_CURRENT][fn] == card->facts.link_type[MLX5_NV_NEXT][fn])
		dlh_sdk_extack(ext, 0, "Pending type change cancelled: the port runs %s", dlh_port_type_name(type));
	else
		dlh_sdk_extack(ext, 0, MLX5_TYPE_PENDING_MSG);
	return 0;
}

static void card_down(struct mlx5_card *card)
{
	while (card->nfn)
		dlh_sdk_dev_remove(card->fn[--card->nfn]);
}

/* One port on function @i, of the type the firmware runs: eth with its netdev, ib with its ibdev. */
static int port_up(struct mlx5_card *card, unsigned int i, struct dlh_extack *ext)
{
	const struct mlx5_facts *f = &card->facts;
	struct dlh_sdk_port_attrs attrs;
	struct dlh_port *port;
	int err;

	mlx5_port_attrs(f, i, &attrs);
	err = dlh_sdk_port_register(card->fn[i], mlx5_port_index(i), &attrs, &port, ext);
	if (err)
		return err;
	return f->link_type[MLX5_NV_CURRENT][i] == MLX5_LINK_TYPE_ETH ? dlh_sdk_port_type_eth(port, f->netdev[i], ext)
								      : dlh_sdk_port_type_ib(port, f->ibdev[i], ext);
}

/* Every function of the card, as it comes up after a reset. */
static int card_up(struct mlx5_card *card, struct dlh_extack *ext)
{
	char handle[DLH_HANDLE_MAX];
	int err;

	if (facts_read(card))
		return dlh_sdk_extack(ext, -EIO, "Failed to query the firmware configuration");
	for (unsigned int i = 0; i < card->facts.nports; i++) {
		snprintf(handle, sizeof(handle), "%s/%s.%u", card->facts.bus_name, card->facts.slot, i);
		err = dlh_sdk_bus_dev_add(card->bus, handle, &card->fn[card->nfn], ext);
		if (err)
			goto err_down;
		card->nfn++;
		*(struct mlx5_facts *)dlh_sdk_dev_facts(card->fn[i]) = card->facts;
		err = port_up(card, i, ext);
		if (err)
			goto err_down;
	}
	desired_report(card);
	pending_report(card);
	return 0;

err_down:
	card_down(card);
	return err;
}

static int mlx5_bus_attach(struct dlh_sdk_bus *bus, struct dlh_extack *ext)
{
	struct mlx5_card *card = dlh_sdk_bus_priv(bus);
	struct mlx5_emu_board board;
	int err;

	card->bus = bus;
	if (!dlh_sdk_bus_config(bus))
		return dlh_sdk_extack(ext, -EINVAL, "hw: expected the card's configuration");
	err = mlx5_hw_parse(dlh_sdk_bus_config(bus), &board, &card->facts, &card->id, ext);
	if (err)
		return err;
	if (!card->facts.bus_name[0])
		return dlh_sdk_extack(ext, -EINVAL, "handle: expected function 0's, \"pci/DDDD:BB:SS.0\"");
	card->emu = mlx5_emu_new(&board);
	if (!card->emu)
		return dlh_sdk_extack(ext, -ENOMEM, "Out of memory");
	err = card_up(card, ext);
	if (err) {
		mlx5_emu_free(card->emu);
		card->emu = NULL;
	}
	return err;
}

static void mlx5_bus_detach(struct dlh_sdk_bus *bus)
{
	struct mlx5_card *card = dlh_sdk_bus_priv(bus);

	card->nfn = 0; /* core has removed the devices */
	mlx5_emu_free(card->emu);
	card->emu = NULL;
}

/* mlx5_devlink_reload_fw_activate(): the level-3 reset, refused where the firmware has none. */
static int fw_activate(struct mlx5_card *card, struct dlh_extack *ext)
{
	uint8_t levels;

	if (mlx5_emu_reset_query(card->emu, &levels))
		return dlh_sdk_extack(ext, -EIO, "Failed to query the firmware reset levels");
	if (!(levels & MLX5_MFRL_REG_RESET_LEVEL3))
		return dlh_sdk_extack(ext, -EINVAL, "FW activate requires reboot");
	if (mlx5_emu_reset(card->emu, 3))
		return dlh_sdk_extack(ext, -EIO, "FW activate aborted, PCI reads fail after reset");
	return 0;
}

/*
 * As mlx5_devlink_reload_down() and _up(): driver_reinit reloads this function only (its port goes
 * and comes, as it runs); fw_activate resets the card, every function, and loads its configuration;
 * with limit no_reset it is a live patch of the firmware, which loads no configuration.
 */
static int mlx5_dev_reload(struct dlh_dev *dev, enum dlh_reload_action action, enum dlh_reload_limit limit,
			   uint32_t *performed, struct dlh_extack *ext)
{
	struct mlx5_card *card = card_of(dev);
	int fn = mlx5_function_of(&card->facts, dlh_dev_handle(dev));
	uint8_t levels;
	int err;

	if (fn < 0)
		return dlh_sdk_extack(ext, -ENODEV, "Device is not one of the card's functions");
	if (mlx5_emu_lag(card->emu))
		return dlh_sdk_extack(ext, -EOPNOTSUPP, "reload is unsupported in Lag mode");
	*performed = 1u << action;
	if (action == DLH_RELOAD_ACTION_DRIVER_REINIT) {
		dlh_sdk_port_unregister(dlh_port_first(dev));
		if (facts_read(card))
			return dlh_sdk_extack(ext, -EIO, "Failed to query the firmware configuration");
		err = port_up(card, (unsigned int)fn, ext);
		if (!err) {
			desired_report(card);
			pending_report(card);
		}
		return err;
	}
	if (limit == DLH_RELOAD_LIMIT_NO_RESET) {
		if (mlx5_emu_reset_query(card->emu, &levels))
			return dlh_sdk_extack(ext, -EIO, "Failed to query the firmware reset levels");
		if (!(levels & MLX5_MFRL_REG_RESET_LEVEL0))
			return dlh_sdk_extack(ext, -EINVAL,
					      "FW upgrade to the stored FW can't be done by FW live patching");
		return mlx5_emu_reset(card->emu, 0) ? dlh_sdk_extack(ext, -EIO, "Failed to live patch the firmware")
						    : 0;
	}
	err = fw_activate(card, ext);
	if (err)
		return err;
	/* "On fw_activate action, also driver is reloaded and reinit performed" */
	*performed |= 1u << DLH_RELOAD_ACTION_DRIVER_REINIT;
	card_down(card);
	return card_up(card, ext);
}

static int mlx5_sim_reset(struct dlh_dev *dev, struct dlh_extack *ext)
{
	struct mlx5_card *card = card_of(dev);

	mlx5_emu_power_cycle(card->emu);
	card_down(card);
	return card_up(card, ext);
}

/* As Linux 6.12's mlx5_devlink_info_get(): fw.psid fixed; fw.version and fw, running and stored. */
static int mlx5_dev_info_get(struct dlh_dev *dev, struct dlh_sdk_info *info, struct dlh_extack *ext)
{
	struct mlx5_card *card = card_of(dev);
	int err = dlh_sdk_info_driver_put(info, "mlx5_core", ext);

	if (!err)
		err = dlh_sdk_info_version_put(info, DLH_VERSION_FIXED, "fw.psid", card->id.psid, ext);
	for (int kind = DLH_VERSION_RUNNING; !err && kind <= DLH_VERSION_STORED; kind++) {
		err = dlh_sdk_info_version_put(info, (enum dlh_version_kind)kind, "fw.version", card->id.fw, ext);
		if (!err)
			err = dlh_sdk_info_version_put(info, (enum dlh_version_kind)kind, "fw", card->id.fw, ext);
	}
	return err;
}

static const char *link_name(uint8_t t)
{
	return t == MLX5_LINK_TYPE_ETH ? "eth" : "ib";
}

static int mlx5_sim_set(struct dlh_dev *dev, struct dlh_port *port, const char *key, const char *value,
			struct dlh_extack *ext)
{
	struct mlx5_card *card = card_of(dev);
	unsigned long n;
	char *end;

	if (!port && !strcmp(key, "fail_nth")) {
		errno = 0;
		n = strtoul(value, &end, 10);
		if (!*value || *value == '-' || *end || errno)
			return dlh_sdk_extack(ext, -EINVAL, "fail_nth: expected a number of commands, got \"%s\"",
					      value);
		mlx5_emu_fail_nth(card->emu, n);
		return 0;
	}
	if (!port && !strcmp(key, "lag")) {
		if (strcmp(value, "0") && strcmp(value, "1"))
			return dlh_sdk_extack(ext, -EINVAL, "lag: expected 0 or 1, got \"%s\"", value);
		mlx5_emu_lag_set(card->emu, value[0] == '1');
		return 0;
	}
	return dlh_sdk_extack(ext, -EINVAL,
			      "Unknown emulator control \"%s\" (ConnectX VPI has: fail_nth and lag on a device)", key);
}

/*
 * What mstconfig reads of the card (its query's heading and LINK_TYPE_Pn's three values), for the
 * stand-ins of mstflint's programs that tests run against an emulated card (tests/stand-ins/).
 */
static int config_json(struct mlx5_card *card, char *buf, size_t len)
{
	static const char *const which[] = {"default", "current", "next"};
	const struct mlx5_emu_board *b = mlx5_emu_board(card->emu);
	size_t at = 0;
	int n;

	n = snprintf(buf, len, "{\"device_type\":\"%s\",\"name\":\"%s\",\"description\":\"%s\",\"vpi\":%s",
		     card->id.device_type, card->id.name, card->id.description, b->vpi ? "true" : "false");
	for (unsigned int w = 0; n >= 0 && (at += (size_t)n) < len && w < 3; w++) {
		n = snprintf(buf + at, len - at, ",\"%s\":[\"%s\"%s%s%s]", which[w], link_name(b->link_type[w][0]),
			     b->nports > 1 ? ",\"" : "", b->nports > 1 ? link_name(b->link_type[w][1]) : "",
			     b->nports > 1 ? "\"" : "");
	}
	if (n < 0 || at >= len)
		return -1;
	n = snprintf(buf + at, len - at, "}");
	return n < 0 || at + (size_t)n >= len ? -1 : (int)(at + (size_t)n);
}

static int mlx5_sim_get(struct dlh_dev *dev, struct dlh_port *port, const char *key, char *buf, size_t len,
			struct dlh_extack *ext)
{
	struct mlx5_card *card = card_of(dev);
	const struct mlx5_emu_board *b = mlx5_emu_board(card->emu);
	int n = 0;

	if (!port && !strcmp(key, "fail_nth")) {
		n = snprintf(buf, len, "%lu", mlx5_emu_fail_pending(card->emu));
	} else if (!port && !strcmp(key, "accesses")) {
		n = snprintf(buf, len, "%lu", mlx5_emu_accesses(card->emu));
	} else if (!port && !strcmp(key, "state")) {
		/* the card's whole configuration, read without a command (a saved state is the card's) */
		n = b->nports == 2
			? snprintf(buf, len, "{\"current\":[\"%s\",\"%s\"],\"next\":[\"%s\",\"%s\"]}",
				   link_name(b->link_type[MLX5_NV_CURRENT][0]),
				   link_name(b->link_type[MLX5_NV_CURRENT][1]),
				   link_name(b->link_type[MLX5_NV_NEXT][0]), link_name(b->link_type[MLX5_NV_NEXT][1]))
			: snprintf(buf, len, "{\"current\":[\"%s\"],\"next\":[\"%s\"]}",
				   link_name(b->link_type[MLX5_NV_CURRENT][0]),
				   link_name(b->link_type[MLX5_NV_NEXT][0]));
	} else if (!port && !strcmp(key, "config")) {
		n = config_json(card, buf, len);
	} else {
		return dlh_sdk_extack(
		    ext, -EINVAL,
		    "Unknown emulator control \"%s\" (ConnectX VPI has: fail_nth, accesses, state and "
		    "config on a device)",
		    key);
	}
	return n < 0 || (size_t)n >= len ? dlh_sdk_extack(ext, -ENOSPC, "Buffer too small") : 0;
}

static const struct dlh_sdk_ops mlx5_ops = {
    .port_type_set = mlx5_port_type_set,
    .sim_set = mlx5_sim_set,
    .sim_get = mlx5_sim_get,
    .bus_attach = mlx5_bus_attach,
    .bus_detach = mlx5_bus_detach,
    .dev_reload = mlx5_dev_reload,
    .reload_actions = 1u << DLH_RELOAD_ACTION_DRIVER_REINIT | 1u << DLH_RELOAD_ACTION_FW_ACTIVATE,
    .reload_limits = 1u << DLH_RELOAD_LIMIT_NO_RESET,
    .staged = DLH_SDK_STAGED_TYPE,
    .flags = DLH_SDK_F_BUS_LOCAL,
    .sim_reset = mlx5_sim_reset,
    .dev_info_get = mlx5_dev_info_get,
};

const struct dlh_sdk_driver mlx5_driver = {
    DLH_SDK_DRIVER_INIT("mlx5", &mlx5_ops),
    .bus_priv_size = sizeof(struct mlx5_card),
    .rules = &mlx5_rules,
};
