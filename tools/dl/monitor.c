/* SPDX-License-Identifier: MIT */
/*
 * dl monitor: one line per device or port event, as iproute2's devlink
 * monitor prints them, on a libev loop that also drives the backends' sockets
 * and the drivers' timers. In a batch, "monitor" prints the events of the
 * lines that follow instead of waiting. "dl monitor port DEV" prints one
 * device's: the kernel backend then mirrors that device alone (from Linux
 * 6.8 the kernel sends no other's notifications), or a PCI function with
 * its slot's others (one card, which its rules need whole), and the others'
 * events are dropped here, so the lines are the same whatever the backend.
 */
#include "dl.h"
#include "evhost.h"

#include <ev.h>
#include <stdint.h>
#include <string.h>

void monitor_usage(FILE *f)
{
	fprintf(f, "Usage: dl monitor [ all | dev | port ] [ DEV ]\n");
}

struct monitor {
	struct dl *dl;
	bool dev, port;
	/* one device's events only (its handle; a copy: a batch's line goes); "": every device's */
	char scope[DLH_HANDLE_MAX];
	struct ev_loop *loop;
	int failed;
	char lost[200]; /* why the backend went away: the monitor ends, exit 1 */
};

static void on_event(const struct dlh_event *ev, void *arg)
{
	struct monitor *m = arg;
	struct dl *dl = m->dl;
	const char *obj = dlh_event_object(ev->type);

	if (dl->closing || (ev->port ? !m->port : !ev->dev ? false : !m->dev))
		return;
	if (m->scope[0] && ev->dev && strcmp(dlh_dev_handle(ev->dev), m->scope))
		return;
	out_begin_event(dl, obj, dlh_event_action(ev->type));
	if (ev->type == DLH_EVENT_RESYNC)
		out_resync(dl, ev->bus);
	else if (ev->type == DLH_EVENT_LOST)
		out_lost(dl, ev->bus, ev->msg);
	else if (ev->type == DLH_EVENT_PLAN_MISS)
		out_miss(dl, ev->dev, ev->msg);
	else if (ev->port)
		out_port(dl, ev->port);
	else
		out_dev(dl, ev->dev);
	out_end(dl);
	/* Nothing more will come: a monitor that went on would look alive while deaf. */
	if (ev->type == DLH_EVENT_LOST) {
		snprintf(m->lost, sizeof(m->lost), "%s", ev->msg);
		m->failed = 1;
		if (m->loop)
			ev_break(m->loop, EVBREAK_ALL);
	}
	/* A monitor's reader wants each line as it happens. */
	if (fflush(stdout) || ferror(stdout)) {
		m->failed = 1;
		if (m->loop)
			ev_break(m->loop, EVBREAK_ALL);
	}
}

static int run_loop(struct monitor *m)
{
	struct evhost host;

	m->loop = ev_default_loop(EVFLAG_AUTO);
	if (!m->loop) {
		fprintf(stderr, "dl monitor: cannot start an event loop\n");
		return DL_EOP;
	}
	evhost_start(&host, m->loop, m->dl->ctx);
	evhost_stop_on_signals(&host);
	/* Scripts wait for this line before changing anything or signalling. */
	if (m->dl->verbose)
		fprintf(stderr, "dl monitor: watching %s events; SIGINT or SIGTERM stops\n",
			m->dev && m->port ? "device and port"
			: m->dev	  ? "device"
					  : "port");
	ev_run(m->loop, 0);
	evhost_stop(&host);
	ev_loop_destroy(m->loop);
	m->loop = NULL;
	if (m->lost[0])
		fprintf(stderr, "dl monitor: %s: stopped (run it again once it is back)\n", m->lost);
	return m->failed ? DL_EOP : DL_OK;
}

int cmd_monitor(struct dl *dl)
{
	static struct monitor m; /* lives as long as the subscription: the whole run */
	const char *what = dl_shift(dl), *scope = NULL;
	struct dlh_ctx *ctx;
	int err;

	m = (struct monitor){.dl = dl, .dev = true, .port = true};
	if (what && dl_match(what, "help")) {
		monitor_usage(stdout);
		return DL_OK;
	}
	if (what && dl_match(what, "dev"))
		m.port = false;
	else if (what && dl_match(what, "port"))
		m.dev = false;
	else if (what && strchr(what, '/'))
		scope = what; /* a device with every object */
	else if (what && !dl_match(what, "all"))
		return dl_usage_err(monitor_usage, "Unknown monitor object \"%s\"", what);
	if (!scope && dl_arg(dl))
		scope = dl_shift(dl);
	if (dl_arg(dl))
		return dl_usage_err(monitor_usage, "Unexpected argument \"%s\"", dl_arg(dl));
	if (scope) {
		const char *slash = strchr(scope, '/');

		if (!slash || slash == scope || !slash[1] || strchr(slash + 1, '/') || strlen(scope) >= sizeof(m.scope))
			return dl_usage_err(monitor_usage, "Device handle \"%s\" is not BUS/NAME", scope);
		snprintf(m.scope, sizeof(m.scope), "%s", scope);
		/* only a context made for this monitor: a batch's serves its other lines too */
		if (!dl->ctx && !dl->in_batch)
			dl->kernel_scope = m.scope;
	}
	if (dl->monitoring)
		return dl_usage_err(monitor_usage, "Already monitoring");
	err = dl_ctx(dl, &ctx);
	if (err)
		return err;
	/* The whole model first (a lazy backend fills on listing), so that every
	 * later deletion is of a known port, and the fill itself prints nothing. */
	for (struct dlh_dev *dev = dlh_dev_first(ctx); dev; dev = dlh_dev_next(dev))
		dlh_port_first(dev);
	if (dlh_ctx_subscribe(ctx, on_event, &m, NULL)) {
		fprintf(stderr, "dl monitor: out of memory\n");
		return DL_EOP;
	}
	if (dl->in_batch) {
		dl->monitoring = true;
		return DL_OK;
	}
	return run_loop(&m);
}
