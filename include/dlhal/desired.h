/* SPDX-License-Identifier: MIT */
/*
 * Desired state (docs/desired-state.md): a file of [Match]/[Port] pairs that
 * says, per front-panel port, the split count and/or type wanted; the steps
 * that take the devices there; applying them in a safe order. Shared by
 * `dl apply` and `dlhald --desired`.
 */
#ifndef DLHAL_DESIRED_H
#define DLHAL_DESIRED_H

#include <dlhal/dlhal.h>
#include <stdbool.h>
#include <stdio.h>

#define DESIRED_ENTRIES_MAX 1024

/* One [Match] + [Port] pair. A port is matched by device and front-panel
 * number (a split does not change it) or by netdev name. */
struct desired_entry {
	char device[DLH_HANDLE_MAX]; /* "" when matched by netdev */
	unsigned int number;	     /* front-panel port number, with device (0 is one: an E810's PF 0) */
	bool has_number;
	char netdev[DLH_NETDEV_NAME_MAX];
	unsigned int split;	 /* 0: not said; 1: whole; 2, 4...: split into */
	enum dlh_port_type type; /* NOTSET: not said */
	int match_line, split_line, type_line;
	int device_line, number_line, netdev_line; /* where each key was said: a repeat names the first */
	int port_line;				   /* of its [Port] header; 0: none */
	unsigned int match_keys;		   /* keys its [Match] had */
};

struct desired {
	char path[512];
	struct desired_entry *e;
	size_t n;
};

/* Reads @path; on error, @why says "FILE:LINE: reason" and nothing is kept. */
int desired_load(struct desired *d, const char *path, char *why, size_t whylen);
void desired_free(struct desired *d);

enum desired_step_kind { DESIRED_STEP_UNSPLIT, DESIRED_STEP_SPLIT, DESIRED_STEP_TYPE };

/* What became of a step. */
enum desired_step_result {
	DESIRED_STEP_NOT_RUN,
	DESIRED_STEP_DONE,
	DESIRED_STEP_PENDING,
	DESIRED_STEP_REFUSED,
	DESIRED_STEP_UNDONE,
	DESIRED_STEP_UNDO_FAILED
};

/* A port's type before a type step, for --atomic to put back. */
struct desired_step_was {
	uint32_t index;
	enum dlh_port_type type;
};

struct desired_step {
	enum desired_step_kind kind;
	char port[DLH_HANDLE_MAX]; /* the port to act on: a handle (unsplit), or "BUS/DEV#NUMBER" */
	unsigned int count;
	enum dlh_port_type type;
	int line;     /* the file's line that asks for it */
	size_t entry; /* the entry (0-based) that asks for it */
	bool staged;  /* the driver stores it for the device's next reset (a firmware option) */
	/* from planning the file whole (desired_plan) */
	bool partial;		      /* the backend cannot say what it does (the kernel's core relays it) */
	char why[DLH_EXTACK_MSG_MAX]; /* a partial step's rules say why they cannot decide, or empty */
	struct dlh_plan *plans;	      /* a plan per port it changes (a type step may change several) */
	size_t nplans;
	/* from running it (desired_apply) */
	enum desired_step_result result;
	double seconds;					   /* how long it ran */
	char msg[DLH_EXTACK_MSG_MAX + DLH_HANDLE_MAX + 8]; /* the refusal, or a staged op's word */
	unsigned int was_count;				   /* the split count before it */
	struct desired_step_was *was;			   /* the types before it (a type step) */
	size_t nwas;
};

/* Why a file cannot be met now, found by planning it whole before anything runs. */
enum desired_status {
	DESIRED_OK,	  /* every step would be taken (or the file is met) */
	DESIRED_REFUSED,  /* a step is refused on its own (the driver's rules) */
	DESIRED_CONFLICT, /* a step is refused after another entry's step: the entries conflict */
	DESIRED_UNMET,	  /* an entry matches no port, or would not be met after the steps */
};

struct desired_plan {
	struct desired_step *steps;
	size_t nsteps;
	size_t npending; /* entries already pending until a reset */
	bool partial;	 /* a step is planned partially: a dry run cannot say it would be done */
	enum desired_status status;
	size_t entry, other; /* the entry at fault; with a conflict, the other entry */
	int line, other_line;
	char why[1024]; /* "FILE:LINE: ..." naming the entry (both, for a conflict) and the reason */
	struct desired_unmet {
		size_t entry;
		char why[160]; /* "matches no port", "would not be met by the steps" */
	} * unmet;	       /* entries unmet (DESIRED_UNMET), each also noted */
	size_t nunmet;
	/* Entries on a device that an earlier step leaves unknown (the kernel relays its plans): planned
	 * only once the steps before them have run (desired_apply plans the file again then). */
	size_t *deferred;
	size_t ndeferred;
	bool replanned; /* desired_apply planned it again as it ran: its unmet entries are new */
};

/*
 * Plans the file whole, as the sequence `dl apply` runs: unsplits first
 * (their lanes are what the splits need), then splits, then types, each step
 * found and planned on the ports the steps before it leave (struct dlh_seq),
 * with the drivers' plan ops. A step refused after another's is a conflict,
 * named with both lines; refused on its own, a refusal. An entry that
 * matches no port, or that the steps would not meet, is unmet (noted on
 * @notes, which may be NULL). On a device whose split is a firmware option
 * for its next reset (ice), what is pending counts as done: an entry already
 * pending adds no step (no second staging, no cycling to another option), is
 * noted "pending until a reset" and counted. Returns 0 or -ENOMEM; @p holds
 * the steps and the status either way (free with desired_plan_free()).
 */
int desired_plan(const struct desired *d, struct dlh_ctx *ctx, struct desired_plan *p, FILE *notes);
void desired_plan_free(struct desired_plan *p);

/*
 * Runs the plan's steps in order, printing each to @out (may be NULL):
 * "done: ...", or "pending: ...: MESSAGE" for one the driver stored for the
 * next reset. Stops at the first refusal (its message, with the file and
 * line, in @why) and returns its errno. With @atomic, the steps done are then
 * undone in reverse order ("undone: ..."); a step whose undo fails is named
 * ("Error: undo: ...") and the rest are still tried.
 *
 * A plan that was not whole (partial steps, deferred entries) is planned
 * again on the devices as the steps left them, and the deferred entries'
 * steps run (added to @p), until none is left; then every entry is checked
 * against what the backend reports: one not met (an entry whose own steps
 * ran and that still wants one is not acted on again) makes @p
 * DESIRED_UNMET, its entries in @p->unmet, though 0 is returned (no step was
 * refused). A refusal or conflict found by planning again is returned as a
 * refusal.
 */
int desired_apply(const struct desired *d, struct dlh_ctx *ctx, struct desired_plan *p, bool atomic, FILE *out,
		  char *why, size_t whylen);

void desired_step_describe(const struct desired *d, const struct desired_step *s, char *buf, size_t len);
/* What entry @i asks for: "dlhal/0000:03:00.0 port 1: split into 2, type eth (FILE:LINE)". */
void desired_entry_describe(const struct desired *d, size_t i, char *buf, size_t len);

#endif
