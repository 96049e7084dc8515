/* SPDX-License-Identifier: MIT */
/* Drives a dlhal context from a libev loop: backends' sockets and drivers' timers. */
#ifndef DLHAL_EVHOST_H
#define DLHAL_EVHOST_H

#include <dlhal/dlhal.h>
#include <ev.h>

#define EVHOST_MAX_IO 16

struct evhost {
	struct ev_loop *loop;
	struct dlh_ctx *ctx;
	ev_tstamp last;
	ev_timer timer;
	ev_prepare prepare;
	ev_io io[EVHOST_MAX_IO];
	size_t nio;
};

/* Starts watching the context's file descriptors and timers on @loop. */
void evhost_start(struct evhost *h, struct ev_loop *loop, struct dlh_ctx *ctx);
void evhost_stop(struct evhost *h);

#endif
