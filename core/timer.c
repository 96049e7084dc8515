/* SPDX-License-Identifier: MIT */
/*
 * Driver timers on a clock the host advances. Keeping the clock abstract lets
 * an event loop (libev in the daemon) or a test's manual clock drive the same
 * driver code.
 */
#include "core.h"

#include <errno.h>
#include <stdlib.h>

DLH_EXPORT int dlh_sdk_timer_new(struct dlh_dev *dev, dlh_sdk_timer_fn fn, void *arg, struct dlh_sdk_timer **out)
{
	struct dlh_sdk_timer *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->dev = dev;
	t->fn = fn;
	t->arg = arg;
	dlh__list_init(&t->node);
	dlh__list_add_tail(&dev->timers, &t->dev_node);
	*out = t;
	return 0;
}

DLH_EXPORT void dlh_sdk_timer_cancel(struct dlh_sdk_timer *t)
{
	if (t && t->armed) {
		dlh__list_del(&t->node);
		t->armed = 0;
	}
}

DLH_EXPORT void dlh_sdk_timer_arm(struct dlh_sdk_timer *t, uint64_t ms)
{
	struct dlh_ctx *ctx = t->dev->ctx;
	struct dlh__list *it;

	dlh_sdk_timer_cancel(t);
	t->due = ctx->now + ms;
	t->seq = ctx->timer_seq++;
	/* Few timers exist (one per device at most so far): a sorted list suffices. */
	for (it = ctx->timers.prev; it != &ctx->timers; it = it->prev) {
		struct dlh_sdk_timer *o = dlh__container_of(it, struct dlh_sdk_timer, node);

		if (o->due <= t->due)
			break;
	}
	dlh__list_add_tail(it->next, &t->node);
	t->armed = 1;
}

DLH_EXPORT bool dlh_sdk_timer_armed(const struct dlh_sdk_timer *t)
{
	return t && t->armed;
}

DLH_EXPORT void dlh_sdk_timer_free(struct dlh_sdk_timer *t)
{
	if (!t)
		return;
	dlh_sdk_timer_cancel(t);
	dlh__list_del(&t->dev_node);
	free(t);
}

void dlh__timers_free_dev(struct dlh_dev *dev)
{
	while (!dlh__list_empty(&dev->timers))
		dlh_sdk_timer_free(dlh__container_of(dev->timers.next, struct dlh_sdk_timer, dev_node));
}

DLH_EXPORT int64_t dlh_ctx_timeout(const struct dlh_ctx *ctx)
{
	const struct dlh_sdk_timer *t;

	if (dlh__list_empty(&ctx->timers))
		return -1;
	t = dlh__container_of(ctx->timers.next, struct dlh_sdk_timer, node);
	return t->due > ctx->now ? (int64_t)(t->due - ctx->now) : 0;
}

DLH_EXPORT void dlh_ctx_clock_advance(struct dlh_ctx *ctx, uint64_t ms)
{
	uint64_t end = ctx->now + ms;

	dlh__gone_reap(ctx); /* the caller's loop turns: what was removed before is let go (dlhal.h) */

	/* Run due timers in order, each seeing the clock at its own due time,
	 * so a 3 s period advanced by 10 s fires at 3, 6 and 9. */
	while (!dlh__list_empty(&ctx->timers)) {
		struct dlh_sdk_timer *t = dlh__container_of(ctx->timers.next, struct dlh_sdk_timer, node);

		if (t->due > end)
			break;
		if (t->due > ctx->now)
			ctx->now = t->due;
		dlh_sdk_timer_cancel(t);
		t->fn(t, t->arg);
	}
	ctx->now = end;
}
