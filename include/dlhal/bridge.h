/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/**
 * @file bridge.h
 * @brief Messages of /dev/dlhal, the kernel module that puts userspace
 *        drivers' devices into the kernel's devlink family (kernel/bridge/).
 *
 * One write() is one message, exactly the size of its structure, whose
 * first field says which; the write returns that size or a negative errno
 * (-EINVAL for a malformed message, naming nothing: the fields are checked
 * in the order listed and docs/protocol.md says what each refusal means).
 * Instances appear in devlink as "dlhal/NAME"; they, their ports and their
 * netdevs go when the file is closed. Opening needs CAP_NET_ADMIN.
 */
#ifndef DLHAL_BRIDGE_H
#define DLHAL_BRIDGE_H

#include <linux/types.h>

#define DLHAL_BRIDGE_PATH	 "/dev/dlhal" /**< The module's character device. */
#define DLHAL_BRIDGE_NAME_MAX	 64	      /**< Instance name field, NUL included. */
#define DLHAL_BRIDGE_IFNAME_MAX	 16	      /**< Netdev name field (IFNAMSIZ), NUL included. */
#define DLHAL_BRIDGE_DEVS_MAX	 16	      /**< Instances per open file. */
#define DLHAL_BRIDGE_PORTS_MAX	 1024	      /**< Ports per instance. */
#define DLHAL_BRIDGE_LANES_MAX	 16	      /**< Largest lane count a port may report. */
#define DLHAL_BRIDGE_CHANGES_MAX 64	      /**< Port changes one reply may carry. */
#define DLHAL_BRIDGE_MSG_MAX	 128	      /**< Reply message field, NUL included. */
#define DLHAL_BRIDGE_DRIVER_MAX	 32	      /**< Driver name field, NUL included. */
#define DLHAL_BRIDGE_SERIAL_MAX	 64	      /**< Serial number fields, NUL included. */
#define DLHAL_BRIDGE_VNAME_MAX	 32	      /**< Info version name field, NUL included. */
#define DLHAL_BRIDGE_VVALUE_MAX	 64	      /**< Info version value field, NUL included. */
#define DLHAL_BRIDGE_VERSIONS_MAX 32	      /**< Info versions per instance (ice reports 17). */
/** How long an op waits for its reply by default (module parameter op_timeout_ms). */
#define DLHAL_BRIDGE_TIMEOUT_MS	 5000

/** @brief Message types (the first __u32 of every message). */
enum dlhal_bridge_msg_type {
	/**
	 * struct dlhal_bridge_dev: create instance dlhal/NAME, not yet seen by
	 * devlink's users: add its ports, then DLHAL_BRIDGE_DEV_PUBLISH.
	 */
	DLHAL_BRIDGE_DEV_ADD = 1,
	/**
	 * struct dlhal_bridge_dev: remove it, its ports and netdevs; its ops
	 * that wait for this process fail at once.
	 */
	DLHAL_BRIDGE_DEV_DEL = 2,
	/** struct dlhal_bridge_port: register a port (and its netdev). */
	DLHAL_BRIDGE_PORT_ADD = 3,
	/** struct dlhal_bridge_port: unregister it (only dev and index are read). */
	DLHAL_BRIDGE_PORT_DEL = 4,
	/**
	 * struct dlhal_bridge_reply, then @c nchanges struct dlhal_bridge_port
	 * (adds and dels of the request's instance, applied in order within the
	 * op, so that the kernel's own notifications report them).
	 */
	DLHAL_BRIDGE_REPLY = 5,
	/**
	 * struct dlhal_bridge_dev: devlink_register() the instance with the
	 * ports it has: devlink's users see it whole (-EALREADY the second time).
	 */
	DLHAL_BRIDGE_DEV_PUBLISH = 6,
	/**
	 * struct dlhal_bridge_info: what the instance reports of itself, before
	 * it is published (-EALREADY after): the Linux driver it stands for (the
	 * bus device is bound to a driver of that name, so that sysfs and, from
	 * Linux 6.2 on, devlink's core name it; up to 6.1 the module puts the
	 * name in `devlink dev info` itself), its serial numbers and info
	 * versions. Sent again, it replaces what was sent.
	 */
	DLHAL_BRIDGE_DEV_INFO = 7,
	/**
	 * struct dlhal_bridge_info with only @c dev and @c driver set: the
	 * instance stands for a Linux driver that reports no info of its own
	 * (no info_get, as mlx4_core): bound to a driver of that name, it
	 * answers `devlink dev info` with -EOPNOTSUPP up to Linux 6.1 and with
	 * the core's driver name from 6.2 on. Before DEV_PUBLISH; replaces a
	 * DEV_INFO sent before it.
	 */
	DLHAL_BRIDGE_DEV_BIND = 8,
	/**
	 * struct dlhal_bridge_nest: instance @c dev is nested in instance
	 * @c parent (DEVLINK_ATTR_NESTED_DEVLINK), as Linux 6.12's mlx5_core
	 * nests a function's Ethernet instance in the function's. Before @c dev
	 * is published, once (-EALREADY after); -EOPNOTSUPP on a kernel without
	 * nested instances (before 6.7); -EBUSY while an op of @c parent waits
	 * for this process.
	 */
	DLHAL_BRIDGE_DEV_NEST = 9,
	/** Read: struct dlhal_bridge_req, split port @c index into @c arg ports. */
	DLHAL_BRIDGE_REQ_SPLIT = 16,
	/** Read: struct dlhal_bridge_req, unsplit port @c index. */
	DLHAL_BRIDGE_REQ_UNSPLIT = 17,
	/** Read: struct dlhal_bridge_req, set port @c index to type @c arg. */
	DLHAL_BRIDGE_REQ_TYPE_SET = 18,
	/**
	 * Read: struct dlhal_bridge_req: the kernel could not apply the changes
	 * of the reply to request @c seq (@c arg: its errno, positive) and
	 * undid them; the process undoes the operation in its own model.
	 */
	DLHAL_BRIDGE_REQ_UNDO = 19,
	/**
	 * Read: struct dlhal_bridge_req, devlink reload of the instance: @c arg
	 * holds the action (enum devlink_reload_action) in its low byte and the
	 * limit (enum devlink_reload_limit) in the next. The reply carries no
	 * port change (the instances and ports that go and come follow as
	 * messages once it is answered) and the actions done in @c performed,
	 * which must hold the action asked for.
	 */
	DLHAL_BRIDGE_REQ_RELOAD = 20,
};

/** @brief Port types, as devlink numbers them. */
enum dlhal_bridge_port_type {
	DLHAL_BRIDGE_PORT_NOTSET = 0,
	DLHAL_BRIDGE_PORT_ETH = 2, /**< With a netdev named @c netdev. */
	DLHAL_BRIDGE_PORT_IB = 3,  /**< No ibdev: that needs a real RDMA device. */
};

/** @brief DLHAL_BRIDGE_DEV_ADD, DLHAL_BRIDGE_DEV_DEL, DLHAL_BRIDGE_DEV_PUBLISH. */
struct dlhal_bridge_dev {
	__u32 type;	/**< The message type. */
	__u32 reserved; /**< Zero. */
	/** ASCII [A-Za-z0-9:._-], 1 to 63 bytes, not "." or "..", NUL-terminated. */
	char name[DLHAL_BRIDGE_NAME_MAX];
};

/** @brief DLHAL_BRIDGE_DEV_NEST. */
struct dlhal_bridge_nest {
	__u32 type;			    /**< DLHAL_BRIDGE_DEV_NEST. */
	__u32 reserved;			    /**< Zero. */
	char dev[DLHAL_BRIDGE_NAME_MAX];    /**< The nested instance's name. */
	char parent[DLHAL_BRIDGE_NAME_MAX]; /**< The name of the instance it is nested in. */
};

/** @brief DLHAL_BRIDGE_PORT_ADD, DLHAL_BRIDGE_PORT_DEL. */
struct dlhal_bridge_port {
	__u32 type;	/**< The message type. */
	__u32 index;			 /**< Port index, unique in the instance. */
	char dev[DLHAL_BRIDGE_NAME_MAX]; /**< Instance name. */
	/**
	 * Front-panel port number (the kernel's split group when split). With
	 * @c subport, it must make a phys_port_name ("pN", split "pNsM") that
	 * fits IFNAMSIZ.
	 */
	__u32 number;
	__u32 subport;	 /**< Split subport number, if split. */
	__u32 lanes;	 /**< 0 (unknown) to DLHAL_BRIDGE_LANES_MAX. */
	__u8 port_type;	 /**< enum dlhal_bridge_port_type. */
	__u8 split;	 /**< 0 or 1. */
	__u8 splittable; /**< 0 or 1; 1 needs lanes >= 2 and split 0. */
	__u8 reserved;	 /**< Zero. */
	/** For eth: a name by the kernel's rules, no pattern; else empty. */
	char netdev[DLHAL_BRIDGE_IFNAME_MAX];
};

/** @brief Kinds of info versions, as `devlink dev info` groups them. */
enum dlhal_bridge_version_kind {
	DLHAL_BRIDGE_VERSION_FIXED = 0,
	DLHAL_BRIDGE_VERSION_RUNNING = 1,
	DLHAL_BRIDGE_VERSION_STORED = 2,
};

/** @brief One info version ("fw.psid" fixed "MT_2860111033"). */
struct dlhal_bridge_version {
	__u32 kind; /**< enum dlhal_bridge_version_kind. */
	/** Printable, no blank, 1 to 31 bytes, NUL-terminated. */
	char name[DLHAL_BRIDGE_VNAME_MAX];
	/** Printable, 1 to 63 bytes, NUL-terminated. */
	char value[DLHAL_BRIDGE_VVALUE_MAX];
};

/** @brief DLHAL_BRIDGE_DEV_INFO. Text fields are NUL-terminated; empty ones say nothing. */
struct dlhal_bridge_info {
	__u32 type;				/**< DLHAL_BRIDGE_DEV_INFO. */
	__u32 nversions;			/**< Up to DLHAL_BRIDGE_VERSIONS_MAX. */
	char dev[DLHAL_BRIDGE_NAME_MAX];	/**< Instance name. */
	/**
	 * [a-z0-9._-], as Linux's driver names ("mlxsw_spectrum", an auxiliary
	 * driver's "mlx5_core.eth"); empty: bound to none.
	 */
	char driver[DLHAL_BRIDGE_DRIVER_MAX];
	char serial[DLHAL_BRIDGE_SERIAL_MAX];	    /**< Serial number, printable. */
	char board_serial[DLHAL_BRIDGE_SERIAL_MAX]; /**< Board serial number, printable. */
	/** The first @c nversions are set. */
	struct dlhal_bridge_version versions[DLHAL_BRIDGE_VERSIONS_MAX];
};

/** @brief What read() returns: an operation the process is to run and answer. */
struct dlhal_bridge_req {
	__u32 type;			 /**< DLHAL_BRIDGE_REQ_*. */
	__u32 seq;			 /**< Echoed in the reply. */
	char dev[DLHAL_BRIDGE_NAME_MAX]; /**< Instance name. */
	__u32 index;			 /**< Port index. */
	__u32 arg;			 /**< Split count, port type, or errno (UNDO). */
};

/** @brief DLHAL_BRIDGE_REPLY: the answer to request @c seq. */
struct dlhal_bridge_reply {
	__u32 type; /**< DLHAL_BRIDGE_REPLY. */
	__u32 seq;  /**< The request's. */
	/**
	 * 0, or a negative errno from -1 to -EHWPOISON but -EINTR (netlink sends
	 * no answer for it); then @c nchanges is 0.
	 */
	__s32 err;
	__u32 nchanges; /**< Up to DLHAL_BRIDGE_CHANGES_MAX. */
	/**
	 * The message for the kernel's caller (extack), NUL-terminated; may be
	 * empty. With a success, a warning (a change stored for the next reset).
	 */
	char msg[DLHAL_BRIDGE_MSG_MAX];
	/** DLHAL_BRIDGE_REQ_RELOAD: the actions performed (1 << action); else 0. */
	__u32 performed;
};

#endif /* DLHAL_BRIDGE_H */
