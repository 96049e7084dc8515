/* SPDX-License-Identifier: MIT */
/* ConnectX-4..7 VPI type rules (rules.h). */
#include "rules.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

uint32_t mlx5_port_index(unsigned int fn)
{
	return (uint32_t)fn << 16 | MLX5_VPORT_UPLINK;
}

void mlx5_port_attrs(const struct mlx5_facts *f, unsigned int fn, struct dlh_sdk_port_attrs *attrs)
{
	/* physical, numbered by its function (mlx5_get_dev_index()); not splittable; one cage each */
	*attrs = (struct dlh_sdk_port_attrs){
	    .flavour = DLH_PORT_FLAVOUR_PHYSICAL, .number = fn, .speed = f->speed, .has_module = true, .module = fn};
}

int mlx5_function_of(const struct mlx5_facts *f, const char *handle)
{
	size_t nb = strlen(f->bus_name), ns = strlen(f->slot);

	for (unsigned int i = 0; f->eth_nested && i < f->nports; i++)
		if (!strcmp(handle, f->eth_at[i]))
			return (int)i;
	if (strncmp(handle, f->bus_name, nb) || handle[nb] != '/' || strncmp(handle + nb + 1, f->slot, ns) ||
	    handle[nb + 1 + ns] != '.' || handle[nb + ns + 2] < '0' || handle[nb + ns + 2] > '7' ||
	    handle[nb + ns + 3] || (unsigned int)(handle[nb + ns + 2] - '0') >= f->nports)
		return -1;
	return handle[nb + ns + 2] - '0';
}

enum mlx5_link_type mlx5_link_of(enum dlh_port_type type)
{
	return type == DLH_PORT_TYPE_ETH  ? MLX5_LINK_TYPE_ETH
	       : type == DLH_PORT_TYPE_IB ? MLX5_LINK_TYPE_IB
					  : MLX5_LINK_TYPE_NONE;
}

enum dlh_port_type mlx5_type_of(enum mlx5_link_type link)
{
	return link == MLX5_LINK_TYPE_ETH  ? DLH_PORT_TYPE_ETH
	       : link == MLX5_LINK_TYPE_IB ? DLH_PORT_TYPE_IB
					   : DLH_PORT_TYPE_NOTSET;
}

int mlx5_type_check(const struct mlx5_facts *f, unsigned int fn, enum dlh_port_type type, struct dlh_extack *ext)
{
	/* the configuration holds IB(1) or ETH(2) for a ConnectX-4 and later; VPI(3) was ConnectX-3's */
	if (mlx5_link_of(type) == MLX5_LINK_TYPE_NONE)
		return dlh_sdk_extack(ext, -EOPNOTSUPP, "Unsupported port type");
	if (!f->vpi)
		return dlh_sdk_extack(ext, -EOPNOTSUPP, "Card has no LINK_TYPE_P%u: its ports run Ethernet only",
				      fn + 1);
	if (!f->known)
		return dlh_sdk_extack(ext, -EAGAIN, "Firmware configuration of the card could not be read");
	return 0;
}

/*
 * A set writes the configuration and nothing else; the reset that loads it brings every function of
 * the card up again, each port of the type its next value says (the one set: @fn's).
 */
static int type_set_plan(struct dlh_port *port, enum dlh_port_type type, struct dlh_sdk_plan *plan,
			 struct dlh_extack *ext)
{
	const struct dlh_dev *dev = dlh_port_dev(port);
	const struct mlx5_facts *f = dlh_sdk_dev_facts(dev);
	int fn = f ? mlx5_function_of(f, dlh_dev_handle(dev)) : -1;
	char handle[DLH_HANDLE_MAX];
	int err;

	if (fn < 0)
		return dlh_sdk_extack(ext, -ENODEV, "Device is not one of the card's functions");
	err = mlx5_type_check(f, (unsigned int)fn, type, ext);
	for (unsigned int i = 0; !err && i < f->nports; i++) {
		enum mlx5_link_type t =
		    i == (unsigned int)fn ? mlx5_link_of(type) : (enum mlx5_link_type)f->link_type[MLX5_NV_NEXT][i];
		struct dlh_sdk_port_attrs attrs;

		mlx5_port_attrs(f, i, &attrs);
		snprintf(handle, sizeof(handle), "%s/%s.%u", f->bus_name, f->slot, i);
		/* an Ethernet port on a nested instance whose name is not known yet: the plan cannot say it */
		if (t == MLX5_LINK_TYPE_ETH && f->eth_nested && !f->eth_at[i][0]) {
			dlh_sdk_plan_partial(plan);
			return dlh_sdk_extack(ext, 0,
					      "Port %u would run Ethernet on an instance nested in %s/%s.%u, not named "
					      "until it comes",
					      i + 1, f->bus_name, f->slot, i);
		}
		err = dlh_sdk_plan_after(plan, t == MLX5_LINK_TYPE_ETH && f->eth_nested ? f->eth_at[i] : handle,
					 mlx5_port_index(i), &attrs, mlx5_type_of(t),
					 t == MLX5_LINK_TYPE_ETH ? f->netdev[i] : f->ibdev[i], ext);
	}
	return err;
}

static int link_word(const char *w, uint8_t *t)
{
	if (!strcmp(w, "eth"))
		*t = MLX5_LINK_TYPE_ETH;
	else if (!strcmp(w, "ib"))
		*t = MLX5_LINK_TYPE_IB;
	else
		return -EINVAL;
	return 0;
}

static int link_at(const struct dlh_sdk_json *j, const char *path, uint8_t *t, struct dlh_extack *ext)
{
	char w[8];

	if (dlh_sdk_json_str(j, path, w, sizeof(w), NULL) || link_word(w, t))
		return dlh_sdk_extack(ext, -EINVAL, "field \"hw.%s\": expected \"eth\" or \"ib\"", path);
	return 0;
}

/* Printable ASCII but '"' and '\\': what mstconfig prints of the card, quoted as it is by the emulator. */
static bool printable(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e || *s == '"' || *s == '\\')
			return false;
	return true;
}

static int str_at(const struct dlh_sdk_json *j, const char *path, char *buf, size_t size, bool need,
		  struct dlh_extack *ext)
{
	if (!need && !dlh_sdk_json_has(j, path))
		return 0;
	if (dlh_sdk_json_str(j, path, buf, size, NULL) || !buf[0] || !printable(buf))
		return dlh_sdk_extack(ext, -EINVAL,
				      "field \"hw.%s\": expected 1 to %zu printable characters, no '\"' or '\\'", path,
				      size - 1);
	return 0;
}

static int port_parse(const struct dlh_sdk_json *j, unsigned int i, struct mlx5_emu_board *b, struct mlx5_facts *f,
		      struct dlh_extack *ext)
{
	static const char *const keys[] = {"netdev", "ibdev", "link_type", NULL};
	static const char *const which[] = {"default", "current", "next", NULL};
	char at[32], path[64];
	int err;

	snprintf(at, sizeof(at), "ports[%u]", i);
	err = dlh_sdk_json_only(j, at, keys, ext);
	snprintf(path, sizeof(path), "%s.netdev", at);
	if (!err && (dlh_sdk_json_str(j, path, f->netdev[i], sizeof(f->netdev[i]), NULL) ||
		     !dlh_sdk_netdev_name_valid(f->netdev[i])))
		err = dlh_sdk_extack(ext, -EINVAL, "field \"hw.%s\": expected a netdev name", path);
	snprintf(path, sizeof(path), "%s.ibdev", at);
	if (!err)
		err = str_at(j, path, f->ibdev[i], sizeof(f->ibdev[i]), true, ext);
	snprintf(path, sizeof(path), "%s.link_type", at);
	if (!err)
		err = dlh_sdk_json_only(j, path, which, ext);
	for (unsigned int w = 0; !err && w < 3; w++) {
		snprintf(path, sizeof(path), "%s.link_type.%s", at, which[w]);
		err = link_at(j, path, &b->link_type[w][i], ext);
	}
	return err;
}

/* hw.state, what dlhald --state saved: {"current": ["eth", "ib"], "next": ["ib", "ib"]}. */
static int state_parse(const struct dlh_sdk_json *j, struct mlx5_emu_board *b, struct dlh_extack *ext)
{
	static const char *const keys[] = {"current", "next", NULL};
	char path[48];
	size_t n;
	int err = dlh_sdk_json_only(j, "state", keys, ext);

	for (unsigned int w = MLX5_NV_CURRENT; !err && w <= MLX5_NV_NEXT; w++) {
		snprintf(path, sizeof(path), "state.%s", keys[w - 1]);
		if (dlh_sdk_json_count(j, path, &n, NULL) || n != b->nports)
			return dlh_sdk_extack(ext, -EINVAL, "field \"hw.%s\": expected a type per port", path);
		for (unsigned int i = 0; !err && i < b->nports; i++) {
			snprintf(path, sizeof(path), "state.%s[%u]", keys[w - 1], i);
			err = link_at(j, path, &b->link_type[w][i], ext);
		}
	}
	return err;
}

int mlx5_hw_parse(const char *config, struct mlx5_emu_board *b, struct mlx5_facts *f, struct mlx5_ident *id,
		  struct dlh_extack *ext)
{
	static const char *const keys[] = {"handle", "device_type",  "psid",  "fw",    "name",	 "description", "vpi",
					   "speed",  "reset_levels", "ports", "state", "pci_id", NULL};
	char handle[DLH_HANDLE_MAX];
	struct dlh_sdk_json *j;
	const char *slash = NULL, *dot = NULL;
	uint64_t speed = 0, level;
	size_t n = 0;
	int err;

	memset(b, 0, sizeof(*b));
	memset(f, 0, sizeof(*f));
	memset(id, 0, sizeof(*id));
	err = dlh_sdk_json_parse(config, "hw", &j, ext);
	if (err)
		return err;
	err = dlh_sdk_json_only(j, "", keys, ext);
	/* the host gives an emulated card its handle (function 0's); a kernel device has its own */
	if (!err && dlh_sdk_json_has(j, "handle") &&
	    (dlh_sdk_json_str(j, "handle", handle, sizeof(handle), NULL) || !(slash = strchr(handle, '/')) ||
	     !(dot = strrchr(handle, '.')) || dot < slash || strcmp(dot, ".0") ||
	     (size_t)(slash - handle) >= sizeof(f->bus_name) || (size_t)(dot - slash - 1) >= sizeof(f->slot)))
		err = dlh_sdk_extack(ext, -EINVAL, "handle: expected function 0's, \"pci/DDDD:BB:SS.0\"");
	if (!err && slash) {
		snprintf(f->bus_name, sizeof(f->bus_name), "%.*s", (int)(slash - handle), handle);
		snprintf(f->slot, sizeof(f->slot), "%.*s", (int)(dot - slash - 1), slash + 1);
	}
	if (!err)
		err = str_at(j, "device_type", id->device_type, sizeof(id->device_type), true, ext);
	if (!err)
		err = str_at(j, "psid", id->psid, sizeof(id->psid), true, ext);
	if (!err)
		err = str_at(j, "fw", id->fw, sizeof(id->fw), true, ext);
	if (!err)
		err = str_at(j, "name", id->name, sizeof(id->name), false, ext);
	if (!err)
		err = str_at(j, "description", id->description, sizeof(id->description), false, ext);
	if (!err && dlh_sdk_json_has(j, "pci_id") &&
	    (dlh_sdk_json_str(j, "pci_id", f->pci_id, sizeof(f->pci_id), NULL) || strlen(f->pci_id) != 6 ||
	     strncmp(f->pci_id, "0x", 2) || strspn(f->pci_id + 2, "0123456789abcdef") != 4))
		err = dlh_sdk_extack(ext, -EINVAL, "field \"hw.pci_id\": expected a PCI device id, \"0x101b\"");
	b->vpi = true;
	if (!err && dlh_sdk_json_has(j, "vpi"))
		err = dlh_sdk_json_bool(j, "vpi", &b->vpi, ext);
	if (!err && dlh_sdk_json_has(j, "speed"))
		err = dlh_sdk_json_uint(j, "speed", 1, 800, &speed, ext);
	b->reset_levels = MLX5_MFRL_REG_RESET_LEVEL0 | MLX5_MFRL_REG_RESET_LEVEL3;
	if (!err && dlh_sdk_json_has(j, "reset_levels")) {
		b->reset_levels = 0;
		err = dlh_sdk_json_count(j, "reset_levels", &n, ext);
		for (size_t i = 0; !err && i < n; i++) {
			char path[32];

			snprintf(path, sizeof(path), "reset_levels[%zu]", i);
			err = dlh_sdk_json_uint(j, path, 0, 5, &level, ext);
			if (!err)
				b->reset_levels |= (uint8_t)(1u << level);
		}
	}
	if (!err && (dlh_sdk_json_count(j, "ports", &n, NULL) || !n || n > MLX5_MAX_PORTS))
		err = dlh_sdk_extack(ext, -EINVAL, "field \"hw.ports\": expected 1 or %d ports", MLX5_MAX_PORTS);
	if (!err)
		b->nports = (unsigned int)n;
	for (unsigned int i = 0; !err && i < b->nports; i++)
		err = port_parse(j, i, b, f, ext);
	if (!err && dlh_sdk_json_has(j, "state"))
		err = state_parse(j, b, ext);
	f->nports = b->nports;
	f->vpi = b->vpi;
	f->speed = (uint32_t)speed * 1000;
	dlh_sdk_json_free(j);
	return err;
}

/* mlx5_core.eth: Linux 6.7 on, the nested instance of a function's Ethernet port (its own driver) */
static const char *const mlx5_kernel_drivers[] = {"mlx5_core", "mlx5_core.eth", NULL};

/*
 * What the kernel does not report of a function's Ethernet port: its speed and the cage it is in
 * (the function's), as the emulated card's ports have them and dl panel needs.
 */
static void port_attrs_fill(const struct dlh_dev *dev, uint32_t index, struct dlh_sdk_port_attrs *attrs)
{
	const struct mlx5_facts *f = dlh_sdk_dev_facts(dev);
	unsigned int fn = index >> 16;

	if (!f || (index & 0xffffu) != MLX5_VPORT_UPLINK || fn >= f->nports)
		return;
	attrs->speed = f->speed;
	attrs->has_module = true;
	attrs->module = fn;
}

const struct dlh_sdk_rules mlx5_rules = {
    .kernel_drivers = mlx5_kernel_drivers,
    .port_attrs_fill = port_attrs_fill,
    .attach = mlx5_kernel_attach,
    .port_type_set = mlx5_kernel_type_set,
    .staged = DLH_SDK_STAGED_TYPE,
    .facts_size = sizeof(struct mlx5_facts),
    .port_type_set_plan = type_set_plan,
};
