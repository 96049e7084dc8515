/* SPDX-License-Identifier: MIT */
/* The conformance kit's internals: the device under test, model texts, events, reporting. */
#ifndef DLHAL_CONFORM_INT_H
#define DLHAL_CONFORM_INT_H

#include <dlhal/conform.h>

#include <stddef.h>
#include <sys/types.h>

/* One event as a subscriber saw it: the port's line at that moment. */
struct kit_event {
	enum dlh_event_type type;
	char *handle;
	char *line;
};

/* The device under test, in this process or behind a dlhald the kit runs. */
struct kit_target {
	const struct dlh_conform_opts *opts;
	struct dlh_ctx *ctx;
	struct dlh_dev *dev;
	pid_t pid;
	char dir[64];
	char sock[128];
	char state[128];
	struct kit_event *ev;
	size_t nev, evcap;
};

struct kit_run {
	FILE *out;
	enum dlh_conform_format format;
	unsigned int n;
	struct dlh_conform_result res;
	char *diag; /* diagnostics of the check in progress */
	size_t dlen, dcap;
	unsigned int ndiag;
};

/* target.c */
int kit_target_open(struct kit_target *t, const struct dlh_conform_opts *opts, const char *states,
		    struct dlh_extack *ext);
void kit_target_close(struct kit_target *t);
/* Back to the profile's starting state (a new context or a new dlhald). */
int kit_target_reset(struct kit_target *t, struct dlh_extack *ext);
/* Closes and reopens with the driver's saved state, as a restart would. */
int kit_target_restart(struct kit_target *t, struct dlh_extack *ext);
struct dlh_port *kit_port(struct kit_target *t, const char *handle);
void kit_events_clear(struct kit_target *t);

/* model.c */
void kit_port_line(const struct dlh_port *port, char *buf, size_t len);
/* Every port of the device, one line each, sorted by index. */
char *kit_model(struct dlh_dev *dev);
/* 0 if the recorded events take @before to @after and concern only ports that changed; else -1, with a diagnostic. */
int kit_events_explain(struct kit_run *run, const char *what, const char *before, const char *after,
		       const struct kit_target *t);
/* The first line where two models differ, for a diagnostic. */
void kit_model_diff(struct kit_run *run, const char *what, const char *want, const char *got);

/* run.c */
void kit_diag(struct kit_run *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kit_report(struct kit_run *run, const char *name, const char *skip);

/* checks.c */
void kit_checks_run(struct kit_run *run, struct kit_target *t);
/* kernel.c: the kit against a kernel device (opts->kernel_dev) */
int kit_kernel_run(struct kit_run *run, const struct dlh_conform_opts *opts, struct dlh_extack *ext);

#endif /* DLHAL_CONFORM_INT_H */
