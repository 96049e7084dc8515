/* SPDX-License-Identifier: MIT */
/*
 * dlhald: hosts dlhal drivers (emulated boards, and optionally the kernel's
 * devlink devices) and serves them to many clients over a UNIX socket in
 * devlink's own message format, so that emulated devices outlive one command
 * as hardware does.
 */
#include <dlhal/desired.h>
#include "dlhald.h"
#include "evhost.h"
#include "kernel.h"
#include "ice.h"
#include "mlx5.h"
#include "mlx4.h"
#include "mlxsw.h"

#include <dlhal/protocol.h>
#include <dlhal/sdk.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f, "Usage: dlhald [ OPTIONS ]\n"
		   "  -s, --socket PATH   listen on PATH (default " DLHAL_SOCKET_DEFAULT ")\n"
		   "  -g, --group GROUP   members of GROUP may change ports too (default: root only)\n"
		   "  -m, --mode MODE     the socket's permission bits, octal (default 0666: anyone reads,\n"
		   "                      as anyone reads the kernel's devlink; 0660: root and GROUP only)\n"
		   "      --sim PROFILE[,PROFILE...]  host emulated devices of these board profiles\n"
		   "      --kernel        also serve the kernel's devlink devices\n"
		   "      --desired FILE  keep the devices as FILE says (splits, types; docs/desired-state.md):\n"
		   "                      applied at start, when a device appears, and on SIGHUP (re-read)\n"
		   "      --kernel-bridge publish the emulated devices in the kernel's devlink family\n"
		   "                      (as dlhal/NAME, through the dlhal_bridge module's /dev/dlhal)\n"
		   "      --state FILE    keep the emulated hardware's state in FILE across restarts, and\n"
		   "                      with --kernel what vendors' rules learnt (for one boot)\n"
		   "      --fresh         with --state: start from the profiles, not from FILE\n"
		   "      --max-clients N     connections in all (default 1024; root has 16 more)\n"
		   "      --max-per-user N    connections of one unprivileged user (default 64)\n"
		   "      --client-queue SIZE notification bytes queued for a client that does not read,\n"
		   "                          then ENOBUFS (default 256K)\n"
		   "      --queue-total SIZE  bytes queued for all clients (default 32M)\n"
		   "      --metrics-file PATH Prometheus metrics for node_exporter's textfile collector, written\n"
		   "                          atomically after each change and every --metrics-interval\n"
		   "      --metrics-interval SECONDS  (default 15, 1 to 3600)\n"
		   "  -f, --foreground    stay in the foreground and log to stderr (default: daemon, syslog)\n"
		   "  -v, --verbose       log each client and driver detail\n"
		   "  -V, --version       print the version\n"
		   "  -h, --help          this text\n");
}

static void on_signal(struct ev_loop *loop, ev_signal *w, int revents)
{
	(void)revents;
	dlhald_log(LOG_INFO, "signal %d: stopping", w->signum);
	ev_break(loop, EVBREAK_ALL);
}

/* Changes a driver makes on its own (mlx4 sensing, on a timer) mark the state
 * dirty; it is written before the loop next waits. Changes a client asks for
 * are written before their ack (proto.c). */
static void on_change(const struct dlh_event *ev, void *arg)
{
	(void)ev;
	((struct server *)arg)->state_dirty = true;
}

static void on_save(struct ev_loop *loop, ev_prepare *w, int revents)
{
	char why[512];

	(void)loop;
	(void)revents;
	state_commit(w->data, why, sizeof(why));
}

/* Notifications that drivers' timers caused (mlx4 sensing) leave before the loop waits. */
static void on_flush(struct ev_loop *loop, ev_prepare *w, int revents)
{
	(void)loop;
	(void)revents;
	server_flush(w->data, NULL);
}

/*
 * --desired: the file in force, applied at start, on SIGHUP and when a device
 * appears. What cannot be reached (a device still being published, an op of
 * another client holding it, a driver's refusal) is tried again after a delay
 * that doubles from DESIRED_RETRY_MIN to DESIRED_RETRY_MAX seconds; each
 * distinct failure is logged once, and reaching the file after failures once.
 */
#define DESIRED_RETRY_MIN 0.25
#define DESIRED_RETRY_MAX 8.0

static struct {
	const char *path;
	bool optional; /* --desired -FILE: a FILE that does not exist is no desired state */
	struct dlh_desired *d;
	bool pending;
	ev_timer retry;
	double delay;	    /* 0: not failing */
	unsigned int tries; /* failed runs since the file was last reached */
	char failed[1400];  /* the failure (or unmet entry) logged last */
	size_t waiting;	    /* entries pending until a reset, as logged last */
} want;

/* Logs @msg at @level unless it is what was logged last for the file. */
static void desired_say_once(int level, const char *msg)
{
	if (!strcmp(msg, want.failed))
		return;
	dlhald_log(level, "%s", msg);
	snprintf(want.failed, sizeof(want.failed), "%s", msg);
}

/* Every unmet entry, FILE:LINE: reason each, as many as the line holds; the rest counted. */
static void unmet_say(const struct dlh_desired_plan *p, char *msg, size_t len)
{
	int n = snprintf(msg, len, "desired: unmet (applied when it appears): ");

	dlh_desired_plan_unmet_str(want.d, p, msg + n, len - (size_t)n);
}

static void desired_run(struct server *srv)
{
	char why[1200], what[1024], msg[1300];
	struct dlh_desired_plan p;
	int err = 0;

	want.pending = false;
	if (dlh_desired_plan(want.d, srv->ctx, &p, NULL))
		return;
	/*
	 * Entries that conflict, or a step the driver's rules refuse now: nothing
	 * of the file is applied, said once, and tried again as a failure is
	 * (another client may free the way: unsplit the neighbour in the way).
	 */
	if (p.status == DLH_DESIRED_CONFLICT || p.status == DLH_DESIRED_REFUSED) {
		snprintf(why, sizeof(why), "%s: nothing of %s applied", p.why, dlh_desired_name(want.d));
		err = -EINVAL;
	}
	/* Staged changes wait for a reset, which dlhald never does on its own: said once. */
	if (p.npending != want.waiting && p.npending)
		dlhald_log(LOG_INFO, "desired: %zu entr%s pending until a reset (dl dev reload, or dl apply --reload)",
			   p.npending, p.npending == 1 ? "y" : "ies");
	want.waiting = p.npending;
	for (size_t i = 0; i < p.nsteps && !want.tries && !err; i++) {
		dlh_desired_step_describe(want.d, &p.steps[i], what, sizeof(what));
		dlhald_log(LOG_INFO, "desired: %s", what);
	}
	if (!err && p.nsteps) {
		size_t planned = p.nsteps;

		err = dlh_desired_apply(want.d, srv->ctx, &p, false, NULL, why, sizeof(why));
		/* a plan that was not whole (the kernel's) is planned again as it runs: those steps too */
		for (size_t i = planned; i < p.nsteps && !want.tries; i++) {
			dlh_desired_step_describe(want.d, &p.steps[i], what, sizeof(what));
			dlhald_log(LOG_INFO, "desired: %s", what);
		}
		for (size_t i = 0; i < p.nsteps; i++)
			if (p.steps[i].result != DLH_DESIRED_STEP_NOT_RUN)
				metrics_op((enum metrics_op)p.steps[i].kind, METRICS_SOURCE_DESIRED,
					   p.steps[i].result == DLH_DESIRED_STEP_REFUSED, p.steps[i].seconds);
	}
	if (!err) {
		if (want.tries)
			dlhald_log(LOG_INFO, "desired: reached after %u failed attempts", want.tries);
		want.tries = 0;
		want.delay = 0;
		ev_timer_stop(srv->loop, &want.retry);
		/* an entry whose device or port is not there (yet): said once, and it is met when it comes */
		if (p.status == DLH_DESIRED_UNMET) {
			unmet_say(&p, msg, sizeof(msg));
			desired_say_once(LOG_INFO, msg);
		} else {
			want.failed[0] = '\0';
		}
		dlh_desired_plan_free(&p);
		return;
	}
	dlh_desired_plan_free(&p);
	want.tries++;
	want.delay = want.delay ? want.delay * 2 : DESIRED_RETRY_MIN;
	if (want.delay > DESIRED_RETRY_MAX)
		want.delay = DESIRED_RETRY_MAX;
	snprintf(msg, sizeof(msg), "desired: cannot reach: %s (trying again, every %g s at most)", why,
		 DESIRED_RETRY_MAX);
	desired_say_once(LOG_WARNING, msg);
	ev_timer_stop(srv->loop, &want.retry);
	ev_timer_set(&want.retry, want.delay, 0);
	ev_timer_start(srv->loop, &want.retry);
}

const struct dlh_desired *dlhald_desired(void)
{
	return want.path && dlh_desired_count(want.d) ? want.d : NULL;
}

static void on_retry(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)w;
	(void)revents;
	want.pending = true;
}

/* The file, or with --desired -FILE and no FILE, nothing to keep. */
static int desired_read(struct dlh_desired **d, char *why, size_t whylen)
{
	int err = dlh_desired_load(want.path, d, why, whylen);

	if (err == -ENOENT && want.optional) {
		dlhald_log(LOG_INFO, "--desired: no %s: no desired state", want.path);
		err = dlh_desired_new(want.path, d);
		if (err)
			snprintf(why, whylen, "%s: out of memory", want.path);
	}
	return err;
}

static void on_hup(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct dlh_desired *d;
	char why[1024];

	(void)loop;
	(void)revents;
	if (desired_read(&d, why, sizeof(why))) {
		dlhald_log(LOG_ERR, "SIGHUP: %s: keeping the desired state in force", why);
		return;
	}
	dlh_desired_free(want.d);
	want.d = d;
	want.tries = 0;
	want.delay = 0;
	want.failed[0] = '\0';
	dlhald_log(LOG_INFO, "SIGHUP: %s re-read (%zu entries)", want.path, dlh_desired_count(d));
	desired_run(w->data);
}

/*
 * A device or port that appears may be one the file names. While failing,
 * only a new device cuts the delay short (ports come and go by the hundred
 * while another client works on a device: each would be a retry).
 */
static void on_dev(const struct dlh_event *ev, void *arg)
{
	(void)arg;
	if (ev->type == DLH_EVENT_DEV_NEW || ev->type == DLH_EVENT_RESYNC) {
		want.pending = true;
		want.delay = 0;
	} else if (ev->type == DLH_EVENT_PORT_NEW && !want.delay) {
		want.pending = true;
	}
}

static void on_desired(struct ev_loop *loop, ev_prepare *w, int revents)
{
	(void)loop;
	(void)revents;
	if (want.pending)
		desired_run(w->data);
}

static int load(struct dlh_ctx *ctx, const char *sim, bool kernel, const char *states, const char *state_path)
{
	struct dlh_extack ext;
	char buf[DLH_EXTACK_MSG_MAX + DLH_HANDLE_MAX + 512];

	if (dlh_sdk_driver_register(ctx, &mlxsw_driver, &ext) || dlh_sdk_driver_register(ctx, &mlx4_driver, &ext) ||
	    dlh_sdk_driver_register(ctx, &ice_driver, &ext) || dlh_sdk_driver_register(ctx, &mlx5_driver, &ext) ||
	    dlh_sdk_driver_register(ctx, &kernel_driver, &ext))
		return -EINVAL;
	if (kernel && dlh_ctx_backends_attach(ctx, &(struct dlh_backends){.kernel = true}, NULL, &ext)) {
		dlhald_log(LOG_ERR, "--kernel: %s", dlh_extack_str(&ext, buf, sizeof(buf)));
		return -ENODEV;
	}
	if (sim && state_load(ctx, sim, states, state_path, buf, sizeof(buf))) {
		dlhald_log(LOG_ERR, "%s", buf);
		return -EINVAL;
	}
	if (kernel)
		state_kernel_restore(ctx, states, state_path);
	return 0;
}

/* A whole number from @min to @max; with @size, K, M or G may follow (powers of 1024). */
static int bound_parse(const char *s, bool size, unsigned long long min, unsigned long long max,
		       unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (size && *end && !end[1]) {
		const char *units = "KMG", *u = strchr(units, *end);

		if (!u)
			return -1;
		for (long i = 0; i <= u - units; i++) {
			if (v > max)
				return -1;
			v *= 1024;
		}
		end++;
	}
	if (*end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* LISTEN_PID is this process and LISTEN_FDS is 1 or more (sd_listen_fds(3), without libsystemd). */
static bool activated(void)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	bool yes = pid && fds && strtol(pid, NULL, 10) == (long)getpid() && strtol(fds, NULL, 10) >= 1;

	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	return yes;
}

static int daemonize(void)
{
	pid_t pid = fork();
	int fd;

	if (pid < 0)
		return -errno;
	if (pid > 0)
		_exit(0);
	if (setsid() < 0)
		return -errno;
	if (chdir("/"))
		return -errno;
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	return 0;
}

int main(int argc, char **argv)
{
	enum {
		OPT_SIM = 256,
		OPT_KERNEL,
		OPT_STATE,
		OPT_FRESH,
		OPT_BRIDGE,
		OPT_DESIRED,
		OPT_MAX_CLIENTS,
		OPT_MAX_PER_USER,
		OPT_CLIENT_QUEUE,
		OPT_QUEUE_TOTAL,
		OPT_METRICS_FILE,
		OPT_METRICS_INTERVAL
	};
	static const struct option opts[] = {
	    {"socket", required_argument, NULL, 's'},
	    {"group", required_argument, NULL, 'g'},
	    {"mode", required_argument, NULL, 'm'},
	    {"sim", required_argument, NULL, OPT_SIM},
	    {"kernel", no_argument, NULL, OPT_KERNEL},
	    {"foreground", no_argument, NULL, 'f'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"version", no_argument, NULL, 'V'},
	    {"help", no_argument, NULL, 'h'},
	    {"state", required_argument, NULL, OPT_STATE},
	    {"fresh", no_argument, NULL, OPT_FRESH},
	    {"kernel-bridge", no_argument, NULL, OPT_BRIDGE},
	    {"desired", required_argument, NULL, OPT_DESIRED},
	    {"max-clients", required_argument, NULL, OPT_MAX_CLIENTS},
	    {"max-per-user", required_argument, NULL, OPT_MAX_PER_USER},
	    {"client-queue", required_argument, NULL, OPT_CLIENT_QUEUE},
	    {"queue-total", required_argument, NULL, OPT_QUEUE_TOTAL},
	    {"metrics-file", required_argument, NULL, OPT_METRICS_FILE},
	    {"metrics-interval", required_argument, NULL, OPT_METRICS_INTERVAL},
	    {NULL, 0, NULL, 0},
	};
	const char *path = DLHAL_SOCKET_DEFAULT, *sim = NULL, *group = NULL, *state = NULL, *metrics = NULL;
	double metrics_interval = 15;
	char *states = NULL, why[512];
	ev_prepare save;
	mode_t mode = 0666;
	bool fresh = false;
	struct server srv = {0};
	unsigned long long v;
	bool foreground = false, kernel = false, bridged = false;
	struct bridge bridge = {.fd = -1};
	int opt, verbose = 0, ret = 1, lock_fd = -1;
	bool interval_given = false;
	struct dlh_extack ext;
	ev_signal sigint, sigterm, sighup;
	ev_prepare flush, desired;
	struct evhost host;
	gid_t gid = (gid_t)-1;

	server_init(&srv);
	while ((opt = getopt_long(argc, argv, "s:g:m:fvVh", opts, NULL)) != -1) {
		switch (opt) {
		case OPT_MAX_CLIENTS:
		case OPT_MAX_PER_USER:
			if (bound_parse(optarg, false, 1, 1000000, &v)) {
				fprintf(stderr, "dlhald: --%s \"%s\": expected a number from 1 to 1000000\n",
					opt == OPT_MAX_CLIENTS ? "max-clients" : "max-per-user", optarg);
				return 2;
			}
			*(opt == OPT_MAX_CLIENTS ? &srv.max_clients : &srv.max_per_user) = (unsigned int)v;
			break;
		case OPT_CLIENT_QUEUE:
		case OPT_QUEUE_TOTAL:
			if (bound_parse(optarg, true, 4096, 1ULL << 32, &v)) {
				fprintf(stderr,
					"dlhald: --%s \"%s\": expected a size from 4K to 4G (bytes, or K, M, G)\n",
					opt == OPT_CLIENT_QUEUE ? "client-queue" : "queue-total", optarg);
				return 2;
			}
			*(opt == OPT_CLIENT_QUEUE ? &srv.client_queue : &srv.queue_total) = (size_t)v;
			break;
		case OPT_METRICS_FILE:
			/* node_exporter's textfile collector reads only *.prom */
			if (!*optarg || strlen(optarg) < 6 || strcmp(optarg + strlen(optarg) - 5, ".prom") ||
			    optarg[strlen(optarg) - 6] == '/') {
				fprintf(stderr,
					"dlhald: --metrics-file \"%s\": expected a path whose name ends in .prom "
					"(node_exporter's textfile collector reads only those)\n",
					optarg);
				return 2;
			}
			metrics = optarg;
			break;
		case OPT_METRICS_INTERVAL:
			if (bound_parse(optarg, false, 1, 3600, &v)) {
				fprintf(stderr, "dlhald: --metrics-interval \"%s\": expected seconds, 1 to 3600\n",
					optarg);
				return 2;
			}
			metrics_interval = (double)v;
			interval_given = true;
			break;
		case 's':
			path = optarg;
			break;
		case 'g':
			group = optarg;
			break;
		case 'm': {
			char *end;
			unsigned long m = strtoul(optarg, &end, 8);

			/* Connecting needs write permission; root connects whatever the mode. */
			if (!*optarg || *end || m > 0777) {
				fprintf(stderr, "dlhald: --mode \"%s\": expected octal permission bits, such as 0660\n",
					optarg);
				return 2;
			}
			mode = (mode_t)m;
			break;
		}
		case OPT_SIM:
			sim = optarg;
			break;
		case OPT_KERNEL:
			kernel = true;
			break;
		case OPT_STATE:
			state = optarg;
			break;
		case OPT_FRESH:
			fresh = true;
			break;
		case OPT_BRIDGE:
			bridged = true;
			break;
		case OPT_DESIRED:
			want.optional = optarg[0] == '-' && optarg[1];
			want.path = optarg + want.optional;
			break;
		case 'f':
			foreground = true;
			break;
		case 'v':
			verbose++;
			break;
		case 'V':
			printf("dlhald, dlhal-%s\n", DLH_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "dlhald: unexpected argument \"%s\"\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!sim && !kernel) {
		fprintf(stderr, "dlhald: nothing to serve: give --sim PROFILE[,PROFILE...] and/or --kernel\n");
		return 2;
	}
	if (group) {
		struct group *gr = getgrnam(group);

		if (!gr) {
			fprintf(stderr, "dlhald: no group \"%s\"\n", group);
			return 2;
		}
		gid = gr->gr_gid;
	}
	if (bridged && !sim) {
		fprintf(stderr,
			"dlhald: --kernel-bridge publishes emulated devices: give --sim PROFILE[,PROFILE...]\n");
		return 2;
	}
	/* A malformed file stops the start, before anything changes. */
	if (want.path && desired_read(&want.d, why, sizeof(why))) {
		fprintf(stderr, "dlhald: --desired: %s\n", why);
		return 1;
	}
	if (interval_given && !metrics) {
		fprintf(stderr, "dlhald: --metrics-interval needs --metrics-file FILE.prom\n");
		return 2;
	}
	if (fresh && !state) {
		fprintf(stderr, "dlhald: --fresh needs --state FILE\n");
		return 2;
	}
	/* Two daemons on one state file would each write their own view over the other's. */
	if (state) {
		lock_fd = state_lock(state, why, sizeof(why));
		if (lock_fd < 0) {
			fprintf(stderr, "dlhald: --state: %s\n", why);
			return 1;
		}
	}
	/* A state file that cannot be read stops the start: starting from the
	 * profiles would silently overwrite it. --fresh says to. */
	if (state && !fresh && state_read(state, &states, why, sizeof(why))) {
		fprintf(stderr, "dlhald: refusing the state file %s (--fresh starts from the profiles)\n", why);
		return 1;
	}
	log_init(foreground, verbose);
	if (!foreground && daemonize()) {
		fprintf(stderr, "dlhald: cannot become a daemon: %s\n", strerror(errno));
		return 1;
	}
	state_lock_pid(lock_fd); /* the lock came along the fork: its pid is ours now */
	signal(SIGPIPE, SIG_IGN);
	if (dlh_ctx_new(&srv.ctx, &ext))
		return 1;
	dlh_ctx_log_set(srv.ctx, dlhald_log_driver, NULL);
	if (load(srv.ctx, sim, kernel, states, state))
		goto out_ctx;
	srv.loop = ev_default_loop(EVFLAG_AUTO);
	/* Socket activation (dlhald.socket): systemd listens, and hands the socket over as fd 3. */
	if (!srv.loop)
		goto out_ctx;
	if (activated()) {
		if (server_adopt(&srv, 3, gid))
			goto out_ctx;
	} else if (server_open(&srv, path, gid, mode)) {
		goto out_ctx;
	}
	/* Everything known before serving, so that notifications never name an unknown port. */
	for (struct dlh_dev *dev = dlh_dev_first(srv.ctx); dev; dev = dlh_dev_next(dev))
		dlh_port_first(dev);
	if (dlh_ctx_subscribe(srv.ctx, proto_event, &srv, &srv.sub))
		goto out_server;
	if (bridged && bridge_open(&bridge, &srv, DLHAL_BRIDGE_PATH, why, sizeof(why))) {
		dlhald_log(LOG_ERR, "--kernel-bridge: %s", why);
		goto out_server;
	}
	ev_signal_init(&sigint, on_signal, SIGINT);
	ev_signal_init(&sigterm, on_signal, SIGTERM);
	ev_signal_start(srv.loop, &sigint);
	ev_signal_start(srv.loop, &sigterm);
	if (want.path) {
		ev_signal_init(&sighup, on_hup, SIGHUP);
		sighup.data = &srv;
		ev_signal_start(srv.loop, &sighup);
		ev_prepare_init(&desired, on_desired);
		desired.data = &srv;
		ev_timer_init(&want.retry, on_retry, 0, 0);
		ev_prepare_start(srv.loop, &desired);
		dlh_ctx_subscribe(srv.ctx, on_dev, NULL, NULL);
		want.pending = true;
	}
	evhost_start(&host, srv.loop, srv.ctx);
	/* Lowest priority: after the watcher that runs the drivers' timers. */
	ev_prepare_init(&flush, on_flush);
	ev_set_priority(&flush, EV_MINPRI);
	flush.data = &srv;
	ev_prepare_start(srv.loop, &flush);
	if (state) {
		srv.state = state;
		srv.state_dirty = true;
		ev_prepare_init(&save, on_save);
		save.data = &srv;
		ev_prepare_start(srv.loop, &save);
		dlh_ctx_subscribe(srv.ctx, on_change, &srv, NULL);
	}
	if (metrics && metrics_start(&srv, metrics, metrics_interval))
		goto out_host;
	if (srv.path)
		dlhald_log(LOG_INFO, "serving on %s", path);
	ev_run(srv.loop, 0);
	metrics_stop();
	ret = 0;
out_host:
	bridge_close(&bridge);
	evhost_stop(&host);
	dlh_ctx_unsubscribe(srv.sub);
out_server:
	server_close(&srv);
out_ctx:
	dlh_ctx_free(srv.ctx);
	dlh_desired_free(want.d);
	free(states);
	return ret;
}
