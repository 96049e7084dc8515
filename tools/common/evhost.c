/* SPDX-License-Identifier: MIT */
/*
 * The context's clock follows the loop: before each wait the clock advances
 * to now (running due driver timers, such as mlx4 link sensing) and a timer
 * is set for the next one; readable backend sockets call dlh_ctx_io_ready().
 */
#include "evhost.h"

#include <signal.h>
#include <stdint.h>

static void on_io(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)loop;
	(void)revents;
	dlh_ctx_io_ready(w->data, w->fd);
}

static void on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	/* Nothing: the prepare watcher advances the clock on the next turn. */
	(void)loop;
	(void)w;
	(void)revents;
}

static void on_prepare(struct ev_loop *loop, ev_prepare *w, int revents)
{
	struct evhost *h = w->data;
	ev_tstamp now = ev_now(loop);
	uint64_t ms;
	int64_t next;

	(void)revents;
	if (now > h->last) {
		ms = (uint64_t)((now - h->last) * 1000.0);
		dlh_ctx_clock_advance(h->ctx, ms);
		h->last += (ev_tstamp)ms / 1000.0;
	}
	ev_timer_stop(loop, &h->timer);
	next = dlh_ctx_timeout(h->ctx);
	if (next >= 0) {
		ev_timer_set(&h->timer, (ev_tstamp)next / 1000.0, 0.);
		ev_timer_start(loop, &h->timer);
	}
}

void evhost_start(struct evhost *h, struct ev_loop *loop, struct dlh_ctx *ctx)
{
	int fds[EVHOST_MAX_IO];

	h->loop = loop;
	h->ctx = ctx;
	h->sigs = false;
	h->nio = dlh_ctx_io_fds(ctx, fds, EVHOST_MAX_IO);
	if (h->nio > EVHOST_MAX_IO)
		h->nio = EVHOST_MAX_IO;
	for (size_t i = 0; i < h->nio; i++) {
		ev_io_init(&h->io[i], on_io, fds[i], EV_READ);
		h->io[i].data = ctx;
		ev_io_start(loop, &h->io[i]);
	}
	ev_timer_init(&h->timer, on_timer, 0., 0.);
	ev_prepare_init(&h->prepare, on_prepare);
	h->prepare.data = h;
	ev_prepare_start(loop, &h->prepare);
	h->last = ev_now(loop);
}

static void on_signal(struct ev_loop *loop, ev_signal *w, int revents)
{
	(void)w;
	(void)revents;
	ev_break(loop, EVBREAK_ALL);
}

void evhost_stop_on_signals(struct evhost *h)
{
	signal(SIGPIPE, SIG_IGN);
	ev_signal_init(&h->sig[0], on_signal, SIGINT);
	ev_signal_init(&h->sig[1], on_signal, SIGTERM);
	ev_signal_start(h->loop, &h->sig[0]);
	ev_signal_start(h->loop, &h->sig[1]);
	h->sigs = true;
}

void evhost_stop(struct evhost *h)
{
	if (h->sigs) {
		ev_signal_stop(h->loop, &h->sig[0]);
		ev_signal_stop(h->loop, &h->sig[1]);
		h->sigs = false;
	}
	for (size_t i = 0; i < h->nio; i++)
		ev_io_stop(h->loop, &h->io[i]);
	ev_timer_stop(h->loop, &h->timer);
	ev_prepare_stop(h->loop, &h->prepare);
}
