/* SPDX-License-Identifier: MIT */
/*
 * What a caller holds stays readable when a call it makes reads a removal
 * (dlhal.h, "Lifetime"): removed objects answer -ENODEV, and are freed only
 * at the caller's next change or turn of its loop. Two ways a removal comes:
 * a real one (an E810 reset removes its PFs, in this process) and one
 * injected into every call that reads from a dlhald, by a proxy between the
 * library and a real daemon that sends the device's DEVLINK_CMD_DEL before
 * the answer. Run under ASan (tests/run), a held pointer read after its
 * object was freed fails the test.
 */
#include "helpers.h"
#include "kernel.h"

#include <criterion/criterion.h>
#include <dlhal/desired.h>
#include <dlhal/protocol.h>
#include <errno.h>
#include <linux/devlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define SW  "pci/0000:03:00.0"
#define PF0 "pci/0000:16:00.0"
#define PF1 "pci/0000:16:00.1"
#define HCA "pci/0000:01:00.0"

/* The held objects must answer as removed ones do, and still be readable. */
static void expect_removed(struct dlh_dev *dev, struct dlh_port *port, const char *dev_handle, const char *port_handle)
{
	struct dlh_dev_info info;
	struct dlh_extack ext;
	struct dlh_plan plan;
	struct dlh_fw_option o[4];
	size_t n;

	cr_expect_str_eq(dlh_dev_handle(dev), dev_handle);
	cr_expect_null(dlh_dev_next(dev), "a removed device has no next");
	cr_expect_null(dlh_port_first(dev));
	cr_expect_eq(dlh_dev_port_count(dev), 0);
	cr_expect_eq(dlh_dev_info_get(dev, &info, &ext), -ENODEV);
	cr_expect_str_eq(ext.msg, "Device was removed");
	cr_expect_str_eq(ext.obj, dev_handle);
	cr_expect_eq(dlh_dev_fw_options(dev, o, 4, &n, &ext), -ENODEV);
	cr_expect_eq(dlh_dev_reload(dev, DLH_RELOAD_ACTION_FW_ACTIVATE, DLH_RELOAD_LIMIT_UNSPEC, NULL, &ext), -ENODEV);
	cr_expect_eq(dlh_dev_sim_set(dev, NULL, "x", "y", &ext), -ENODEV);
	if (!port)
		return;
	cr_expect_str_eq(dlh_port_handle(port), port_handle);
	cr_expect_eq(dlh_port_dev(port), dev);
	cr_expect_null(dlh_port_next(port));
	cr_expect_null(dlh_port_next_all(port), "a walk stops at a removed port");
	cr_expect_eq(dlh_port_split(port, 2, &ext), -ENODEV);
	cr_expect_str_eq(ext.msg, "Port was removed");
	cr_expect_str_eq(ext.obj, port_handle);
	cr_expect_eq(dlh_port_unsplit(port, &ext), -ENODEV);
	cr_expect_eq(dlh_port_type_set(port, DLH_PORT_TYPE_IB, &ext), -ENODEV);
	cr_expect_eq(dlh_port_split_plan(port, 2, &plan, &ext), -ENODEV);
}

Test(lifetime, an_e810_reset_removes_the_pfs_a_caller_holds)
{
	struct dlh_ctx *ctx = ctx_with("e810-cqda2");
	struct dlh_extack ext;
	struct dlh_dev *pf0 = dlh_dev_find(ctx, PF0), *pf1 = dlh_dev_find(ctx, PF1);
	struct dlh_port *p0, *p1;

	cr_assert(pf0 && pf1);
	p0 = dlh_port_first(pf0);
	p1 = dlh_port_first(pf1);
	cr_assert(p0 && p1);
	cr_assert_eq(dlh_port_split(p0, 4, &ext), 0, "%s", ext.msg);
	/* asked of PF 1: the reset removes both PFs and brings four new ones */
	cr_assert_eq(dlh_dev_reload(pf1, DLH_RELOAD_ACTION_FW_ACTIVATE, DLH_RELOAD_LIMIT_UNSPEC, NULL, &ext), 0, "%s",
		     ext.msg);
	expect_removed(pf1, p1, PF1, PF1 "/0");
	expect_removed(pf0, p0, PF0, PF0 "/0");
	/* the new ones are found by their handles, not the old pointers */
	cr_expect_neq(dlh_dev_find(ctx, PF0), NULL);
	cr_expect_neq(dlh_dev_find(ctx, "pci/0000:16:00.3"), NULL);
	dlh_ctx_free(ctx);
}

/* An unsplit removes the ports the split made: held, they answer as removed. */
Test(lifetime, ports_a_split_removed_are_readable_after_it)
{
	struct dlh_ctx *ctx = ctx_with("sn2700");
	struct dlh_dev *dev = dlh_dev_find(ctx, SW);
	struct dlh_port *held[64];
	char handles[64][DLH_HANDLE_MAX];
	struct dlh_extack ext;
	size_t n = 0, removed = 0;

	cr_assert_eq(dlh_port_split(dlh_port_find_netdev(ctx, "eth0"), 4, &ext), 0, "%s", ext.msg);
	for (struct dlh_port *p = dlh_port_first(dev); p && n < 64; p = dlh_port_next(p), n++) {
		held[n] = p;
		snprintf(handles[n], sizeof(handles[n]), "%s", dlh_port_handle(p));
	}
	cr_assert_eq(dlh_port_unsplit(dlh_port_find_netdev(ctx, "eth0"), &ext), 0, "%s", ext.msg);
	for (size_t i = 0; i < n; i++) {
		if (dlh_port_find(dev, dlh_port_index(held[i])) == held[i])
			continue;
		removed++;
		cr_expect_str_eq(dlh_port_handle(held[i]), handles[i]);
		cr_expect_eq(dlh_port_split(held[i], 2, &ext), -ENODEV);
		cr_expect_str_eq(ext.msg, "Port was removed");
		cr_expect_null(dlh_port_next(held[i]));
	}
	cr_expect_gt(removed, 0, "the unsplit removed no port the test held");
	dlh_ctx_free(ctx);
}

/* ---- a removal injected into every call that reads from a dlhald ---- */

static char sock[64], proxy_path[64];
static pid_t daemon_pid;

static int sock_connect(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

static void daemon_start(const char *sims)
{
	pid_t test = getpid();
	int fd;

	snprintf(sock, sizeof(sock), "/tmp/dlhald-lifetime-%d.sock", (int)getpid());
	daemon_pid = fork();
	cr_assert(daemon_pid >= 0);
	if (!daemon_pid) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != test)
			_exit(126);
		execl(getenv("DLHALD"), "dlhald", "-f", "-s", sock, "--sim", sims, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 500; i++) {
		fd = sock_connect(sock);
		if (fd >= 0) {
			close(fd);
			return;
		}
		usleep(10000);
	}
	cr_assert_fail("dlhald did not start listening on %s", sock);
}

static void daemon_stop(void)
{
	int st;

	kill(daemon_pid, SIGTERM);
	waitpid(daemon_pid, &st, 0);
	unlink(sock);
}

/*
 * The proxy: one client's two connections (requests, then notifications),
 * each relayed to the daemon. When armed, it sends the client a DEL of the
 * armed device before it relays the client's next request: on the request
 * connection (read while the answer is awaited) or on the notification
 * connection (drained at the end of a fill or a change).
 */
enum inject { INJECT_NONE, INJECT_REQUEST, INJECT_NOTIFY };

static struct proxy {
	int lfd, stop[2];
	pthread_t thread;
	_Atomic int armed; /* enum inject */
	_Atomic int injected;
	char bus[16], dev[32];
} px;

static size_t del_msg(unsigned char *buf, uint16_t family)
{
	struct nlmsghdr *n = (struct nlmsghdr *)buf;
	struct genlmsghdr *g = NLMSG_DATA(n);
	size_t off = NLMSG_HDRLEN + GENL_HDRLEN;
	const struct {
		uint16_t type;
		const char *s;
	} a[] = {{DEVLINK_ATTR_BUS_NAME, px.bus}, {DEVLINK_ATTR_DEV_NAME, px.dev}};

	memset(buf, 0, 256);
	g->cmd = DEVLINK_CMD_DEL;
	g->version = 1;
	for (size_t i = 0; i < 2; i++) {
		struct nlattr *na = (struct nlattr *)(buf + off);
		size_t len = strlen(a[i].s) + 1;

		na->nla_type = a[i].type;
		na->nla_len = (uint16_t)(NLA_HDRLEN + len);
		memcpy(buf + off + NLA_HDRLEN, a[i].s, len);
		off += NLA_ALIGN(NLA_HDRLEN + len);
	}
	n->nlmsg_len = (uint32_t)off;
	n->nlmsg_type = family;
	return off;
}

static void *proxy_run(void *arg)
{
	static unsigned char buf[DLHAL_RECORD_MAX];
	int c[2] = {-1, -1}, u[2] = {-1, -1};

	(void)arg;
	for (int i = 0; i < 2; i++) {
		struct pollfd p[2] = {{.fd = px.lfd, .events = POLLIN}, {.fd = px.stop[0], .events = POLLIN}};

		if (poll(p, 2, 5000) <= 0 || p[1].revents)
			goto out;
		c[i] = accept4(px.lfd, NULL, NULL, SOCK_CLOEXEC);
		u[i] = sock_connect(sock);
		if (c[i] < 0 || u[i] < 0)
			goto out;
	}
	for (;;) {
		struct pollfd p[5] = {{.fd = c[0], .events = POLLIN},
				      {.fd = c[1], .events = POLLIN},
				      {.fd = u[0], .events = POLLIN},
				      {.fd = u[1], .events = POLLIN},
				      {.fd = px.stop[0], .events = POLLIN}};

		if (poll(p, 5, -1) < 0 || p[4].revents)
			break;
		for (int i = 0; i < 4; i++) {
			int from = i < 2 ? c[i] : u[i - 2], to = i < 2 ? u[i] : c[i - 2];
			ssize_t n;

			if (!(p[i].revents & (POLLIN | POLLHUP)))
				continue;
			n = recv(from, buf, sizeof(buf), 0);
			if (n <= 0)
				goto out;
			if (i == 0 && n >= (ssize_t)NLMSG_HDRLEN && px.armed) {
				unsigned char del[256];
				size_t len = del_msg(del, ((struct nlmsghdr *)buf)->nlmsg_type);

				send(px.armed == INJECT_REQUEST ? c[0] : c[1], del, len, MSG_NOSIGNAL);
				px.armed = INJECT_NONE;
				px.injected++;
			}
			send(to, buf, (size_t)n, MSG_NOSIGNAL);
		}
	}
out:
	for (int i = 0; i < 2; i++) {
		if (c[i] >= 0)
			close(c[i]);
		if (u[i] >= 0)
			close(u[i]);
	}
	return NULL;
}

static struct dlh_ctx *proxied_ctx(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct dlh_extack ext;
	struct dlh_ctx *ctx;

	snprintf(proxy_path, sizeof(proxy_path), "/tmp/dlhal-lifetime-px-%d.sock", (int)getpid());
	unlink(proxy_path);
	memcpy(sa.sun_path, proxy_path, strlen(proxy_path) + 1);
	px.lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	cr_assert(px.lfd >= 0 && !bind(px.lfd, (struct sockaddr *)&sa, sizeof(sa)) && !listen(px.lfd, 2));
	cr_assert_eq(pipe(px.stop), 0);
	px.armed = INJECT_NONE;
	px.injected = 0;
	cr_assert_eq(pthread_create(&px.thread, NULL, proxy_run, NULL), 0);
	cr_assert_eq(dlh_ctx_new(&ctx, &ext), 0);
	cr_assert_eq(dlh_sdk_driver_register(ctx, &daemon_driver, &ext), 0);
	cr_assert_eq(dlh_ctx_backends_attach(ctx, &(struct dlh_backends){.socket = proxy_path}, NULL, &ext), 0, "%s",
		     ext.msg);
	return ctx;
}

static void proxied_free(struct dlh_ctx *ctx)
{
	dlh_ctx_free(ctx);
	cr_assert_eq(write(px.stop[1], "x", 1), 1);
	pthread_join(px.thread, NULL);
	close(px.stop[0]);
	close(px.stop[1]);
	close(px.lfd);
	unlink(proxy_path);
}

static void arm(enum inject how, const char *handle)
{
	const char *slash = strchr(handle, '/');

	snprintf(px.bus, sizeof(px.bus), "%.*s", (int)(slash - handle), handle);
	snprintf(px.dev, sizeof(px.dev), "%s", slash + 1);
	px.injected = 0;
	px.armed = how;
}

static int walk_count(const struct dlh_port *p, void *arg)
{
	(void)p;
	++*(int *)arg;
	return 0;
}

/* Each call that reads from the daemon; @port is on the device armed. */
enum call {
	C_SPLIT_PLAN,
	C_UNSPLIT_PLAN,
	C_TYPE_PLAN,
	C_SEQ_SPLIT,
	C_SEQ_CHANGE,
	C_FW_OPTIONS,
	C_INFO,
	C_LOOKUP,
	C_FIND_NETDEV,
	C_FIRST_ALL,
	C_WALK,
	C_PORT_COUNT,
	C_SIM_GET,
	C_OTHER_SPLIT,	/* a change of another device's port */
	C_DESIRED_PLAN, /* libdlhal-desired planning a file, as dl apply and dlhald --desired do */
	C_COUNT_
};

static const char *const call_names[] = {
    "dlh_port_split_plan",    "dlh_port_unsplit_plan",
    "dlh_port_type_set_plan", "dlh_seq_split",
    "dlh_seq_change",	      "dlh_dev_fw_options",
    "dlh_dev_info_get",	      "dlh_port_lookup",
    "dlh_port_find_netdev",   "dlh_port_first_all",
    "dlh_port_walk",	      "dlh_dev_port_count",
    "dlh_dev_sim_get",	      "dlh_port_split (another device)",
    "dlh_desired_plan",
};

static void call_run(enum call c, struct dlh_ctx *ctx, struct dlh_dev *dev, struct dlh_port *port)
{
	struct dlh_extack ext;
	struct dlh_plan plan;
	struct dlh_fw_option o[8];
	struct dlh_dev_info info;
	struct dlh_port *p;
	struct dlh_seq *seq;
	char buf[64];
	size_t n;
	int count = 0;

	switch (c) {
	case C_SPLIT_PLAN:
		dlh_port_split_plan(port, 2, &plan, &ext);
		break;
	case C_UNSPLIT_PLAN:
		dlh_port_unsplit_plan(port, &plan, &ext);
		break;
	case C_TYPE_PLAN:
		dlh_port_type_set_plan(port, DLH_PORT_TYPE_IB, &plan, &ext);
		break;
	case C_SEQ_SPLIT:
	case C_SEQ_CHANGE:
		cr_assert_eq(dlh_seq_new(ctx, &seq), 0);
		p = dlh_seq_port_first(seq, dev);
		cr_assert_not_null(p);
		if (c == C_SEQ_SPLIT)
			dlh_seq_split(seq, p, 2, &plan, &ext);
		else
			dlh_seq_change(seq, dev, &(struct dlh_change_req){DLH_CHANGE_SPLIT, dlh_port_index(p), 2, 0},
				       &plan, &ext);
		/* the sequence's view is its own copy: still readable */
		for (p = dlh_seq_port_first(seq, dev); p; p = dlh_seq_port_next(p))
			count += (int)strlen(dlh_port_handle(p));
		dlh_seq_free(seq);
		break;
	case C_FW_OPTIONS:
		dlh_dev_fw_options(dev, o, 8, &n, &ext);
		break;
	case C_INFO:
		dlh_dev_info_get(dev, &info, &ext);
		break;
	case C_LOOKUP:
		dlh_port_lookup(ctx, "eth8", &p, &ext);
		break;
	case C_FIND_NETDEV:
		dlh_port_find_netdev(ctx, "eth12");
		break;
	case C_FIRST_ALL:
		for (p = dlh_port_first_all(ctx); p; p = dlh_port_next_all(p))
			count++;
		break;
	case C_WALK:
		dlh_port_walk(ctx, walk_count, &count, &ext);
		break;
	case C_PORT_COUNT:
		dlh_dev_port_count(dev);
		break;
	case C_SIM_GET:
		dlh_dev_sim_get(dev, port, "cable", buf, sizeof(buf), &ext);
		break;
	case C_OTHER_SPLIT:
		p = dlh_port_find_netdev(ctx, "eth0");
		cr_assert_not_null(p);
		/* one change: the next one frees what this one read as removed */
		cr_expect_eq(dlh_port_split(p, 2, &ext), 0, "%s", ext.msg);
		break;
	case C_DESIRED_PLAN: {
		struct dlh_desired *d;
		struct dlh_desired_plan dp;
		struct dlh_desired_entry e = {.device = SW, .number = 5, .has_number = true, .split = 2};

		cr_assert_eq(dlh_desired_new("ports", &d), 0);
		cr_assert_eq(dlh_desired_entry_add(d, &e, "ports[0]", &ext), 0, "%s", ext.msg);
		if (!dlh_desired_plan(d, ctx, &dp, NULL))
			dlh_desired_plan_free(&dp);
		dlh_desired_free(d);
		break;
	}
	case C_COUNT_:
		break;
	}
	(void)count;
}

/*
 * The held objects: the switch and its port eth4, found by netdev alone (so
 * that lookups, listings and counts still read), or with every port read
 * first (so that plans and sequences have the whole device); for a type
 * change, which Spectrum does not take, the ConnectX-3 and its port 1.
 */
static void hold(struct dlh_ctx *ctx, enum call c, struct dlh_dev **dev, struct dlh_port **port)
{
	bool lazy = c == C_LOOKUP || c == C_FIND_NETDEV || c == C_FIRST_ALL || c == C_WALK || c == C_PORT_COUNT;
	const char *handle = c == C_TYPE_PLAN ? HCA "/1" : SW "/9";
	struct dlh_extack ext;

	if (!lazy)
		cr_assert_not_null(dlh_port_first_all(ctx));
	if (c == C_OTHER_SPLIT)
		handle = HCA "/1";
	cr_assert_eq(dlh_port_lookup(ctx, lazy ? "eth4" : handle, port, &ext), 0, "%s", ext.msg);
	*dev = dlh_port_dev(*port);
}

static void inject_each_call(enum inject how)
{
	daemon_start("cx3-vpi,sn2700");
	for (enum call c = 0; c < C_COUNT_; c++) {
		struct dlh_ctx *ctx = proxied_ctx();
		struct dlh_dev *dev;
		struct dlh_port *port;
		char dev_handle[DLH_HANDLE_MAX], port_handle[DLH_HANDLE_MAX];

		hold(ctx, c, &dev, &port);
		snprintf(dev_handle, sizeof(dev_handle), "%s", dlh_dev_handle(dev));
		snprintf(port_handle, sizeof(port_handle), "%s", dlh_port_handle(port));
		arm(how, dev_handle);
		call_run(c, ctx, dev, port);
		cr_expect_eq(px.injected, 1, "%s sent no request: nothing was injected", call_names[c]);
		/* The notification connection is drained at the end of a fill or a change; after a call
		 * that does not drain it (a plan), the caller's loop reads the removal. */
		if (how == INJECT_NOTIFY && px.injected && dlh_dev_find(ctx, dev_handle) == dev) {
			int fds[4];
			size_t nfd = dlh_ctx_io_fds(ctx, fds, 4);

			for (size_t i = 0; i < nfd && i < 4; i++)
				dlh_ctx_io_ready(ctx, fds[i]);
		}
		if (px.injected) {
			cr_expect_neq(dlh_dev_find(ctx, dev_handle), dev, "%s: the removal was not applied",
				      call_names[c]);
			expect_removed(dev, port, dev_handle, port_handle);
		}
		proxied_free(ctx);
	}
	daemon_stop();
}

Test(lifetime, a_removal_read_with_any_answer_leaves_held_objects_readable, .timeout = 120)
{
	inject_each_call(INJECT_REQUEST);
}

Test(lifetime, a_removal_notified_during_any_call_leaves_held_objects_readable, .timeout = 120)
{
	inject_each_call(INJECT_NOTIFY);
}

/* What a caller's loop does: read what the library's sockets hold (notifications). */
static void drain(struct dlh_ctx *ctx)
{
	int fds[4];
	size_t nfd = dlh_ctx_io_fds(ctx, fds, 4);

	for (size_t i = 0; i < nfd && i < 4; i++)
		dlh_ctx_io_ready(ctx, fds[i]);
}

/*
 * A dry run that goes on from the last one is of the model as it is: another
 * client's change in between (an event) makes dlhald plan the changes before
 * again. Client A plans splits of ports 17 and 18 in one sequence; client B
 * splits port 19; A's next dry run in that sequence (a split of port 19,
 * sent with the two before it) is refused as the change now would be:
 * dlhald never answers from the model it saw before.
 */
Test(lifetime, a_kept_dry_run_is_dropped_when_the_model_changes)
{
	static const char *const names[] = {"eth0", "eth2", "eth4"}; /* ports 17, 18 and 19 of the SN2700 */
	struct dlh_port *p[3], *q;
	struct dlh_ctx *a, *b;
	struct dlh_extack ext;
	struct dlh_seq *seq;
	struct dlh_plan plan;

	daemon_start("cx3-vpi,sn2700");
	cr_assert_eq(dlh_ctx_new(&a, &ext), 0);
	cr_assert_eq(dlh_ctx_new(&b, &ext), 0);
	cr_assert_eq(dlh_sdk_driver_register(a, &daemon_driver, &ext), 0);
	cr_assert_eq(dlh_sdk_driver_register(b, &daemon_driver, &ext), 0);
	cr_assert_eq(dlh_ctx_backends_attach(a, &(struct dlh_backends){.socket = sock}, NULL, &ext), 0, "%s", ext.msg);
	cr_assert_eq(dlh_ctx_backends_attach(b, &(struct dlh_backends){.socket = sock}, NULL, &ext), 0, "%s", ext.msg);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(dlh_port_lookup(a, names[i], &p[i], &ext), 0, "%s", ext.msg);
	cr_assert_eq(dlh_seq_new(a, &seq), 0);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(dlh_seq_split(seq, dlh_seq_port_find(seq, dlh_port_dev(p[i]), dlh_port_index(p[i])), 2,
					   &plan, &ext),
			     0, "%s", ext.msg);
		cr_expect_not(plan.partial, "planned by the daemon");
	}
	/* B splits port 19 behind A's back */
	cr_assert_eq(dlh_port_lookup(b, names[2], &q, &ext), 0, "%s", ext.msg);
	cr_assert_eq(dlh_port_split(q, 2, &ext), 0, "%s", ext.msg);
	/* A goes on, not having read B's notification: the daemon plans on the model as it is now */
	cr_expect_eq(
	    dlh_seq_split(seq, dlh_seq_port_find(seq, dlh_port_dev(p[2]), dlh_port_index(p[2])), 2, &plan, &ext),
	    -EINVAL, "the daemon planned on the model it kept: %s", ext.msg);
	dlh_seq_free(seq);
	/*
	 * Many rounds: B unsplits and splits port 19 in turn between A's dry
	 * runs, and A reads the notification before its third (its own view
	 * then agrees with the daemon's model): each answered as the model is.
	 */
	struct dlh_dev *dev = dlh_port_dev(p[0]);
	uint32_t idx[3];

	for (int i = 0; i < 3; i++)
		idx[i] = dlh_port_index(p[i]);
	for (int round = 0; round < 40; round++) {
		bool split = round % 2;

		drain(a);
		cr_assert_eq(dlh_seq_new(a, &seq), 0);
		for (int i = 0; i < 2; i++)
			cr_assert_eq(dlh_seq_split(seq, dlh_seq_port_find(seq, dev, idx[i]), 2, &plan, &ext), 0,
				     "round %d: %s", round, ext.msg);
		dlh_seq_free(seq);
		char h[DLH_HANDLE_MAX];

		snprintf(h, sizeof(h), "%s/%u", dlh_dev_handle(dev), idx[2]);
		cr_assert_eq(dlh_port_lookup(b, h, &q, &ext), 0, "%s", ext.msg);
		cr_assert_eq(split ? dlh_port_split(q, 2, &ext) : dlh_port_unsplit(q, &ext), 0, "round %d: %s", round,
			     ext.msg);
		drain(a);
		/* the same two changes before, then port 19: the daemon's kept sequence is of the model before */
		cr_assert_eq(dlh_seq_new(a, &seq), 0);
		for (int i = 0; i < 2; i++)
			cr_assert_eq(dlh_seq_split(seq, dlh_seq_port_find(seq, dev, idx[i]), 2, &plan, &ext), 0,
				     "round %d: %s", round, ext.msg);
		cr_expect_eq(dlh_seq_split(seq, dlh_seq_port_find(seq, dev, idx[2]), 2, &plan, &ext),
			     split ? -EINVAL : 0, "round %d: %s", round, ext.msg);
		dlh_seq_free(seq);
	}
	/*
	 * A view older than the daemon's model: port 19 is split (the last
	 * round) and A has read it; B unsplits it and A does not read that; the
	 * daemon's plan for port 17 names the netdev port 19's second half has
	 * in A's view, and A says why it does not take the plan.
	 */
	{
		char h[DLH_HANDLE_MAX];

		snprintf(h, sizeof(h), "%s/%u", dlh_dev_handle(dev), idx[2]);
		drain(a);
		cr_assert_eq(dlh_port_lookup(b, h, &q, &ext), 0, "%s", ext.msg);
		cr_assert_eq(dlh_port_unsplit(q, &ext), 0, "%s", ext.msg);
		cr_assert_eq(dlh_seq_new(a, &seq), 0);
		cr_expect_eq(dlh_seq_split(seq, dlh_seq_port_find(seq, dev, idx[0]), 2, &plan, &ext), -EEXIST);
		cr_expect_not_null(strstr(ext.msg, "dlhald's plan does not fit this view of the device (Netdev name "),
				   "%s", ext.msg);
		cr_expect_not_null(strstr(ext.msg, "): read its notifications and plan again"), "%s", ext.msg);
		dlh_seq_free(seq);
		drain(a);
	}
	dlh_ctx_free(a);
	dlh_ctx_free(b);
	daemon_stop();
}
