/* SPDX-License-Identifier: MIT */
/* Private definitions shared by core/ and sdk/; never installed. */
#ifndef DLHAL_CORE_H
#define DLHAL_CORE_H

#include <dlhal/dlhal.h>
#include <dlhal/sdk.h>

#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define DLH__ARRAY_SIZE(a)		     (sizeof(a) / sizeof((a)[0]))
#define dlh__container_of(ptr, type, member) ((type *)(void *)((char *)(ptr)-offsetof(type, member)))

/* Intrusive doubly-linked list with a sentinel head. */
struct dlh__list {
	struct dlh__list *prev, *next;
};

static inline void dlh__list_init(struct dlh__list *h)
{
	h->prev = h->next = h;
}

static inline void dlh__list_add_tail(struct dlh__list *h, struct dlh__list *n)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

static inline void dlh__list_del(struct dlh__list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->prev = n->next = n;
}

static inline int dlh__list_empty(const struct dlh__list *h)
{
	return h->next == h;
}

/*
 * Intrusive chained hash table. Callers hash keys themselves and compare in
 * a callback, so one table type serves string and integer keys.
 */
struct dlh__hnode {
	struct dlh__hnode *next;
	uint64_t hash;
};

struct dlh__htab {
	struct dlh__hnode **buckets;
	size_t nbuckets; /* power of two, or 0 before first insert */
	size_t count;
};

typedef int (*dlh__hmatch_fn)(const struct dlh__hnode *node, const void *key);

uint64_t dlh__hash_str(const char *s);
uint64_t dlh__hash_u64(uint64_t v);
int dlh__htab_insert(struct dlh__htab *t, struct dlh__hnode *n, uint64_t hash);
void dlh__htab_remove(struct dlh__htab *t, struct dlh__hnode *n);
struct dlh__hnode *dlh__htab_find(const struct dlh__htab *t, uint64_t hash, dlh__hmatch_fn match, const void *key);
/* The next match at or after @from in its chain (a table may hold equal keys): dlh__htab_find_next(n->next, ...). */
struct dlh__hnode *dlh__htab_find_next(struct dlh__hnode *from, uint64_t hash, dlh__hmatch_fn match, const void *key);
/* Calls @fn on every node (it may not change the table). */
void dlh__htab_each(const struct dlh__htab *t, void (*fn)(struct dlh__hnode *n, void *arg), void *arg);
void dlh__htab_fini(struct dlh__htab *t);

/*
 * The numbers of a netdev name pattern ("eth%d") that names in use have, as
 * bits: a pick finds the lowest free one by word, not by a lookup of each
 * name below it (name.c). @pattern "" is unused.
 */
struct dlh__name_bits {
	char pattern[DLH_NETDEV_NAME_MAX];
	uint64_t *words;
	size_t nwords;
	unsigned long stamp; /* last used: the oldest of a context's is taken for another pattern */
};
#define DLH__NAME_BITS 4

struct dlh__driver_ent {
	struct dlh__list node;
	const struct dlh_sdk_driver *drv;
	void *dl_handle; /* dlopen() handle, or NULL for a linked-in driver */
};

struct dlh_sub {
	struct dlh__list node;
	struct dlh_ctx *ctx;
	dlh_event_fn fn;
	void *arg;
	int dead; /* unsubscribed during delivery; freed once delivery ends */
};

struct dlh_sdk_timer {
	struct dlh__list node; /* in ctx->timers (sorted by due) when armed */
	struct dlh__list dev_node;
	struct dlh_dev *dev;
	dlh_sdk_timer_fn fn;
	void *arg;
	uint64_t due;
	uint64_t seq; /* orders timers that fall due at the same time */
	int armed;
};

struct dlh_sdk_bus {
	struct dlh__list node;
	struct dlh_ctx *ctx;
	const struct dlh_sdk_driver *drv;
	struct dlh__list ios;
	unsigned int fill_pending;
	char *config;
	/* a card's faceplate, given to each device the driver adds (faceplate.c) */
	struct dlh_cage *cages;
	size_t ncages;
	char *card;
	alignas(max_align_t) unsigned char priv[];
};

struct dlh_sdk_io {
	struct dlh__list node;
	struct dlh_sdk_bus *bus;
	int fd;
	dlh_sdk_io_fn fn;
	void *arg;
};

struct dlh__view;

/* A plan being filled by a driver's plan op (plan.c). */
struct dlh_sdk_plan {
	struct dlh_dev *dev;
	struct dlh_plan *out;
	struct dlh__view *view; /* planned in a sequence: the device as the changes before leave it (seq.c) */
	/* each port planned to come, whole: what a sequence's view takes */
	struct dlh_sdk_port_attrs come_attrs[DLH_PLAN_PORTS_MAX];
	/*
	 * The last netdev name pattern picked from and the number after the
	 * pick: a plan only takes names, so the next pick of the same pattern
	 * starts there, unless a port was planned gone since (its name frees).
	 */
	char pick_pattern[DLH_NETDEV_NAME_MAX];
	int pick_next;
	unsigned int pick_ngone;
	const struct dlh__name_bits *pick_bits; /* the pattern's numbers in use (the model's, a sequence's), or NULL */
};

/* A port as it was before a driver op, to check and restore it afterwards (op.c). */
struct dlh__snap {
	struct dlh_port *port;
	enum dlh_port_type type, desired_type;
	struct dlh_sdk_port_attrs attrs;
	char netdev[DLH_NETDEV_NAME_MAX];
	char ibdev[DLH_IBDEV_NAME_MAX];
	struct dlh_pending pending; /* all zero when none: what a failed staged op puts back */
};

/* An event a local op emitted, with the port as it was then (what a netlink notification carries). */
struct dlh__deferred {
	struct dlh_event ev;
	struct dlh__snap then;
};

/*
 * The driver op in progress. For a local driver (one given a profile) its
 * events wait in @events until it succeeds, the ports it unregisters wait in
 * @graveyard, and @snap holds the device's ports as they were, so that a
 * failure can be undone in the model whatever the driver left (op.c). A
 * relay (kernel, dlhald) mirrors another model: its events go out at once.
 */
struct dlh__op {
	const char *name; /* "port_split", or NULL when no op runs */
	struct dlh_dev *dev;
	int local;
	bool relay; /* the driver relays another core: its answers pass on as they came */
	/* A staged op (ops.staged): what was pending before it, and whether it set anything pending. */
	bool staged, pending_set;
	struct dlh_pending dev_was;
	struct dlh__deferred *events;
	size_t nevents, events_cap;
	struct dlh__snap *snap;
	size_t nsnap;
	struct dlh__list graveyard;
};

struct dlh_ctx {
	struct dlh__list devs;
	struct dlh__list buses;
	unsigned int fill_pending; /* union of the buses' */
	int filling;
	unsigned int fill_mode; /* what the running fill asks for: DLH_SDK_FILL_*, DLH__FILL_NETDEV or _DEV */
	struct dlh__htab dev_by_handle;
	struct dlh__htab port_by_netdev;
	/*
	 * The numbers in use of the last patterns names were picked from, kept
	 * with port_by_netdev (name.c): a board's hundreds of ports are named
	 * in linear time.
	 */
	struct dlh__name_bits name_bits[DLH__NAME_BITS];
	unsigned long name_stamp;
	struct dlh__list subs;
	int delivering;
	bool rules_wanted; /* a device's recognition was asked for while delivering: done after */
	struct dlh__list drivers;
	struct dlh__list timers;
	uint64_t now;
	uint64_t timer_seq;
	dlh_log_fn log_fn;
	void *log_arg;
	struct dlh__op op;
	unsigned long plan_misses; /* rules.c: kernel changes that did otherwise than planned */
	/* Removed while the caller may hold them (dlhal.h, "Lifetime"): out of the model, freed by dlh__gone_reap(). */
	struct dlh__list gone_ports;
	struct dlh__list gone_devs;
	/* The first handle two backends served (dev.c): the second is refused; a front end with both says so. */
	char clash[DLH_EXTACK_MSG_MAX];
};

struct dlh_dev {
	struct dlh_ctx *ctx;
	struct dlh__list node;
	struct dlh__hnode hnode;
	const struct dlh_sdk_driver *drv;
	struct dlh_sdk_bus *sdk_bus; /* NULL for a device probed from a profile */
	struct dlh__list ports;
	struct dlh__list quarantine; /* ports a failed op left that core dropped (op.c) */
	struct dlh__htab port_by_index;
	size_t nports;
	struct dlh__list timers;
	bool early;		     /* came with a port found by netdev (bus_fill_netdev): placed by the full fill */
	bool ports_filled;	     /* its ports were read alone (bus_fill_dev); notifications keep them */
	struct dlh_pending *pending; /* until the next reset; NULL when nothing is */
	struct dlh_cage *cages;	     /* its faceplate (faceplate.c); NULL when none */
	size_t ncages;
	char *card;   /* the card it is one device of (faceplate.c); NULL when none */
	char *nested; /* the instances nested in it: handles, each NUL-ended; NULL */
	size_t nnested;
	char driver[DLH_DRIVER_NAME_MAX];	   /* a relay's: the driver on the other side; "" for its own */
	char linux_release[DLH_LINUX_RELEASE_MAX]; /* the Linux whose driver runs it, or stands for it; "" */
	uint64_t reloads;			   /* the kernel's count of them, when has_reloads */
	bool has_reloads;
	bool gone;	   /* removed: out of the model, awaiting dlh__gone_reap() */
	bool driver_asked; /* dev_driver_get was called (once is enough) */
	/* The vendor rules its plans rest on (rules.c): its driver's, or those a kernel device was recognised by. */
	const struct dlh_sdk_rules *rules;
	const struct dlh_sdk_driver *rules_drv;
	void *facts;	   /* rules->facts_size bytes */
	bool rules_asked;  /* a relay's: recognition was tried (once is enough, as for the driver) */
	bool rules_misfit; /* a profile's rules were tried and refused it: basis says why */
	bool recognising;  /* being recognised: what that changes asks for nothing again */
	bool rules_wanted; /* asked for while an event was delivered: recognised once it is */
	char *basis;	   /* what its plans rest on, or (no rules) what is missing: for dlh_dev_rules() */
	char bus[DLH_BUS_NAME_MAX];
	char name[DLH_DEV_NAME_MAX];
	char handle[DLH_BUS_NAME_MAX + DLH_DEV_NAME_MAX];
	alignas(max_align_t) unsigned char priv[];
};

/*
 * A port is live in the model; dead once unregistered during an op (kept
 * until the op's events are delivered); quarantined when core drops a port a
 * failed op registered (kept until the device goes, as the driver may still
 * hold it).
 */
enum dlh__port_life {
	DLH__PORT_LIVE,
	DLH__PORT_DEAD,
	DLH__PORT_QUARANTINED,
	DLH__PORT_WALKED,  /* a streamed port on the stack (walk.c) */
	DLH__PORT_PHANTOM, /* a port of a sequence's view, as planned changes leave it (seq.c) */
	DLH__PORT_GONE,	   /* removed outside a local op: in ctx->gone_ports until dlh__gone_reap() */
};

struct dlh_port {
	struct dlh_dev *dev;
	struct dlh__list node;
	struct dlh__hnode index_node;
	struct dlh__hnode netdev_node; /* in ctx->port_by_netdev while type is eth */
	uint32_t index;
	uint8_t life;	 /* enum dlh__port_life */
	uint8_t in_snap; /* in the running op's snapshot */
	uint8_t early;	 /* found by netdev (bus_fill_netdev): placed by the full fill */
	enum dlh_port_type type;
	enum dlh_port_type desired_type;
	uint32_t said_counts;	     /* a relay's: the split counts the other side's driver takes; 0: not said */
	struct dlh_pending *pending; /* until the device's next reset; NULL when nothing is (most ports) */
	struct dlh_sdk_port_attrs attrs;
	char netdev[DLH_NETDEV_NAME_MAX];
	char ibdev[DLH_IBDEV_NAME_MAX];
	char *handle;		       /* in the same allocation, after priv: its own length, not DLH_HANDLE_MAX */
	struct dlh__view *view;	       /* a phantom's view; NULL for a port of the model */
	struct dlh__hnode number_node; /* a phantom's, in its view's by_number */
	alignas(max_align_t) unsigned char priv[];
};

/* A port's names and number as the accessors say them (port.c), inline for core/fields.c's hot path. */
static inline const char *dlh__port_netdev(const struct dlh_port *port)
{
	return port->type == DLH_PORT_TYPE_ETH && port->netdev[0] ? port->netdev : NULL;
}

static inline const char *dlh__port_ibdev(const struct dlh_port *port)
{
	return port->type == DLH_PORT_TYPE_IB && port->ibdev[0] ? port->ibdev : NULL;
}

static inline bool dlh__port_has_number(const struct dlh_port *port)
{
	/* the flavours devlink_nl_port_attrs_put() sends DEVLINK_ATTR_PORT_NUMBER for */
	return port->attrs.flavour == DLH_PORT_FLAVOUR_PHYSICAL || port->attrs.flavour == DLH_PORT_FLAVOUR_CPU ||
	       port->attrs.flavour == DLH_PORT_FLAVOUR_DSA;
}

/* extack.c */
#define DLH__QUOTE_MAX 48
/* User input for a message: at most DLH__QUOTE_MAX bytes of s[0..len), "..." marking a cut. */
const char *dlh__quote(char *buf, size_t size, const char *s, size_t len);
#define DLH__QUOTE(s, len) dlh__quote((char[DLH__QUOTE_MAX + 4]){0}, DLH__QUOTE_MAX + 4, (s), (len))
int dlh__extack_obj(struct dlh_extack *ext, const char *obj);
/* the public setter (dlh_extack_set()): core refuses in the same way front ends do */
#define dlh__extack_set dlh_extack_set
void dlh__extack_clear(struct dlh_extack *ext);
void dlh__extack_vset(struct dlh_extack *ext, const char *fmt, va_list ap);

/* ctx.c */
void dlh__event_emit(struct dlh_ctx *ctx, enum dlh_event_type type, struct dlh_dev *dev, struct dlh_port *port);
/* A bus event (no device): never deferred by an op. */
void dlh__event_emit_bus(struct dlh_ctx *ctx, enum dlh_event_type type, const char *bus);
void dlh__event_emit_lost(struct dlh_ctx *ctx, const char *bus, const char *why);
void dlh__event_emit_miss(struct dlh_ctx *ctx, struct dlh_dev *dev, const char *why);
void dlh__log(const struct dlh_ctx *ctx, enum dlh_log_level level, const struct dlh_dev *dev, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void dlh__vlog(const struct dlh_ctx *ctx, enum dlh_log_level level, const struct dlh_dev *dev, const char *fmt,
	       va_list ap) __attribute__((format(printf, 4, 0)));
const struct dlh_sdk_driver *dlh__driver_find(const struct dlh_ctx *ctx, const char *name);
int dlh__driver_add(struct dlh_ctx *ctx, const struct dlh_sdk_driver *drv, void *dl_handle, const char *origin,
		    struct dlh_extack *ext);

/* dev.c */
struct dlh_dev *dlh__dev_find(const struct dlh_ctx *ctx, const char *handle);
struct dlh_port *dlh__port_find_netdev(const struct dlh_ctx *ctx, const char *netdev);
int dlh__dev_handle_parse(const char *s, size_t len, char *bus, char *name, struct dlh_extack *ext);
int dlh__dev_add(struct dlh_ctx *ctx, const char *handle, const struct dlh_sdk_driver *drv, const char *config,
		 struct dlh_extack *ext);
int dlh__dev_create(struct dlh_ctx *ctx, const char *handle, const struct dlh_sdk_driver *drv, struct dlh_sdk_bus *bus,
		    struct dlh_dev **out, struct dlh_extack *ext);
void dlh__dev_remove(struct dlh_dev *dev);
/* 0, or -ENODEV naming a removed device in @ext (its memory is kept until the caller lets the loop run). */
int dlh__dev_live(const struct dlh_dev *dev, struct dlh_extack *ext);
/* Frees what was removed since the last reap, unless something runs that may still hold it. */
void dlh__gone_reap(struct dlh_ctx *ctx);

/* port.c */
struct dlh_port *dlh__port_find(const struct dlh_dev *dev, uint32_t index);
void dlh__port_free_all(struct dlh_dev *dev);
void dlh__port_free(struct dlh_port *port);
void dlh__port_unlink(struct dlh_port *port);
int dlh__port_link(struct dlh_port *port);
int dlh__port_netdev_link(struct dlh_port *port);

/* op.c: around every driver op, one at a time per context, its result checked. */
/* Refuses a removed @dev or @port (may be NULL) with -ENODEV; frees what was removed before (dlh__gone_reap()). */
int dlh__op_begin(struct dlh_dev *dev, struct dlh_port *port, const char *op, const char *handle,
		  struct dlh_extack *ext);
int dlh__op_begin_reset(struct dlh_dev *dev, const char *op, const char *handle, struct dlh_extack *ext);
/* Sets *@slot to a copy of @p (NULL or all zero: nothing pending); true if it changed. Checks the driver's
 * values: a type outside the table or an unterminated message is taken as nothing and as "", logged by the caller. */
bool dlh__pending_set(struct dlh_pending **slot, const struct dlh_pending *p);
int dlh__op_end(struct dlh_ctx *ctx, const struct dlh_sdk_driver *drv, const char *handle, int err,
		struct dlh_extack *ext);
/* During a local op: queue the event; false when it is to go out now. */
bool dlh__op_defer(struct dlh_ctx *ctx, const struct dlh_event *ev);
/* During a local op on @dev: the port at @index the op unregistered, taken back for reuse. */
struct dlh_port *dlh__op_revive(struct dlh_dev *dev, uint32_t index);
void dlh__op_bury(struct dlh_port *port);

/* seq.c: a device as a sequence of planned changes leaves it */
struct dlh__view {
	struct dlh_seq *seq;
	struct dlh_dev *dev;
	struct dlh__list ports;	    /* phantoms, by index */
	struct dlh__htab by_index;  /* the phantoms' index_node */
	struct dlh__htab by_number; /* the phantoms' number_node, by dlh_port_number() */
	unsigned char *pool;	    /* the first copy's phantoms, in one block */
	size_t pool_size;
	bool unknown; /* a partial plan was taken: the ports after it are not known */
	struct dlh_change_req *steps;
	size_t nsteps, steps_cap;
};
/* The phantom at @index; NULL if none. */
struct dlh_port *dlh__view_port(const struct dlh__view *view, uint32_t index);
/* Plans a change on a port of the model or of a view (port.c); @come_attrs (may be NULL) gets the ports' attrs. */
int dlh__port_plan(struct dlh_port *port, const struct dlh_change_req *req, struct dlh_plan *plan,
		   struct dlh_sdk_port_attrs *come_attrs, struct dlh_extack *ext);
/* Whether a port of the model or of a view of @seq (other than @except's gone ports) holds @name. */
bool dlh__seq_name_taken(const struct dlh_seq *seq, const char *name, const struct dlh_sdk_plan *except);
/*
 * The numbers of @pattern that names in @seq's world have (its phantoms', and
 * the model's on devices it has no view of), made when first asked for and
 * kept as its phantoms come and go; NULL when out of memory.
 */
const struct dlh__name_bits *dlh__seq_name_bits(struct dlh_seq *seq, const char *pattern);

/* name.c */
int dlh__netdev_name_valid(const char *name);
typedef bool (*dlh__name_taken_fn)(const struct dlh_ctx *ctx, const char *name, const void *arg);
/* The next number at or above @n that may be free (a pick tries it with its taken function); NULL: n. */
typedef int (*dlh__name_next_fn)(const void *arg, int n);
/*
 * The lowest-numbered name of @pattern ("eth%d") that @taken says is free,
 * looked for from *@from (NULL: from 0), trying only the numbers @next says
 * may be free; *@from is then the number after it.
 */
int dlh__netdev_name_pick(const struct dlh_ctx *ctx, const char *pattern, dlh__name_taken_fn taken,
			  dlh__name_next_fn next, const void *arg, int *from, char *buf, size_t len,
			  struct dlh_extack *ext);
/* The number @name has in @pattern ("eth12" in "eth%d": 12), or -1 if it is not one of its names. */
int dlh__netdev_name_number(const char *pattern, const char *name);
/* @name came into (@in) or left the model's name table: the bits of every pattern it is a name of follow. */
void dlh__netdev_name_note(struct dlh_ctx *ctx, const char *name, bool in);
/* The model's bits of @pattern, made now if no bits are kept for it; NULL when out of memory. */
struct dlh__name_bits *dlh__netdev_name_bits(struct dlh_ctx *ctx, const char *pattern);
/* Sets (@in) or clears @n in @b; false when out of memory (the bits are dropped: @b is unused). */
bool dlh__name_bits_set(struct dlh__name_bits *b, int n, bool in);
/* The lowest number at or above @from whose bit is clear. */
int dlh__name_bits_free(const struct dlh__name_bits *b, int from);
void dlh__name_bits_fini(struct dlh__name_bits *b);

/* bus.c */
/* A card's faceplate for a bus-local driver's devices, as its profile says it (NULL, 0 for none). */
struct dlh__card {
	const char *name;
	const struct dlh_cage *cages;
	size_t n;
	const char *src; /* the profile, for messages */
};
int dlh__bus_attach(struct dlh_ctx *ctx, const struct dlh_sdk_driver *drv, const char *config,
		    const struct dlh__card *card, struct dlh_extack *ext);
void dlh__buses_detach(struct dlh_ctx *ctx);

/* faceplate.c */
/* The card's name and faceplate on the bus, before its driver attaches (names the card in @ext). */
int dlh__bus_card_set(struct dlh_sdk_bus *bus, const struct dlh__card *card, struct dlh_extack *ext);
/* The bus's card faceplate onto a device it adds. */
int dlh__dev_card_copy(struct dlh_dev *dev, const struct dlh_sdk_bus *bus, struct dlh_extack *ext);
/* Every port of the bus's devices has a cage (checked once the card is up); the message names the field. */
int dlh__bus_card_check(const struct dlh_sdk_bus *bus, const char *src, struct dlh_extack *ext);
void dlh__fill(const struct dlh_ctx *ctx, unsigned int what);
bool dlh__port_type_valid(enum dlh_port_type type);
bool dlh__port_flavour_valid(enum dlh_port_flavour flavour);
/* "DEV_HANDLE/INDEX" into @out (room for the device handle, '/', 10 digits and the NUL). */
void dlh__port_handle_format(char *out, const char *dev, uint32_t index);
#define DLH__FILL_NETDEV 4u
#define DLH__FILL_DEV	 8u
void dlh__fill_netdev(const struct dlh_ctx *ctx, const char *netdev);
/* Every port of @dev: read alone where its bus can (bus_fill_dev), else with every port. */
void dlh__fill_dev(const struct dlh_dev *dev);
bool dlh__fill_dev_capable(const struct dlh_ctx *ctx);
void dlh__fill_place(struct dlh_dev *dev, struct dlh_port *port);
/*
 * Before anything that reads a port's device beyond the port (a plan, an op,
 * the next port): a port found by netdev alone came without its neighbours,
 * so the device's ports are filled first. Cheap when nothing is pending.
 */
static inline void dlh__dev_whole(const struct dlh_dev *dev)
{
	dlh__fill_dev(dev);
}
/* Fills @what of one bus only (a walk streams the others). */
void dlh__fill_bus(struct dlh_ctx *ctx, struct dlh_sdk_bus *bus, unsigned int what);
/* The first port of the model as it stands, filling nothing. */
struct dlh_port *dlh__port_first_all_nofill(const struct dlh_ctx *ctx);

/* timer.c */
void dlh__timers_free_dev(struct dlh_dev *dev);

/* Calls an op if the driver's table is long enough to hold it. */
/* A bus driver relays another core (the kernel, a dlhald) unless it says it owns its hardware. */
#define DLH__RELAY(drv) (DLH__OP(drv, bus_attach) && !(DLH__OPVAL(drv, flags) & DLH_SDK_F_BUS_LOCAL))
/* Whether the driver's @what op (DLH_SDK_STAGED_*) stores its change for the next reset. */
#define DLH__STAGED(drv, what) ((DLH__OPVAL(drv, staged) & (what)) != 0)
/* A recognised kernel device's rules that make a type change themselves (mlx5 through mstflint). */
#define DLH__RULES_TYPE_OP(dev) ((dev)->rules && DLH__RELAY((dev)->drv) ? (dev)->rules->port_type_set : NULL)
/* Whether @dev's op of @what (DLH_SDK_STAGED_*) waits for a reset: its driver's, or its rules' in its place. */
#define DLH__DEV_STAGED(dev, what)                                                                                    \
	(DLH__RULES_TYPE_OP(dev) && (what) == DLH_SDK_STAGED_TYPE ? ((dev)->rules->staged & DLH_SDK_STAGED_TYPE) != 0 \
								  : DLH__STAGED((dev)->drv, what))
/* A data field of the ops table, 0 past what the driver's table holds. */
/* Recognising a kernel device (rules.c): the host's, which knows the profiles; NULL: none. */
extern int (*dlh__recognise_hook)(struct dlh_dev *dev, struct dlh_extack *ext);
void dlh__dev_rules(struct dlh_dev *dev);
int dlh__dev_rules_attach(struct dlh_dev *dev, const struct dlh_sdk_driver *drv, const char *linux_drv,
			  const char *config, const char *profile, struct dlh_extack *ext);
void dlh__dev_rules_catch_up(struct dlh_ctx *ctx);
void dlh__dev_rules_again(struct dlh_dev *dev);
void dlh__dev_rules_missing(struct dlh_dev *dev, const char *why);
int dlh__dev_rules_own(struct dlh_dev *dev, struct dlh_extack *ext);
void dlh__dev_rules_free(struct dlh_dev *dev);
void dlh__port_attrs_fill(const struct dlh_dev *dev, uint32_t index, struct dlh_sdk_port_attrs *attrs);
struct dlh__expect;
struct dlh__expect *dlh__rules_expect(struct dlh_port *port, const struct dlh_change_req *req);
void dlh__rules_check(struct dlh__expect *x, int err, struct dlh_extack *ext);

#define DLH__OPVAL(drv, f) ((drv)->ops && offsetof(struct dlh_sdk_ops, f) < (drv)->ops_size ? (drv)->ops->f : 0)
#define DLH__OP(drv, op)   ((drv)->ops && offsetof(struct dlh_sdk_ops, op) < (drv)->ops_size ? (drv)->ops->op : NULL)

#endif /* DLHAL_CORE_H */
