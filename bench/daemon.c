/* SPDX-License-Identifier: MIT */
/*
 * dlhald throughput and event latency, over the raw protocol (no dl process
 * start in the numbers). Starts its own dlhald on a socket in /tmp.
 *   build/bench/bench-daemon build/tools/dlhald/dlhald [SECONDS]
 * Prints requests per second for a one-port get and for a split+unsplit
 * pair with 1, 8 and 32 clients (one process each), and the time from
 * sending an operation to each monitor receiving its first notification,
 * with 1 and 100 monitors: median and p99.
 */
#include "nlmsg.h"

#include <dlhal/protocol.h>
#include <errno.h>
#include <linux/devlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char sock[64];
static double seconds = 1.0;

struct req {
	struct nlmsghdr n;
	struct genlmsghdr g;
	unsigned char attrs[256];
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int connect_sock(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	strcpy(sa.sun_path, sock);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("connect");
		exit(1);
	}
	return fd;
}

static void attr(struct req *r, uint16_t type, const void *data, uint16_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->n.nlmsg_len));

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->n.nlmsg_len = NLMSG_ALIGN(r->n.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static void port_req(struct req *r, uint8_t cmd, uint32_t index)
{
	memset(r, 0, sizeof(*r));
	r->n.nlmsg_type = DLHAL_FAMILY;
	r->n.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	r->n.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN;
	r->g.cmd = cmd;
	r->g.version = 1;
	attr(r, DEVLINK_ATTR_BUS_NAME, "pci", 4);
	attr(r, DEVLINK_ATTR_DEV_NAME, "0000:03:00.0", 13);
	attr(r, DEVLINK_ATTR_PORT_INDEX, &index, 4);
}

/* Sends and reads records until the ack (or error); returns the errno (0: ok). */
static int call(int fd, struct req *r)
{
	unsigned char buf[DLHAL_RECORD_MAX];

	if (send(fd, r, r->n.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		int rem = (int)n;

		if (n <= 0)
			return -EIO;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_FITS(h, rem); h = NLMSG_NEXT(h, rem))
			if (h->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
	}
}

/* Each of @clients processes runs @op for the measured time; returns operations per second. */
static double throughput(int clients, int split)
{
	int fds[64][2];
	long total = 0;
	double t0;

	for (int c = 0; c < clients; c++) {
		if (pipe(fds[c]))
			exit(1);
		if (!fork()) {
			int fd = connect_sock();
			/* its own port: local ports 4k+1 and 4k+3 split by 2 independently */
			uint32_t lp = (uint32_t)(4 * (c / 2) + 1 + 2 * (c % 2));
			double end = now() + seconds;
			long ops = 0;
			struct req r;

			while (now() < end) {
				if (split) {
					uint32_t count = 2;

					port_req(&r, DEVLINK_CMD_PORT_SPLIT, lp);
					attr(&r, DEVLINK_ATTR_PORT_SPLIT_COUNT, &count, 4);
					if (call(fd, &r))
						_exit(2);
					port_req(&r, DEVLINK_CMD_PORT_UNSPLIT, lp);
				} else {
					port_req(&r, DEVLINK_CMD_PORT_GET, lp);
				}
				if (call(fd, &r))
					_exit(2);
				ops++;
			}
			if (write(fds[c][1], &ops, sizeof(ops)) != sizeof(ops))
				_exit(3);
			_exit(0);
		}
		close(fds[c][1]);
	}
	t0 = now();
	for (int c = 0; c < clients; c++) {
		long ops = 0;
		int st;

		if (read(fds[c][0], &ops, sizeof(ops)) == sizeof(ops))
			total += ops;
		close(fds[c][0]);
		wait(&st);
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "client failed (%d)\n", st);
			exit(1);
		}
	}
	(void)t0;
	return (double)total / seconds;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Time from sending a split (or unsplit) to each monitor's first notification of it. */
static void latency(int monitors, double *median, double *p99)
{
	enum { OPS = 200 };
	static double lat[OPS * 100];
	struct pollfd pfd[100];
	unsigned char buf[DLHAL_RECORD_MAX];
	int op = connect_sock(), n = 0;
	struct req r;

	for (int m = 0; m < monitors; m++) {
		struct req s = {.n = {.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN,
				      .nlmsg_type = DLHAL_FAMILY,
				      .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK},
				.g = {.cmd = DLHAL_CMD_SUBSCRIBE, .version = 1}};

		pfd[m].fd = connect_sock();
		pfd[m].events = POLLIN;
		if (call(pfd[m].fd, &s))
			exit(1);
	}
	for (int i = 0; i < OPS; i++) {
		uint32_t count = 2;
		double t0;
		int pending = monitors;
		char got[100] = {0};

		port_req(&r, i % 2 ? DEVLINK_CMD_PORT_UNSPLIT : DEVLINK_CMD_PORT_SPLIT, 1);
		if (!(i % 2))
			attr(&r, DEVLINK_ATTR_PORT_SPLIT_COUNT, &count, 4);
		t0 = now();
		if (send(op, &r, r.n.nlmsg_len, 0) < 0)
			exit(1);
		/* every notification of this op: the first per monitor is timed, the rest drained */
		while (pending) {
			if (poll(pfd, (nfds_t)monitors, 5000) <= 0)
				exit(1);
			for (int m = 0; m < monitors; m++) {
				if (!(pfd[m].revents & POLLIN))
					continue;
				if (!got[m]) {
					lat[n++] = now() - t0;
					got[m] = 1;
					pending--;
				}
				recv(pfd[m].fd, buf, sizeof(buf), MSG_DONTWAIT);
			}
		}
		/* the op's ack, then what remains of its notifications */
		if (call(op, &(struct req){.n = {.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN,
						 .nlmsg_type = DLHAL_FAMILY,
						 .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK},
					   .g = {.cmd = DLHAL_CMD_SUBSCRIBE, .version = 1}}) < -1000)
			exit(1);
		usleep(2000);
		for (int m = 0; m < monitors; m++)
			while (recv(pfd[m].fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
				;
	}
	qsort(lat, (size_t)n, sizeof(lat[0]), cmp);
	*median = lat[n / 2];
	*p99 = lat[(size_t)((double)n * 0.99)];
	for (int m = 0; m < monitors; m++)
		close(pfd[m].fd);
	close(op);
}

int main(int argc, char **argv)
{
	pid_t daemon;
	int st;

	if (argc < 2) {
		fprintf(stderr, "usage: bench-daemon PATH/TO/dlhald [SECONDS]\n");
		return 2;
	}
	if (argc > 2)
		seconds = atof(argv[2]);
	snprintf(sock, sizeof(sock), "/tmp/dlhald-bench-%d.sock", (int)getpid());
	daemon = fork();
	if (!daemon) {
		execl(argv[1], "dlhald", "-f", "-s", sock, "--sim", "sn2700", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 500 && access(sock, F_OK); i++)
		usleep(10000);
	usleep(50000);
	printf("dlhald on %s, sn2700, %.1f s per case, %ld cores\n", sock, seconds, sysconf(_SC_NPROCESSORS_ONLN));
	printf("%-28s %8s %8s %8s\n", "requests/s", "1", "8", "32");
	for (int split = 0; split <= 1; split++) {
		printf("%-28s", split ? "split+unsplit pair" : "one-port get");
		for (int c = 1; c <= 32; c *= (c == 1 ? 8 : 4)) {
			printf(" %8.0f", throughput(c, split));
			fflush(stdout);
		}
		printf("\n");
	}
	for (int m = 1; m <= 100; m = m == 1 ? 100 : 101) {
		double med, p99;

		latency(m, &med, &p99);
		printf("op -> event, %3d monitor%s     median %6.1f us   p99 %6.1f us\n", m, m > 1 ? "s" : " ",
		       med * 1e6, p99 * 1e6);
	}
	printf("reproduce: build/bench/bench-daemon build/tools/dlhald/dlhald %.1f\n", seconds);
	kill(daemon, SIGTERM);
	waitpid(daemon, &st, 0);
	return 0;
}
