/* SPDX-License-Identifier: MIT */
/*
 * Records the kernel's devlink dumps for bench/replay: the device dump, then
 * the port dump, every message exactly as the kernel sent it (NLMSG_DONE
 * left out), to stdout. Raw sockets and no library, so that it runs in the
 * test VM as built here.
 *   nlrecord > netdevsim.nl        (as root, in a VM with netdevsim ports)
 */
#include "nlmsg.h"

#include <linux/devlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static unsigned char buf[65536];

static int send_req(int fd, uint16_t type, uint8_t cmd, uint16_t flags, const char *family)
{
	struct {
		struct nlmsghdr h;
		struct genlmsghdr g;
		unsigned char attrs[32];
	} req = {.h = {.nlmsg_type = type, .nlmsg_flags = NLM_F_REQUEST | flags, .nlmsg_seq = cmd},
		 .g = {.cmd = cmd, .version = 1}};
	size_t len = NLMSG_HDRLEN + GENL_HDRLEN;

	if (family) {
		struct nlattr *a = (struct nlattr *)req.attrs;

		a->nla_type = CTRL_ATTR_FAMILY_NAME;
		a->nla_len = (uint16_t)(NLA_HDRLEN + strlen(family) + 1);
		memcpy(req.attrs + NLA_HDRLEN, family, strlen(family) + 1);
		len += NLA_ALIGN(a->nla_len);
	}
	req.h.nlmsg_len = (uint32_t)len;
	return send(fd, &req, len, 0) == (ssize_t)len ? 0 : -1;
}

/* Reads to the end of a dump, writing each message when @out. 0 at NLMSG_DONE. */
static int read_dump(int fd, FILE *out, int *family)
{
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		int rem = (int)n;

		if (n <= 0)
			return -1;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_FITS(h, rem); h = NLMSG_NEXT(h, rem)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(h))->error ? -1 : 0;
			if (family) {
				/* CTRL_CMD_NEWFAMILY: the id is the u16 CTRL_ATTR_FAMILY_ID. */
				unsigned char *p = (unsigned char *)NLMSG_DATA(h) + GENL_HDRLEN;
				unsigned char *end = (unsigned char *)h + h->nlmsg_len;

				while (p + NLA_HDRLEN <= end) {
					struct nlattr *a = (struct nlattr *)p;

					if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
						break;
					if (a->nla_type == CTRL_ATTR_FAMILY_ID)
						memcpy(family, p + NLA_HDRLEN, 2);
					p += NLA_ALIGN(a->nla_len);
				}
			} else if (fwrite(h, 1, h->nlmsg_len, out) != h->nlmsg_len) {
				return -1;
			}
		}
	}
}

int main(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC), family = 0;

	if (fd < 0 || send_req(fd, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK, DEVLINK_GENL_NAME) ||
	    read_dump(fd, NULL, &family) || !family) {
		fprintf(stderr, "nlrecord: no devlink family\n");
		return 1;
	}
	if (send_req(fd, (uint16_t)family, DEVLINK_CMD_GET, NLM_F_DUMP, NULL) || read_dump(fd, stdout, NULL) ||
	    send_req(fd, (uint16_t)family, DEVLINK_CMD_PORT_GET, NLM_F_DUMP, NULL) || read_dump(fd, stdout, NULL)) {
		fprintf(stderr, "nlrecord: dump failed\n");
		return 1;
	}
	close(fd);
	return fflush(stdout) ? 1 : 0;
}
