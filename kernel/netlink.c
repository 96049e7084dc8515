/* SPDX-License-Identifier: MIT */
/*
 * The kernel's devlink family over generic netlink (libnl): the request and
 * notification sockets, the family resolved through the controller, and the
 * transport ops devlink.c sends and reads through (transport.h).
 */
#include "kernel.h"
#include "nlattr.h"
#include "transport.h"

#include <errno.h>
#include <linux/devlink.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static struct nl_sock *sock_open(void)
{
	struct nl_sock *sk = nl_socket_alloc();
	int one = 1;

	if (!sk)
		return NULL;
	if (genl_connect(sk)) {
		nl_socket_free(sk);
		return NULL;
	}
	/* Large reads without peeking: a 1024-port dump in a few recvmsg() calls. */
	nl_socket_disable_msg_peek(sk);
	nl_socket_set_msg_buf_size(sk, 64 * 1024);
	/* Ask for the extack message; cap acks at the header. */
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	return sk;
}

/*
 * The family id, the "config" group and the commands (a bit each in @ops,
 * 128 bits) from a CTRL_CMD_NEWFAMILY reply, each attribute checked.
 */
void dlh__family_parse(const struct nlmsghdr *nlh, int *family, int *group, uint32_t ops[4])
{
	enum { F_ID, F_COUNT_ };
	enum { G_NAME, G_ID, G_COUNT_ };
	enum { O_ID, O_COUNT_ };
	static const struct dlh__attr_rule fam_rules[F_COUNT_] = {
	    [F_ID] = {CTRL_ATTR_FAMILY_ID, DLH__ATTR_U16, 0, "family id"},
	};
	static const struct dlh__attr_rule grp_rules[G_COUNT_] = {
	    [G_NAME] = {CTRL_ATTR_MCAST_GRP_NAME, DLH__ATTR_STR, GENL_NAMSIZ, "group name"},
	    [G_ID] = {CTRL_ATTR_MCAST_GRP_ID, DLH__ATTR_U32, 0, "group id"},
	};
	static const struct dlh__attr_rule op_rules[O_COUNT_] = {
	    [O_ID] = {CTRL_ATTR_OP_ID, DLH__ATTR_U32, 0, "op id"},
	};
	const struct nlattr *groups, *g, *ops_nest;
	struct nlattr *id[F_COUNT_];
	char why[128];
	int rem;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN ||
	    dlh__attrs_parse(genlmsg_attrdata(nlmsg_data(nlh), 0), genlmsg_attrlen(nlmsg_data(nlh), 0), fam_rules,
			     F_COUNT_, id, false, why, sizeof(why)) ||
	    !id[F_ID])
		return;
	*family = nla_get_u16(id[F_ID]);
	ops_nest = dlh__attr_peek(nlh, CTRL_ATTR_OPS);
	if (ops_nest) {
		nla_for_each_nested(g, ops_nest, rem)
		{
			struct nlattr *ob[O_COUNT_];
			uint32_t op;

			if (dlh__attrs_parse(nla_data(g), nla_len(g), op_rules, O_COUNT_, ob, false, why,
					     sizeof(why)) ||
			    !ob[O_ID])
				continue;
			op = nla_get_u32(ob[O_ID]);
			if (op < 128)
				ops[op / 32] |= 1u << (op % 32);
		}
	}
	groups = dlh__attr_peek(nlh, CTRL_ATTR_MCAST_GROUPS);
	if (!groups)
		return;
	nla_for_each_nested(g, groups, rem)
	{
		struct nlattr *gb[G_COUNT_];

		if (dlh__attrs_parse(nla_data(g), nla_len(g), grp_rules, G_COUNT_, gb, false, why, sizeof(why)) ||
		    !gb[G_NAME] || !gb[G_ID])
			continue;
		if (!strcmp(dlh__attr_str(gb[G_NAME]), DEVLINK_GENL_MCGRP_CONFIG_NAME))
			*group = (int)nla_get_u32(gb[G_ID]);
	}
}

/* Sends @msg (freed here) to the controller and hands each reply to @fn until the end or an error. */
static int ctrl_request(struct nl_sock *sk, struct nl_msg *msg, void (*fn)(const struct nlmsghdr *h, void *arg),
			void *arg)
{
	int err, done = 0;

	err = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	if (err < 0)
		return -EIO;
	/* The answer, then the ack or the end of a dump; an unknown family is an error reply (ENOENT). */
	while (!done) {
		struct sockaddr_nl nla;
		unsigned char *buf = NULL;
		int n = nl_recv(sk, &nla, &buf, NULL);

		if (n <= 0) {
			free(buf);
			return -EIO;
		}
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; nlmsg_ok(h, n); h = nlmsg_next(h, &n)) {
			if (h->nlmsg_type == NLMSG_ERROR || h->nlmsg_type == NLMSG_DONE)
				done = 1;
			else if (h->nlmsg_type == GENL_ID_CTRL)
				fn(h, arg);
		}
		free(buf);
	}
	return 0;
}

static void on_family(const struct nlmsghdr *h, void *arg)
{
	struct kdl_family *f = arg;

	dlh__family_parse(h, &f->id, &f->grp, f->ops);
}

/* Family id, "config" group and commands in one CTRL_CMD_GETFAMILY (libnl's helpers ask twice). */
static int family_resolve(struct nl_sock *sk, struct kdl_family *f)
{
	struct nl_msg *msg = nlmsg_alloc();

	*f = (struct kdl_family){.id = -1, .grp = -1};
	if (!msg)
		return -ENOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, GENL_ID_CTRL, 0, 0, CTRL_CMD_GETFAMILY, 1) ||
	    nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, DEVLINK_GENL_NAME)) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	if (ctrl_request(sk, msg, on_family, f))
		return -EIO;
	return f->id >= 0 ? 0 : -ENOENT;
}

/*
 * From a CTRL_CMD_GETPOLICY reply: whether command @cmd's dump has a policy
 * of its own (CTRL_ATTR_OP_POLICY, nested by command, holds
 * CTRL_ATTR_POLICY_DUMP). A kernel whose dump ignores attributes has none.
 */
bool dlh__policy_has_dump(const struct nlmsghdr *nlh, uint32_t cmd)
{
	const struct nlattr *ops = dlh__attr_peek(nlh, CTRL_ATTR_OP_POLICY), *op, *a;
	int rem, rem2;

	if (!ops)
		return false;
	nla_for_each_nested(op, ops, rem)
	{
		if ((op->nla_type & NLA_TYPE_MASK) != cmd)
			continue;
		nla_for_each_nested(a, op, rem2)
		{
			if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_POLICY_DUMP && nla_len(a) == sizeof(uint32_t))
				return true;
		}
	}
	return false;
}

/*
 * Room for a burst of notifications (a switch registering its ports at boot:
 * 12 devices of 256 ports are ~9,000 messages): 8 MiB, beyond rmem_max when
 * the process may (CAP_NET_ADMIN). A burst larger still overflows, and the
 * model is read again (resync).
 */
static void mon_buffer(struct nl_sock *sk)
{
	const char *env = getenv("DLHAL_KERNEL_RCVBUF");
	int fd = nl_socket_get_fd(sk), size = 8 << 20;
	char *end;

	/* a smaller buffer on purpose (the VM tests' overflow), in bytes */
	if (env) {
		long v = strtol(env, &end, 10);

		if (!*end && v >= 4096 && v <= (64L << 20)) {
			size = (int)v;
			setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
			return;
		}
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
}

static int netlink_send(struct kdl_conn *c, int which, struct nl_msg *msg)
{
	int err = nl_send_auto(c->sk[which], msg);

	return err < 0 ? err : 0;
}

/* (the request socket blocks, the notification socket does not once watched: @wait is theirs) */
static int netlink_recv(struct kdl_conn *c, int which, bool wait, unsigned char **buf)
{
	struct sockaddr_nl nla;
	int r = nl_recv(c->sk[which], &nla, buf, NULL);

	(void)wait;
	return r == -NLE_AGAIN ? 0 : r;
}

static int netlink_fd(const struct kdl_conn *c)
{
	return nl_socket_get_fd(c->sk[1]);
}

static void netlink_close(struct kdl_conn *c)
{
	nl_socket_free(c->sk[1]);
	nl_socket_free(c->sk[0]);
	c->sk[0] = c->sk[1] = NULL;
}

static const struct kdl_transport netlink_transport = {
    .peer = "the kernel",
    .peers = "the kernel's",
    .daemon = false,
    .send = netlink_send,
    .recv = netlink_recv,
    .fd = netlink_fd,
    .close = netlink_close,
};

int kdl_netlink_ctrl(struct kdl_conn *c, struct nl_msg *msg, void (*fn)(const struct nlmsghdr *h, void *arg), void *arg)
{
	return ctrl_request(c->sk[0], msg, fn, arg);
}

int kdl_netlink_open(struct kdl_conn *c, struct kdl_family *fam, struct dlh_extack *ext)
{
	int err;

	c->t = &netlink_transport;
	c->sk[0] = sock_open();
	if (!c->sk[0])
		return dlh_sdk_extack(ext, -EIO, "Cannot open a generic netlink socket");
	if (family_resolve(c->sk[0], fam)) {
		err = dlh_sdk_extack(ext, -EPROTONOSUPPORT,
				     "The kernel has no devlink family (not built with CONFIG_NET_DEVLINK?)");
		goto err_family;
	}
	c->sk[1] = sock_open();
	if (fam->grp < 0 || !c->sk[1] || nl_socket_add_membership(c->sk[1], fam->grp)) {
		err = dlh_sdk_extack(ext, -EIO, "Cannot join the devlink \"config\" multicast group");
		goto err_mon;
	}
	return 0;

err_mon:
	nl_socket_free(c->sk[1]);
err_family:
	nl_socket_free(c->sk[0]);
	c->sk[0] = c->sk[1] = NULL;
	return err;
}

void kdl_netlink_watch(struct kdl_conn *c)
{
	nl_socket_set_nonblocking(c->sk[1]);
	mon_buffer(c->sk[1]);
}
