/* SPDX-License-Identifier: MIT */
/**
 * @file desired.h
 * @brief Desired state: the split count and type wanted per front-panel port,
 *        the steps that take the devices there, and applying them.
 *
 * What `dl apply`, `dlhald --desired`, the Lua binding's `ctx:apply()` and the
 * metrics' drift gauge share (docs/desired-state.md), in libdlhal-desired.
 * A set of entries (struct dlh_desired) comes from an INI file
 * (dlh_desired_load(), the only part that needs libinih) or from the caller
 * (dlh_desired_new() and dlh_desired_entry_add(), each entry with an origin
 * label such as "ports[3]" that every message uses to name it).
 *
 * dlh_desired_plan() plans the set whole, on the ports each step leaves for
 * the next (struct dlh_seq): unsplits first, then splits, then types. It finds
 * conflicts between entries and the drivers' refusals before anything runs.
 * dlh_desired_apply() runs the plan, planning again as it goes where a
 * backend cannot plan whole (the kernel's devlink). A plan and its steps are
 * plain records the caller reads; dlh_desired_plan_free() frees what they hold.
 *
 * A set is not tied to a context: the same set may be planned on several.
 * Like the context, nothing here is thread-safe.
 */
#ifndef DLHAL_DESIRED_H
#define DLHAL_DESIRED_H

#include <dlhal/dlhal.h>
#include <stdbool.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most entries a set holds. */
#define DLH_DESIRED_ENTRIES_MAX 1024
/** Longest origin label plus its NUL. */
#define DLH_DESIRED_ORIGIN_MAX 64

/**
 * One entry: a port matched by device and front-panel number (a split does
 * not change it) or by netdev name, and what it should be.
 */
struct dlh_desired_entry {
	char device[DLH_HANDLE_MAX];	  /**< BUS/DEV; "" when matched by netdev */
	unsigned int number;		  /**< front-panel port number, with device (0 is one: an E810's PF 0) */
	bool has_number;		  /**< number is given */
	char netdev[DLH_NETDEV_NAME_MAX]; /**< netdev name; "" when matched by device and number */
	unsigned int split;		  /**< 0: not said; 1: whole; 2, 4...: split into */
	enum dlh_port_type type;	  /**< DLH_PORT_TYPE_NOTSET: not said */
	/* Lines of a file's entry (0 for one the caller added); a repeated key names the first. */
	int match_line;		 /**< of its [Match]'s first key */
	int split_line;		 /**< of Split= */
	int type_line;		 /**< of Type= */
	int device_line;	 /**< of Device= */
	int number_line;	 /**< of Number= */
	int netdev_line;	 /**< of Netdev= */
	int port_line;		 /**< of its [Port] header (0: none) */
	unsigned int match_keys; /**< keys its [Match] had */
	/** The caller's label for it ("ports[3]"); "" for a file's entry, named FILE:LINE. */
	char origin[DLH_DESIRED_ORIGIN_MAX];
};

/** A set of entries: a file's, or the caller's (opaque). */
struct dlh_desired;

/**
 * @brief Reads a desired-state file.
 * @param path the file; "-" reads standard input
 * @param out  the set, on success (the caller frees it with dlh_desired_free())
 * @param why  on error, "FILE:LINE: reason" or "FILE: reason"
 * @param whylen size of @p why
 * @return 0; -ENOENT, -EACCES, -EISDIR... (the file cannot be read), -EINVAL
 *         (not a valid file: the first error, with its line), -ENOMEM
 */
DLH_EXPORT int dlh_desired_load(const char *path, struct dlh_desired **out, char *why, size_t whylen);

/**
 * @brief Reads a set from JSON: one object with one member,
 *        {"NAME": [ENTRY, ...]}, each entry an object of "device", "number",
 *        "netdev", "split" and "type" (null or absent: not said), as a YAML
 *        list of ports renders (the Ansible module's ports).
 * Entry I is named "NAME[I]" in every message; a refusal names the field too
 * ("ports[1].split: 65: expected 1 (whole) to 64"). A number or split may be
 * an integer or a string of up to 6 digits; a boolean is refused. Each entry
 * is then checked as dlh_desired_entry_add() checks it.
 * @param path the file; "-" reads standard input
 * @param out  the set, named NAME, on success (free with dlh_desired_free())
 * @param why  on error, "FILE:LINE:COLUMN: reason" (not JSON), "FILE: reason",
 *             or "NAME[I].FIELD: reason"
 * @param whylen size of @p why
 * @return 0; -ENOENT, -EACCES, -EISDIR... (the file cannot be read), -EINVAL
 *         (not such a set: the first error), -ENOSPC (more than
 *         #DLH_DESIRED_ENTRIES_MAX entries), -ENOMEM
 */
DLH_EXPORT int dlh_desired_load_json(const char *path, struct dlh_desired **out, char *why, size_t whylen);

/**
 * @brief An empty set, for dlh_desired_entry_add().
 * @param name what messages call the set where an entry has no origin ("entry")
 * @param out  the set (the caller frees it with dlh_desired_free())
 * @return 0, or -ENOMEM
 */
DLH_EXPORT int dlh_desired_new(const char *name, struct dlh_desired **out);

/**
 * @brief Adds a copy of @p e, named @p origin in every message about it.
 *
 * The entry is checked for what a file's reader refuses too: a device and a
 * number, or a netdev; something said (split and/or type); a split of 1 to
 * 64, a number up to 65535, a type other than NOTSET where given. How the
 * device and netdev are spelled is not checked: one that names nothing is
 * unmet when planned ("matches no port").
 * @param d      the set
 * @param e      the entry; its line fields and origin are ignored
 * @param origin a label such as "ports[3]" or "entry:1": printable, shorter
 *               than #DLH_DESIRED_ORIGIN_MAX
 * @param ext    why it was refused, naming @p origin, or "ORIGIN.FIELD" for
 *               one field, as its object: "give device and number, or
 *               netdev", "says nothing: give split and/or type", "65:
 *               expected 1 (whole) to 64" (split), ...
 * @return 0; -EINVAL (a bad entry or origin, @p d unchanged), -ENOSPC (the set holds
 *         #DLH_DESIRED_ENTRIES_MAX), -ENOMEM
 */
DLH_EXPORT int dlh_desired_entry_add(struct dlh_desired *d, const struct dlh_desired_entry *e, const char *origin,
				     struct dlh_extack *ext);

/** @brief Frees @p d (NULL is allowed). */
DLH_EXPORT void dlh_desired_free(struct dlh_desired *d);

/** @brief The set's name: the file's path, or the name given to dlh_desired_new(); "" for NULL. */
DLH_EXPORT const char *dlh_desired_name(const struct dlh_desired *d);
/** @brief How many entries @p d holds. */
DLH_EXPORT size_t dlh_desired_count(const struct dlh_desired *d);
/** @brief Entry @p i (0-based), or NULL past the end; valid until @p d changes or is freed. */
DLH_EXPORT const struct dlh_desired_entry *dlh_desired_entry(const struct dlh_desired *d, size_t i);

/**
 * @brief Where entry @p i says something: its origin, or "FILE:LINE" for a
 *        file's entry at @p line (e.g. its split_line); "" for a NULL set.
 */
DLH_EXPORT void dlh_desired_where(const struct dlh_desired *d, size_t i, int line, char *buf, size_t len);

/** What became of a step. */
enum dlh_desired_step_result {
	DLH_DESIRED_STEP_NOT_RUN,
	DLH_DESIRED_STEP_DONE,
	DLH_DESIRED_STEP_PENDING, /**< the driver stored it for the device's next reset */
	DLH_DESIRED_STEP_REFUSED,
	DLH_DESIRED_STEP_UNDONE,     /**< done, then undone (atomic) */
	DLH_DESIRED_STEP_UNDO_FAILED /**< done, and its undo was refused: left as it is */
};

/** A port's type before a type step, for an atomic run to put back. */
struct dlh_desired_step_was {
	uint32_t index;		 /**< the port's index */
	enum dlh_port_type type; /**< its (desired) type then */
};

/** One step of a plan. */
struct dlh_desired_step {
	enum dlh_change kind;	   /**< what it does (a plan runs unsplits, then splits, then types) */
	char port[DLH_HANDLE_MAX]; /**< the port to act on: a handle (unsplit), or "BUS/DEV#NUMBER" */
	unsigned int count;	   /**< a split's count */
	enum dlh_port_type type;   /**< a type step's type */
	int line;		   /**< the file's line that asks for it (0: an entry with an origin) */
	size_t entry;		   /**< the entry (0-based) that asks for it */
	bool staged;		   /**< the driver stores it for the device's next reset (a firmware option) */
	/* from planning the set whole (dlh_desired_plan()) */
	bool partial;		      /**< the backend cannot say what it does (the kernel's core relays it) */
	char why[DLH_EXTACK_MSG_MAX]; /**< a partial step's rules say why they cannot decide, or empty */
	struct dlh_plan *plans;	      /**< a plan per port it changes (a type step may change several) */
	size_t nplans;		      /**< entries of @ref plans */
	/* from running it (dlh_desired_apply()) */
	enum dlh_desired_step_result result;		   /**< what became of it */
	double seconds;					   /**< how long it ran */
	char msg[DLH_EXTACK_MSG_MAX + DLH_HANDLE_MAX + 8]; /**< the refusal, or a staged op's word */
	unsigned int was_count;				   /**< the split count before it */
	struct dlh_desired_step_was *was;		   /**< the types before it (a type step) */
	size_t nwas;					   /**< entries of @ref was */
};

/** Why a set cannot be met now, found by planning it whole before anything runs. */
enum dlh_desired_status {
	DLH_DESIRED_OK,	      /**< every step would be taken (or the set is met) */
	DLH_DESIRED_REFUSED,  /**< a step is refused on its own (the driver's rules) */
	DLH_DESIRED_CONFLICT, /**< a step is refused after another entry's step: the entries conflict */
	DLH_DESIRED_UNMET,    /**< an entry matches no port, or would not be met after the steps */
};

/** An entry that is not met, and why ("matches no port", "would not be met by the steps"). */
struct dlh_desired_unmet {
	size_t entry;  /**< 0-based */
	char why[160]; /**< the reason */
};

/** A plan of a whole set, and after dlh_desired_apply() what became of it. */
struct dlh_desired_plan {
	struct dlh_desired_step *steps;	 /**< in the order they run */
	size_t nsteps;			 /**< entries of @ref steps */
	size_t npending;		 /**< entries already pending until a reset */
	bool partial;			 /**< a step is planned partially: a dry run cannot say it would be done */
	enum dlh_desired_status status;	 /**< whether the set can be met */
	size_t entry;			 /**< the entry at fault */
	size_t other;			 /**< with a conflict, the other entry */
	int line;			 /**< the line of @ref entry (0: an entry with an origin) */
	int other_line;			 /**< the line of @ref other */
	char why[1024];			 /**< "WHERE: ..." naming the entry (both, for a conflict) and the reason */
	struct dlh_desired_unmet *unmet; /**< entries unmet (DLH_DESIRED_UNMET), each also noted */
	size_t nunmet;			 /**< entries of @ref unmet */
	/** Entries on a device that an earlier step leaves unknown (the kernel relays its plans):
	 *  planned only once the steps before them have run (dlh_desired_apply() plans again then). */
	size_t *deferred;
	size_t ndeferred; /**< entries of @ref deferred */
	bool replanned;	  /**< dlh_desired_apply() planned it again as it ran: its unmet entries are new */
};

/**
 * @brief Plans @p d whole on @p ctx, as the sequence `dl apply` runs.
 *
 * Unsplits first (their lanes are what the splits need), then splits, then
 * types, each step found and planned on the ports the steps before it leave
 * (struct dlh_seq), with the drivers' plan ops. A step refused after
 * another's is a conflict, named with both entries; refused on its own, a
 * refusal. An entry that matches no port, or that the steps would not meet,
 * is unmet (noted on @p notes). On a device whose split is a firmware option
 * for its next reset (ice), what is pending counts as done: an entry already
 * pending adds no step (no second staging, no cycling to another option), is
 * noted "pending until a reset" and counted.
 * @param notes where each unmet or pending entry is noted, a line each (may be NULL)
 * @return 0, or -ENOMEM; @p p holds the steps and the status either way
 *         (free with dlh_desired_plan_free())
 */
DLH_EXPORT int dlh_desired_plan(const struct dlh_desired *d, struct dlh_ctx *ctx, struct dlh_desired_plan *p,
				FILE *notes);

/** @brief Called by dlh_desired_plan_ports() with each port and the caller's @p arg. */
typedef void (*dlh_desired_port_fn)(void *arg, const struct dlh_port *port);

/**
 * @brief Plans @p d as dlh_desired_plan() does, then calls @p fn with every
 *        port of each device a step acts on, as the steps would leave them:
 *        what a dry run predicts. Devices come in the order of their first
 *        step, ports in index order. A device whose ports the backend cannot
 *        plan (a partial step: dlh_seq_known()) comes with its ports as they
 *        are; a staged step leaves its device's ports as they are until the
 *        reset. The ports are valid only during the call and belong to no
 *        device's list: read them with the dlh_port_*() accessors only.
 * @return as dlh_desired_plan(); @p fn is not called on an error
 */
DLH_EXPORT int dlh_desired_plan_ports(const struct dlh_desired *d, struct dlh_ctx *ctx, struct dlh_desired_plan *p,
				      FILE *notes, dlh_desired_port_fn fn, void *arg);

/** @brief Frees what @p p holds and zeroes it (a zeroed plan is allowed). */
DLH_EXPORT void dlh_desired_plan_free(struct dlh_desired_plan *p);

/**
 * @brief Plans a client's change in @p seq as dlh_seq_change() does, and
 *        refuses it when a daemon keeping @p d would undo it.
 *
 * A daemon that keeps a set (dlhald --desired) owns the split and the type
 * of every port an entry names: a change that leaves an entry unmet that
 * was met before it (in @p seq, after the changes planned there before) is
 * refused, whoever asks, so that nothing reports done what the daemon
 * undoes a moment later. Changes that keep every entry as it is (another
 * port, or the entry's own values) are planned as usual. A staged change
 * (stored for the next reset) is refused when it would store another split
 * count for an entry's port. A partial plan (what a kernel device will do
 * is not known) is not refused.
 *
 * @param d   the set kept, or NULL (nothing is owned)
 * @param seq the caller's sequence; the change is planned into it
 * @return 0; -EBUSY with @p ext "Would undo ENTRY (FILE:LINE), which dlhald
 *         keeps (--desired FILE): change the file and reload dlhald (SIGHUP)";
 *         -ENOMEM; otherwise dlh_seq_change()'s refusal.
 */
DLH_EXPORT int dlh_desired_seq_change(const struct dlh_desired *d, struct dlh_ctx *ctx, struct dlh_seq *seq,
				      struct dlh_dev *dev, const struct dlh_change_req *req, struct dlh_plan *plan,
				      struct dlh_extack *ext);

/**
 * @brief Runs a plan's steps in order.
 *
 * Each step is printed to @p out: "done: ...", or "pending: ...: MESSAGE"
 * for one the driver stored for the next reset. The run stops at the first
 * refusal (its message, with its entry's origin, in @p why). With @p atomic, the
 * steps done are then undone in reverse order ("undone: ..."); a step whose
 * undo fails is named ("undo failed: ...") and the rest are still tried.
 *
 * A plan that was not whole (partial steps, deferred entries) is planned
 * again on the devices as the steps left them, and the deferred entries'
 * steps run (added to @p p), until none is left. Then every entry is checked
 * against what the backend reports: one not met (an entry whose own steps
 * ran and that still wants one is not acted on again) makes @p p
 * DLH_DESIRED_UNMET, its entries in @p p->unmet, though 0 is returned (no step
 * was refused). A refusal or conflict found by planning again is returned as
 * a refusal.
 * @return 0, or the refused step's negative errno (-ENOMEM: out of memory)
 */
DLH_EXPORT int dlh_desired_apply(const struct dlh_desired *d, struct dlh_ctx *ctx, struct dlh_desired_plan *p,
				 bool atomic, FILE *out, char *why, size_t whylen);

/**
 * @brief Whether entry @p i is not met on the devices @p p was planned on:
 *        a step of its own to run (not one staged for a reset), unmet, or a
 *        set refused or conflicting as a whole (the drift the metrics show).
 */
DLH_EXPORT bool dlh_desired_plan_drifts(const struct dlh_desired_plan *p, size_t i);

/**
 * @brief The unmet entries of @p p in one line, as many as @p len holds:
 *        "WHERE: why; WHERE: why; and N more" (empty when none is unmet).
 */
DLH_EXPORT void dlh_desired_plan_unmet_str(const struct dlh_desired *d, const struct dlh_desired_plan *p, char *buf,
					   size_t len);

/** @brief After an atomic dlh_desired_apply() that failed: whether every step done was undone. */
DLH_EXPORT bool dlh_desired_plan_undone(const struct dlh_desired_plan *p);

/**
 * @brief What became of a whole run (a dry run, a run, with --reload its
 *        rounds), for dlh_desired_outcome_write(): the caller's verdict and
 *        counts, and the plan at fault.
 */
struct dlh_desired_outcome {
	const char *result;		       /**< "nothing", "would", "done", "partial", "refused", "conflict",
						    "unmet", "undone", "undo_failed", "error" */
	bool changed;			       /**< a port changed (or a device was reset) */
	bool partial;			       /**< a step could not be planned whole */
	size_t npending;		       /**< entries pending until a reset */
	size_t reloaded;		       /**< devices reset */
	const struct dlh_desired_plan *failed; /**< the plan that refused, conflicted or left entries unmet */
	const size_t *deferred;		       /**< the entries a dry run could not plan */
	size_t ndeferred;		       /**< entries of @ref deferred */
	const char *error;		       /**< the run's error, or NULL or "" */
};

/**
 * @brief Writes step @p s as an object of the array @p w has open: "change",
 *        "device", "number" (or "port" for an unsplit by handle), "count",
 *        "type", "line", "entry", "staged", "partial", "why", "result"
 *        ("would" or "partial" in a dry run, else what became of it),
 *        "message" and "plans" (each as dlh_plan_write()): a step of
 *        `dl -j apply`'s report.
 * @param dry the step was planned, not run
 */
DLH_EXPORT void dlh_desired_step_write(const struct dlh_desired *d, const struct dlh_desired_step *s, bool dry,
				       const struct dlh_writer *w);

/**
 * @brief Writes @p o's members into the object @p w has open: "result",
 *        "changed", "partial", "pending", "reloaded", "unmet" (entry, line,
 *        reason), "deferred" (entry, line), "conflict" (entries, lines) or
 *        "refused" (entry, line) from the plan at fault, and "error": the
 *        end of `dl -j apply`'s report.
 * @param d the set (NULL when it could not be read: no entry is named)
 */
DLH_EXPORT void dlh_desired_outcome_write(const struct dlh_desired *d, const struct dlh_desired_outcome *o,
					  const struct dlh_writer *w);

/** @brief A step as a line says it: "split dlhal/0000:03:00.0 port 17 into 2 (FILE:LINE)". */
DLH_EXPORT void dlh_desired_step_describe(const struct dlh_desired *d, const struct dlh_desired_step *s, char *buf,
					  size_t len);
/** @brief What entry @p i asks for: "dlhal/0000:03:00.0 port 1: split into 2, type eth (FILE:LINE)". */
DLH_EXPORT void dlh_desired_entry_describe(const struct dlh_desired *d, size_t i, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
