/* SPDX-License-Identifier: MIT */
/* Test helpers: running programs, recording events, reading the model. */
#ifndef DLHAL_TEST_HELPERS_H
#define DLHAL_TEST_HELPERS_H

#include <dlhal/dlhal.h>
#include <stddef.h>
#include <sys/types.h>

struct run_result {
	int status; /* exit code, or 128 + signal */
	char *out;
	char *err;
};

/* What dl monitor prints for "port split eth0 2" then "port unsplit eth32" on sn2700,
 * in process or through dlhald alike. */
#define SPLIT_UNSPLIT_EVENTS                                                    \
	"[port,del] pci/0000:03:00.0/1: type eth netdev eth0\n"                 \
	"[port,new] pci/0000:03:00.0/1: type notset split_group 16\n"           \
	"[port,new] pci/0000:03:00.0/1: type eth netdev eth0 split_group 16\n"  \
	"[port,new] pci/0000:03:00.0/2: type notset split_group 16\n"           \
	"[port,new] pci/0000:03:00.0/2: type eth netdev eth32 split_group 16\n" \
	"[port,del] pci/0000:03:00.0/1: type eth netdev eth0 split_group 16\n"  \
	"[port,del] pci/0000:03:00.0/2: type eth netdev eth32 split_group 16\n" \
	"[port,new] pci/0000:03:00.0/1: type notset\n"                          \
	"[port,new] pci/0000:03:00.0/1: type eth netdev eth0\n"

/* Runs argv[0] with argv, feeding @input (may be NULL) on stdin. */
void run_argv(struct run_result *r, const char *const *argv, const char *input);
/* Runs the dl under test (from $DL) with words split on spaces. */
void run_dl(struct run_result *r, const char *args, const char *input);
void run_free(struct run_result *r);

/* Starts "dl -v ARGS... monitor" (argv without the program), returns once it says it is
 * watching; *out reads its standard output. */
pid_t monitor_spawn(const char *const *args, int *out);

/* Events recorded as "port,new pci/0000:03:00.0/1 eth0" lines. */
struct recorder {
	char *log;
	size_t len, cap;
	size_t count;
};
void recorder_attach(struct recorder *rec, struct dlh_ctx *ctx);
void recorder_clear(struct recorder *rec);

/* One line per port, in listing order: "handle type desired netdev|- ibdev|- split group lanes module lane". */
char *model_dump(const struct dlh_ctx *ctx);

/* Writes @json to a new temporary .json file; returns its path (free it, unlink it). */
char *profile_tmp(const char *json);

/* A context with the built-in drivers registered and @profiles (comma-separated) loaded. */
struct dlh_ctx *ctx_with(const char *profiles);

/* The dl to run: $DL, or under valgrind $DL_VALGRIND (the dynamically linked dl-dynamic, whose
 * allocations memcheck can see; a static dl has no malloc for it to replace). */
const char *dl_path(void);

#endif
