/* SPDX-License-Identifier: MIT */
/*
 * The same protocol to a dlhald over its UNIX socket (docs/protocol.md): two
 * SOCK_SEQPACKET connections, a record a message, numbered here as libnl
 * numbers a netlink socket's.
 */
#include "transport.h"

#include <dlhal/protocol.h>
#include <errno.h>
#include <linux/netlink.h>
#include <netlink/msg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int unix_connect(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* What nl_send_auto() completes for a netlink socket, then the record. */
static int ux_send(struct kdl_conn *c, int which, struct nl_msg *msg)
{
	struct nlmsghdr *h = nlmsg_hdr(msg);

	h->nlmsg_flags |= NLM_F_REQUEST | ((h->nlmsg_flags & NLM_F_DUMP) ? 0 : NLM_F_ACK);
	h->nlmsg_seq = ++c->seq;
	h->nlmsg_pid = 0;
	return send(c->fd[which], h, h->nlmsg_len, MSG_NOSIGNAL) == (ssize_t)h->nlmsg_len ? 0 : -NLE_BAD_SOCK;
}

static int ux_recv(struct kdl_conn *c, int which, bool wait, unsigned char **buf)
{
	ssize_t n;

	*buf = malloc(DLHAL_RECORD_MAX);
	if (!*buf)
		return -NLE_NOMEM;
	n = recv(c->fd[which], *buf, DLHAL_RECORD_MAX, wait ? 0 : MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	/* 0: the daemon closed the connection. */
	return n > 0 ? (int)n : -NLE_BAD_SOCK;
}

static int ux_fd(const struct kdl_conn *c)
{
	return c->fd[1];
}

static void ux_close(struct kdl_conn *c)
{
	close(c->fd[1]);
	close(c->fd[0]);
	c->fd[0] = c->fd[1] = -1;
}

static const struct kdl_transport unix_transport = {
    .peer = "dlhald",
    .peers = "dlhald's",
    .daemon = true,
    .send = ux_send,
    .recv = ux_recv,
    .fd = ux_fd,
    .close = ux_close,
};

int kdl_unix_open(struct kdl_conn *c, const char *path, struct dlh_extack *ext)
{
	c->t = &unix_transport;
	c->fd[0] = unix_connect(path);
	if (c->fd[0] < 0)
		return dlh_sdk_extack(ext, -errno, "Cannot connect to dlhald at %s: %s", path, strerror(errno));
	c->fd[1] = unix_connect(path);
	if (c->fd[1] < 0) {
		int err = dlh_sdk_extack(ext, -errno, "Cannot connect to dlhald at %s: %s", path, strerror(errno));

		close(c->fd[0]);
		return err;
	}
	return 0;
}
