/* SPDX-License-Identifier: MIT */
/**
 * @file sdk.h
 * @brief dlhal driver SDK: what a vendor driver implements and the calls it makes into core.
 *
 * A driver is a ::dlh_sdk_driver: an identity, the size of its private
 * storage per device and per port, and an ops table. Core checks its input
 * before calling an op (the port exists; the type is eth/ib/auto; a split
 * count is at least 2 and, as Linux 6.1's devlink core requires, the port is
 * splittable and the count a power of 2 up to its lanes) and an op that is
 * NULL means -EOPNOTSUPP. Ops return 0 or a negative errno and, on failure,
 * put a short reason in the extack ("Port cannot be split further": no
 * period). A failed op must leave the hardware and the ports as they were;
 * core holds back its events until it succeeds and, if it fails, puts the
 * device's ports back and logs a driver bug if they had changed. One op runs
 * at a time: an op calling an operation of dlhal.h gets -EBUSY.
 * docs/driver-guide.md is the walk-through; dlhal-conform(1) the check.
 *
 * A driver builds either as a shared module (DLH_SDK_MODULE() in one of its
 * files, loaded with dlh_ctx_module_load()) or linked into a program and
 * registered with dlh_sdk_driver_register().
 */
#ifndef DLHAL_SDK_H
#define DLHAL_SDK_H

#include <dlhal/dlhal.h>
#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * ABI version of this header. A module built against another version is
 * refused. Bumped whenever a structure below changes incompatibly; adding an
 * op at the end of ::dlh_sdk_ops does not bump it (see ::dlh_sdk_driver.ops_size).
 * 4: ::dlh_sdk_driver.rules (a vendor's rules, also over kernel devices).
 * 5: ::dlh_sdk_rules.kernel_answered (rules learn from the kernel's answers).
 * 6: ::dlh_sdk_rules.learnt_save and learnt_restore (what they learnt, kept).
 * 7: ::dlh_sdk_port_info.pending (a streamed port's pending type); ::dlh_sdk_rules.port_type_set
 *    and staged (rules that make a kernel device's change another way than its Linux driver).
 */
#define DLH_SDK_ABI_VERSION 7u

struct dlh_sdk_timer;
struct dlh_sdk_plan;
struct dlh_sdk_bus;
struct dlh_sdk_io;
struct dlh_sdk_port_info;
struct dlh_sdk_info;
struct dlh_sdk_rules;

/** @brief Driver operations. Any op may be NULL. */
struct dlh_sdk_ops {
	/**
	 * Bring up the device: read the hardware, register ports. @p config is
	 * the JSON text of the profile's "hw" object (NULL for none). On
	 * failure, unregister what was registered.
	 */
	int (*probe)(struct dlh_dev *dev, const char *config, struct dlh_extack *ext);
	/** Tear the device down; ports still registered are removed by core afterwards. */
	void (*remove)(struct dlh_dev *dev);
	/** Change the port's type to eth, ib or auto; report the outcome with dlh_sdk_port_type_eth() and friends. */
	int (*port_type_set)(struct dlh_port *port, enum dlh_port_type type, struct dlh_extack *ext);
	/** Split the port into @p count (>= 2) ports. */
	int (*port_split)(struct dlh_port *port, unsigned int count, struct dlh_extack *ext);
	/** Undo the split the port is part of. */
	int (*port_unsplit)(struct dlh_port *port, struct dlh_extack *ext);
	/** Emulator control, see dlh_dev_sim_set(). @p port may be NULL. */
	int (*sim_set)(struct dlh_dev *dev, struct dlh_port *port, const char *key, const char *value,
		       struct dlh_extack *ext);
	/** Emulator read-back, see dlh_dev_sim_get(). */
	int (*sim_get)(struct dlh_dev *dev, struct dlh_port *port, const char *key, char *buf, size_t len,
		       struct dlh_extack *ext);
	/**
	 * For a driver that finds its devices itself (the kernel backend) rather
	 * than being given a profile: attach to the context, add the devices found
	 * with dlh_sdk_bus_dev_add(). Such devices get no probe call.
	 */
	int (*bus_attach)(struct dlh_sdk_bus *bus, struct dlh_extack *ext);
	/** Detach; called after every device of the bus was removed. */
	void (*bus_detach)(struct dlh_sdk_bus *bus);
	/**
	 * Fill the model on first use: @p what is DLH_SDK_FILL_DEVS and/or
	 * DLH_SDK_FILL_PORTS, as declared pending with dlh_sdk_bus_fill_pending().
	 * Lets a mirror (the kernel backend) skip dumps a caller never needs.
	 * -EBUSY: the bus cannot read now (it is applying another answer, whose
	 * events asked); the parts stay pending for the next lookup. Any other
	 * error is logged and the model holds what was read.
	 */
	int (*bus_fill)(struct dlh_sdk_bus *bus, unsigned int what, struct dlh_extack *ext);
	/**
	 * Say what port_split would do, touching no hardware: refuse as the op
	 * would (same errno, same message), or name the ports that would go
	 * (dlh_sdk_plan_gone()) and come (dlh_sdk_plan_come()). Decide both in
	 * one function, so that the plan cannot drift from the act.
	 */
	int (*port_split_plan)(struct dlh_port *port, unsigned int count, struct dlh_sdk_plan *plan,
			       struct dlh_extack *ext);
	/** As port_split_plan, for port_unsplit. */
	int (*port_unsplit_plan)(struct dlh_port *port, struct dlh_sdk_plan *plan, struct dlh_extack *ext);
	/**
	 * As port_split_plan, for port_type_set: the ports whose type or names
	 * would change, each planned gone and coming back (attrs NULL).
	 */
	int (*port_type_set_plan)(struct dlh_port *port, enum dlh_port_type type, struct dlh_sdk_plan *plan,
				  struct dlh_extack *ext);
	/**
	 * For a lazy mirror (bus_fill) that can find one port by netdev name for
	 * less than every port: register that port and its device as bus_fill
	 * would, or nothing when the bus has no such netdev, and return 0. The
	 * bus's ports stay pending: a later listing still calls bus_fill, and
	 * core then puts what this registered in the order the fill reports.
	 * -EOPNOTSUPP (or any error, which is logged): core calls bus_fill.
	 * Used by dlh_port_lookup() and dlh_port_find_netdev() while the bus's
	 * ports are not filled yet.
	 */
	int (*bus_fill_netdev)(struct dlh_sdk_bus *bus, const char *netdev, struct dlh_extack *ext);
	/**
	 * For a lazy mirror: report every port to @p fn, in the order bus_fill
	 * would register them, registering nothing (dlh_port_walk() while the
	 * bus's ports are not filled). Core checks each report as it checks a
	 * registration and skips what it refuses. Stop when @p fn returns
	 * non-zero; return 0, or an error with @p ext.
	 */
	int (*bus_ports_walk)(struct dlh_sdk_bus *bus, int (*fn)(const struct dlh_sdk_port_info *info, void *arg),
			      void *arg, struct dlh_extack *ext);
	/**
	 * Reload the device (Linux's reload_down and reload_up in one call):
	 * core has checked that @p action is in @c reload_actions and @p limit
	 * in @c reload_limits. Re-read the hardware: for a bus driver, remove
	 * and add the devices that went and came (the device given may be one
	 * of them), and set what is pending again (usually nothing). Set
	 * @p performed to the actions done (`1 << action`; at least @p action).
	 */
	int (*dev_reload)(struct dlh_dev *dev, enum dlh_reload_action action, enum dlh_reload_limit limit,
			  uint32_t *performed, struct dlh_extack *ext);
	/** Actions dev_reload takes, a mask of `1 << action`; 0 with dev_reload NULL. */
	uint32_t reload_actions;
	/** Limits other than unspec dev_reload takes, a mask of `1 << limit`. */
	uint32_t reload_limits;
	/**
	 * The ops whose changes wait for a reset (DLH_SDK_STAGED_SPLIT: port_split
	 * and port_unsplit; DLH_SDK_STAGED_TYPE: port_type_set). Such an op stores
	 * the change in the hardware, registers and unregisters no port, reports
	 * what is pending with dlh_sdk_dev_pending_set() or
	 * dlh_sdk_port_pending_set(), and returns 0 with its message in the
	 * extack ("Reboot required to finish port split"), which core passes on
	 * with the success. A staged op that changes ports, or that sets nothing
	 * pending, is a driver bug (-EIO).
	 */
	uint32_t staged;
	/** DLH_SDK_F_* flags. */
	uint32_t flags;
	/** Emulated power cycle (dlh_dev_sim_reset()): as dev_reload with fw_activate, for the emulator. */
	int (*sim_reset)(struct dlh_dev *dev, struct dlh_extack *ext);
	/** The firmware options (dlh_dev_fw_options()): fill up to @p max, set @p n to how many there are. */
	int (*dev_fw_options)(struct dlh_dev *dev, struct dlh_fw_option *opts, size_t max, size_t *n,
			      struct dlh_extack *ext);
	/**
	 * For a relay that learns the driver on the other side only by asking
	 * (the kernel: DEVLINK_CMD_INFO_GET): its name into @p buf (@p len
	 * bytes, NUL-terminated). Core asks once, when dlh_dev_driver() is first
	 * wanted outside a fill or an op; an error leaves the relay's own name,
	 * but -EBUSY (the relay cannot ask now) has it asked again next time.
	 */
	int (*dev_driver_get)(struct dlh_dev *dev, char *buf, size_t len, struct dlh_extack *ext);
	/**
	 * For a lazy mirror (bus_fill) that can read one device's ports for less
	 * than every port (the kernel from 6.6 on: a port dump of one device):
	 * register the ports of device @p handle ("bus/name") as bus_fill would,
	 * and return 0. The bus's ports stay pending for a listing of every
	 * port. -EOPNOTSUPP (or any error, which is logged): core calls
	 * bus_fill; -EBUSY (as bus_fill's): neither, the ports are read later.
	 * Used when one device's ports are wanted (dlh_port_first(),
	 * dlh_port_find(), a lookup by handle, an op or a plan on the device).
	 */
	int (*bus_fill_dev)(struct dlh_sdk_bus *bus, const char *handle, struct dlh_extack *ext);
	/**
	 * What the device reports of itself (dlh_dev_info_get(), `devlink dev
	 * info`): put the driver's name, serial numbers and versions with
	 * dlh_sdk_info_driver_put() and friends, as a Linux driver's info_get
	 * does. A driver name left unput is the device's (dlh_dev_driver()).
	 */
	int (*dev_info_get)(struct dlh_dev *dev, struct dlh_sdk_info *info, struct dlh_extack *ext);
	/**
	 * For a relay whose other side refuses some callers' changes (the
	 * kernel: CAP_NET_ADMIN): 0 if this process may change @p dev, else the
	 * error a change would get (-EPERM) with a message. Core asks before
	 * every plan, so that a dry run promises nothing the change would be
	 * refused. NULL: whoever may plan may change.
	 */
	int (*dev_change_allowed)(struct dlh_dev *dev, struct dlh_extack *ext);
};

#define DLH_SDK_STAGED_SPLIT 1u /**< port_split and port_unsplit are staged (::dlh_sdk_ops.staged). */
#define DLH_SDK_STAGED_TYPE  2u /**< port_type_set is staged. */

/**
 * A bus driver that owns its hardware (an emulated card of several devices)
 * rather than relaying another core's (the kernel, a dlhald): its ops get
 * core's checks and all-or-nothing ports, as a profile's driver's do.
 */
#define DLH_SDK_F_BUS_LOCAL 1u

/**
 * A driver whose plan ops read the device only through the plan
 * (dlh_sdk_plan_port()), the port they are given and the device's fixed
 * facts (its lane map as probed, its capabilities), never from what its ops
 * last did. Core can then plan a change after others on the same device
 * (struct dlh_seq: a desired-state file planned whole), giving the plan op
 * the ports as those changes leave them. Without this flag such a plan is
 * partial.
 */
#define DLH_SDK_F_PLAN_VIEW 2u

/**
 * A port as a streaming bus reports it (::dlh_sdk_ops.bus_ports_walk). The
 * driver owns every pointer in it; they need to stay valid only during the
 * call it is passed to (core copies what it keeps).
 */
struct dlh_sdk_port_info {
	const char *dev;			/**< Its device's handle, "bus/name". */
	uint32_t index;				/**< Port index. */
	const struct dlh_sdk_port_attrs *attrs; /**< Attributes. */
	enum dlh_port_type type;		/**< Type. */
	enum dlh_port_type desired_type;	/**< Desired type, @c DLH_PORT_TYPE_NOTSET for none. */
	const char *netdev;			/**< Netdev name, or NULL. */
	const char *ibdev;			/**< IB device name, or NULL. */
	/** What the port has pending until a reset (a type a card stores for it); NULL or all zero: none. */
	const struct dlh_pending *pending;
};

#define DLH_SDK_FILL_DEVS  1u /**< Every device, including those without ports. */
#define DLH_SDK_FILL_PORTS 2u /**< Every port (and the devices that have ports). */

/** @brief A driver's identity. Define one as `static const` (or `const` for linking in). */
struct dlh_sdk_driver {
	uint32_t abi_version;	       /**< Always ::DLH_SDK_ABI_VERSION. */
	const char *name;	       /**< Driver name, as profiles name it ("mlxsw"). */
	size_t dev_priv_size;	       /**< Bytes of private storage per device, zeroed. */
	size_t port_priv_size;	       /**< Bytes of private storage per port, zeroed. */
	size_t bus_priv_size;	       /**< Bytes of private storage per bus attachment, zeroed. */
	const struct dlh_sdk_ops *ops; /**< Operations. */
	size_t ops_size;	       /**< sizeof(struct dlh_sdk_ops) as the driver saw it. */
	/**
	 * Split counts the hardware takes, as a mask (bit n: into n ports), for
	 * a driver whose counts are fewer than the powers of 2 up to a port's
	 * lanes. Core refuses any other count before its own checks, with
	 * @c split_count_msg ("Invalid split count" when NULL). 0: no mask.
	 */
	uint32_t split_counts;
	const char *split_count_msg; /**< Message for a count outside @c split_counts, no period. */
	/**
	 * The vendor's rules (NULL for none): what a change would do, decided
	 * from the ports and the device's facts alone. Core plans with them on
	 * the driver's own devices and on a kernel device that Linux's driver
	 * for the same hardware runs (see ::dlh_sdk_rules).
	 */
	const struct dlh_sdk_rules *rules;
};

/**
 * @brief A vendor's rules, apart from the way its driver reaches the hardware.
 *
 * The plan ops decide from the ports as the plan finds them
 * (dlh_sdk_plan_port()) and from the device's facts (dlh_sdk_dev_facts():
 * what the rules need that no port says, such as a switch's lane map as
 * wired), never from the hardware; so one copy of the rules serves two
 * homes. On the driver's own devices, core gives the facts storage before
 * probe, the driver fills it there, and core plans with these ops (they
 * replace ::dlh_sdk_ops' plan ops, and the driver's ops may call the same
 * decisions). On a kernel device whose Linux driver is one of
 * @c kernel_drivers, core picks the profile that says it stands for that
 * driver and board (its "kernel" object, matched against what
 * `devlink dev info` reports), gives @c attach that profile's "hw" object
 * to fill the facts from, and then plans with these ops, checks what the
 * kernel does against the plans, and completes the kernel's port attributes
 * with @c port_attrs_fill. The ops still go to the kernel.
 */
struct dlh_sdk_rules {
	/**
	 * Linux drivers whose devices follow these rules ("mlxsw_spectrum"),
	 * NULL-terminated; NULL: none yet. A profile that stands for another
	 * Linux driver's device is not attached (its plans stay partial).
	 */
	const char *const *kernel_drivers;
	/** Bytes of facts per device, zeroed (dlh_sdk_dev_facts()). */
	size_t facts_size;
	/**
	 * Take a kernel device: fill its facts from @p config (the chosen
	 * profile's "hw" object as JSON text) and check that its ports, as the
	 * kernel reports them, fit; a refusal (its message names what does not
	 * fit) leaves the device unrecognised: its plans stay partial.
	 */
	int (*attach)(struct dlh_dev *dev, const char *config, struct dlh_extack *ext);
	/**
	 * Complete the attributes the kernel reports for port @p index of a
	 * kernel device (the module and lane it sits on, its speed) as the
	 * driver's own device would have them. Called on each read of them
	 * and never stored, so it may rest on what changes (the devices of a
	 * card, which come one by one after a reset). NULL: taken as reported.
	 */
	void (*port_attrs_fill)(const struct dlh_dev *dev, uint32_t index, struct dlh_sdk_port_attrs *attrs);
	/** What port_split would do (see ::dlh_sdk_ops.port_split_plan). */
	int (*port_split_plan)(struct dlh_port *port, unsigned int count, struct dlh_sdk_plan *plan,
			       struct dlh_extack *ext);
	/** What port_unsplit would do. */
	int (*port_unsplit_plan)(struct dlh_port *port, struct dlh_sdk_plan *plan, struct dlh_extack *ext);
	/** What port_type_set would do. */
	int (*port_type_set_plan)(struct dlh_port *port, enum dlh_port_type type, struct dlh_sdk_plan *plan,
				  struct dlh_extack *ext);
	/**
	 * The kernel has answered @p req, sent for a port of kernel device
	 * @p dev: @p err, with its message in @p ext (NULL: none). The facts may
	 * learn from it what the kernel does not report (which option an E810's
	 * split stored), and the rules may say what is pending
	 * (dlh_sdk_dev_pending_set()). Called after core held the answer to the
	 * plan. NULL: nothing to learn.
	 */
	void (*kernel_answered)(struct dlh_dev *dev, const struct dlh_change_req *req, int err,
				const struct dlh_extack *ext);
	/**
	 * What the rules learnt of kernel device @p dev that the kernel does
	 * not report (kernel_answered), as a JSON object in @p buf of @p len
	 * bytes, NUL included, for a host that keeps it across its restarts
	 * (dlhald --state). 0, with "" when nothing is learnt; -ENOSPC. NULL:
	 * the rules learn nothing to keep.
	 */
	int (*learnt_save)(const struct dlh_dev *dev, char *buf, size_t len, struct dlh_extack *ext);
	/**
	 * Take back on @p dev what learnt_save gave, after a restart of the
	 * host in which the device was not reset. A refusal, its message
	 * saying what does not fit, must leave the facts as they were.
	 */
	int (*learnt_restore)(struct dlh_dev *dev, const char *json, struct dlh_extack *ext);
	/**
	 * For a kernel device whose Linux driver cannot change a port's type
	 * (mlx5_core has no port_type_set; the card's configuration holds it):
	 * make the change another way (mstflint's programs), as a driver's op
	 * would, in its place. Core calls it instead of sending the change to
	 * the kernel, once the device is recognised; planned with
	 * port_type_set_plan; staged when @c staged has DLH_SDK_STAGED_TYPE
	 * (then it sets the port's pending with dlh_sdk_port_pending_set()).
	 * NULL: the change goes to the kernel.
	 */
	int (*port_type_set)(struct dlh_port *port, enum dlh_port_type type, struct dlh_extack *ext);
	/** DLH_SDK_STAGED_TYPE when port_type_set's change waits for a reset. */
	uint32_t staged;
};

/** Initialiser for the fixed fields of a ::dlh_sdk_driver. */
#define DLH_SDK_DRIVER_INIT(drv_name, ops_table) \
	.abi_version = DLH_SDK_ABI_VERSION, .name = (drv_name), .ops = (ops_table), .ops_size = sizeof(*(ops_table))

/** Module entry: what dlh_ctx_module_load() looks for. */
struct dlh_sdk_module {
	uint32_t abi_version;		     /**< ::DLH_SDK_ABI_VERSION of the module's build. */
	const struct dlh_sdk_driver *driver; /**< The driver. */
};

/** Name of the symbol a module exports. */
#define DLH_SDK_MODULE_SYMBOL "dlh_sdk_module_entry"

/** Make this shared object a dlhal driver module for @p drv. Use once per module. */
#define DLH_SDK_MODULE(drv)                                             \
	DLH_EXPORT const struct dlh_sdk_module dlh_sdk_module_entry = { \
	    .abi_version = DLH_SDK_ABI_VERSION,                         \
	    .driver = &(drv),                                           \
	}

/**
 * @brief Make a linked-in driver available to a context (profiles name it).
 * @return 0; -EEXIST if a driver of that name is present; -ENOEXEC for a driver
 *         of another ABI version; -ENOMEM.
 */
DLH_EXPORT int dlh_sdk_driver_register(struct dlh_ctx *ctx, const struct dlh_sdk_driver *drv, struct dlh_extack *ext);

/* -------------------------------------------------------------------------- */
/** @name Device and port private storage */
/** @{ */

/** @brief The device's private storage (::dlh_sdk_driver.dev_priv_size bytes). */
DLH_EXPORT void *dlh_sdk_dev_priv(const struct dlh_dev *dev);
/**
 * @brief The device's facts for its rules (::dlh_sdk_rules.facts_size bytes),
 *        or NULL when no rules are attached.
 */
DLH_EXPORT void *dlh_sdk_dev_facts(const struct dlh_dev *dev);
/** @brief The port's private storage (::dlh_sdk_driver.port_priv_size bytes). */
DLH_EXPORT void *dlh_sdk_port_priv(const struct dlh_port *port);

/** @brief The bus attachment's private storage (::dlh_sdk_driver.bus_priv_size bytes). */
DLH_EXPORT void *dlh_sdk_bus_priv(const struct dlh_sdk_bus *bus);
/** @brief The config string given to dlh_ctx_bus_attach(), or NULL. */
DLH_EXPORT const char *dlh_sdk_bus_config(const struct dlh_sdk_bus *bus);
/** @brief Context of a bus attachment. */
DLH_EXPORT struct dlh_ctx *dlh_sdk_bus_ctx(const struct dlh_sdk_bus *bus);
/** @brief Bus attachment a device was added by, or NULL for a profile's device. */
DLH_EXPORT struct dlh_sdk_bus *dlh_sdk_dev_bus(const struct dlh_dev *dev);

/**
 * @brief Add a device found by a bus driver; delivers DLH_EVENT_DEV_NEW.
 * @param handle "bus/dev".
 * @param[out] dev the device (may be NULL).
 * @return 0; -EINVAL for a malformed handle; -EEXIST if taken; -ENOMEM.
 */
DLH_EXPORT int dlh_sdk_bus_dev_add(struct dlh_sdk_bus *bus, const char *handle, struct dlh_dev **dev,
				   struct dlh_extack *ext);

/**
 * @brief Declare parts of the model the bus fills only when first asked for
 *        (see ::dlh_sdk_ops.bus_fill). Core calls bus_fill once per part,
 *        before a lookup or listing that needs it, never from inside a fill.
 */
DLH_EXPORT void dlh_sdk_bus_fill_pending(struct dlh_sdk_bus *bus, unsigned int what);

/**
 * @brief Report that the bus lost notifications (its socket overflowed) and
 *        has brought the model back to the source's state: subscribers get
 *        DLH_EVENT_RESYNC after the device and port events of the repair.
 */
DLH_EXPORT void dlh_sdk_bus_resynced(struct dlh_sdk_bus *bus);

/**
 * @brief Report that the bus's source went away for good (a relay's peer
 *        closed): remove its devices first; subscribers then get
 *        DLH_EVENT_LOST with @p why, so that a long-lived client never looks
 *        alive while it can hear nothing.
 * @param why what went, naming it; copied for the event's duration.
 */
DLH_EXPORT void dlh_sdk_bus_lost(struct dlh_sdk_bus *bus, const char *why);

/** @brief Remove a device a bus driver added: its ports, then the device (events for each). */
DLH_EXPORT void dlh_sdk_dev_remove(struct dlh_dev *dev);

/**
 * @brief Record what the device has pending until its next reset (a staged
 *        op's change, or what the driver found stored in the hardware when it
 *        probed); NULL or an all-zero @p pending clears it. Delivers
 *        DLH_EVENT_DEV_CHANGE if it differs.
 */
DLH_EXPORT void dlh_sdk_dev_pending_set(struct dlh_dev *dev, const struct dlh_pending *pending);

/** @brief As dlh_sdk_dev_pending_set(), for a port's own pending change (DLH_EVENT_PORT_CHANGE). */
DLH_EXPORT void dlh_sdk_port_pending_set(struct dlh_port *port, const struct dlh_pending *pending);

/** @} */
/* -------------------------------------------------------------------------- */
/** @name Ports */
/** @{ */

/** @brief Attributes given at registration; fields a driver does not know stay zero. */
struct dlh_sdk_port_attrs {
	enum dlh_port_flavour flavour; /**< Usually physical. */
	uint32_t number;	       /**< Front-panel port number (a physical, cpu or dsa port's, 0 included). */
	bool split;		       /**< The port results from a split. */
	uint32_t split_group;	       /**< Group of ports split together (if split). */
	uint32_t split_subport;	       /**< Index within the split (if split). */
	uint32_t lanes;		       /**< Lanes, 0 if unknown. */
	bool splittable;	       /**< Whether a split may be asked for. */
	uint32_t speed;		       /**< Maximum speed in Mb/s, 0 if unknown. */
	bool has_module;	       /**< @c module and @c lane are meaningful. */
	uint32_t module;	       /**< Module (cage) the port is mapped to. */
	uint32_t lane;		       /**< First lane within the module. */
};

/**
 * @brief Register a port with type notset; delivers DLH_EVENT_PORT_NEW.
 *        Type changes afterwards deliver DLH_EVENT_PORT_CHANGE.
 * @param index any but UINT32_MAX, unique on the device.
 * @param attrs copied; NULL for all zero.
 * @param[out] port the new port (may be NULL), the driver's until it unregisters it.
 * @return 0; -EEXIST if the index is taken; -EINVAL for index UINT32_MAX or
 *         an unknown flavour; -ENOMEM.
 */
DLH_EXPORT int dlh_sdk_port_register(struct dlh_dev *dev, uint32_t index, const struct dlh_sdk_port_attrs *attrs,
				     struct dlh_port **port, struct dlh_extack *ext);

/**
 * @brief Remove a port (delivers DLH_EVENT_PORT_DEL); its names become free.
 *        The pointer is the driver's no more: do not use it afterwards. NULL
 *        is allowed. Inside an op, registering the same index again gives
 *        the same object back.
 */
DLH_EXPORT void dlh_sdk_port_unregister(struct dlh_port *port);

/**
 * @brief Replace the port's attributes (as a bus driver learns them); delivers
 *        DLH_EVENT_PORT_CHANGE if anything differs.
 */
DLH_EXPORT void dlh_sdk_port_attrs_set(struct dlh_port *port, const struct dlh_sdk_port_attrs *attrs);

/**
 * @brief For a relay: the split counts the other side's driver takes on
 *        @p port (bit N: into N), when it said so (a dlhald serving a driver
 *        whose split_counts are fewer than the lanes allow); 0: not said,
 *        every power of two up to the port's lanes. dlh_port_split_counts()
 *        answers with them. A removed port is left alone (logged).
 */
DLH_EXPORT void dlh_sdk_port_split_counts_set(struct dlh_port *port, uint32_t counts);

/**
 * @brief Record the desired type a bus driver learnt (core sets it itself
 *        after a successful dlh_port_type_set()); delivers DLH_EVENT_PORT_CHANGE
 *        if it differs.
 */
DLH_EXPORT void dlh_sdk_port_desired_type_set(struct dlh_port *port, enum dlh_port_type type);

/**
 * @brief Make the port an Ethernet port with a netdev.
 * @param netdev a name, a pattern with one "%d" that takes the lowest
 *        free number the way the kernel's dev_alloc_name() does ("eth%d"), or
 *        NULL for a port whose netdev is not visible (another namespace).
 * @return 0; -EINVAL for an invalid name; -EEXIST if the name is in use;
 *         -ENFILE if the pattern has no free number.
 */
DLH_EXPORT int dlh_sdk_port_type_eth(struct dlh_port *port, const char *netdev, struct dlh_extack *ext);

/**
 * @brief Make the port an InfiniBand port with an ibdev (several ports may share one).
 * @param ibdev the name, or NULL when not known.
 * @return 0 or -EINVAL for an invalid name.
 */
DLH_EXPORT int dlh_sdk_port_type_ib(struct dlh_port *port, const char *ibdev, struct dlh_extack *ext);

/** @brief Clear the port's type and names (notset). */
DLH_EXPORT void dlh_sdk_port_type_clear(struct dlh_port *port);

/**
 * @brief Pick the netdev name a pattern would give now.
 * @return 0 with the name in @p buf; -EINVAL for a bad pattern; -ENFILE if
 *         all numbers are taken; -ENOSPC if @p len is too small.
 */
DLH_EXPORT int dlh_sdk_netdev_name_alloc(struct dlh_ctx *ctx, const char *pattern, char *buf, size_t len,
					 struct dlh_extack *ext);

/**
 * @brief Whether @p name may be a port's netdev name: 1 to 15 bytes, not "."
 *        or "..", no '/', ':', '%', blank or control character (the kernel's
 *        dev_valid_name(), and no pattern). Drivers check saved names with it.
 * @return true if valid.
 */
DLH_EXPORT bool dlh_sdk_netdev_name_valid(const char *name);

/**
 * @brief A driver's profile object ("hw", the @p config its probe gets, with
 *        its saved state under "state") or any JSON object, for checked reads:
 *        no driver parses JSON by hand.
 *
 * A value is named by a path: keys joined by '.', each followed by any
 * number of [INDEX] ("ports", "state[3]", "wiring[2].lanes"; "" is the
 * object itself). Every read checks the value's type and range and refuses
 * in core's words, naming the whole path: `field "hw.state[3]": expected a
 * whole number from 0 to 4`. A null is absent.
 */
struct dlh_sdk_json;

/**
 * @brief Parses @p text, an object (NULL or "": an empty one), named @p root
 *        in messages ("hw").
 * @param[out] out the document, the caller's to free with dlh_sdk_json_free().
 * @return 0; -EINVAL (not JSON, duplicate keys, not an object: the message
 *         says which, at what position); -ENOMEM.
 */
DLH_EXPORT int dlh_sdk_json_parse(const char *text, const char *root, struct dlh_sdk_json **out,
				  struct dlh_extack *ext);
/** @brief Frees @p j; NULL is a no-op. */
DLH_EXPORT void dlh_sdk_json_free(struct dlh_sdk_json *j);
/** @brief Whether @p path names a value (not null). */
DLH_EXPORT bool dlh_sdk_json_has(const struct dlh_sdk_json *j, const char *path);
/**
 * @brief The whole number at @p path, @p min to @p max, into @p out.
 * @return 0; -ENOENT (absent: "missing"), -EINVAL (another type or out of
 *         range), each naming the field; -EINVAL for a malformed path (a bug).
 */
DLH_EXPORT int dlh_sdk_json_uint(const struct dlh_sdk_json *j, const char *path, uint64_t min, uint64_t max,
				 uint64_t *out, struct dlh_extack *ext);
/**
 * @brief The string at @p path into @p buf of @p size bytes (a NUL inside,
 *        or one that does not fit, is refused).
 * @return 0; -ENOENT; -EINVAL, naming the field.
 */
DLH_EXPORT int dlh_sdk_json_str(const struct dlh_sdk_json *j, const char *path, char *buf, size_t size,
				struct dlh_extack *ext);
/**
 * @brief The number at @p path (whole or not: a speed in Gb/s), @p min to @p max.
 * @return 0; -ENOENT; -EINVAL, naming the field.
 */
DLH_EXPORT int dlh_sdk_json_number(const struct dlh_sdk_json *j, const char *path, double min, double max, double *out,
				   struct dlh_extack *ext);
/** @brief The boolean at @p path. @return 0; -ENOENT; -EINVAL (another type), naming the field. */
DLH_EXPORT int dlh_sdk_json_bool(const struct dlh_sdk_json *j, const char *path, bool *out, struct dlh_extack *ext);
/**
 * @brief The name of member @p i of the object at @p path (in the text's
 *        order), for a walk over an object's members (their values are then
 *        read by path: "netdev.KEY").
 * @return 0; -ENOENT past the last member (no message); -ENOENT or -EINVAL
 *         naming the field when there is no such object, or a name longer
 *         than @p size.
 */
DLH_EXPORT int dlh_sdk_json_key(const struct dlh_sdk_json *j, const char *path, size_t i, char *buf, size_t size,
				struct dlh_extack *ext);
/** @brief The length of the array at @p path. @return 0; -ENOENT; -EINVAL (not an array), naming the field. */
DLH_EXPORT int dlh_sdk_json_count(const struct dlh_sdk_json *j, const char *path, size_t *n, struct dlh_extack *ext);
/**
 * @brief Refuses a member of the object at @p path not in @p keys
 *        (NULL-terminated): `field "hw.prots": unknown (expected ports,
 *        state)`. An absent object is fine.
 * @return 0; -EINVAL naming the member, or when @p path is no object.
 */
DLH_EXPORT int dlh_sdk_json_only(const struct dlh_sdk_json *j, const char *path, const char *const *keys,
				 struct dlh_extack *ext);

/**
 * @brief The rules that plan for the device (its driver's, or a vendor's on a
 *        kernel device once recognised); NULL for none. Recognises nothing:
 *        dlh_dev_rules() does.
 */
DLH_EXPORT const struct dlh_sdk_rules *dlh_sdk_dev_rules(const struct dlh_dev *dev);

/** @brief Context of a device. */
DLH_EXPORT struct dlh_ctx *dlh_sdk_dev_ctx(const struct dlh_dev *dev);

/**
 * @brief A relay heard the device announced again (registered, or reloaded:
 *        the kernel's DEVLINK_CMD_NEW notification): rules that read the
 *        hardware when they recognise it (those with
 *        ::dlh_sdk_rules.port_type_set: a card's configuration) read it again
 *        when next asked, since a reset may have loaded another. Others keep
 *        what they have.
 */
DLH_EXPORT void dlh_sdk_dev_rules_reset(struct dlh_dev *dev);

/**
 * @brief Give the device its faceplate (a relay: what the other side says;
 *        profiles get theirs from the host). Replaces what it had; @p n 0
 *        removes it. Core copies the cages.
 * @return 0; -EINVAL for two cages of one number, at one place or on one
 *         module, a place
 *         past 63, an empty or unterminated form or label (named in @p ext);
 *         -E2BIG past 1024 cages; -ENOMEM.
 */
DLH_EXPORT int dlh_sdk_dev_cages_set(struct dlh_dev *dev, const struct dlh_cage *cages, size_t n,
				     struct dlh_extack *ext);

/**
 * @brief Say which card the device is one of (a relay: what the other side
 *        says; a bus-local driver's devices get their card's from the host).
 * @param card 1 to DLH_CARD_NAME_MAX - 1 printable characters, copied; NULL
 *        for none.
 * @return 0; -EINVAL for an empty, long or unprintable name (named in @p ext);
 *         -ENOMEM.
 */
DLH_EXPORT int dlh_sdk_dev_card_set(struct dlh_dev *dev, const char *card, struct dlh_extack *ext);

/**
 * @brief A relay says which instances are nested in the device
 *        (dlh_dev_nested()), replacing what it said before.
 * @param handles @p n handles ("bus/name"), copied.
 * @return 0; -EINVAL for a malformed handle (named in @p ext); -E2BIG past
 *         ::DLH_NESTED_MAX; -ENOMEM. On failure the device keeps what it had.
 */
DLH_EXPORT int dlh_sdk_dev_nested_set(struct dlh_dev *dev, const char *const *handles, size_t n,
				      struct dlh_extack *ext);

/**
 * @brief A relay says which driver runs the device on the other side (what
 *        dlh_dev_driver() answers; dlh_dev_backend() stays the relay's name).
 * @param name 1 to DLH_DRIVER_NAME_MAX - 1 printable characters, no blank,
 *        copied; NULL for the relay's own name.
 * @return 0; -EINVAL for an empty, long or unprintable name (named in @p ext).
 */
DLH_EXPORT int dlh_sdk_dev_driver_set(struct dlh_dev *dev, const char *name, struct dlh_extack *ext);

/** Longest Linux release string dlh_sdk_dev_linux_set() takes, with its NUL (uname's). */
#define DLH_LINUX_RELEASE_MAX 65

/**
 * @brief Say which Linux's driver runs the device, or which it stands for:
 *        the kernel backend gives each kernel device the running kernel's
 *        release; a host that publishes a driver's device in the kernel's
 *        devlink as the Linux driver its profile names (dlhald
 *        --kernel-bridge) gives it that kernel's. Where that Linux driver
 *        decides otherwise than the driver's own rules, the rules follow it
 *        (dlh_sdk_dev_linux()).
 * @param release a uname release ("6.1.0-28-amd64"), 1 to
 *        DLH_LINUX_RELEASE_MAX - 1 printable characters, copied; NULL: none.
 * @return 0; -EINVAL for an empty, long or unprintable release (named in @p ext).
 */
DLH_EXPORT int dlh_sdk_dev_linux_set(struct dlh_dev *dev, const char *release, struct dlh_extack *ext);

/**
 * @brief The Linux release set by dlh_sdk_dev_linux_set(), or NULL: the
 *        device follows its driver's own rules.
 */
DLH_EXPORT const char *dlh_sdk_dev_linux(const struct dlh_dev *dev);

/**
 * @brief A Linux release as a number to compare: major * 65536 + minor *
 *        256 ("6.1.0-28-amd64": 0x060100); 0 for NULL or what is no release.
 */
DLH_EXPORT unsigned int dlh_sdk_linux_version(const char *release);

/**
 * @brief A relay says how many reloads the kernel counts of the device
 *        (dlh_dev_reloads()), as each device message reports them.
 */
DLH_EXPORT void dlh_sdk_dev_reloads_set(struct dlh_dev *dev, uint64_t count);

/**
 * @brief In dev_info_get: the name of the driver that runs the device
 *        ("mlxsw_spectrum"; a relay: the driver on the other side).
 * @return 0; -EINVAL for an empty, long, unprintable or blank-holding name.
 */
DLH_EXPORT int dlh_sdk_info_driver_put(struct dlh_sdk_info *info, const char *name, struct dlh_extack *ext);

/**
 * @brief In dev_info_get: the device's serial number (@p board false) or its
 *        board's (@p board true).
 * @return 0; -EINVAL for an empty, long or unprintable one.
 */
DLH_EXPORT int dlh_sdk_info_serial_put(struct dlh_sdk_info *info, bool board, const char *serial,
				       struct dlh_extack *ext);

/**
 * @brief In dev_info_get: one version ("fw.version", running, "13.2000.1886").
 * @return 0; -EINVAL for an unknown kind, an empty, long or unprintable name
 *         or value; -E2BIG past DLH_VERSIONS_MAX.
 */
DLH_EXPORT int dlh_sdk_info_version_put(struct dlh_sdk_info *info, enum dlh_version_kind kind, const char *name,
					const char *value, struct dlh_extack *ext);

/**
 * @brief In a plan op: the port at @p index would go (its names would be free).
 * @return 0; -ENOENT if the device has no such port; -E2BIG past DLH_PLAN_PORTS_MAX.
 */
DLH_EXPORT int dlh_sdk_plan_gone(struct dlh_sdk_plan *plan, uint32_t index, struct dlh_extack *ext);

/**
 * @brief In a plan op: a port would be registered at @p index with @p attrs
 *        (NULL: those of the port at @p index now, which must be planned
 *        gone: a type change) and type @p type: eth with netdev @p name (a
 *        name or a pattern, which core resolves as dlh_sdk_port_type_eth()
 *        would then: names of ports gone are free, names planned before are
 *        taken), ib with ibdev @p name (may be NULL), or notset.
 * @return 0; -EEXIST if the index or name would be taken; -E2BIG past
 *         DLH_PLAN_PORTS_MAX; the errors of dlh_sdk_port_type_eth().
 */
DLH_EXPORT int dlh_sdk_plan_come(struct dlh_sdk_plan *plan, uint32_t index, const struct dlh_sdk_port_attrs *attrs,
				 enum dlh_port_type type, const char *name, struct dlh_extack *ext);

/**
 * @brief In a plan op: the port at @p index of the plan's device as the
 *        change finds it: after the changes planned before it when it is
 *        planned in a sequence (::DLH_SDK_F_PLAN_VIEW), else as it is now.
 *        Read it with the dlh_port_*() accessors; never act on it.
 * @return the port; NULL if there would be none at @p index.
 */
DLH_EXPORT struct dlh_port *dlh_sdk_plan_port(const struct dlh_sdk_plan *plan, uint32_t index);

/**
 * @brief In a relay's plan op: the changes a sequence planned on this device
 *        before this one, oldest first, for the relayed core to plan them
 *        first (a dlhald plans them on its driver).
 * @param[out] n how many; 0 outside a sequence.
 * @return them, valid during the plan op.
 */
DLH_EXPORT const struct dlh_change_req *dlh_sdk_plan_before(const struct dlh_sdk_plan *plan, size_t *n);

/**
 * @brief In a relay's plan op: the relayed core cannot say what the change
 *        would do (it has no dry run, or relays one that has none): the plan
 *        is partial, as core's own plan for a relay without plan ops. Rules
 *        that cannot decide (the kernel does not report what they need) say
 *        why in the op's @c ext and return 0: the caller gets that message.
 */
DLH_EXPORT void dlh_sdk_plan_partial(struct dlh_sdk_plan *plan);

/**
 * @brief In a staged driver's plan op: after the reset the change waits for,
 *        device @p dev (a handle, "bus/name") would have a port at @p index
 *        with @p attrs (NULL: all zero), type @p type and netdev or ibdev
 *        @p name (a name; no pattern: nothing is allocated until then). Marks
 *        the plan staged; list every port of every device the reset brings up.
 * @return 0; -EINVAL for a malformed handle, an unknown type or a bad name;
 *         -EEXIST for a port listed twice; -E2BIG past DLH_PLAN_PORTS_MAX.
 */
DLH_EXPORT int dlh_sdk_plan_after(struct dlh_sdk_plan *plan, const char *dev, uint32_t index,
				  const struct dlh_sdk_port_attrs *attrs, enum dlh_port_type type, const char *name,
				  struct dlh_extack *ext);

/** @} */
/* -------------------------------------------------------------------------- */
/** @name Timers: periodic work without tying the driver to an event loop */
/** @{ */

/** @brief Timer callback. It may re-arm or cancel its timer. */
typedef void (*dlh_sdk_timer_fn)(struct dlh_sdk_timer *timer, void *arg);

/**
 * @brief Create a disarmed timer owned by @p dev; it is freed with the device
 *        if the driver does not free it first.
 * @return 0 or -ENOMEM.
 */
DLH_EXPORT int dlh_sdk_timer_new(struct dlh_dev *dev, dlh_sdk_timer_fn fn, void *arg, struct dlh_sdk_timer **timer);

/** @brief (Re)arm @p timer to fire once, @p ms from the context's current time. */
DLH_EXPORT void dlh_sdk_timer_arm(struct dlh_sdk_timer *timer, uint64_t ms);

/** @brief Disarm; a no-op if not armed. */
DLH_EXPORT void dlh_sdk_timer_cancel(struct dlh_sdk_timer *timer);

/** @brief Whether the timer is armed. */
DLH_EXPORT bool dlh_sdk_timer_armed(const struct dlh_sdk_timer *timer);

/** @brief Cancel and free. NULL is allowed. */
DLH_EXPORT void dlh_sdk_timer_free(struct dlh_sdk_timer *timer);

/** @brief I/O callback: @p fd is readable. */
typedef void (*dlh_sdk_io_fn)(struct dlh_sdk_io *io, int fd, void *arg);

/**
 * @brief Ask the host to call @p fn whenever @p fd is readable (see
 *        dlh_ctx_io_fds() and dlh_ctx_io_ready()). Freed with the bus if not before.
 * @return 0 or -ENOMEM.
 */
DLH_EXPORT int dlh_sdk_io_new(struct dlh_sdk_bus *bus, int fd, dlh_sdk_io_fn fn, void *arg, struct dlh_sdk_io **io);

/** @brief Stop watching and free. NULL is allowed. */
DLH_EXPORT void dlh_sdk_io_free(struct dlh_sdk_io *io);

/** @} */
/* -------------------------------------------------------------------------- */
/** @name Messages */
/** @{ */

/** @brief Put a formatted reason in @p ext (NULL allowed). @return @p err, for `return dlh_sdk_extack(...)`. */
DLH_EXPORT int dlh_sdk_extack(struct dlh_extack *ext, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** @brief Log a line to the host's sink, like the kernel's dev_err(). */
DLH_EXPORT void dlh_sdk_log(const struct dlh_dev *dev, enum dlh_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* DLHAL_SDK_H */
