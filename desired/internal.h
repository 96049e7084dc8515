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

/*
 * What an entry's fields must be, in the words of a refusal (after
 * "ORIGIN.FIELD: "): the caller's entries and a JSON file's alike.
 */
#define DLH__DESIRED_NUMBER_RANGE "%lld is not a front-panel port number, 0 to 65535"
#define DLH__DESIRED_SPLIT_RANGE  "%lld: expected 1 (whole) to 64"
#define DLH__DESIRED_TYPE	  "expected eth, ib or auto"
#define DLH__DESIRED_DEVICE	  "\"%s\": expected BUS/DEV, as pci/0000:03:00.0"
#define DLH__DESIRED_NETDEV	  "\"%s\" is not a netdev name"

/* BUS/DEV: one slash, neither side empty, nothing blank; shorter than DLH_HANDLE_MAX. */
bool dlh__desired_handle_ok(const char *v);
/* A netdev name: 1 to 15 bytes, no '/', ':' or blank. */
bool dlh__desired_netdev_ok(const char *v);

/* Refuses an entry: -EINVAL, @ext naming "ORIGIN" or "ORIGIN.FIELD" (@field NULL: the entry). */
int dlh__desired_refuse(struct dlh_extack *ext, const char *origin, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Appends a zeroed entry; NULL when out of memory. */
struct dlh_desired_entry *dlh__desired_grow(struct dlh_desired *d);

#endif
