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

/** Commands beyond devlink's. */
enum dlhal_cmd {
	DLHAL_CMD_SUBSCRIBE = 0xf0, /**< Receive device and port notifications on this connection. */
	DLHAL_CMD_SIM_SET,	    /**< Emulator control: bus, dev, [port index], key, value. Root or group. */
	DLHAL_CMD_SIM_GET,	    /**< Emulator read-back: bus, dev, [port index], key; reply has the value. */
};

/** Attributes beyond devlink's (found with nla_find(), never in a devlink attribute table). */
enum dlhal_attr {
	DLHAL_ATTR_SIM_KEY = 0x3f00, /**< string */
	DLHAL_ATTR_SIM_VALUE,	     /**< string */
	DLHAL_ATTR_PENDING_SPLIT,    /**< u32, on a device or port message: the split stored for the next reset */
	DLHAL_ATTR_PENDING_TYPE,     /**< u16: the port type stored for the next reset */
	DLHAL_ATTR_PENDING_MSG,	     /**< string: the driver's word for what is pending */
};

/** The emulator control (DLHAL_CMD_SIM_SET key) that power-cycles an emulated card: dlh_dev_sim_reset(). */
#define DLHAL_SIM_RESET "reset"

#endif
