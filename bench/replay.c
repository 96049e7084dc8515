/* SPDX-License-Identifier: MIT */
/*
 * Serves a recorded kernel dump (bench/nlrecord) over dlhald's protocol, so
 * that "dl -s SOCKET" runs the kernel backend's parsing, the model and the
 * output on the kernel's own bytes, with no kernel and no VM: the messages
 * are sent as recorded, only their type (the family) and sequence number
 * rewritten. Device dumps get the recorded devices; port dumps the first
 * NPORTS ports; SUBSCRIBE an ack. Any other request is refused.
 *   bench-replay SOCKET FILE NPORTS     (serves until killed; bench/replay.sh drives it)
 */
#include "nlmsg.h"

#include <dlhal/protocol.h>
#include <errno.h>
#include <linux/devlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_CLIENTS 8

static unsigned char *rec;
static size_t rec_len, nports;

/* True for a recorded port message (it has a port index). */
static int is_port(const struct nlmsghdr *h)
{
	const unsigned char *p = (const unsigned char *)NLMSG_DATA(h) + GENL_HDRLEN;
	const unsigned char *end = (const unsigned char *)h + h->nlmsg_len;

	while (p + NLA_HDRLEN <= end) {
		const struct nlattr *a = (const struct nlattr *)p;

		if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
			return 0;
		if (a->nla_type == DEVLINK_ATTR_PORT_INDEX)
			return 1;
		p += NLA_ALIGN(a->nla_len);
	}
	return 0;
}

static void reply_err(int fd, const struct nlmsghdr *req, int err)
{
	struct {
		struct nlmsghdr h;
		struct nlmsgerr e;
	} m = {.h = {.nlmsg_len = sizeof(m),
		     .nlmsg_type = NLMSG_ERROR,
		     .nlmsg_flags = NLM_F_CAPPED,
		     .nlmsg_seq = req->nlmsg_seq},
	       .e = {.error = err, .msg = *req}};

	send(fd, &m, sizeof(m), MSG_NOSIGNAL);
}

/* The recorded messages of one kind, packed into records as dlhald packs them, then NLMSG_DONE. */
static void dump(int fd, const struct nlmsghdr *req, int ports)
{
	static unsigned char out[DLHAL_RECORD_MAX];
	size_t len = 0, sent = 0;
	int rem = (int)rec_len;
	struct nlmsghdr done = {.nlmsg_len = NLMSG_LENGTH(sizeof(int)),
				.nlmsg_type = NLMSG_DONE,
				.nlmsg_flags = NLM_F_MULTI,
				.nlmsg_seq = req->nlmsg_seq};
	unsigned char donebuf[NLMSG_LENGTH(sizeof(int))] = {0};

	for (struct nlmsghdr *h = (struct nlmsghdr *)rec; NLMSG_FITS(h, rem); h = NLMSG_NEXT(h, rem)) {
		if (is_port(h) != ports || (ports && sent == nports))
			continue;
		if (len + h->nlmsg_len > sizeof(out)) {
			send(fd, out, len, MSG_NOSIGNAL);
			len = 0;
		}
		memcpy(out + len, h, h->nlmsg_len);
		((struct nlmsghdr *)(out + len))->nlmsg_type = DLHAL_FAMILY;
		((struct nlmsghdr *)(out + len))->nlmsg_seq = req->nlmsg_seq;
		len += NLMSG_ALIGN(h->nlmsg_len);
		sent++;
	}
	if (len)
		send(fd, out, len, MSG_NOSIGNAL);
	memcpy(donebuf, &done, sizeof(done));
	send(fd, donebuf, sizeof(donebuf), MSG_NOSIGNAL);
}

static void handle(int fd, unsigned char *buf, ssize_t n)
{
	int rem = (int)n;

	for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_FITS(h, rem); h = NLMSG_NEXT(h, rem)) {
		struct genlmsghdr *g = NLMSG_DATA(h);

		if (h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN) || h->nlmsg_type != DLHAL_FAMILY) {
			reply_err(fd, h, -EINVAL);
		} else if (g->cmd == DLHAL_CMD_SUBSCRIBE) {
			reply_err(fd, h, 0);
		} else if ((g->cmd == DEVLINK_CMD_GET || g->cmd == DEVLINK_CMD_PORT_GET) &&
			   (h->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP) {
			dump(fd, h, g->cmd == DEVLINK_CMD_PORT_GET);
		} else {
			reply_err(fd, h, -EOPNOTSUPP);
		}
	}
}

static int load(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct stat st;

	if (!f || fstat(fileno(f), &st) || !(rec = malloc((size_t)st.st_size + 1)) ||
	    fread(rec, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		if (f)
			fclose(f);
		return -1;
	}
	rec_len = (size_t)st.st_size;
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	static unsigned char buf[DLHAL_RECORD_MAX];
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct pollfd fds[1 + MAX_CLIENTS];
	int nfds = 1;

	if (argc != 4 || strlen(argv[1]) >= sizeof(sa.sun_path) || load(argv[2])) {
		fprintf(stderr, "usage: bench-replay SOCKET FILE NPORTS (FILE from bench/nlrecord)\n");
		return 2;
	}
	nports = strtoul(argv[3], NULL, 10);
	signal(SIGPIPE, SIG_IGN);
	strcpy(sa.sun_path, argv[1]);
	unlink(argv[1]);
	fds[0].fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	fds[0].events = POLLIN;
	if (fds[0].fd < 0 || bind(fds[0].fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fds[0].fd, 16)) {
		perror("bench-replay");
		return 1;
	}
	for (;;) {
		if (poll(fds, (nfds_t)nfds, -1) < 0)
			continue;
		if ((fds[0].revents & POLLIN) && nfds < 1 + MAX_CLIENTS) {
			fds[nfds].fd = accept(fds[0].fd, NULL, NULL);
			fds[nfds].events = POLLIN;
			fds[nfds].revents = 0;
			nfds += fds[nfds].fd >= 0;
		}
		for (int i = 1; i < nfds; i++) {
			ssize_t n;

			if (!fds[i].revents)
				continue;
			n = recv(fds[i].fd, buf, sizeof(buf), 0);
			if (n > 0) {
				handle(fds[i].fd, buf, n);
				continue;
			}
			close(fds[i].fd);
			fds[i--] = fds[--nfds];
		}
	}
}
