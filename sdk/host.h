/* SPDX-License-Identifier: MIT */
/* The embedded host's internals that a host program sets (dl, dlhald). */
#ifndef DLHAL_SDK_HOST_H
#define DLHAL_SDK_HOST_H

#include <jansson.h>
#include <stddef.h>

struct dlh_cage;
struct dlh_ctx;
struct dlh_extack;

/*
 * Called instead of dlopen() when set. A host linked statically (dl: no
 * dynamic loader at start, docs/benchmarks.md) cannot bind a module to its
 * own dlh_ symbols, so it sets this to run the command again in its
 * dynamically linked twin: the hook returns only on failure, with the
 * extack set.
 */
extern int (*dlh__module_load_hook)(const char *path, struct dlh_extack *ext);

/* Shared by the host's files (host.c, recognise.c). */
int dlh__driver_autoload(struct dlh_ctx *ctx, const char *name, struct dlh_extack *ext);
int dlh__profile_open(const char *profile, json_t **root, char *src, size_t srclen, struct dlh_extack *ext);
int dlh__faceplate_parse(json_t *fp, const char *src, struct dlh_cage **out, size_t *n, struct dlh_extack *ext);
int dlh__profile_kernel_check(json_t *root, const char *src, struct dlh_extack *ext);

#endif
