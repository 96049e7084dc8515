/* SPDX-License-Identifier: MIT */
/* libdlhal-desired's own: the set behind the opaque handle. */
#ifndef DLHAL_DESIRED_INTERNAL_H
#define DLHAL_DESIRED_INTERNAL_H

#include <dlhal/desired.h>

struct dlh_desired {
	char path[512]; /* a file's path, or the caller's name for the set */
	struct dlh_desired_entry *e;
	size_t n;
};

/* Appends a zeroed entry; NULL when out of memory. */
struct dlh_desired_entry *dlh__desired_grow(struct dlh_desired *d);

#endif
