/* SPDX-License-Identifier: MIT */
/* Shared state of the dl tool. */
#ifndef DL_H
#define DL_H

#include <dlhal/dlhal.h>
#include <jansson.h>
#include "jsonw.h"
#include <stdbool.h>
#include <stdio.h>

/*
 * Exit codes: as iproute2, 1 for a failed operation, 2 for bad usage; 3 for a
 * dry run that could not plan everything (the kernel's devlink has no dry
 * run: its core checks what it knows, the driver decides when it runs); 4
 * for a change a kernel device made otherwise than its vendor's rules
 * planned (done, but a rule is wrong: dlh_ctx_plan_misses()).
 */
enum { DL_OK = 0, DL_EOP = 1, DL_EUSAGE = 2, DL_EPARTIAL = 3, DL_EMISS = 4 };

struct dl {
	/* options */
	bool verbose, details, json, pretty, force, kernel;
	const char *sim;
	const char *socket; /* -s: a dlhald's socket */
	const char *batch;
	/* a monitor of one device, before the context is made: the kernel mirrors that one alone */
	const char *kernel_scope;
	/* state */
	struct dlh_ctx *ctx;
	/* A backend that could not be had: every later command of a batch fails the same way (a batch
	 * must not go on against a context without it, which looks like a machine without ports). */
	char ctx_err[600];
	int ctx_ret;
	struct jsonw jw; /* the JSON document of the current command */
	bool in_batch;
	bool monitoring; /* a batch's "monitor" line: later lines' events are printed */
	bool closing;	 /* tearing down: the devices going away are not events to print */
	int argc;
	char **argv;
};

/* dl.c */
int dl_ctx(struct dl *dl, struct dlh_ctx **ctx);
const char *dl_arg(struct dl *dl);
const char *dl_shift(struct dl *dl);
bool dl_match(const char *word, const char *cmd);
int dl_usage_err(void (*usage)(FILE *), const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int dl_op_done(int err, const struct dlh_extack *ext);
int dl_change_done(struct dl *dl, unsigned long misses_before, int err, const struct dlh_extack *ext);
int dl_op_err(int err, const struct dlh_extack *ext);
int dl_lookup_err(int err, const struct dlh_extack *ext, void (*usage)(FILE *));

/* dev.c, port.c, monitor.c: one per object */
int cmd_dev(struct dl *dl);
void dev_usage(FILE *f);
int cmd_port(struct dl *dl);
void port_usage(FILE *f);
int cmd_monitor(struct dl *dl);
void monitor_usage(FILE *f);
int cmd_sim(struct dl *dl);
int cmd_apply(struct dl *dl);
int cmd_panel(struct dl *dl);
void panel_usage(FILE *f);
void apply_usage(FILE *f);
void sim_usage(FILE *f);

/* out.c */
void out_begin(struct dl *dl, const char *object);
void out_begin_event(struct dl *dl, const char *object, const char *action);
void out_resync(struct dl *dl, const char *bus);
void out_lost(struct dl *dl, const char *bus, const char *why);
void out_miss(struct dl *dl, const struct dlh_dev *dev, const char *why);
void out_end(struct dl *dl);
void out_reload(struct dl *dl, uint32_t done);
void out_dev(struct dl *dl, const struct dlh_dev *dev);
void out_info(struct dl *dl, const struct dlh_dev *dev, const struct dlh_dev_info *info);
void out_port(struct dl *dl, const struct dlh_port *port);
/* -j: a port as a plan leaves it (a sequence's phantom): devlink's members, never -d's. */
void out_port_planned(struct dl *dl, const struct dlh_port *port);
void out_sim(struct dl *dl, const char *handle, const char *key, const char *value);
/* -j: dl's JSON writer as libdlhal's writer, for the records the library writes (dlh_plan_write()). */
void out_writer(struct dl *dl, struct dlh_writer *w);
void out_plan(struct dl *dl, const char *change, const struct dlh_port *port, unsigned int count, const char *type,
	      const struct dlh_plan *plan, const char *why);
/* -j: a refused plan's document ("accepted": false, "error"); text says nothing (stderr has it). */
void out_plan_refused(struct dl *dl, const char *change, const struct dlh_port *port, unsigned int count,
		      const char *type, const struct dlh_extack *ext);

#endif
