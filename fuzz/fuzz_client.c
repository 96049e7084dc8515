/* SPDX-License-Identifier: MIT */
/*
 * The client side of the codec (kernel/devlink.c, as dl and libdlhal use it
 * to talk to a dlhald) on hostile replies. A fake daemon answers each
 * request with the input's next record (tag bit 0: sent on the notification
 * connection instead), then an NLMSG_DONE and an ack, so that every request
 * ends. The client lists what it learnt, plans, splits a port and lists
 * again.
 *
 * The fake daemon answers in the client's own thread (issue 46: a thread
 * and two accepts an input ran about 1,000 inputs a second). The harness is
 * linked with --wrap=connect,send: the client's two connects to the fuzz
 * socket get SOCK_SEQPACKET socketpairs, and each request it sends has its
 * answer queued on its connection before send() returns, so that its
 * blocking recv() finds it. Everything the client reads still comes through
 * its own sockets and its transport's recv().
 */
#include "chunks.h"
#include "kernel.h"

#include <dlhal/dlhal.h>
#include <dlhal/protocol.h>
#include <dlhal/sdk.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define FUZZ_PATH "/dlhal-fuzz-client" /* never bound: only compared */

struct feed {
	const uint8_t *in;
	size_t left;
};

/* This input's connections: the client's descriptors and the daemon's ends; -1 when none. */
static struct {
	struct feed *feed;
	int client[2], daemon[2];
	int nconn;
} fake = {NULL, {-1, -1}, {-1, -1}, 0};

int __real_connect(int fd, const struct sockaddr *sa, socklen_t len);
ssize_t __real_send(int fd, const void *buf, size_t len, int flags);

int __wrap_connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	const struct sockaddr_un *un = (const struct sockaddr_un *)sa;
	int sv[2];

	if (!fake.feed || sa->sa_family != AF_UNIX || len < sizeof(sa_family_t) + sizeof(FUZZ_PATH) ||
	    strcmp(un->sun_path, FUZZ_PATH) || fake.nconn == 2)
		return __real_connect(fd, sa, len);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		abort();
	if (dup2(sv[0], fd) < 0)
		abort();
	close(sv[0]);
	fake.client[fake.nconn] = fd;
	fake.daemon[fake.nconn++] = sv[1];
	return 0;
}

/* The answer to a request on connection @which: the input's next record, then its end. */
static void answer(int which, const struct nlmsghdr *req)
{
	struct {
		struct nlmsghdr dn;
		int zero;
		struct nlmsghdr en;
		struct nlmsgerr e;
	} end = {
	    .dn = {.nlmsg_len = NLMSG_HDRLEN + 4, .nlmsg_type = NLMSG_DONE, .nlmsg_flags = NLM_F_MULTI},
	    .en = {.nlmsg_len = NLMSG_HDRLEN + sizeof(struct nlmsgerr),
		   .nlmsg_type = NLMSG_ERROR,
		   .nlmsg_flags = NLM_F_CAPPED},
	};
	struct chunk c;

	end.dn.nlmsg_seq = end.en.nlmsg_seq = req->nlmsg_seq;
	end.e.msg = *req;
	if (chunk_next(&fake.feed->in, &fake.feed->left, &c) && c.len)
		__real_send(fake.daemon[c.tag & 1 ? 1 : which], c.data, c.len, MSG_NOSIGNAL | MSG_DONTWAIT);
	__real_send(fake.daemon[which], &end, sizeof(end), MSG_NOSIGNAL | MSG_DONTWAIT);
}

ssize_t __wrap_send(int fd, const void *buf, size_t len, int flags)
{
	for (int which = 0; which < fake.nconn; which++) {
		if (fd != fake.client[which])
			continue;
		if (len >= sizeof(struct nlmsghdr))
			answer(which, buf);
		return (ssize_t)len;
	}
	return __real_send(fd, buf, len, flags);
}

/* Reads every field, so that ASan sees any string the codec stored badly; returns a checksum. */
static size_t list(struct dlh_ctx *ctx)
{
	size_t sum = 0;

	for (struct dlh_dev *dev = dlh_dev_first(ctx); dev; dev = dlh_dev_next(dev)) {
		const struct dlh_cage *cages;
		size_t ncages = dlh_dev_cages(dev, &cages);

		sum += strlen(dlh_dev_handle(dev)) + strlen(dlh_dev_bus(dev)) + strlen(dlh_dev_name(dev));
		/* a relayed faceplate and card (dlhald's device messages) */
		for (size_t i = 0; i < ncages; i++)
			sum += strlen(cages[i].form) + strlen(cages[i].label) + cages[i].module + cages[i].row;
		if (dlh_dev_card(dev))
			sum += strlen(dlh_dev_card(dev));
		/* a relayed driver name (DEVLINK_ATTR_INFO_DRIVER_NAME): short, printable, no blank */
		{
			const char *drv = dlh_dev_driver(dev);
			size_t n = strlen(drv);

			if (!n || n >= DLH_DRIVER_NAME_MAX)
				abort();
			for (size_t i = 0; i < n; i++)
				if ((unsigned char)drv[i] <= ' ' || (unsigned char)drv[i] >= 0x7f)
					abort();
			sum += n + strlen(dlh_dev_backend(dev));
		}
		for (struct dlh_port *p = dlh_port_first(dev); p; p = dlh_port_next(p)) {
			uint32_t module = 0, lane = 0;

			dlh_port_module(p, &module, &lane);
			sum += module + lane + dlh_port_speed(p);
			sum += strlen(dlh_port_handle(p)) + dlh_port_index(p) + (size_t)dlh_port_type(p);
			sum += strlen(dlh_port_type_name(dlh_port_desired_type(p)));
			sum += strlen(dlh_port_flavour_name(dlh_port_flavour(p)));
			if (dlh_port_netdev(p))
				sum += strlen(dlh_port_netdev(p));
			if (dlh_port_ibdev(p))
				sum += strlen(dlh_port_ibdev(p));
			sum += dlh_port_split_group(p) + dlh_port_lanes(p) + dlh_port_number(p);
		}
	}
	return sum;
}

/* A streamed port (dlh_port_walk): every field read too. */
static int walk_read(const struct dlh_port *p, void *arg)
{
	size_t *sum = arg;

	*sum += strlen(dlh_port_handle(p)) + strlen(dlh_dev_handle(dlh_port_dev(p))) + (size_t)dlh_port_type(p);
	*sum +=
	    strlen(dlh_port_type_name(dlh_port_desired_type(p))) + strlen(dlh_port_flavour_name(dlh_port_flavour(p)));
	if (dlh_port_netdev(p))
		*sum += strlen(dlh_port_netdev(p));
	if (dlh_port_ibdev(p))
		*sum += strlen(dlh_port_ibdev(p));
	return 0;
}

/* A string the info put in: NUL-terminated inside its field, printable (core checked it). */
static size_t text_checked(const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	if (n == max)
		abort();
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < ' ' || (unsigned char)s[i] >= 0x7f)
			abort();
	return n;
}

/* What the device reports of itself (a hostile DEVLINK_CMD_INFO_GET answer): every field read. */
static size_t info_read(struct dlh_dev *dev)
{
	static struct dlh_dev_info info;
	size_t sum = 0;

	if (dlh_dev_info_get(dev, &info, NULL))
		return 0;
	if (info.nversions > DLH_VERSIONS_MAX)
		abort();
	sum += text_checked(info.driver, sizeof(info.driver)) + text_checked(info.serial, sizeof(info.serial)) +
	       text_checked(info.board_serial, sizeof(info.board_serial));
	for (size_t i = 0; i < info.nversions; i++) {
		if ((unsigned)info.versions[i].kind > DLH_VERSION_STORED || !info.versions[i].name[0] ||
		    !info.versions[i].value[0])
			abort();
		sum += text_checked(info.versions[i].name, sizeof(info.versions[i].name)) +
		       text_checked(info.versions[i].value, sizeof(info.versions[i].value));
	}
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct feed f = {.in = data, .left = size};
	struct dlh_extack ext;
	struct dlh_ctx *ctx;
	struct dlh_port *port;

	if (dlh_ctx_new(&ctx, &ext) || dlh_sdk_driver_register(ctx, &daemon_driver, &ext))
		abort();
	fake.feed = &f;
	if (!dlh_ctx_bus_attach(ctx, "daemon", FUZZ_PATH, &ext)) {
		size_t sum = 0;

		/* A listing streamed, one port by netdev (a get by name), then the mirror. */
		dlh_port_walk(ctx, walk_read, &sum, &ext);
		dlh_port_lookup(ctx, "eth0", &port, &ext);
		sum += list(ctx);

		/* A dry run (the daemon's plan, hostile here), one planned after another, firmware options. */
		port = dlh_port_first_all(ctx);
		if (port) {
			struct dlh_plan plan;
			struct dlh_seq *seq;
			struct dlh_fw_option o[16];
			size_t n;

			if (!dlh_port_split_plan(port, 2, &plan, &ext))
				for (unsigned int i = 0; i < plan.ncome; i++)
					sum += strlen(plan.come[i].netdev) + strlen(plan.come[i].ibdev) + plan.nafter;
			if (!dlh_seq_new(ctx, &seq)) {
				struct dlh_port *v = dlh_seq_port_first(seq, dlh_port_dev(port));

				if (v && !dlh_seq_split(seq, v, 2, &plan, &ext)) {
					for (v = dlh_seq_port_first(seq, dlh_port_dev(port)); v;
					     v = dlh_seq_port_next(v))
						sum += strlen(dlh_port_handle(v)) +
						       (dlh_port_netdev(v) ? strlen(dlh_port_netdev(v)) : 0);
					v = dlh_seq_port_first(seq, dlh_port_dev(port));
					if (v)
						dlh_seq_unsplit(seq, v, &plan, &ext);
				}
				dlh_seq_free(seq);
			}
			if (!dlh_dev_fw_options(dlh_port_dev(port), o, 16, &n, &ext))
				sum += n;
			sum += info_read(dlh_port_dev(port));
			dlh_port_split(port, 2, &ext);
		}
		if (list(ctx) + sum == 1)
			fprintf(stderr, "(checksum)\n"); /* keeps the reads */
	}
	dlh_ctx_free(ctx);
	for (int i = 0; i < fake.nconn; i++)
		close(fake.daemon[i]);
	fake.feed = NULL;
	fake.nconn = 0;
	fake.client[0] = fake.client[1] = fake.daemon[0] = fake.daemon[1] = -1;
	return 0;
}
