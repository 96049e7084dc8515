/* SPDX-License-Identifier: MIT */
/* Drives a dlhal context from a libev loop: backends' sockets and drivers' timers. */
#ifndef DLHAL_EVHOST_H
#define DLHAL_EVHOST_H

#include <dlhal/dlhal.h>
#include <ev.h>
#include <stdbool.h>

#define EVHOST_MAX_IO 16

struct evhost {
	struct ev_loop *loop;
	struct dlh_ctx *ctx;
	ev_tstamp last;
	ev_timer timer;
	ev_prepare prepare;
	ev_io io[EVHOST_MAX_IO];
	size_t nio;
	ev_signal sig[2];
	bool sigs;
};

/* Starts watching the context's file descriptors and timers on @loop. */
void evhost_start(struct evhost *h, struct ev_loop *loop, struct dlh_ctx *ctx);
/*
 * After evhost_start(), for a command that runs until interrupted (dl monitor, dl panel --follow):
 * SIGINT and SIGTERM end the loop, SIGPIPE is ignored (a closed reader is an error, not a death).
 */
void evhost_stop_on_signals(struct evhost *h);
/* Stops everything evhost_start() and evhost_stop_on_signals() started. */
void evhost_stop(struct evhost *h);

#endif
