/* SPDX-License-Identifier: MIT */
/*
 * The kernel backend's two transports behind one interface: the kernel's
 * devlink family over generic netlink (netlink.c, libnl) and a dlhald's over
 * a UNIX socket (unix.c). Each gives two connections carrying the same
 * messages, 0 for requests and 1 for notifications; devlink.c speaks the
 * protocol over either and asks only what the peer is (->daemon).
 */
#ifndef DLHAL_KERNEL_TRANSPORT_H
#define DLHAL_KERNEL_TRANSPORT_H

#include <dlhal/sdk.h>
#include <stdbool.h>
#include <stdint.h>

struct nl_msg;
struct nl_sock;
struct nlmsghdr;
struct kdl_conn;

struct kdl_transport {
	const char *peer;  /* in messages: "the kernel", "dlhald" */
	const char *peers; /* "the kernel's", "dlhald's" */
	bool daemon;	   /* a dlhald: DLHAL_ commands and attributes, devices that are its own (no sysfs) */
	/* Sends @msg (the caller frees it) on connection @which: 0, or a negative libnl error. */
	int (*send)(struct kdl_conn *c, int which, struct nl_msg *msg);
	/*
	 * One read from connection @which into *@buf, which the caller frees:
	 * its length; 0 when nothing is queued (notifications are read
	 * without waiting; a request's answer waits when @wait); or a negative
	 * libnl error (-NLE_BAD_SOCK: the peer closed the connection).
	 */
	int (*recv)(struct kdl_conn *c, int which, bool wait, unsigned char **buf);
	/* The notification connection's descriptor, to watch. */
	int (*fd)(const struct kdl_conn *c);
	void (*close)(struct kdl_conn *c);
};

struct kdl_conn {
	const struct kdl_transport *t;
	struct nl_sock *sk[2]; /* netlink.c's */
	int fd[2];	       /* unix.c's */
	uint32_t seq;	       /* unix.c's: libnl numbers a netlink socket's requests */
};

/* What the kernel's controller says of the devlink family. */
struct kdl_family {
	int id;
	int grp;	 /* the "config" multicast group, or -1 */
	uint32_t ops[4]; /* the family's commands, a bit each */
};

/*
 * Connects to the kernel: the request socket, the family resolved, the
 * notification socket in its "config" group (still blocking, so that a
 * request on it waits for its answer, until kdl_netlink_watch()).
 */
int kdl_netlink_open(struct kdl_conn *c, struct kdl_family *fam, struct dlh_extack *ext);
/* The notification socket non-blocking, with room for a burst. */
void kdl_netlink_watch(struct kdl_conn *c);
/* Sends @msg (freed here) to the controller; each reply to @fn until the end or an error: 0 or -EIO. */
int kdl_netlink_ctrl(struct kdl_conn *c, struct nl_msg *msg, void (*fn)(const struct nlmsghdr *h, void *arg),
		     void *arg);

/* Connects twice to the dlhald listening on @path. */
int kdl_unix_open(struct kdl_conn *c, const char *path, struct dlh_extack *ext);

#endif
