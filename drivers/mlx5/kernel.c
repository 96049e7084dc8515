/* SPDX-License-Identifier: MIT */
/*
 * mlx5's rules on a kernel device that Linux's mlx5_core runs: the card's
 * configuration is reached through mstflint's programs (mstflint.h), as
 * operators reach it, since mlx5_core has no port_type_set. The device is
 * one PCI function, named by its address ("pci/0000:03:00.1"; a bridged card
 * "dlhal/0000:03:00.1"); it has a devlink port only while the function runs
 * Ethernet. What is pending is the configuration's Next Boot value differing
 * from its Current one, read from the card on each recognition: it survives
 * restarts with no state file of dlhal's.
 *
 * A function that runs InfiniBand has no devlink port (mlx5 registers one
 * only for its Ethernet netdev): the rules show it from the card's
 * configuration, a port at the index Linux would give it, of type ib with
 * the function's ibdev, so that it can be switched back. When the kernel
 * announces the device again (a reset), the rules read the card again.
 *
 * Linux 6.7 on (6.12; not 6.1) registers a function's Ethernet port on an
 * instance of its own nested in the function's (auxiliary/mlx5_core.eth.N,
 * driver mlx5_core.eth, reporting nothing of the card): that instance is
 * recognised through the one it is nested in, and its port switched through
 * the function's PCI address. The function's instance then has no port, and
 * an InfiniBand port is shown there, as on 6.1.
 */
#include "mstflint.h"
#include "rules.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The PCI address a handle names ("pci/0000:03:00.1": "0000:03:00.1"), or NULL. */
static const char *bdf_parse(const char *handle)
{
	const char *slash = strchr(handle, '/');

	if (!slash || strlen(slash + 1) != 12 || slash[11] != '.' || slash[5] != ':' || slash[8] != ':')
		return NULL;
	return slash + 1;
}

/* The PCI function's instance: the device, or the one a nested instance (6.7 on) is nested in. */
static const struct dlh_dev *function_dev(const struct dlh_dev *dev)
{
	const struct dlh_dev *parent = bdf_parse(dlh_dev_handle(dev)) ? NULL : dlh_dev_nested_in(dev);

	return parent ? parent : dev;
}

/* The PCI address of a kernel device, or of the function it is nested in; NULL for neither. */
static const char *bdf_of(const struct dlh_dev *dev)
{
	return bdf_parse(dlh_dev_handle(function_dev(dev)));
}

/*
 * Where function @i's Ethernet port would come after a reset, on a kernel that nests it: the nested
 * instance it has now, else the name the function's auxiliary devices share (mlx5_core.rdma.7 and
 * mlx5_core.eth.7 carry one index), read in sysfs under a pci/ function; "" when not known.
 */
static void eth_home(struct mlx5_facts *f, unsigned int i, const struct dlh_dev *fd)
{
	char path[96], *dot;
	struct dirent *e;
	DIR *d = NULL;

	f->eth_at[i][0] = '\0';
	if (fd && dlh_dev_nested(fd, 0)) {
		snprintf(f->eth_at[i], sizeof(f->eth_at[i]), "%s", dlh_dev_nested(fd, 0));
		return;
	}
	if (strcmp(f->bus_name, "pci"))
		return;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s.%u", f->slot, i);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "mlx5_core.", 10) || !(dot = strrchr(e->d_name, '.')) || dot == e->d_name + 9 ||
		    !dot[1] || strspn(dot + 1, "0123456789") != strlen(dot + 1) || strlen(dot) > 10)
			continue;
		snprintf(f->eth_at[i], sizeof(f->eth_at[i]), "auxiliary/mlx5_core.eth%s", dot);
		break;
	}
	if (d)
		closedir(d);
}

/*
 * The card's layout, from its functions as the kernel reports them: whether Ethernet ports are on
 * nested instances (one is; or none has one of its own and the kernel is 6.7 or later), and where.
 */
static void layout_read(const struct dlh_dev *dev, struct mlx5_facts *f)
{
	struct dlh_ctx *ctx = dlh_sdk_dev_ctx(dev);
	const struct dlh_dev *fds[MLX5_MAX_PORTS] = {NULL};
	bool own = false, nested = function_dev(dev) != dev;

	for (unsigned int i = 0; i < f->nports; i++) {
		char h[DLH_HANDLE_MAX];

		snprintf(h, sizeof(h), "%s/%s.%u", f->bus_name, f->slot, i);
		fds[i] = dlh_dev_find(ctx, h);
		nested |= fds[i] && dlh_dev_nested(fds[i], 0);
		for (struct dlh_port *p = fds[i] ? dlh_port_first(fds[i]) : NULL; p; p = dlh_port_next(p))
			own |= dlh_port_type(p) == DLH_PORT_TYPE_ETH;
	}
	f->eth_nested = nested || (!own && dlh_sdk_linux_version(dlh_sdk_dev_linux(dev)) >= 0x060700);
	for (unsigned int i = 0; f->eth_nested && i < f->nports; i++)
		eth_home(f, i, fds[i]);
}

/* The PCI device id sysfs gives a pci/ function ("0x101b"), compared with the profile's; 0 when it fits. */
static int pci_id_check(const struct dlh_dev *dev, const char *bdf, const char *want, struct dlh_extack *ext)
{
	char path[96], got[16] = "";
	FILE *f;

	if (!want[0] || strncmp(dlh_dev_handle(dev), "pci/", 4))
		return 0; /* a bridged card has no PCI function in sysfs; a profile may name no id */
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/device", bdf);
	f = fopen(path, "r");
	if (!f)
		return dlh_sdk_extack(ext, -EINVAL, "no %s to read the PCI id from", path);
	if (!fgets(got, sizeof(got), f))
		got[0] = '\0';
	fclose(f);
	got[strcspn(got, "\n")] = '\0';
	if (strcasecmp(got, want))
		return dlh_sdk_extack(ext, -EINVAL, "PCI id %s, the profile's card is %s", got[0] ? got : "unreadable",
				      want);
	return 0;
}

/* The card's configuration into the facts; @fn's kernel port, if any, must be what it says runs. */
static int config_read(struct mlx5_facts *f, const char *bdf, const char *device_type, struct dlh_extack *ext)
{
	struct mlx5_nv nv;
	int err = mlx5_mst_query(bdf, &nv, ext);

	if (err)
		return err;
	/* the part, as mstflint names it: a profile of another card does not stand for this one */
	if (device_type && strcmp(nv.device_type, device_type))
		return dlh_sdk_extack(ext, -EINVAL, "the card is a %s, the profile's a %s",
				      nv.device_type[0] ? nv.device_type : "card mstconfig does not name", device_type);
	if (nv.nports != (f->vpi ? f->nports : 0))
		return dlh_sdk_extack(ext, -EINVAL, "the card's configuration has %u LINK_TYPE ports, the profile's %u",
				      nv.nports, f->vpi ? f->nports : 0);
	for (unsigned int i = 0; i < nv.nports; i++) {
		f->link_type[MLX5_NV_NEXT][i] = nv.link_type[MLX5_NV_NEXT][i];
		f->link_type[MLX5_NV_DEFAULT][i] = nv.has_default ? nv.link_type[MLX5_NV_DEFAULT][i] : 0;
		/* without a Current column (older firmware), what runs is what the kernel shows: a port, eth */
		f->link_type[MLX5_NV_CURRENT][i] = nv.has_current ? nv.link_type[MLX5_NV_CURRENT][i] : 0;
	}
	f->known = true;
	return 0;
}

/* The port's pending type (Next Boot differing from what runs) and its desired type (Next Boot). */
static void port_report(struct dlh_port *port, const struct mlx5_facts *f, unsigned int fn)
{
	enum mlx5_link_type next = (enum mlx5_link_type)f->link_type[MLX5_NV_NEXT][fn];
	struct dlh_pending p = {0};

	if (!port || !f->vpi)
		return;
	if (next != f->link_type[MLX5_NV_CURRENT][fn]) {
		p.type = mlx5_type_of(next);
		snprintf(p.message, sizeof(p.message), "%s", MLX5_TYPE_PENDING_MSG);
	}
	dlh_sdk_port_pending_set(port, &p);
	dlh_sdk_port_desired_type_set(port, mlx5_type_of(next));
}

/* The function's ibdev: sysfs names it under a pci/ function; a bridged card's is the profile's. */
static void ibdev_of(const struct dlh_dev *dev, const char *bdf, const struct mlx5_facts *f, unsigned int fn, char *buf,
		     size_t len)
{
	char path[96];
	struct dirent *e;
	DIR *d = NULL;

	snprintf(buf, len, "%s", f->ibdev[fn]);
	if (!strncmp(dlh_dev_handle(dev), "pci/", 4)) {
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/infiniband", bdf);
		d = opendir(path);
	}
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && strlen(e->d_name) < len && !strchr(e->d_name, '/')) {
			snprintf(buf, len, "%s", e->d_name);
			break;
		}
	if (d)
		closedir(d);
}

/* An InfiniBand function's port, which the kernel does not have: shown from the configuration. */
static int ib_port_add(struct dlh_dev *dev, const char *bdf, const struct mlx5_facts *f, unsigned int fn,
		       struct dlh_port **port, struct dlh_extack *ext)
{
	struct dlh_sdk_port_attrs attrs;
	char ibdev[DLH_IBDEV_NAME_MAX];
	int err;

	mlx5_port_attrs(f, fn, &attrs);
	err = dlh_sdk_port_register(dev, mlx5_port_index(fn), &attrs, port, ext);
	if (err)
		return err;
	ibdev_of(dev, bdf, f, fn, ibdev, sizeof(ibdev));
	return dlh_sdk_port_type_ib(*port, ibdev, ext);
}

int mlx5_kernel_attach(struct dlh_dev *dev, const char *config, struct dlh_extack *ext)
{
	struct mlx5_facts *f = dlh_sdk_dev_facts(dev);
	const struct dlh_dev *fdev = function_dev(dev);
	const char *bdf = bdf_of(dev);
	struct mlx5_emu_board board;
	struct mlx5_ident id;
	struct dlh_port *port = NULL;
	char card[DLH_CARD_NAME_MAX];
	unsigned int nports = 0, fn;
	bool eth;
	int err;

	if (!bdf)
		return dlh_sdk_extack(ext, -EINVAL, "device name is no PCI address (DDDD:BB:SS.F), nor nested in one");
	err = mlx5_hw_parse(config, &board, f, &id, ext);
	if (err)
		return err;
	fn = (unsigned int)(bdf[11] - '0');
	if (bdf[11] < '0' || bdf[11] > '7' || fn >= f->nports)
		return dlh_sdk_extack(ext, -EINVAL, "function %c is none of the card's %u", bdf[11], f->nports);
	snprintf(f->bus_name, sizeof(f->bus_name), "%.*s", (int)(bdf - 1 - dlh_dev_handle(fdev)), dlh_dev_handle(fdev));
	snprintf(f->slot, sizeof(f->slot), "%.10s", bdf);
	for (struct dlh_port *p = dlh_port_first(dev); p; p = dlh_port_next(p)) {
		if (dlh_port_flavour(p) != DLH_PORT_FLAVOUR_PHYSICAL)
			return dlh_sdk_extack(ext, -EINVAL, "port %u is no mlx5 uplink (physical)", dlh_port_index(p));
		/* an InfiniBand port is the one these rules showed before a reset told them to read again */
		if (dlh_port_type(p) != DLH_PORT_TYPE_IB)
			port = p;
		nports++;
	}
	if (nports > 1)
		return dlh_sdk_extack(ext, -EINVAL, "the kernel reports %u ports; a function has one", nports);
	if (fdev != dev && !port)
		return dlh_sdk_extack(ext, -EINVAL, "instance nested in %s has no Ethernet port", dlh_dev_handle(fdev));
	err = pci_id_check(fdev, bdf, f->pci_id, ext);
	if (err)
		return err;
	err = config_read(f, bdf, id.device_type, ext);
	if (err)
		return err;
	layout_read(dev, f);
	/* the function's Ethernet port: its own, or (6.7 on) on the instance nested in it */
	eth = port != NULL || (fdev == dev && dlh_dev_nested(dev, 0));
	if (f->vpi && f->link_type[MLX5_NV_CURRENT][fn] &&
	    (f->link_type[MLX5_NV_CURRENT][fn] == MLX5_LINK_TYPE_ETH) != eth)
		return dlh_sdk_extack(ext, -EINVAL, "the card runs port %u as %s, the kernel %s", fn + 1,
				      f->link_type[MLX5_NV_CURRENT][fn] == MLX5_LINK_TYPE_ETH ? "eth" : "ib",
				      port  ? "has its Ethernet port"
				      : eth ? "has an Ethernet instance nested in it"
					    : "has no port for it");
	if (f->vpi && !f->link_type[MLX5_NV_CURRENT][fn])
		f->link_type[MLX5_NV_CURRENT][fn] = eth ? MLX5_LINK_TYPE_ETH : MLX5_LINK_TYPE_IB;
	if (!eth && f->vpi) {
		port = dlh_port_find(dev, mlx5_port_index(fn));
		if (!port && (err = ib_port_add(dev, bdf, f, fn, &port, ext)))
			return err;
	} else if (!port && fdev == dev) {
		/* the InfiniBand port shown before the reset: the function now runs Ethernet on a nested instance */
		dlh_sdk_port_unregister(dlh_port_find(dev, mlx5_port_index(fn)));
	}
	port_report(port, f, fn);
	/* one card: its functions and their nested instances drawn together (dl panel), as an E810's PFs */
	snprintf(card, sizeof(card), "%s/%s.0", f->bus_name, f->slot);
	return dlh_sdk_dev_card_set(dev, card, ext);
}

/* As the driver's op (mlx5.c), through mstconfig: the configuration read, checked, written, read back. */
int mlx5_kernel_type_set(struct dlh_port *port, enum dlh_port_type type, struct dlh_extack *ext)
{
	struct dlh_dev *dev = dlh_port_dev(port);
	struct mlx5_facts *f = dlh_sdk_dev_facts(dev);
	const char *bdf = bdf_of(dev);
	unsigned int fn;
	uint8_t current;
	int err;

	if (!f || !bdf)
		return dlh_sdk_extack(ext, -ENODEV, "Device is not one of the card's functions");
	fn = (unsigned int)(bdf[11] - '0');
	current = f->link_type[MLX5_NV_CURRENT][fn];
	err = config_read(f, bdf, NULL, ext);
	if (!err)
		f->link_type[MLX5_NV_CURRENT][fn] = f->link_type[MLX5_NV_CURRENT][fn] ?: current;
	if (!err)
		err = mlx5_type_check(f, fn, type, ext);
	if (!err)
		err = mlx5_mst_set(bdf, fn, mlx5_link_of(type), ext);
	if (err)
		return err;
	f->link_type[MLX5_NV_NEXT][fn] = (uint8_t)mlx5_link_of(type);
	port_report(port, f, fn);
	if (f->link_type[MLX5_NV_CURRENT][fn] == f->link_type[MLX5_NV_NEXT][fn])
		return dlh_sdk_extack(ext, 0, "Pending type change cancelled: the port runs %s",
				      dlh_port_type_name(type));
	return dlh_sdk_extack(ext, 0, MLX5_TYPE_PENDING_MSG);
}
