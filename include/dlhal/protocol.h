/* SPDX-License-Identifier: MIT */
/**
 * @file protocol.h
 * @brief The dlhald protocol: devlink's generic-netlink messages over a UNIX socket.
 *
 * Clients connect a SOCK_SEQPACKET socket to the daemon and exchange records,
 * each holding one or more netlink messages: nlmsghdr, genlmsghdr and
 * DEVLINK_ATTR_* attributes exactly as the kernel's devlink family uses them
 * (see docs/protocol.md and docs/daemon.md). Every message's nlmsg_type is
 * ::DLHAL_FAMILY. Dumps end with NLMSG_DONE; errors are NLMSG_ERROR with the
 * errno and an NLMSGERR_ATTR_MSG message. The commands below extend devlink's.
 */
#ifndef DLHAL_PROTOCOL_H
#define DLHAL_PROTOCOL_H

/** Where dlhald listens unless told otherwise (dlhald -s, dl -s). */
#define DLHAL_SOCKET_DEFAULT "/run/dlhal/dlhald.sock"

/** nlmsg_type of every request, reply and notification (the "family id"). */
#define DLHAL_FAMILY 0x1d1

/** Largest record either side sends. */
#define DLHAL_RECORD_MAX 65536

/** Longest emulator key and value (DLHAL_ATTR_SIM_KEY, DLHAL_ATTR_SIM_VALUE), NUL included: both sides refuse longer.
 */
#define DLHAL_SIM_KEY_MAX   64
#define DLHAL_SIM_VALUE_MAX 1024

/** Commands beyond devlink's. */
enum dlhal_cmd {
	DLHAL_CMD_SUBSCRIBE = 0xf0, /**< Receive device and port notifications on this connection. */
	DLHAL_CMD_SIM_SET,	    /**< Emulator control: bus, dev, [port index], key, value. Root or group. */
	DLHAL_CMD_SIM_GET,	    /**< Emulator read-back: bus, dev, [port index], key; reply has the value. */
	DLHAL_CMD_PLAN,		    /**< The reply to a dry run (DLHAL_ATTR_DRY_RUN): what the change would do. */
};

/** Attributes beyond devlink's (found with nla_find(), never in a devlink attribute table). */
enum dlhal_attr {
	DLHAL_ATTR_SIM_KEY = 0x3f00, /**< string */
	DLHAL_ATTR_SIM_VALUE,	     /**< string */
	DLHAL_ATTR_PENDING_SPLIT,    /**< u32, on a device or port message: the split stored for the next reset */
	DLHAL_ATTR_PENDING_TYPE,     /**< u16: the port type stored for the next reset */
	DLHAL_ATTR_PENDING_MSG,	     /**< string: the driver's word for what is pending */
	/** flag, on PORT_SET, PORT_SPLIT or PORT_UNSPLIT: plan the change, do nothing; the reply is DLHAL_CMD_PLAN */
	DLHAL_ATTR_DRY_RUN,
	/**
	 * binary, with DLHAL_ATTR_DRY_RUN: the changes to plan first on the same device, each four
	 * u32 in host order {enum dlh_change, port index, split count, port type}; at most
	 * DLHAL_PLAN_BEFORE_MAX. The port named by the request is the port as they leave it.
	 */
	DLHAL_ATTR_PLAN_BEFORE,
	DLHAL_ATTR_PLAN_PARTIAL, /**< u8 1, in DLHAL_CMD_PLAN: the daemon cannot say (it relays the kernel) */
	DLHAL_ATTR_PLAN_STAGED,	 /**< u8 1: the change would be stored for the next reset */
	DLHAL_ATTR_PLAN_GONE,	 /**< u32, one per port: the index of a port that would go */
	/** nested, one per port: a port that would come, in a port message's attributes */
	DLHAL_ATTR_PLAN_NEW,
	/** nested, one per port: a port after the reset (staged), with its bus and device names */
	DLHAL_ATTR_PLAN_AFTER,
	/** nested, repeated, on a device message: a firmware option (dlh_dev_fw_options()) */
	DLHAL_ATTR_FW_OPTION,
	DLHAL_ATTR_FW_OPTION_SPLIT,   /**< u32, in DLHAL_ATTR_FW_OPTION: the ports (PFs) it gives */
	DLHAL_ATTR_FW_OPTION_SPEED,   /**< binary, up to 8 u32 in host order: each lane's maximum speed, Mb/s */
	DLHAL_ATTR_FW_OPTION_ACTIVE,  /**< u8 1: the option the hardware runs */
	DLHAL_ATTR_FW_OPTION_PENDING, /**< u8 1: the option it runs after its next reset */
	/** nested, repeated, on a device message: a cage of its faceplate (dlh_dev_cages()) */
	DLHAL_ATTR_CAGE,
	DLHAL_ATTR_CAGE_NUMBER, /**< u32, in DLHAL_ATTR_CAGE: its front-panel number */
	DLHAL_ATTR_CAGE_ROW,	/**< u32: its row */
	DLHAL_ATTR_CAGE_COL,	/**< u32: its column */
	DLHAL_ATTR_CAGE_FORM,	/**< string: its form factor */
	DLHAL_ATTR_CAGE_LABEL,	/**< string: its label */
	DLHAL_ATTR_CAGE_MODULE, /**< u32, optional: the module its ports report (a cage found by module) */
	DLHAL_ATTR_CARD,	/**< string, on a device message: the card it is one device of (dlh_dev_card()) */
	DLHAL_ATTR_PORT_MODULE, /**< u32, on a port message: the module (cage) the port is on */
	DLHAL_ATTR_PORT_LANE,	/**< u32, with DLHAL_ATTR_PORT_MODULE: its first lane there */
	DLHAL_ATTR_PORT_SPEED,	/**< u32, on a port message: its maximum speed, Mb/s */
	/** string, with DLHAL_ATTR_PLAN_PARTIAL: why the daemon's rules cannot say (what the kernel does not report) */
	DLHAL_ATTR_PLAN_WHY,
	/**
	 * u32, on a port message: the split counts the daemon's driver takes (bit N: into N), when fewer
	 * than the port's lanes allow (a driver's split_counts); absent: every power of two up to its lanes
	 */
	DLHAL_ATTR_PORT_SPLIT_COUNTS,
	DLHAL_ATTR_END_ /**< one past the last: a new attribute goes before it */
};

/** Changes one dry run may plan before its own (DLHAL_ATTR_PLAN_BEFORE). */
#define DLHAL_PLAN_BEFORE_MAX 256

/** The emulator control (DLHAL_CMD_SIM_SET key) that power-cycles an emulated card: dlh_dev_sim_reset(). */
#define DLHAL_SIM_RESET "reset"

#endif
