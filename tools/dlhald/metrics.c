/* SPDX-License-Identifier: MIT */
/*
 * --metrics-file: the Prometheus text exposition format for node_exporter's
 * textfile collector (docs/fleet.md has the reference). The file is written
 * whole to PATH.tmp, synced and renamed over PATH, so that the collector never
 * reads half a file: after each change of the model or count (before the loop
 * next waits) and every --metrics-interval seconds (clients come and go).
 */
#include <dlhal/desired.h>
#include "dlhald.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

static const char *const op_names[METRICS_OP_COUNT] = {
    [METRICS_OP_SPLIT] = "split",
    [METRICS_OP_UNSPLIT] = "unsplit",
    [METRICS_OP_TYPE] = "type_set",
    [METRICS_OP_RELOAD] = "reload",
};
static const char *const source_names[METRICS_SOURCE_COUNT] = {
    [METRICS_SOURCE_CLIENT] = "client",
    [METRICS_SOURCE_DESIRED] = "desired",
};

/* Operation latency buckets, seconds: an emulated op takes tens of microseconds, a kernel relay milliseconds. */
static const double buckets[] = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
				 0.05,	 0.1,	  0.25,	  0.5,	 1,	 2.5,	5};
#define NBUCKETS (sizeof(buckets) / sizeof(buckets[0]))

static struct {
	const char *path;
	struct server *srv;
	ev_timer tick;
	ev_timer soon; /* a burst of changes is written once, this long after its first */
	ev_prepare write;
	struct dlh_sub *sub;
	bool dirty;
	bool failed; /* the last write failed: logged once until one succeeds */
	unsigned long long ops[METRICS_OP_COUNT][METRICS_SOURCE_COUNT][2];
	struct {
		unsigned long long bucket[NBUCKETS], count;
		double sum;
	} latency[METRICS_OP_COUNT];
} m;

void metrics_op(enum metrics_op op, enum metrics_source source, int err, double seconds)
{
	if (!m.path || op >= METRICS_OP_COUNT || source >= METRICS_SOURCE_COUNT)
		return;
	m.ops[op][source][err != 0]++;
	for (size_t i = 0; i < NBUCKETS; i++)
		m.latency[op].bucket[i] += seconds <= buckets[i];
	m.latency[op].count++;
	m.latency[op].sum += seconds;
	m.dirty = true;
}

double metrics_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A label value as the format wants it: backslash, double quote and newline escaped. */
static void label(FILE *f, const char *name, const char *value, bool first)
{
	fprintf(f, "%s%s=\"", first ? "" : ",", name);
	for (const char *s = value ? value : ""; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A field as a label value: "" where the port has none. */
static void field_label(FILE *f, const char *name, const struct dlh_port *p, enum dlh_port_field field)
{
	struct dlh_value v;
	char num[24];

	switch (dlh_port_field(p, field, &v)) {
	case DLH_VALUE_STR:
		label(f, name, v.str, false);
		break;
	case DLH_VALUE_UINT:
		snprintf(num, sizeof(num), "%llu", (unsigned long long)v.uint);
		label(f, name, num, false);
		break;
	case DLH_VALUE_BOOL:
		label(f, name, v.boolean ? "true" : "false", false);
		break;
	default:
		label(f, name, "", false);
		break;
	}
}

static void ports_write(FILE *f, struct dlh_ctx *ctx)
{
	/* the labels after device, port and index, in their order; the number is "number" here */
	static const struct {
		const char *label;
		enum dlh_port_field field;
	} labels[] = {
	    {"number", DLH_PORT_FIELD_NUMBER},
	    {"netdev", DLH_PORT_FIELD_NETDEV},
	    {"ibdev", DLH_PORT_FIELD_IBDEV},
	    {"type", DLH_PORT_FIELD_TYPE},
	    {"desired_type", DLH_PORT_FIELD_DESIRED_TYPE},
	    {"flavour", DLH_PORT_FIELD_FLAVOUR},
	    {"split_group", DLH_PORT_FIELD_SPLIT_GROUP},
	    {"lanes", DLH_PORT_FIELD_LANES},
	};
	char num[16];

	family(f, "dlhal_port_info", "gauge",
	       "A devlink port: 1, with what it is as labels (split_group empty when not split).");
	for (struct dlh_port *p = dlh_port_first_all(ctx); p; p = dlh_port_next_all(p)) {
		fputs("dlhal_port_info{", f);
		label(f, "device", dlh_dev_handle(dlh_port_dev(p)), true);
		label(f, "port", dlh_port_handle(p), false);
		snprintf(num, sizeof(num), "%u", dlh_port_index(p));
		label(f, "index", num, false);
		for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
			field_label(f, labels[i].label, p, labels[i].field);
		fputs("} 1\n", f);
	}
}

static void devices_write(FILE *f, struct dlh_ctx *ctx)
{
	bool staged = false;

	family(f, "dlhal_device_ports", "gauge", "Ports a devlink device has.");
	for (struct dlh_dev *d = dlh_dev_first(ctx); d; d = dlh_dev_next(d)) {
		fputs("dlhal_device_ports{", f);
		label(f, "device", dlh_dev_handle(d), true);
		label(f, "driver", dlh_dev_driver(d), false);
		fprintf(f, "} %zu\n", dlh_dev_port_count(d));
	}
	/* Once a device can stage (it has firmware options) or has something pending. */
	for (struct dlh_dev *d = dlh_dev_first(ctx); d; d = dlh_dev_next(d)) {
		struct dlh_fw_option o[1];
		struct dlh_pending p;
		size_t n = 0;
		bool pending = dlh_dev_pending(d, &p);
		char num[16];

		if (!pending && dlh_dev_fw_options(d, o, 1, &n, NULL))
			continue;
		if (!staged)
			family(f, "dlhal_device_pending_reset", "gauge",
			       "1 when the device keeps a change for its next reset (split, type: what it is).");
		staged = true;
		fputs("dlhal_device_pending_reset{", f);
		label(f, "device", dlh_dev_handle(d), true);
		snprintf(num, sizeof(num), "%u", pending ? p.split : 0);
		label(f, "split", pending && p.split ? num : "", false);
		label(f, "type", pending && p.type ? dlh_port_type_name(p.type) : "", false);
		fprintf(f, "} %d\n", pending);
	}
}

static void ops_write(FILE *f)
{
	family(f, "dlhal_operations_total", "counter",
	       "Port operations dlhald ran, by kind, who asked (a client, the desired-state file) and result.");
	for (int op = 0; op < METRICS_OP_COUNT; op++)
		for (int s = 0; s < METRICS_SOURCE_COUNT; s++)
			for (int r = 0; r < 2; r++) {
				fputs("dlhal_operations_total{", f);
				label(f, "op", op_names[op], true);
				label(f, "source", source_names[s], false);
				label(f, "result", r ? "error" : "ok", false);
				fprintf(f, "} %llu\n", m.ops[op][s][r]);
			}
	family(f, "dlhal_operation_duration_seconds", "histogram", "How long port operations took, by kind.");
	for (int op = 0; op < METRICS_OP_COUNT; op++) {
		for (size_t i = 0; i <= NBUCKETS; i++) {
			char le[32];

			snprintf(le, sizeof(le), i < NBUCKETS ? "%g" : "+Inf", i < NBUCKETS ? buckets[i] : 0.0);
			fputs("dlhal_operation_duration_seconds_bucket{", f);
			label(f, "op", op_names[op], true);
			label(f, "le", le, false);
			fprintf(f, "} %llu\n", i < NBUCKETS ? m.latency[op].bucket[i] : m.latency[op].count);
		}
		fputs("dlhal_operation_duration_seconds_sum{", f);
		label(f, "op", op_names[op], true);
		fprintf(f, "} %.9g\n", m.latency[op].sum);
		fputs("dlhal_operation_duration_seconds_count{", f);
		label(f, "op", op_names[op], true);
		fprintf(f, "} %llu\n", m.latency[op].count);
	}
}

/* Per entry of the desired-state file: 1 while the devices are not as it says (a step to run, unmet). */
static void drift_write(FILE *f, struct dlh_ctx *ctx)
{
	const struct dlh_desired *d = dlhald_desired();
	struct dlh_desired_plan p;
	char line[16];

	if (!d)
		return;
	if (dlh_desired_plan(d, ctx, &p, NULL)) {
		dlh_desired_plan_free(&p);
		return;
	}
	family(f, "dlhal_desired_drift", "gauge",
	       "1 while a port is not as the desired-state file's entry says (steps to run, refused, unmet).");
	for (size_t i = 0; i < dlh_desired_count(d); i++) {
		const struct dlh_desired_entry *e = dlh_desired_entry(d, i);
		bool drift = dlh_desired_plan_drifts(&p, i);

		fputs("dlhal_desired_drift{", f);
		label(f, "file", dlh_desired_name(d), true);
		snprintf(line, sizeof(line), "%d", e->match_line);
		label(f, "line", line, false);
		label(f, "device", e->device, false);
		snprintf(line, sizeof(line), "%u", e->number);
		label(f, "number", e->has_number ? line : "", false);
		label(f, "netdev", e->netdev, false);
		fprintf(f, "} %d\n", drift);
	}
	dlh_desired_plan_free(&p);
}

static void server_write(FILE *f, const struct server *srv)
{
	unsigned int subs = 0;

	for (const struct client *c = srv->clients; c; c = c->next)
		subs += c->subscribed;
	family(f, "dlhal_clients", "gauge", "Connections to dlhald's socket.");
	fprintf(f, "dlhal_clients %u\n", srv->nclients);
	family(f, "dlhal_monitor_subscribers", "gauge", "Connections that receive notifications (monitors).");
	fprintf(f, "dlhal_monitor_subscribers %u\n", subs);
	family(f, "dlhal_events_delivered_total", "counter", "Notifications sent or queued to subscribers.");
	fprintf(f, "dlhal_events_delivered_total %llu\n", srv->events_delivered);
	family(f, "dlhal_events_dropped_total", "counter",
	       "Notifications dropped for subscribers that do not read (they get ENOBUFS).");
	fprintf(f, "dlhal_events_dropped_total %llu\n", srv->events_dropped);
}

/* The whole file to PATH.tmp, synced, renamed over PATH; 0 or an errno, with @why. */
static int metrics_write(char *why, size_t whylen)
{
	char tmp[4096];
	FILE *f;
	int fd, err = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", m.path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		err = errno;
		snprintf(why, whylen, "%s: %s", tmp, strerror(err));
		if (fd >= 0)
			close(fd);
		return err;
	}
	ports_write(f, m.srv->ctx);
	devices_write(f, m.srv->ctx);
	ops_write(f);
	drift_write(f, m.srv->ctx);
	server_write(f, m.srv);
	if (fflush(f) || fsync(fileno(f)))
		err = errno;
	if (fclose(f) && !err)
		err = errno;
	if (!err && rename(tmp, m.path))
		err = errno;
	if (err) {
		snprintf(why, whylen, "%s: %s", m.path, strerror(err));
		unlink(tmp);
	}
	return err;
}

#define METRICS_COALESCE 0.05

static void write_now(void)
{
	char why[4200];

	m.dirty = false;
	if (metrics_write(why, sizeof(why))) {
		if (!m.failed)
			dlhald_log(LOG_WARNING, "--metrics-file: cannot write %s (trying again)", why);
		m.failed = true;
		return;
	}
	if (m.failed)
		dlhald_log(LOG_INFO, "--metrics-file: %s written again", m.path);
	m.failed = false;
}

static void on_tick(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)w;
	(void)revents;
	write_now();
}

/*
 * After a change, before the loop next waits: a write 50 ms later, so that a
 * burst of events (a split's dozen, a client's batch) costs one write and one
 * fsync, not one each.
 */
static void on_prepare(struct ev_loop *loop, ev_prepare *w, int revents)
{
	(void)w;
	(void)revents;
	if (m.dirty && !ev_is_active(&m.soon)) {
		ev_timer_set(&m.soon, METRICS_COALESCE, 0);
		ev_timer_start(loop, &m.soon);
	}
}

static void on_event(const struct dlh_event *ev, void *arg)
{
	(void)ev;
	(void)arg;
	m.dirty = true;
}

int metrics_start(struct server *srv, const char *path, double interval)
{
	char why[4200];
	int err;

	m.path = path;
	m.srv = srv;
	/* The first write at start: a path that cannot be written stops the start. */
	err = metrics_write(why, sizeof(why));
	if (err) {
		dlhald_log(LOG_ERR, "--metrics-file: cannot write %s", why);
		m.path = NULL;
		return -err;
	}
	ev_timer_init(&m.tick, on_tick, interval, interval);
	ev_timer_start(srv->loop, &m.tick);
	ev_timer_init(&m.soon, on_tick, METRICS_COALESCE, 0);
	ev_prepare_init(&m.write, on_prepare);
	ev_set_priority(&m.write, EV_MINPRI);
	ev_prepare_start(srv->loop, &m.write);
	return dlh_ctx_subscribe(srv->ctx, on_event, NULL, &m.sub);
}

void metrics_dirty(void)
{
	m.dirty = true;
}

void metrics_stop(void)
{
	if (!m.path)
		return;
	ev_timer_stop(m.srv->loop, &m.tick);
	ev_timer_stop(m.srv->loop, &m.soon);
	ev_prepare_stop(m.srv->loop, &m.write);
	dlh_ctx_unsubscribe(m.sub);
	m.path = NULL;
}
