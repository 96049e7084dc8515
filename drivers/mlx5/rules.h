/* SPDX-License-Identifier: MIT */
/*
 * ConnectX-4..7 VPI type rules, apart from the way the configuration is
 * reached (the emulated firmware, or mstflint's programs on a kernel
 * device): a port's type is its LINK_TYPE_Pn, written to the card's
 * configuration and loaded by the next firmware reset, which brings every
 * PCI function of the card down and up again. Each port is its own PCI
 * function and devlink instance, its port at Linux's index (the function's
 * vhca_id << 16 | MLX5_VPORT_UPLINK) with the function as its number.
 */
#ifndef DLHAL_MLX5_RULES_H
#define DLHAL_MLX5_RULES_H

#include "emu.h"

#include <dlhal/sdk.h>

#define MLX5_VPORT_UPLINK 0xffffu
/* mstconfig's word after a set (mlxcfg_ui.cpp): the change waits for a reset. */
#define MLX5_TYPE_PENDING_MSG "Please reboot machine to load new configurations"

/* What the rules rest on besides the ports (each function's dlh_sdk_dev_facts(): the card's, alike). */
struct mlx5_facts {
	unsigned int nports;
	bool vpi;			      /* LINK_TYPE_Pn exists: the type may change */
	bool known;			      /* the configuration below was read */
	uint8_t link_type[3][MLX5_MAX_PORTS]; /* default, current, next (enum mlx5_link_type) */
	uint32_t speed;			      /* Mb/s a port */
	char bus_name[32];
	char slot[64]; /* "0000:03:00": the card's functions are SLOT.0 and SLOT.1 */
	char netdev[MLX5_MAX_PORTS][DLH_NETDEV_NAME_MAX];
	char ibdev[MLX5_MAX_PORTS][DLH_IBDEV_NAME_MAX];
	char pci_id[8]; /* the profile's PCI device id ("0x101b"), checked on a pci/ kernel device; "" none */
	/*
	 * Where function i's Ethernet port is registered, or would be after a reset, when that is not
	 * the function's own instance: Linux 6.7 on (6.12; not 6.1) registers it on an instance nested
	 * in the function's, "auxiliary/mlx5_core.eth.N". eth_nested: the kernel does so; eth_at[i] ""
	 * then: not known (its plans are partial).
	 */
	bool eth_nested;
	char eth_at[MLX5_MAX_PORTS][DLH_HANDLE_MAX];
};

/* What the card says of itself: devlink's info and mstconfig's query heading. */
struct mlx5_ident {
	char device_type[24]; /* mstflint's name of the part: "ConnectX6" */
	char psid[24];	      /* the board's PSID (fw.psid) */
	char fw[24];	      /* running firmware, "20.35.1012" */
	char name[48];	      /* the part number (mstconfig's Name) */
	char description[160];
};

extern const struct dlh_sdk_rules mlx5_rules;

/* kernel.c: on a kernel device that Linux's mlx5_core runs, the card reached through mstflint. */
int mlx5_kernel_attach(struct dlh_dev *dev, const char *config, struct dlh_extack *ext);
int mlx5_kernel_type_set(struct dlh_port *port, enum dlh_port_type type, struct dlh_extack *ext);

/* Port index and attributes of function @fn's port, as Linux's mlx5e_devlink_port_register() gives them. */
uint32_t mlx5_port_index(unsigned int fn);
void mlx5_port_attrs(const struct mlx5_facts *f, unsigned int fn, struct dlh_sdk_port_attrs *attrs);
/*
 * The function a device is ("pci/0000:03:00.1": 1; the instance nested in it that holds its Ethernet
 * port, too); -1 for a handle that is none of the card's.
 */
int mlx5_function_of(const struct mlx5_facts *f, const char *handle);
/* eth/ib and back; MLX5_LINK_TYPE_NONE for auto or notset. */
enum mlx5_link_type mlx5_link_of(enum dlh_port_type type);
enum dlh_port_type mlx5_type_of(enum mlx5_link_type link);
/* Refuses what the card cannot store; 0 when setting function @fn's port to @type may go ahead. */
int mlx5_type_check(const struct mlx5_facts *f, unsigned int fn, enum dlh_port_type type, struct dlh_extack *ext);
/*
 * The profile's "hw" into the board the emulator starts as and the facts: {"device_type": "ConnectX6",
 * "psid": ..., "fw": "20.35.1012", "reset_levels": [0, 3], "speed": 200, "vpi": true, "ports": [{"netdev":
 * "ens1f0np0", "ibdev": "mlx5_0", "link_type": {"default": "eth", "current": "eth", "next": "eth"}}, ...],
 * "state": {"current": [...], "next": [...]}}.
 */
int mlx5_hw_parse(const char *config, struct mlx5_emu_board *board, struct mlx5_facts *f, struct mlx5_ident *id,
		  struct dlh_extack *ext);

#endif
