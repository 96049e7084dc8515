/* SPDX-License-Identifier: MIT */
/* The embedded host's internals that a host program sets (dl, dlhald). */
#ifndef DLHAL_SDK_HOST_H
#define DLHAL_SDK_HOST_H

struct dlh_extack;

/*
 * Called instead of dlopen() when set. A host linked statically (dl: no
 * dynamic loader at start, docs/benchmarks.md) cannot bind a module to its
 * own dlh_ symbols, so it sets this to run the command again in its
 * dynamically linked twin: the hook returns only on failure, with the
 * extack set.
 */
extern int (*dlh__module_load_hook)(const char *path, struct dlh_extack *ext);

#endif
