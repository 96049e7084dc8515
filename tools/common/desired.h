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
	unsigned int number;	     /* front-panel port number, with device */
	char netdev[DLH_NETDEV_NAME_MAX];
	unsigned int split; /* 0: not said; 1: whole; 2, 4...: split into */
	enum dlh_port_type type; /* NOTSET: not said */
	int match_line, split_line, type_line;
	int port_line;		 /* of its [Port] header; 0: none */
	unsigned int match_keys; /* keys its [Match] had */
};

struct desired {
	char path[512];
	struct desired_entry *e;
	size_t n;
};

/* Reads @path; on error, @why says "FILE:LINE: reason" and nothing is kept. */
int desired_load(struct desired *d, const char *path, char *why, size_t whylen);
void desired_free(struct desired *d);

enum step_kind { STEP_UNSPLIT, STEP_SPLIT, STEP_TYPE };

struct step {
	enum step_kind kind;
	char port[DLH_HANDLE_MAX]; /* the port to act on, as it is when the step runs */
	unsigned int count;
	enum dlh_port_type type;
	int line;    /* the file's line that asks for it */
	bool staged; /* the driver stores it for the device's next reset (a firmware option) */
};

/*
 * The steps from the devices as they are to the file: unsplits first (their
 * lanes are what the splits need), then splits, then types. Ports a step
 * will create are named by the handle they will have, from the driver's plan.
 * Entries that match nothing are noted in @notes (may be NULL). On a device
 * whose split is a firmware option for its next reset (ice), what is pending
 * counts as done: an entry already pending adds no step (no second staging,
 * no cycling to another option), is noted "pending until a reset" and
 * counted in @npending (may be NULL).
 */
int desired_steps(const struct desired *d, struct dlh_ctx *ctx, struct step **steps, size_t *nsteps, FILE *notes,
		  size_t *npending);

/* Runs @steps in order, printing each to @out ("done: ...", or "pending: ...: MESSAGE" for one
 * the driver stored for the next reset); stops at the first refusal (its message, with the file
 * and line, in @why) and returns its errno. */
int desired_apply(const struct desired *d, struct dlh_ctx *ctx, const struct step *steps, size_t nsteps, FILE *out,
		  char *why, size_t whylen);

void step_describe(const struct desired *d, const struct step *s, char *buf, size_t len);

#endif
