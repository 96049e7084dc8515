/* SPDX-License-Identifier: MIT */
/* Walking a buffer of netlink messages in the benchmark programs. */
#ifndef DLHAL_BENCH_NLMSG_H
#define DLHAL_BENCH_NLMSG_H

#include <linux/netlink.h>

/* glibc's NLMSG_OK, without comparing a u32 with an int (clang's -Wsign-compare). */
#define NLMSG_FITS(h, rem) \
	((rem) >= (int)NLMSG_HDRLEN && (h)->nlmsg_len >= NLMSG_HDRLEN && (h)->nlmsg_len <= (unsigned int)(rem))

#endif
