/* SPDX-License-Identifier: MIT */
/**
 * @file dlhal.h
 * @brief dlhal client API: devlink devices, ports and the operations on them.
 *
 * A context (struct dlh_ctx) holds a model of devlink devices (`bus/dev`) and
 * their ports, and the drivers behind them. Callers read the model through
 * opaque handles and change it through operations that return 0 or a
 * negative errno, with a human-readable message in a ::dlh_extack passed
 * last.
 *
 * Lifetime. A device or port may be removed during any call that reads
 * from a backend, not only a change: a lookup, a listing, a fill, a plan, a
 * sequence, firmware options, device info may read the removal of a device
 * (a hot-unplug, a reset, another client's change) that the kernel or a
 * dlhald reported meanwhile. The rule a caller keeps:
 *
 * - A removed object leaves the model at once (a DLH_EVENT_DEV_DEL or
 *   DLH_EVENT_PORT_DEL event is delivered for it first): lookups and
 *   listings no longer find it, dlh_dev_next() and dlh_port_next() of it are
 *   NULL, and every operation or plan on it answers -ENODEV ("Device was
 *   removed", "Port was removed"). Its accessors (handle, names, type,
 *   dlh_port_dev()) still answer as it was.
 * - Its memory is freed only when the caller next lets go: at the start of
 *   the next change (dlh_port_split(), dlh_port_unsplit(),
 *   dlh_port_type_set(), dlh_port_change(), dlh_dev_reload(),
 *   dlh_dev_sim_reset()), the next dlh_ctx_io_ready() or
 *   dlh_ctx_clock_advance(), or dlh_ctx_free(). So a pointer held across
 *   reads is always safe to read; one held across a change or a turn of the
 *   loop is looked up again (by handle) first. A change replaces ports
 *   (a split removes the port it was given, or reuses it), so the same
 *   holds for what it was asked of.
 *
 * A context is not thread-safe: use it from one thread at a time.
 *
 * Every function with a final `struct dlh_extack *ext` parameter fills it on
 * failure (NULL is allowed when the caller does not want the message).
 */
#ifndef DLHAL_DLHAL_H
#define DLHAL_DLHAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Marks a symbol as part of the library's exported interface. */
#define DLH_EXPORT __attribute__((visibility("default")))

/** Library version. */
#define DLH_VERSION "0.1.0"

/** Longest netdev name plus its NUL (the kernel's IFNAMSIZ). */
#define DLH_NETDEV_NAME_MAX 16
/** Longest ibdev name plus its NUL (the kernel's IB_DEVICE_NAME_MAX). */
#define DLH_IBDEV_NAME_MAX 64
/** Longest bus name plus its NUL. */
#define DLH_BUS_NAME_MAX 32
/** Longest device name plus its NUL. */
#define DLH_DEV_NAME_MAX 64
/** Longest `bus/dev/index` handle plus its NUL. */
#define DLH_HANDLE_MAX (DLH_BUS_NAME_MAX + DLH_DEV_NAME_MAX + 16)
/** Size of an extack message buffer. */
#define DLH_EXTACK_MSG_MAX 256

/*
 * Enum tables. Each X-macro row is X(SUFFIX, "name", value); the CLI, the
 * JSON writer and the Lua binding all take their words from these tables.
 * Values match include/uapi/linux/devlink.h.
 */

/** Port types: X(SUFFIX, name, value). */
#define DLH_PORT_TYPE_MAP(X)   \
	X(NOTSET, "notset", 0) \
	X(AUTO, "auto", 1)     \
	X(ETH, "eth", 2)       \
	X(IB, "ib", 3)

/** Port flavours: X(SUFFIX, name, value). */
#define DLH_PORT_FLAVOUR_MAP(X)    \
	X(PHYSICAL, "physical", 0) \
	X(CPU, "cpu", 1)           \
	X(DSA, "dsa", 2)           \
	X(PCI_PF, "pcipf", 3)      \
	X(PCI_VF, "pcivf", 4)      \
	X(VIRTUAL, "virtual", 5)   \
	X(UNUSED, "unused", 6)     \
	X(PCI_SF, "pcisf", 7)

/** Events: X(SUFFIX, object, action); object and action as `devlink monitor` prints them. */
#define DLH_EVENT_MAP(X)              \
	X(DEV_NEW, "dev", "new")      \
	X(DEV_DEL, "dev", "del")      \
	X(PORT_NEW, "port", "new")    \
	X(PORT_DEL, "port", "del")    \
	X(PORT_CHANGE, "port", "new") \
	X(RESYNC, "bus", "resync")    \
	X(DEV_CHANGE, "dev", "new")   \
	X(LOST, "bus", "lost")        \
	X(PLAN_MISS, "dev", "plan-miss")

/** Reload actions: X(SUFFIX, name, value), Linux's `enum devlink_reload_action` values. */
#define DLH_RELOAD_ACTION_MAP(X)             \
	X(DRIVER_REINIT, "driver_reinit", 1) \
	X(FW_ACTIVATE, "fw_activate", 2)

/** Reload limits: X(SUFFIX, name, value), Linux's `enum devlink_reload_limit` values. */
#define DLH_RELOAD_LIMIT_MAP(X) \
	X(UNSPEC, "unspec", 0)  \
	X(NO_RESET, "no_reset", 1)

/**
 * Kinds of a device's info version: X(SUFFIX, name, value), in the order
 * `devlink dev info` prints them (Linux's DEVLINK_ATTR_INFO_VERSION_FIXED,
 * _RUNNING, _STORED).
 */
#define DLH_VERSION_KIND_MAP(X)  \
	X(FIXED, "fixed", 0)     \
	X(RUNNING, "running", 1) \
	X(STORED, "stored", 2)

/**
 * A port's fields: X(SUFFIX, "name"), in the order a record lists them; the
 * names of the Lua binding's fields and of the metrics' labels. dl's JSON
 * keeps iproute2's keys where they differ ("des_type", and the details
 * under "dlhal"). dlh_port_field() says each one's value and whether the
 * port has one.
 */
#define DLH_PORT_FIELD_MAP(X)             \
	X(TYPE, "type")                   \
	X(DESIRED_TYPE, "desired_type")   \
	X(NETDEV, "netdev")               \
	X(IBDEV, "ibdev")                 \
	X(FLAVOUR, "flavour")             \
	X(NUMBER, "port")                 \
	X(SPLIT_GROUP, "split_group")     \
	X(SPLIT_SUBPORT, "split_subport") \
	X(LANES, "lanes")                 \
	X(SPLITTABLE, "splittable")       \
	X(SPEED, "speed")                 \
	X(MODULE, "module")               \
	X(LANE, "lane")

/** Port type (devlink's `enum devlink_port_type`). */
enum dlh_port_type {
#define DLH_X(s, n, v) DLH_PORT_TYPE_##s = v,
	DLH_PORT_TYPE_MAP(DLH_X)
#undef DLH_X
};

/** Port flavour (devlink's `enum devlink_port_flavour`). */
enum dlh_port_flavour {
#define DLH_X(s, n, v) DLH_PORT_FLAVOUR_##s = v,
	DLH_PORT_FLAVOUR_MAP(DLH_X)
#undef DLH_X
};

/** What an event reports. A port change is reported as `[port,new]`, as the kernel does. */
enum dlh_event_type {
#define DLH_X(s, o, a) DLH_EVENT_##s,
	DLH_EVENT_MAP(DLH_X)
#undef DLH_X
	    DLH_EVENT_COUNT
};

/** What a reload does (devlink's `enum devlink_reload_action`). */
enum dlh_reload_action {
#define DLH_X(s, n, v) DLH_RELOAD_ACTION_##s = v,
	DLH_RELOAD_ACTION_MAP(DLH_X)
#undef DLH_X
};

/** What a reload must not do (devlink's `enum devlink_reload_limit`). */
enum dlh_reload_limit {
#define DLH_X(s, n, v) DLH_RELOAD_LIMIT_##s = v,
	DLH_RELOAD_LIMIT_MAP(DLH_X)
#undef DLH_X
};

/** Kind of an info version: fixed (the board's), running or stored (firmware). */
enum dlh_version_kind {
#define DLH_X(s, n, v) DLH_VERSION_##s = v,
	DLH_VERSION_KIND_MAP(DLH_X)
#undef DLH_X
};

/** A field of a port (DLH_PORT_FIELD_MAP). */
enum dlh_port_field {
#define DLH_X(s, n) DLH_PORT_FIELD_##s,
	DLH_PORT_FIELD_MAP(DLH_X)
#undef DLH_X
	    DLH_PORT_FIELD_COUNT
};

/** What a field's value is. */
enum dlh_value_kind {
	DLH_VALUE_NONE, /**< the object has none (a port that is not split has no split group) */
	DLH_VALUE_STR,	/**< @c str */
	DLH_VALUE_UINT, /**< @c uint */
	DLH_VALUE_BOOL, /**< @c boolean */
};

/** A field's value. */
struct dlh_value {
	enum dlh_value_kind kind; /**< which member holds it */
	const char *str;	  /**< a string, valid while the object is */
	uint64_t uint;		  /**< a whole number */
	bool boolean;		  /**< a boolean */
};

/**
 * @brief Error report: a message naming the reason, and the object it concerns.
 *
 * Like netlink's extack. Functions that fail fill @c msg with a short reason
 * without a final period ("Port cannot be split further") and @c obj with the
 * handle of the device or port concerned, when there is one. A caller may pass
 * NULL where it does not want the message.
 */
struct dlh_extack {
	char msg[DLH_EXTACK_MSG_MAX]; /**< Reason, NUL-terminated; empty if none. */
	char obj[DLH_HANDLE_MAX];     /**< Object handle, NUL-terminated; empty if none. */
};

struct dlh_ctx;
struct dlh_dev;
struct dlh_port;
struct dlh_sub;

/**
 * @brief Name of a port type ("eth", "ib", "auto", "notset").
 * @return a static string, or "unknown" for a value outside the table.
 */
DLH_EXPORT const char *dlh_port_type_name(enum dlh_port_type type);

/**
 * @brief Parse a port type word.
 * @param word "eth", "ib", "auto" or "notset".
 * @param[out] type the value.
 * @return 0, or -EINVAL for any other word.
 */
DLH_EXPORT int dlh_port_type_parse(const char *word, enum dlh_port_type *type);

/** @brief Name of a flavour ("physical", ...), or "unknown". */
DLH_EXPORT const char *dlh_port_flavour_name(enum dlh_port_flavour flavour);

/** @brief Object word of an event type ("dev" or "port"). */
DLH_EXPORT const char *dlh_event_object(enum dlh_event_type type);

/** @brief Action word of an event type ("new" or "del"). */
DLH_EXPORT const char *dlh_event_action(enum dlh_event_type type);

/** @brief Name of a reload action ("driver_reinit", "fw_activate"), or "unknown". */
DLH_EXPORT const char *dlh_reload_action_name(enum dlh_reload_action action);

/** @brief Parse a reload action word. @return 0, or -EINVAL for any other word. */
DLH_EXPORT int dlh_reload_action_parse(const char *word, enum dlh_reload_action *action);

/** @brief Name of a reload limit ("unspec", "no_reset"), or "unknown". */
DLH_EXPORT const char *dlh_reload_limit_name(enum dlh_reload_limit limit);

/** @brief Parse a reload limit word. @return 0, or -EINVAL for any other word. */
DLH_EXPORT int dlh_reload_limit_parse(const char *word, enum dlh_reload_limit *limit);

/** @brief Name of an info version kind ("fixed", "running", "stored"), or "unknown". */
DLH_EXPORT const char *dlh_version_kind_name(enum dlh_version_kind kind);

/**
 * @brief Format an extack as one line: "OBJ: MSG", or "MSG" without an object.
 * @return @p buf.
 */
DLH_EXPORT const char *dlh_extack_str(const struct dlh_extack *ext, char *buf, size_t len);

/**
 * @brief Put a reason in @p ext, as the library's own calls do: @p obj (a
 *        handle, or NULL for none) replaces the object, and a message too
 *        long for @c msg ends in "..." rather than being cut silently. For
 *        front ends that refuse in their own words (a desired-state step, a
 *        daemon's request).
 * @param ext the extack (NULL: nothing is put).
 * @return @p err, for `return dlh_extack_set(...)`.
 */
DLH_EXPORT int dlh_extack_set(struct dlh_extack *ext, int err, const char *obj, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* -------------------------------------------------------------------------- */
/** @name Context */
/** @{ */

/**
 * @brief Create an empty context with no devices.
 * @param[out] ctx the new context; free it with dlh_ctx_free().
 * @return 0 or -ENOMEM.
 */
DLH_EXPORT int dlh_ctx_new(struct dlh_ctx **ctx, struct dlh_extack *ext);

/**
 * @brief Remove every device (drivers' remove ops run, events are delivered)
 *        and free the context. NULL is allowed.
 */
DLH_EXPORT void dlh_ctx_free(struct dlh_ctx *ctx);

/**
 * @brief Probe the emulated device a board profile describes.
 *
 * @param profile a built-in profile name ("sn2700", "cx3-vpi"), or a path to a
 *        JSON profile file (anything containing '/' or ending in ".json").
 *        Names are also searched in the directories of $DLHAL_PROFILE_PATH
 *        (colon-separated) as NAME.json before the built-in ones.
 * @return 0; -ENOENT for an unknown profile; -EINVAL for a malformed one (the
 *         message names the file, the field and the reason); -EEXIST when the
 *         device handle is taken; the driver's probe error otherwise. On failure
 *         the context is as before.
 */
DLH_EXPORT int dlh_ctx_sim_load(struct dlh_ctx *ctx, const char *profile, struct dlh_extack *ext);

/**
 * @brief As dlh_ctx_sim_load(), restoring the emulated hardware's saved state.
 * @param states a JSON object mapping device handles to the states that
 *        dlh_dev_sim_get(dev, NULL, "state", ...) returned; the profile's device
 *        starts from its entry, or from the profile if it has none. NULL: none.
 * @return as dlh_ctx_sim_load(); -EINVAL also for a malformed state.
 */
DLH_EXPORT int dlh_ctx_sim_load_state(struct dlh_ctx *ctx, const char *profile, const char *states,
				      struct dlh_extack *ext);

/**
 * @brief Load a driver module (a shared object built against <dlhal/sdk.h>).
 * @return 0; -ENOENT if it cannot be opened; -ENOEXEC if it is not a dlhal
 *         module or its ABI version differs (the message names the module and
 *         both versions); -EEXIST if a driver of that name is already present.
 *         The module stays loaded until the context is freed.
 */
DLH_EXPORT int dlh_ctx_module_load(struct dlh_ctx *ctx, const char *path, struct dlh_extack *ext);

/**
 * @brief Attach a driver that finds its devices itself ("kernel": the kernel's
 *        devlink family; "daemon": a dlhald), loading its module if it is not linked in.
 * @param config driver-specific, may be NULL: the daemon's socket path; for
 *        the kernel, "dev=BUS/NAME" mirrors that one device alone (from Linux
 *        6.8 the kernel then sends only its notifications).
 * @return 0; -ENOENT if there is no such driver; -EOPNOTSUPP if the driver
 *         does not find devices itself; -EEXIST if already attached; the
 *         driver's error otherwise (the kernel backend: -EPROTONOSUPPORT when
 *         the kernel has no devlink family, -EINVAL for a config that is
 *         not dev=BUS/NAME).
 */
DLH_EXPORT int dlh_ctx_bus_attach(struct dlh_ctx *ctx, const char *driver, const char *config, struct dlh_extack *ext);

/** @brief A backend of a context: where its devices come from. */
enum dlh_backend {
	DLH_BACKEND_NONE,   /**< None (no failure). */
	DLH_BACKEND_DAEMON, /**< A dlhald, over its socket. */
	DLH_BACKEND_KERNEL, /**< The kernel's devlink family. */
	DLH_BACKEND_SIM,    /**< Emulated devices in this process, from profiles. */
};

/**
 * @brief Which backends a context takes: what `dl -s/--kernel/--sim`, Lua's
 *        dlhal.open() and the kit say. Nothing asked (all zero) is the
 *        default every front end has: a dlhald if DLHAL_SOCKET_DEFAULT
 *        (dlhal/protocol.h) exists, else the kernel.
 */
struct dlh_backends {
	const char *socket;	  /**< A dlhald's socket path, or NULL. */
	bool kernel;		  /**< The kernel's devlink family. */
	const char *kernel_scope; /**< When the kernel is taken: mirror this device ("BUS/NAME") alone, or NULL. */
	const char *sim;	  /**< Profiles to emulate, comma-separated ("sn2700,cx3-vpi"), or NULL. */
	const char *const *sims;  /**< Or as a NULL-terminated list (names may hold commas), or NULL. */
};

/** @brief What dlh_ctx_backends_attach() could not attach. */
struct dlh_backends_failure {
	enum dlh_backend backend; /**< The backend, or DLH_BACKEND_NONE. */
	bool asked;		  /**< Asked for, not taken by default (the kernel when no dlhald runs). */
	char profile[256];	  /**< DLH_BACKEND_SIM: the profile that failed. */
};

/**
 * @brief Attach the backends @p b asks for to @p ctx, in the order the front
 *        ends have always used: the daemon, the kernel, then each profile.
 * @param[out] failed which backend failed (may be NULL).
 * @return 0; -EINVAL for a profile list longer than 1023 characters or an
 *         empty name; otherwise the failing call's error, as
 *         dlh_ctx_bus_attach() or dlh_ctx_sim_load() gives it. What was
 *         attached before the failure stays; free the context.
 */
DLH_EXPORT int dlh_ctx_backends_attach(struct dlh_ctx *ctx, const struct dlh_backends *b,
				       struct dlh_backends_failure *failed, struct dlh_extack *ext);

/**
 * @brief File descriptors the host's event loop should watch for reading.
 * @param fds array to fill; @p max its length.
 * @return the number of descriptors (may exceed @p max: call again with more room).
 */
DLH_EXPORT size_t dlh_ctx_io_fds(const struct dlh_ctx *ctx, int *fds, size_t max);

/**
 * @brief Tell the context that @p fd is readable: the driver watching it runs.
 *
 * First frees what was removed before this call (see "Lifetime" above); what
 * this call's reading removes stays readable until the next such point.
 */
DLH_EXPORT void dlh_ctx_io_ready(struct dlh_ctx *ctx, int fd);

/** @brief Names of the built-in profiles, NULL-terminated. Static storage. */
DLH_EXPORT const char *const *dlh_sim_profiles(void);

/**
 * @brief Milliseconds until the next driver timer fires, or -1 if none is armed.
 *
 * Drivers' periodic work (such as mlx4 link sensing) runs on timers that the
 * host drives: an event loop calls dlh_ctx_clock_advance() with the time
 * that has passed; tests advance a manual clock.
 */
DLH_EXPORT int64_t dlh_ctx_timeout(const struct dlh_ctx *ctx);

/**
 * @brief Advance the context clock by @p ms and run the timers that fall due, in order.
 *
 * First frees what was removed before this call, as dlh_ctx_io_ready() does.
 */
DLH_EXPORT void dlh_ctx_clock_advance(struct dlh_ctx *ctx, uint64_t ms);

/** @brief Log levels for dlh_ctx_log_set(). */
enum dlh_log_level { DLH_LOG_ERR = 3, DLH_LOG_WARNING = 4, DLH_LOG_INFO = 6, DLH_LOG_DEBUG = 7 };

/** @brief Log sink: @p dev may be NULL. The message has no trailing newline. */
typedef void (*dlh_log_fn)(void *arg, enum dlh_log_level level, const struct dlh_dev *dev, const char *msg);

/** @brief Route driver and core log lines to @p fn (NULL: discard, the default). */
DLH_EXPORT void dlh_ctx_log_set(struct dlh_ctx *ctx, dlh_log_fn fn, void *arg);

/** @} */
/* -------------------------------------------------------------------------- */
/** @name Events */
/** @{ */

/** @brief One change of the model. @c port is NULL for device events. */
struct dlh_event {
	enum dlh_event_type type; /**< What happened. */
	/** The device, or the port's device; NULL for DLH_EVENT_RESYNC. */
	struct dlh_dev *dev;
	struct dlh_port *port; /**< The port, or NULL for a device or bus event. */
	/**
	 * DLH_EVENT_RESYNC: the bus ("kernel", "daemon") that lost
	 * notifications (a socket that overflowed) and read its whole state
	 * again. The device and port events that took the model to that state
	 * came before it. DLH_EVENT_LOST: the bus whose source went away (a
	 * dlhald that stopped): its devices' del events came before it, and
	 * nothing more will come from it. NULL for other events.
	 */
	const char *bus;
	/**
	 * DLH_EVENT_LOST: why, naming the source ("the connection to dlhald at
	 * PATH closed"). DLH_EVENT_PLAN_MISS: how what a kernel device did
	 * differs from what its vendor's rules planned ("port 2 has 1 lane,
	 * planned 2"): a wrong rule, shown the first time it is wrong. Else NULL.
	 */
	const char *msg;
};

/**
 * @brief Event callback. Objects in the event stay valid during the call, a
 *        deleted one included; the callback must not start operations.
 */
typedef void (*dlh_event_fn)(const struct dlh_event *ev, void *arg);

/**
 * @brief Subscribe to every event of the context, delivered in order.
 * @param[out] sub handle for dlh_ctx_unsubscribe(); may be NULL.
 * @return 0 or -ENOMEM.
 */
DLH_EXPORT int dlh_ctx_subscribe(struct dlh_ctx *ctx, dlh_event_fn fn, void *arg, struct dlh_sub **sub);

/** @brief Stop a subscription; safe inside a callback. NULL is allowed. */
DLH_EXPORT void dlh_ctx_unsubscribe(struct dlh_sub *sub);

/** @} */
/* -------------------------------------------------------------------------- */
/** @name Devices */
/** @{ */

/** @brief First device in registration order, or NULL. */
DLH_EXPORT struct dlh_dev *dlh_dev_first(const struct dlh_ctx *ctx);
/** @brief Next device, or NULL. */
DLH_EXPORT struct dlh_dev *dlh_dev_next(const struct dlh_dev *dev);

/**
 * @brief Find a device by handle ("pci/0000:03:00.0"), O(1) on average.
 * @return the device, or NULL.
 */
DLH_EXPORT struct dlh_dev *dlh_dev_find(const struct dlh_ctx *ctx, const char *handle);

/** @brief "bus/dev". */
DLH_EXPORT const char *dlh_dev_handle(const struct dlh_dev *dev);
/** @brief Bus name ("pci"). */
DLH_EXPORT const char *dlh_dev_bus(const struct dlh_dev *dev);
/** @brief Device name ("0000:03:00.0"). */
DLH_EXPORT const char *dlh_dev_name(const struct dlh_dev *dev);
/** Longest driver name (dlh_dev_driver()), NUL included. */
#define DLH_DRIVER_NAME_MAX 32

/**
 * @brief Name of the driver bound to the device ("mlxsw"): through a relay
 *        (a dlhald), the driver on the other side, not the relay.
 */
DLH_EXPORT const char *dlh_dev_driver(const struct dlh_dev *dev);

/**
 * @brief How this process reaches the device: the SDK driver it is
 *        registered with ("mlxsw" in the process, "daemon" through a dlhald,
 *        "kernel" through the kernel's devlink family).
 */
DLH_EXPORT const char *dlh_dev_backend(const struct dlh_dev *dev);

/**
 * @brief What the device's plans rest on: its driver's rules ("mlxsw rules"),
 *        or for a kernel device that a vendor's rules know, those rules and
 *        the profile that stands for its board ("mlxsw rules, profile
 *        sn2700"). A kernel device is recognised once, from what it reports
 *        (dlh_dev_info_get()), when this or a plan first needs it.
 * @param[out] exact (may be NULL) true when plans come from rules; false when
 *        they are partial (a relay's) or the driver plans without rules.
 * @return that text; for a kernel device without rules, what is missing
 *         ("no profile stands for mlxsw_spectrum with fw.psid MT_0000000000");
 *         NULL when there is nothing to say. Owned by the device.
 */
DLH_EXPORT const char *dlh_dev_rules(const struct dlh_dev *dev, bool *exact);

/**
 * @brief What a kernel device's vendor rules learnt from the kernel's answers
 *        that the kernel does not report (which port option an E810's split
 *        stored), to keep across a restart of this process
 *        (dlh_dev_learnt_set() takes it back).
 * @param buf receives a JSON object, or "" when nothing is learnt.
 * @param len size of @p buf, NUL included.
 * @return 0; -EINVAL: no @p buf, or @p len 0; -EOPNOTSUPP: the device has
 *         no vendor rules (or is not recognised yet: this does not recognise
 *         it, since a device not recognised has learnt nothing), or none that
 *         learn; -ENOSPC: @p buf is too small; -EIO: the rules gave no JSON
 *         object. The message in @p ext names the device and the reason.
 */
DLH_EXPORT int dlh_dev_learnt_get(struct dlh_dev *dev, char *buf, size_t len, struct dlh_extack *ext);

/**
 * @brief How many reloads the kernel counts of a kernel device: devlink's
 *        reload statistics (every action and limit, done through this
 *        instance or remotely), summed, since the instance was registered.
 *        A count that differs from one read earlier says the device was
 *        reset in between (dlhald drops what rules learnt before a reset it
 *        did not see); an equal count says no reload happened, not that no
 *        other reset did.
 * @param[out] count the sum.
 * @return 0; -ENODATA when the kernel reports no statistics for it (a driver
 *         without reload, Linux before 5.11, a device that is not the kernel's).
 */
DLH_EXPORT int dlh_dev_reloads(const struct dlh_dev *dev, uint64_t *count);

/**
 * @brief Take back what dlh_dev_learnt_get() gave on this device before a
 *        restart. Only the caller knows that the device was not reset since
 *        (what was pending is then gone): dlhald keeps it for one boot.
 * @param json what dlh_dev_learnt_get() gave ("" is nothing: 0).
 * @return 0; -EOPNOTSUPP as for dlh_dev_learnt_get() (this recognises the
 *         device first, as a plan would); -EINVAL: @p json is NULL, or does not
 *         fit the device's rules (they are left as they were). @p json stays
 *         the caller's.
 */
DLH_EXPORT int dlh_dev_learnt_set(struct dlh_dev *dev, const char *json, struct dlh_extack *ext);

/**
 * @brief How many changes on kernel devices did otherwise than their vendor's
 *        rules planned, in this context so far. Each is checked as it returns
 *        (the kernel's ports then, against the plan made just before it), and
 *        each miss is logged and delivered as DLH_EVENT_PLAN_MISS; the change
 *        itself succeeds or fails as the kernel said, with a warning added to
 *        a success.
 */
DLH_EXPORT unsigned long dlh_ctx_plan_misses(const struct dlh_ctx *ctx);
/** @brief Number of ports. */
DLH_EXPORT size_t dlh_dev_port_count(const struct dlh_dev *dev);

/** Longest info version name ("fw.psid"), NUL included. */
#define DLH_VERSION_NAME_MAX 64
/** Longest info version value, serial number or board serial, NUL included. */
#define DLH_VERSION_VALUE_MAX 128
/** Most info versions one device reports. */
#define DLH_VERSIONS_MAX 64

/** @brief One info version of a device ("fw.version" running "13.2000.1886"). */
struct dlh_version {
	enum dlh_version_kind kind;	   /**< Fixed, running or stored. */
	char name[DLH_VERSION_NAME_MAX];   /**< Its name, as the driver reports it. */
	char value[DLH_VERSION_VALUE_MAX]; /**< Its value. */
};

/**
 * @brief What a device reports of itself, as `devlink dev info` shows it:
 *        the driver that runs it, serial numbers, and the versions of its
 *        board and firmware (mlxsw's "hw.revision" and "fw.psid", ice's
 *        "board.id"). What identifies a device of a known vendor.
 */
struct dlh_dev_info {
	char driver[DLH_DRIVER_NAME_MAX];	  /**< The driver's name ("mlxsw_spectrum"); "" when none is known. */
	char serial[DLH_VERSION_VALUE_MAX];	  /**< Serial number, "" when not reported. */
	char board_serial[DLH_VERSION_VALUE_MAX]; /**< Board serial number, "" when not reported. */
	size_t nversions;			  /**< How many of @c versions are set. */
	struct dlh_version versions[DLH_VERSIONS_MAX]; /**< In the order reported. */
};

/**
 * @brief Ask the device what it reports of itself (a relay asks the other
 *        side each time: versions change with a firmware update). A device
 *        whose driver reports nothing has its driver's name alone, as
 *        Linux's devlink core answers from 6.2 on; a kernel device whose
 *        driver reports none has the driver bound to it in sysfs, if any.
 * @param[out] info filled in.
 * @return 0; -EBUSY inside an op; -ENODEV if the device was removed; a
 *         relay's errors (-EIO: the kernel or dlhald cannot be reached).
 */
DLH_EXPORT int dlh_dev_info_get(struct dlh_dev *dev, struct dlh_dev_info *info, struct dlh_extack *ext);

/** Longest form factor or label of a cage, NUL included. */
#define DLH_CAGE_NAME_MAX 16

/**
 * @brief A cage of a device's front panel: where a port's cable plugs in
 *        (the faceplate of its profile, docs/profiles.md).
 */
struct dlh_cage {
	/**
	 * Front-panel number: the devlink port number of the ports it carries;
	 * for a cage found by module, only its name.
	 */
	uint32_t number;
	unsigned int row;	       /**< Its row on the panel, from the top, from 0. */
	unsigned int col;	       /**< Its column, from the left, from 0. */
	char form[DLH_CAGE_NAME_MAX];  /**< Form factor: "QSFP28", "QSFP+", "SFP28"... */
	char label[DLH_CAGE_NAME_MAX]; /**< What the panel prints by it. */
	/**
	 * The cage carries the ports that report @c module (dlh_port_module()),
	 * whatever their numbers: a card whose port numbers are not its cages'
	 * (an E810's are its PCI functions').
	 */
	bool has_module;
	uint32_t module; /**< The module its ports report, if @c has_module. */
};

/**
 * @brief The device's faceplate: its cages, as its profile (or a relayed
 *        daemon) says them; none for a device without one (a kernel device:
 *        dl panel then lays its ports out from their numbers). The devices
 *        of one card (dlh_dev_card()) have the card's.
 * @param[out] cages the cages, valid until the device goes; NULL when none.
 * @return how many.
 */
DLH_EXPORT size_t dlh_dev_cages(const struct dlh_dev *dev, const struct dlh_cage **cages);

/** Longest card name (dlh_dev_card()), NUL included. */
#define DLH_CARD_NAME_MAX DLH_HANDLE_MAX

/**
 * @brief The card the device is one of several devices of (an E810's PCI
 *        functions), when they share one faceplate: the name its profile
 *        gives the card (its first device's handle). dl panel draws such
 *        devices as one card.
 * @return the name, valid until the device goes; NULL for a device that is a
 *         card of its own.
 */
DLH_EXPORT const char *dlh_dev_card(const struct dlh_dev *dev);

/** Most instances nested in one (dlh_dev_nested()). */
#define DLH_NESTED_MAX 8

/**
 * @brief The @p i th devlink instance nested in this one, as the kernel
 *        says it (DEVLINK_ATTR_NESTED_DEVLINK, Linux 6.7 on): Linux 6.12's
 *        mlx5_core registers a function's Ethernet port on an instance
 *        ("auxiliary/mlx5_core.eth.0") nested in the function's
 *        ("pci/0000:03:00.0"). Only instances in the caller's network
 *        namespace are named.
 * @return its handle, valid until the device goes or the kernel says its
 *         nested instances again; NULL past the last.
 */
DLH_EXPORT const char *dlh_dev_nested(const struct dlh_dev *dev, size_t i);

/**
 * @brief The device this one is nested in (see dlh_dev_nested()): through
 *        it a vendor's rules recognise an instance that reports nothing of
 *        its own board.
 * @return it, or NULL for a device nested in none (or removed).
 */
DLH_EXPORT struct dlh_dev *dlh_dev_nested_in(const struct dlh_dev *dev);

/** @brief A cage of a layout and the ports in it. */
struct dlh_layout_cage {
	/**
	 * Where it is: the faceplate's cage, or, for a device without one, a
	 * cage made for a port number (form "port", the number as its label;
	 * "#INDEX" for a port without a number).
	 */
	struct dlh_cage cage;
	bool by_index;	/**< Made for a port without a number: @c index is its. */
	uint32_t index; /**< That port's index. */
	bool unused;	/**< Found by module, and no port uses its lanes now (a neighbour's split took them). */
	size_t nports;	/**< How many ports it carries. */
	struct dlh_port **ports; /**< Them, by lane where they report one (a card's functions), then by device and
				    index; NULL when none. */
};

/** @brief Which port sits in which cage of a device, or of a card's devices. */
struct dlh_layout;

/**
 * @brief Lay out @p dev's ports in their cages: the faceplate's (a card's
 *        devices, dlh_dev_card(), share it and are laid out together), else
 *        cages made from the port numbers, in one row of up to 16, else two
 *        (odd numbers on top, as switches number them). A port the faceplate
 *        has no cage for is left out. The layout is a snapshot: ports that
 *        go after it are not to be used through it.
 * @param[out] out freed with dlh_layout_free().
 * @return 0; -ENOMEM.
 */
DLH_EXPORT int dlh_layout_new(struct dlh_dev *dev, struct dlh_layout **out);

/** @brief The layout's devices: @p dev, or its card's in the model's order. */
DLH_EXPORT size_t dlh_layout_devs(const struct dlh_layout *layout, struct dlh_dev *const **devs);

/** @brief Whether the cages were made from the port numbers (no faceplate). */
DLH_EXPORT bool dlh_layout_generic(const struct dlh_layout *layout);

/** @brief The cages, by row then column; valid until dlh_layout_free(). */
DLH_EXPORT size_t dlh_layout_cages(const struct dlh_layout *layout, const struct dlh_layout_cage **cages);

/** @brief Free a layout; NULL is ignored. */
DLH_EXPORT void dlh_layout_free(struct dlh_layout *layout);

/**
 * @brief Set an emulator control of an emulated device (as netdevsim offers
 *        through debugfs): for example "fail_nth" = "5" makes the device's 5th
 *        hardware access from now fail, "cable" = "ib" on an mlx4 port changes the
 *        link partner.
 * @param port the port the control concerns, or NULL for the device.
 * @return 0; -EOPNOTSUPP if the driver has no emulator; -EINVAL for an unknown
 *         key or bad value.
 */
DLH_EXPORT int dlh_dev_sim_set(struct dlh_dev *dev, struct dlh_port *port, const char *key, const char *value,
			       struct dlh_extack *ext);

/**
 * @brief Read an emulator control ("fail_nth": accesses left before the
 *        injected failure, 0 when none is pending; "accesses": hardware accesses so far).
 * @return 0 with the value in @p buf, or as dlh_dev_sim_set().
 */
DLH_EXPORT int dlh_dev_sim_get(struct dlh_dev *dev, struct dlh_port *port, const char *key, char *buf, size_t len,
			       struct dlh_extack *ext);

/**
 * @brief Power-cycle an emulated device: the hardware comes up again with what
 *        it had stored for the next reset (see ::dlh_pending), as a reload
 *        that activates firmware would bring it up, for drivers without one.
 *        The device's ports, and for a card of several devices the devices,
 *        go and come (DLH_EVENT_DEV_DEL, DLH_EVENT_DEV_NEW): @p dev must not be
 *        used afterwards; look the device up again by its handle.
 * @return 0; -EOPNOTSUPP if the driver emulates no power cycle; -EBUSY from
 *         inside an operation; -EIO if the emulated hardware failed.
 */
DLH_EXPORT int dlh_dev_sim_reset(struct dlh_dev *dev, struct dlh_extack *ext);

/**
 * @brief A change a driver stored in the hardware that takes effect at its
 *        next reset (a staged change: Intel E810 port options, link types
 *        kept in a VPI adapter's NVM), on a device (a device-wide option) or
 *        on a port.
 */
struct dlh_pending {
	unsigned int split;		  /**< Ports a split will give (1: unsplit); 0 if none pending. */
	enum dlh_port_type type;	  /**< A type change, @c DLH_PORT_TYPE_NOTSET if none pending. */
	char message[DLH_EXTACK_MSG_MAX]; /**< The driver's word for it ("Reboot required to finish port split"). */
};

/**
 * @brief What the device has pending until its next reset.
 * @param[out] pending filled in (zero when nothing is pending); may be NULL.
 * @return true if anything is pending.
 */
DLH_EXPORT bool dlh_dev_pending(const struct dlh_dev *dev, struct dlh_pending *pending);

/**
 * @brief Reload the device as `devlink dev reload` does (Linux 6.1): the driver
 *        re-reads its hardware, and with @c DLH_RELOAD_ACTION_FW_ACTIVATE the
 *        firmware resets and applies what is pending. Devices and ports that
 *        go and come are reported as del and new events; what was pending
 *        is cleared. As after dlh_dev_sim_reset(), @p dev must not be used
 *        afterwards.
 * @param limit @c DLH_RELOAD_LIMIT_UNSPEC, or a limit the driver supports.
 * @param[out] performed the actions done, a mask of `1 << action` (may be NULL).
 * @return 0; -EOPNOTSUPP if the driver has no reload ("Reload is not
 *         supported"), not that action ("Requested reload action is not
 *         supported by the driver") or not that limit ("Requested limit is not
 *         supported by the driver"); -EINVAL for an unknown action or limit
 *         or driver_reinit with no_reset ("Requested limit is invalid for this
 *         action"); -EBUSY from inside an operation; the driver's errors
 *         (ice: -ECANCELED "No pending firmware update").
 */
DLH_EXPORT int dlh_dev_reload(struct dlh_dev *dev, enum dlh_reload_action action, enum dlh_reload_limit limit,
			      uint32_t *performed, struct dlh_extack *ext);

/** @brief One firmware option of a device whose ports are chosen by option (Intel E810). */
struct dlh_fw_option {
	unsigned int split; /**< Ports (PFs) the option gives. */
	uint32_t speed[8];  /**< Maximum speed of each lane in Mb/s, 0 for a lane not used. */
	bool active;	    /**< The option the hardware runs. */
	bool pending;	    /**< The option it will run after its next reset. */
};

/**
 * @brief The device's firmware options, as Linux's ice prints them to dynamic debug.
 * @param[out] opts up to @p max options.
 * @param[out] n how many the device has (may exceed @p max).
 * @return 0; -EOPNOTSUPP for a device without options; -ENODEV for a removed
 *         device; the driver's errors.
 */
DLH_EXPORT int dlh_dev_fw_options(struct dlh_dev *dev, struct dlh_fw_option *opts, size_t max, size_t *n,
				  struct dlh_extack *ext);

/** @} */
/* -------------------------------------------------------------------------- */
/** @name Ports */
/** @{ */

/** @brief First port of @p dev in registration order, or NULL. */
DLH_EXPORT struct dlh_port *dlh_port_first(const struct dlh_dev *dev);
/** @brief Next port of the same device, or NULL. */
DLH_EXPORT struct dlh_port *dlh_port_next(const struct dlh_port *port);

/**
 * @brief First port of the context: devices in order, each device's ports in
 *        order. Needs only the ports, not the device list (a lazy backend
 *        then reads less). @return the port or NULL.
 */
DLH_EXPORT struct dlh_port *dlh_port_first_all(const struct dlh_ctx *ctx);
/** @brief Next port after @p port across devices, or NULL. */
DLH_EXPORT struct dlh_port *dlh_port_next_all(const struct dlh_port *port);

/**
 * @brief Call @p fn for every port, in the order of dlh_port_first_all(),
 *        without mirroring the ports of a lazy backend that can stream them
 *        (the kernel's, a dlhald's): memory stays the same for any number of
 *        ports, as iproute2's does.
 *
 * A streamed port is valid only during its call and only for reading: its
 * handle, attributes, type and names, and dlh_port_dev()'s handle, bus and
 * name. It takes no operation or plan (-ENODEV) and has no neighbours
 * (dlh_port_next() is NULL). Ports already in the model are passed as they
 * are. @p fn must not change the model.
 *
 * @param fn  called per port; a non-zero return stops the walk.
 * @return 0; what @p fn returned to stop; -EIO (a backend could not be
 *         read) with @p ext naming it; -EBUSY when called from @p fn;
 *         -EINVAL when @p fn is NULL.
 */
DLH_EXPORT int dlh_port_walk(const struct dlh_ctx *ctx, int (*fn)(const struct dlh_port *port, void *arg), void *arg,
			     struct dlh_extack *ext);

/** @brief Find a port by index, O(1) on average. @return the port or NULL. */
DLH_EXPORT struct dlh_port *dlh_port_find(const struct dlh_dev *dev, uint32_t index);

/** @brief Find a port by its netdev name, O(1) on average. @return the port or NULL. */
DLH_EXPORT struct dlh_port *dlh_port_find_netdev(const struct dlh_ctx *ctx, const char *netdev);

/**
 * @brief Resolve what a user typed: "bus/dev/index" or a netdev name.
 * @param[out] port the port.
 * @return 0; -EINVAL for a malformed handle (the message says which part);
 *         -ENODEV for a device, port or netdev that does not exist.
 */
DLH_EXPORT int dlh_port_lookup(const struct dlh_ctx *ctx, const char *what, struct dlh_port **port,
			       struct dlh_extack *ext);

/**
 * @brief Resolve a device handle the user typed.
 * @return 0; -EINVAL if malformed; -ENODEV if there is no such device.
 */
DLH_EXPORT int dlh_dev_lookup(const struct dlh_ctx *ctx, const char *what, struct dlh_dev **dev,
			      struct dlh_extack *ext);

/** @brief Device of the port. */
DLH_EXPORT struct dlh_dev *dlh_port_dev(const struct dlh_port *port);
/** @brief Port index within its device. */
DLH_EXPORT uint32_t dlh_port_index(const struct dlh_port *port);
/** @brief "bus/dev/index". */
DLH_EXPORT const char *dlh_port_handle(const struct dlh_port *port);
/** @brief Actual type. */
DLH_EXPORT enum dlh_port_type dlh_port_type(const struct dlh_port *port);
/** @brief Desired type: what was last set successfully; notset until then. */
DLH_EXPORT enum dlh_port_type dlh_port_desired_type(const struct dlh_port *port);

/**
 * @brief What the port has pending until its device's next reset (see ::dlh_pending).
 * @param[out] pending filled in (zero when nothing is pending); may be NULL.
 * @return true if anything is pending.
 */
DLH_EXPORT bool dlh_port_pending(const struct dlh_port *port, struct dlh_pending *pending);
/** @brief Netdev name when the type is eth, else NULL. */
DLH_EXPORT const char *dlh_port_netdev(const struct dlh_port *port);
/** @brief Ibdev name when the type is ib, else NULL. */
DLH_EXPORT const char *dlh_port_ibdev(const struct dlh_port *port);
/** @brief Whether the port is the result of a split. */
DLH_EXPORT bool dlh_port_is_split(const struct dlh_port *port);
/** @brief Split group of a split port (Spectrum: the module). Meaningful only if dlh_port_is_split(). */
DLH_EXPORT uint32_t dlh_port_split_group(const struct dlh_port *port);
/** @brief Sub-port number within a split (0 for the first). Meaningful only if dlh_port_is_split(). */
DLH_EXPORT uint32_t dlh_port_split_subport(const struct dlh_port *port);
/** @brief Flavour. */
DLH_EXPORT enum dlh_port_flavour dlh_port_flavour(const struct dlh_port *port);
/** @brief Physical port number (front panel); see dlh_port_has_number(). */
DLH_EXPORT uint32_t dlh_port_number(const struct dlh_port *port);
/**
 * @brief Whether the port has a front-panel number: its flavour is physical,
 *        cpu or dsa, for which devlink always sends one (0 included: an
 *        E810's PF 0); for the others dlh_port_number() is 0, no number.
 */
DLH_EXPORT bool dlh_port_has_number(const struct dlh_port *port);
/** @brief Number of lanes, 0 if unknown. */
DLH_EXPORT uint32_t dlh_port_lanes(const struct dlh_port *port);
/** @brief Whether the port can be split. */
DLH_EXPORT bool dlh_port_splittable(const struct dlh_port *port);
/**
 * @brief Split counts core would pass to the driver, as a mask (bit n: into
 *        n ports): for a splittable port, the powers of 2 up to its lanes,
 *        narrowed to the counts its driver names. 0 for a port that cannot
 *        be split. The driver may still refuse one (a neighbour in the way).
 */
DLH_EXPORT uint32_t dlh_port_split_counts(const struct dlh_port *port);
/** @brief Maximum speed in Mb/s, 0 if unknown. */
DLH_EXPORT uint32_t dlh_port_speed(const struct dlh_port *port);

/** @brief The name of field @p f ("split_group"), or "unknown" outside the table. */
DLH_EXPORT const char *dlh_port_field_name(enum dlh_port_field f);

/**
 * @brief Field @p f of @p port into @p v, as every front end shows it: a
 *        type or flavour as its name; the desired type only where one was
 *        set, the number only where the port has one, the split group and
 *        subport only on a split port, lanes and speed only when known
 *        (not 0), the module and lane only where the driver says them.
 * @return @p v->kind (DLH_VALUE_NONE: the port has none); only the member
 *         it names is set
 */
DLH_EXPORT enum dlh_value_kind dlh_port_field(const struct dlh_port *port, enum dlh_port_field f, struct dlh_value *v);
/**
 * @brief Module (cage) and first lane the port is mapped to.
 * @return true with @p module and @p lane filled, false if the driver does not report them.
 */
DLH_EXPORT bool dlh_port_module(const struct dlh_port *port, uint32_t *module, uint32_t *lane);

/**
 * @brief Set the port type (eth, ib or auto).
 *
 * Setting the type that is already the port's desired type succeeds without
 * calling the driver. The kernel compares with the actual type instead, so
 * there a port in auto that sensed eth cannot be set to plain eth; dlhal
 * compares with the desired type so that it can.
 *
 * @return 0; -EINVAL for another type; -EOPNOTSUPP if the driver cannot set
 *         types; -ENODEV for a port that was removed (a stale pointer);
 *         -EBUSY while another operation of the context runs (a driver or
 *         an event subscriber calling in); -EIO if the driver returned a
 *         positive value (a driver bug, logged); the driver's error
 *         otherwise, the ports as before and no event delivered. A failure carries a message
 *         in @p ext (from the kernel backend, only when the kernel sent
 *         one); a success leaves it empty.
 */
DLH_EXPORT int dlh_port_type_set(struct dlh_port *port, enum dlh_port_type type, struct dlh_extack *ext);

/**
 * @brief Split a port into @p count ports. The port and its neighbours are
 *        replaced; new ports are listed last. Look ports up again afterwards.
 * @return 0; -EINVAL for a count below 2, for a port that cannot be split
 *         ("Port cannot be split", "Port cannot be split further") or a
 *         count that is not a power of 2 up to its lanes ("Invalid split
 *         count"), as Linux 6.1 refuses them, and for one the driver refuses;
 *         -EOPNOTSUPP if the driver cannot split; -ENODEV for a port that was
 *         removed; -EBUSY and -EIO as for dlh_port_type_set(); on failure the
 *         ports are as before and no event was delivered. On success the
 *         op's events are delivered before this returns.
 */
DLH_EXPORT int dlh_port_split(struct dlh_port *port, unsigned int count, struct dlh_extack *ext);

/** Ports one plan may name (a split of the widest cluster and its neighbours fits). */
#define DLH_PLAN_PORTS_MAX 16

/** @brief A port a change would create, as it would be. */
struct dlh_plan_port {
	uint32_t index;		 /**< Port index. */
	enum dlh_port_type type; /**< Its type (eth when it gets a netdev; auto: as the link is sensed then). */
	char netdev[DLH_NETDEV_NAME_MAX]; /**< The netdev name it would get, or empty. */
	char ibdev[DLH_IBDEV_NAME_MAX];	  /**< The ibdev name it would get, or empty. */
	uint32_t lanes;			  /**< Lanes, 0 if unknown. */
	bool split;			  /**< Whether it results from a split. */
	uint32_t split_group;		  /**< Its split group (if split). */
	uint32_t split_subport;		  /**< Its subport (if split). */
};

/**
 * @brief What a change would do: the ports that would go (by index) and those
 *        that would come. Filled by dlh_port_split_plan() and friends.
 */
struct dlh_plan {
	/**
	 * The driver cannot tell which ports (the kernel backend): only the
	 * refusals core knows were checked, and @c ngone / @c ncome are 0.
	 */
	bool partial;
	unsigned int ngone;			       /**< How many ports would go. */
	uint32_t gone[DLH_PLAN_PORTS_MAX];	       /**< Their indices, on the port's device. */
	unsigned int ncome;			       /**< How many ports would come. */
	struct dlh_plan_port come[DLH_PLAN_PORTS_MAX]; /**< Them, in the order they would be registered. */
	/**
	 * The change would be stored for the next reset (a staged driver): no
	 * port goes or comes now (@c ngone and @c ncome are 0), and @c after
	 * lists every port of the devices the reset brings up, as they will be.
	 */
	bool staged;
	unsigned int nafter; /**< How many ports @c after holds. */
	/** The ports after the reset, each with its device, in the order they would be registered. */
	struct dlh_plan_after {
		char dev[DLH_HANDLE_MAX];  /**< Its device's handle. */
		struct dlh_plan_port port; /**< The port. */
	} after[DLH_PLAN_PORTS_MAX];	   /**< The first @c nafter hold them. */
};

/**
 * @brief What dlh_port_split() would do, without doing it: the same checks,
 *        then the driver's plan from the same rules as its op. Nothing
 *        changes, no event is delivered, no hardware register is accessed.
 * @param[out] plan filled on success.
 * @param[out] ext on success, empty; or, for a partial plan whose rules say
 *         why they cannot decide (what the kernel does not report), that.
 * @return 0 if the split would be accepted; otherwise the error and message
 *         dlh_port_split() would give; -EOPNOTSUPP (and "cannot plan") for a
 *         driver that splits but cannot plan.
 */
DLH_EXPORT int dlh_port_split_plan(struct dlh_port *port, unsigned int count, struct dlh_plan *plan,
				   struct dlh_extack *ext);

/** @brief What dlh_port_unsplit() would do; as dlh_port_split_plan(). */
DLH_EXPORT int dlh_port_unsplit_plan(struct dlh_port *port, struct dlh_plan *plan, struct dlh_extack *ext);

/**
 * @brief Where a record is written, member by member, in the order its
 *        fields are defined once here: what dl's JSON writer, or a binding
 *        building its own tables, implements. @c key names a member inside an
 *        object and is NULL inside an array. Every op is called; none may be
 *        NULL.
 */
struct dlh_writer {
	void (*obj_open)(void *arg, const char *key);		  /**< An object begins. */
	void (*obj_close)(void *arg);				  /**< It ends. */
	void (*arr_open)(void *arg, const char *key);		  /**< An array begins. */
	void (*arr_close)(void *arg);				  /**< It ends. */
	void (*str)(void *arg, const char *key, const char *val); /**< A string. */
	void (*uint)(void *arg, const char *key, uint64_t val);	  /**< A whole number. */
	void (*boolean)(void *arg, const char *key, bool val);	  /**< A boolean. */
	void *arg;						  /**< Passed to each op. */
};

/**
 * @brief Writes @p plan's members into the object @p w has open:
 *        "partial", "del" (the handles of the ports that would go), "new"
 *        (each port that would come: "port", "type", "netdev", "ibdev",
 *        "lanes", "split", and "split_group" and "subport" when split) and,
 *        for a staged change, "staged" and "after" (the ports after the
 *        reset, as "new"). What `dl -j port split --dry-run` prints.
 * @param dev the handle of the device the plan is on
 */
DLH_EXPORT void dlh_plan_write(const struct dlh_plan *plan, const char *dev, const struct dlh_writer *w);

/**
 * @brief What dlh_port_type_set() would do; as dlh_port_split_plan(). Ports
 *        whose type or names would change are in the plan as gone and coming
 *        back; a type equal to the desired type plans nothing.
 */
DLH_EXPORT int dlh_port_type_set_plan(struct dlh_port *port, enum dlh_port_type type, struct dlh_plan *plan,
				      struct dlh_extack *ext);

/**
 * @brief A sequence of planned changes: each planned on the ports the ones
 *        before it leave, with the drivers' plan ops, touching nothing. The
 *        sequence keeps a view of every device it touched: its ports as
 *        they would be, readable with the dlh_port_*() accessors.
 */
struct dlh_seq;

/** @brief The kinds of change a sequence plans. */
enum dlh_change {
	DLH_CHANGE_SPLIT,   /**< dlh_port_split() */
	DLH_CHANGE_UNSPLIT, /**< dlh_port_unsplit() */
	DLH_CHANGE_TYPE,    /**< dlh_port_type_set() */
};

/** @brief One change of a sequence, by port index on its device. */
struct dlh_change_req {
	enum dlh_change kind;	 /**< What. */
	uint32_t index;		 /**< The port's index, as the changes before leave the device. */
	unsigned int count;	 /**< For a split: into how many. */
	enum dlh_port_type type; /**< For a type set: the type. */
};

/**
 * @brief Make on @p port the change @p req asks for (its index is not read):
 *        dlh_port_split(), dlh_port_unsplit() or dlh_port_type_set(), for a
 *        front end that receives changes as data (dlhald's protocol).
 * @return as that call; -EINVAL for an unknown kind (named in @p ext).
 */
DLH_EXPORT int dlh_port_change(struct dlh_port *port, const struct dlh_change_req *req, struct dlh_extack *ext);

/**
 * @brief A new, empty sequence on @p ctx.
 * @param[out] seq the sequence; free with dlh_seq_free().
 * @return 0; -ENOMEM.
 */
DLH_EXPORT int dlh_seq_new(struct dlh_ctx *ctx, struct dlh_seq **seq);

/** @brief Frees @p seq and its views (every port got from it); NULL is a no-op. */
DLH_EXPORT void dlh_seq_free(struct dlh_seq *seq);

/**
 * @brief The first port of @p dev as the changes planned so far leave it, in
 *        index order; NULL if none, or if the device's ports after a partial
 *        plan are not known (dlh_seq_known()). The port belongs to the
 *        sequence: read it, plan on it, never act on it; it is valid until
 *        a change planned on its device takes it away, or the sequence is
 *        freed.
 */
DLH_EXPORT struct dlh_port *dlh_seq_port_first(struct dlh_seq *seq, struct dlh_dev *dev);

/** @brief The port after @p port in its sequence's view; NULL at the end. */
DLH_EXPORT struct dlh_port *dlh_seq_port_next(const struct dlh_port *port);

/**
 * @brief Whether the ports of @p dev after the changes planned so far are
 *        known: false once a change on it was planned partially (a relay to
 *        the kernel; a driver that plans only from the device as it is).
 */
DLH_EXPORT bool dlh_seq_known(struct dlh_seq *seq, struct dlh_dev *dev);

/**
 * @brief The port whose netdev is @p netdev as the changes planned so far
 *        leave the devices: a port of a view (a name a planned change gives,
 *        such as the port a type set makes Ethernet) or, on a device the
 *        sequence has not changed, the model's; NULL if none holds it.
 */
DLH_EXPORT struct dlh_port *dlh_seq_port_find_netdev(struct dlh_seq *seq, const char *netdev);

/**
 * @brief The ports of @p dev with front-panel number @p number
 *        (dlh_port_number()) as the changes planned so far leave it, found
 *        through a table rather than a walk of every port: a whole board's
 *        file is planned in time linear in its ports.
 *
 * dlh_seq_port_find_number() gives the first of them (in no particular
 * order; NULL if none, or if nothing is known of @p dev: dlh_seq_known()),
 * dlh_seq_port_next_number() the next after @p port (NULL after the last).
 * The ports are the sequence's, as dlh_seq_port_first() gives them: valid
 * until the sequence is freed or a change planned in it takes them away.
 */
DLH_EXPORT struct dlh_port *dlh_seq_port_find_number(struct dlh_seq *seq, struct dlh_dev *dev, uint32_t number);
/** @brief The next port of @p port's device in its sequence with its number; NULL after the last. */
DLH_EXPORT struct dlh_port *dlh_seq_port_next_number(const struct dlh_port *port);

/**
 * @brief The port of @p dev at @p index as the changes planned so far leave
 *        it (dlh_port_find() of the sequence); NULL if it has none there, or
 *        if nothing is known of @p dev (dlh_seq_known()). The port is the
 *        sequence's, valid as dlh_seq_port_find_number()'s are.
 */
DLH_EXPORT struct dlh_port *dlh_seq_port_find(struct dlh_seq *seq, struct dlh_dev *dev, uint32_t index);

/**
 * @brief Plans splitting @p port (a port of @p seq's view) after the changes
 *        planned before it; on success the view takes the plan. The checks
 *        and plan are those of dlh_port_split_plan(). Where the device's
 *        ports are not known (or the driver cannot plan on a view), the plan
 *        is partial and later plans on the device are too.
 * @return as dlh_port_split_plan(); -EINVAL if @p port is not of @p seq.
 */
DLH_EXPORT int dlh_seq_split(struct dlh_seq *seq, struct dlh_port *port, unsigned int count, struct dlh_plan *plan,
			     struct dlh_extack *ext);

/** @brief As dlh_seq_split(), for an unsplit. */
DLH_EXPORT int dlh_seq_unsplit(struct dlh_seq *seq, struct dlh_port *port, struct dlh_plan *plan,
			       struct dlh_extack *ext);

/** @brief As dlh_seq_split(), for a type set. */
DLH_EXPORT int dlh_seq_type_set(struct dlh_seq *seq, struct dlh_port *port, enum dlh_port_type type,
				struct dlh_plan *plan, struct dlh_extack *ext);

/**
 * @brief Plans @p req on the port at its index in @p seq's view of @p dev,
 *        as dlh_seq_split(), dlh_seq_unsplit() or dlh_seq_type_set() would:
 *        a change by index, as a peer asks for it (dlhald's dry runs), with
 *        no port handle to look up first.
 * @return as those; 0 with a partial plan when the device's ports are not
 *         known (dlh_seq_known()); -ENODEV ("Port N would not exist") when
 *         no port has that index after the changes before; -EINVAL for an
 *         unknown kind.
 */
DLH_EXPORT int dlh_seq_change(struct dlh_seq *seq, struct dlh_dev *dev, const struct dlh_change_req *req,
			      struct dlh_plan *plan, struct dlh_extack *ext);

/**
 * @brief Undo the split a port is part of.
 * @return 0; -EINVAL if the port was not split (the driver's refusal);
 *         -EOPNOTSUPP if the driver cannot unsplit; -ENODEV, -EBUSY and -EIO
 *         as for dlh_port_type_set(); on failure the ports are as before and
 *         no event was delivered.
 */
DLH_EXPORT int dlh_port_unsplit(struct dlh_port *port, struct dlh_extack *ext);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* DLHAL_DLHAL_H */
