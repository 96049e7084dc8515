/* SPDX-License-Identifier: MIT */
/*
 * The kernel's devlink generic-netlink family as an SDK driver: its devices
 * are the kernel's devlink instances, its ops send PORT_SET, PORT_SPLIT and
 * PORT_UNSPLIT, and a socket on the family's "config" multicast group keeps
 * the model in step with the kernel's device and port notifications.
 *
 * The kernel's errno and extack message reach the caller unchanged.
 */
#include "codec.h"
#include "kernel.h"
#include "nlattr.h"
#include "policy.h"
#include "transport.h"

#include <dlhal/protocol.h>
#include <stdlib.h>
#include <unistd.h>

#include <ctype.h>
#include <errno.h>
#include <linux/devlink.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <stdio.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/utsname.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif
/* Linux 6.8's, not in Debian 12's headers (the uapi's numbers never change). */
#define DLH_DEVLINK_CMD_NOTIFY_FILTER_SET 84

struct kdl {
	struct dlh_sdk_bus *bus;
	struct kdl_conn conn; /* to the kernel or to a dlhald (transport.h) */
	char *sim_value;      /* where a SIM_GET reply's value goes */
	size_t sim_len;
	uint32_t *reload_done; /* where a RELOAD reply's actions performed go */
	char *info_driver;     /* where an INFO_GET reply's driver name goes */
	size_t info_len;
	struct dlh_sdk_info *info; /* where its serial numbers and versions go (dev_info_get) */
	char info_bad[128];	   /* the first of them refused, for the log */
	/* A dlhald's devices' firmware options (DLHAL_ATTR_FW_OPTION), by device handle. */
	struct kopts {
		char dev[DLH_BUS_NAME_MAX + DLH_DEV_NAME_MAX + 1];
		struct dlh_fw_option o[16];
		size_t n;
	} * opts;
	size_t nopts;
	/* A dry run's reply (DLHAL_CMD_PLAN) goes into @plan; the first error in filling it, into @plan_ext. */
	struct dlh_sdk_plan *plan;
	struct dlh_extack *plan_ext;
	int plan_err;
	bool plan_got;
	struct dlh_sdk_io *io;
	int family;
	uint32_t ops[4]; /* the family's commands (the controller's list), a bit each */
	int dev_dump;	 /* the kernel dumps one device's ports (6.6 on): 1, not: -1, not asked: 0 */
	/* config "dev=BUS/NAME": only that device is mirrored; "" for every device */
	char scope_bus[DLH_BUS_NAME_MAX];
	char scope_dev[DLH_DEV_NAME_MAX];
	size_t scope_slot;    /* a PCI function's: its slot's length ("0000:16:00."), 0 for the name alone */
	struct dlh_dev *last; /* a dump's messages come device by device */
	/* A walk (bus_ports_walk): port replies go to walk_fn, not into the model. */
	int (*walk_fn)(const struct dlh_sdk_port_info *info, void *arg);
	void *walk_arg;
	int walk_ret;
	char walk_dev[DLH_BUS_NAME_MAX + DLH_DEV_NAME_MAX + 1];
	/* Notifications lost (ENOBUFS from the kernel, or dlhald's notice): the model is read again. */
	bool lost;
	bool draining;	       /* applying notifications: a drain from inside one (a fill) waits for the outer */
	bool reading[2];       /* reading a request's answer on connection 0 or 1: see request_on() */
	bool dump_intr;	       /* a dump's message said NLM_F_DUMP_INTR: it is done again */
	bool resyncing;	       /* the dumps of a resync: what they report is recorded as seen */
	struct seen *seen;     /* devices (index UINT32_MAX) and ports a resync's dumps reported */
	size_t nseen, seencap; /* (a device's ports are seen right after it) */
	unsigned long resyncs;
	char release[DLH_LINUX_RELEASE_MAX]; /* the running kernel's (uname), whose drivers run its devices */
};

struct seen {
	struct dlh_dev *dev;
	uint32_t index;
};

/* State of one request: its ack, the kernel's errno and extack message. */
struct req {
	int done;
	int err;
	char msg[DLH_EXTACK_MSG_MAX];
};

/*
 * What this end reads of a message itself, by slot (policy.h), each attribute
 * checked by the family's table before use: a reply with a malformed one is
 * dropped whole, as from a hostile peer. Attributes the table does not take
 * in a reply (params, functions...) are skipped. Ports, plans, faceplates
 * and versions are read by the codec (codec.h).
 */
enum {
	A_BUS = DLH__SLOT(DEVLINK_ATTR_BUS_NAME),
	A_DEV = DLH__SLOT(DEVLINK_ATTR_DEV_NAME),
	A_INDEX = DLH__SLOT(DEVLINK_ATTR_PORT_INDEX),
	A_SIM_VALUE = DLH__SLOT(DLHAL_ATTR_SIM_VALUE),
	A_RELOAD_DONE = DLH__SLOT(DEVLINK_ATTR_RELOAD_ACTIONS_PERFORMED),
	A_CARD = DLH__SLOT(DLHAL_ATTR_CARD),
	A_DRIVER = DLH__SLOT(DEVLINK_ATTR_INFO_DRIVER_NAME),
};

enum { E_MSG, E_COUNT_ };

static const struct dlh__attr_rule err_rules[E_COUNT_] = {
    [E_MSG] = {NLMSGERR_ATTR_MSG, DLH__ATTR_STR, 0, "extack message"},
};

static void seen_add(struct kdl *k, struct dlh_dev *dev, uint32_t index)
{
	if (k->nseen == k->seencap) {
		size_t cap = k->seencap ? 2 * k->seencap : 256;
		struct seen *v = realloc(k->seen, cap * sizeof(*v));

		if (!v)
			return; /* unseen: swept, and back with the next notification or resync */
		k->seen = v;
		k->seencap = cap;
	}
	k->seen[k->nseen++] = (struct seen){dev, index};
}

static int seen_cmp(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;

	if (x->dev != y->dev)
		return (uintptr_t)x->dev < (uintptr_t)y->dev ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static bool seen_has(const struct kdl *k, struct dlh_dev *dev, uint32_t index)
{
	struct seen key = {dev, index};

	return k->nseen && bsearch(&key, k->seen, k->nseen, sizeof(key), seen_cmp);
}

static struct dlh_dev *dev_of(struct kdl *k, struct nlattr **tb, bool create)
{
	const char *bus = dlh__attr_str(tb[A_BUS]), *name = dlh__attr_str(tb[A_DEV]);
	char handle[DLH_BUS_NAME_MAX + DLH_DEV_NAME_MAX + 1];
	struct dlh_dev *dev;

	if (!bus || !name)
		return NULL;
	if (k->last && !strcmp(dlh_dev_name(k->last), name) && !strcmp(dlh_dev_bus(k->last), bus))
		return k->last;
	snprintf(handle, sizeof(handle), "%s/%s", bus, name);
	dev = dlh_dev_find(dlh_sdk_bus_ctx(k->bus), handle);
	/* Another backend's device of the same handle (an emulated one): never this bus's to change. Adding
	 * it is refused, and core says the handle is served twice. */
	if (dev && dlh_sdk_dev_bus(dev) != k->bus)
		dev = NULL;
	if (!dev && create) {
		if (dlh_sdk_bus_dev_add(k->bus, handle, &dev, NULL))
			return NULL;
		/* its driver is this kernel's: where vendors' rules differ by release, they follow it */
		if (k->release[0])
			dlh_sdk_dev_linux_set(dev, k->release, NULL);
	}
	k->last = dev;
	if (dev && k->resyncing)
		seen_add(k, dev, UINT32_MAX);
	return dev;
}

/* A port of a dump, reported to a walk (core checks it as a registration). */
static void port_walk(struct kdl *k, struct nlattr **tb)
{
	struct dlh__port_msg m;
	struct dlh_sdk_port_info info = {.attrs = &m.attrs, .dev = k->walk_dev};
	size_t blen;

	if (k->walk_ret || dlh__port_msg_get(tb, &m) || !m.bus)
		return;
	/* Ports come device by device: the handle is formed once a device. */
	blen = strlen(m.bus);
	if (strncmp(k->walk_dev, m.bus, blen) || k->walk_dev[blen] != '/' || strcmp(k->walk_dev + blen + 1, m.dev))
		snprintf(k->walk_dev, sizeof(k->walk_dev), "%s/%s", m.bus, m.dev);
	info.index = m.index;
	info.type = m.type;
	info.desired_type = m.desired;
	info.netdev = m.netdev;
	info.ibdev = m.ibdev;
	info.pending = &m.pending;
	k->walk_ret = k->walk_fn(&info, k->walk_arg);
}

/* A port as the kernel describes it, new or changed. */
static void port_apply(struct kdl *k, struct nlattr **tb)
{
	struct dlh_dev *dev = dev_of(k, tb, true);
	struct dlh__port_msg m;
	struct dlh_port *port;

	if (!dev || dlh__port_msg_get(tb, &m))
		return;
	if (k->resyncing)
		seen_add(k, dev, m.index);
	port = dlh_port_find(dev, m.index);
	if (!port) {
		if (dlh_sdk_port_register(dev, m.index, &m.attrs, &port, NULL))
			return;
	} else {
		dlh_sdk_port_attrs_set(port, &m.attrs);
	}
	switch (m.type) {
	case DLH_PORT_TYPE_ETH:
		if (m.netdev && dlh_sdk_port_type_eth(port, m.netdev, NULL) == -EEXIST) {
			/* A rename whose other half is still in the socket: the
			 * stale holder gets its own notification next. (An
			 * emulated port of the same name, beside the kernel's,
			 * loses it: the kernel's netdev is the one that exists.) */
			dlh_sdk_port_type_clear(dlh_port_find_netdev(dlh_sdk_bus_ctx(k->bus), m.netdev));
			dlh_sdk_port_type_eth(port, m.netdev, NULL);
		} else if (!m.netdev) {
			dlh_sdk_port_type_eth(port, NULL, NULL);
		}
		break;
	case DLH_PORT_TYPE_IB:
		dlh_sdk_port_type_ib(port, m.ibdev, NULL);
		break;
	default:
		dlh_sdk_port_type_clear(port);
		break;
	}
	dlh_sdk_port_desired_type_set(port, m.desired);
	dlh_sdk_port_pending_set(port, &m.pending);
	dlh_sdk_port_split_counts_set(port, m.split_counts);
}

/* A dry run's reply, into the plan the op fills (once). */
static void plan_of(struct kdl *k, struct nlmsghdr *nlh)
{
	if (!k->plan || k->plan_got)
		return;
	k->plan_got = true;
	k->plan_err = dlh__plan_get(nlh, k->plan, k->plan_ext);
	/*
	 * A port or name the plan finds taken, or missing, in this side's view
	 * of the device: the view may be older than dlhald's model (its
	 * notifications not read yet), or the daemon wrong. Either way, say so.
	 */
	if ((k->plan_err == -EEXIST || k->plan_err == -ENOENT) && k->plan_ext) {
		char why[DLH_EXTACK_MSG_MAX];

		snprintf(why, sizeof(why), "%s", k->plan_ext->msg);
		dlh_sdk_extack(k->plan_ext, k->plan_err,
			       "dlhald's plan does not fit this view of the device (%s): read its notifications "
			       "and plan again",
			       why);
	}
}

/*
 * A dlhald's device message: its firmware options, kept by handle for
 * dev_fw_options (each checked by the codec; core checks the set as a
 * driver's). A message without them says the device has none.
 */
static void fw_options_of(struct kdl *k, struct dlh_dev *dev, struct nlmsghdr *nlh)
{
	struct kopts *o = NULL;

	for (size_t i = 0; i < k->nopts && !o; i++)
		if (!strcmp(k->opts[i].dev, dlh_dev_handle(dev)))
			o = &k->opts[i];
	if (!o) {
		struct kopts *no = realloc(k->opts, (k->nopts + 1) * sizeof(*no));

		if (!no)
			return;
		k->opts = no;
		o = &no[k->nopts++];
		snprintf(o->dev, sizeof(o->dev), "%s", dlh_dev_handle(dev));
	}
	dlh__fw_options_get(nlh, o->o, 16, &o->n);
}

static struct nl_msg *msg_new(struct kdl *k, uint8_t cmd, int flags);
static int request(struct kdl *k, struct nl_msg *msg, struct dlh_extack *ext);

/*
 * A dlhald's device message: its faceplate, each cage checked by the codec
 * and the whole by core (dlh_sdk_dev_cages_set()); a malformed one is
 * dropped whole, a message without cages says there are none.
 */
static void cages_of(struct dlh_dev *dev, struct nlmsghdr *nlh)
{
	struct dlh_cage cages[256];
	size_t n;

	if (!dlh__cages_get(nlh, cages, 256, &n))
		dlh_sdk_dev_cages_set(dev, cages, n, NULL);
}

static const struct kopts *kopts_find(const struct kdl *k, const struct dlh_dev *dev)
{
	for (size_t i = 0; i < k->nopts; i++)
		if (!strcmp(k->opts[i].dev, dlh_dev_handle(dev)))
			return &k->opts[i];
	return NULL;
}

/*
 * What the daemon's device messages said; a device known from port messages
 * only (a lazy lookup by netdev) is asked for once with a get.
 */
static int daemon_dev_fw_options(struct dlh_dev *dev, struct dlh_fw_option *opts, size_t max, size_t *n,
				 struct dlh_extack *ext)
{
	struct kdl *k = dlh_sdk_bus_priv(dlh_sdk_dev_bus(dev));
	const struct kopts *o = kopts_find(k, dev);

	if (!o) {
		struct nl_msg *msg = msg_new(k, DEVLINK_CMD_GET, 0);

		if (!msg || dlh__dev_put(msg, dlh_dev_bus(dev), dlh_dev_name(dev))) {
			nlmsg_free(msg);
			return dlh_sdk_extack(ext, -ENOMEM, "Out of memory");
		}
		if (request(k, msg, NULL) == 0)
			o = kopts_find(k, dev);
	}
	if (!o || !o->n)
		return dlh_sdk_extack(ext, -EOPNOTSUPP, "Device has no firmware options");
	*n = o->n;
	memcpy(opts, o->o, (max < *n ? max : *n) * sizeof(*opts));
	return 0;
}

/* A PCI function's address, DOMAIN:BUS:DEV.FN ("0000:16:00.1"), as every bus names one. */
static bool pci_function(const char *name)
{
	static const char form[] = "xxxx:xx:xx.x";

	if (strlen(name) != sizeof(form) - 1)
		return false;
	for (size_t i = 0; form[i]; i++)
		if (form[i] == 'x' ? !isxdigit((unsigned char)name[i]) : name[i] != form[i])
			return false;
	return name[11] <= '7';
}

/* Whether the scope mirrors device @bus/@dev: the device named, or a function of its PCI slot. */
static bool in_scope(const struct kdl *k, const char *bus, const char *dev)
{
	if (strcmp(bus, k->scope_bus))
		return false;
	if (!k->scope_slot)
		return !strcmp(dev, k->scope_dev);
	return pci_function(dev) && !strncmp(dev, k->scope_dev, k->scope_slot);
}

/*
 * What a dlhald's device message says beyond devlink's names: its faceplate,
 * firmware options, card, the driver on its side, and what is pending.
 */
static void daemon_dev_said(struct kdl *k, struct dlh_dev *dev, struct nlmsghdr *nlh, struct nlattr **tb)
{
	struct dlh_pending p;

	fw_options_of(k, dev, nlh);
	cages_of(dev, nlh);
	/* a malformed name is no card: the device drawn on its own */
	if (dlh_sdk_dev_card_set(dev, dlh__attr_str(tb[A_CARD]), NULL))
		dlh_sdk_dev_card_set(dev, NULL, NULL);
	/* the driver on the daemon's side; a malformed name: the relay's own */
	if (dlh_sdk_dev_driver_set(dev, dlh__attr_str(tb[A_DRIVER]), NULL))
		dlh_sdk_dev_driver_set(dev, NULL, NULL);
	dlh__pending_get(tb, &p);
	dlh_sdk_dev_pending_set(dev, &p);
}

/*
 * What the kernel's device message says beyond its names: how many reloads
 * it counts. It reports nothing pending: a device it announces (registered,
 * or reloaded: a notification) has nothing pending that a vendor's rules said
 * it had; a dump's reply leaves what they said.
 */
static void nested_said(struct dlh_dev *dev, struct nlmsghdr *nlh)
{
	char handles[DLH_NESTED_MAX][DLH_HANDLE_MAX];
	const char *v[DLH_NESTED_MAX];
	struct dlh_extack ext;
	size_t n = dlh__nested_get(nlh, handles, DLH_NESTED_MAX);

	for (size_t i = 0; i < n; i++)
		v[i] = handles[i];
	if (dlh_sdk_dev_nested_set(dev, v, n, &ext))
		dlh_sdk_dev_nested_set(dev, NULL, 0, &ext);
}

static void kernel_dev_said(struct kdl *k, struct dlh_dev *dev, struct nlmsghdr *nlh, struct nlattr **tb)
{
	uint64_t reloads;

	(void)k;
	(void)tb;
	if (dlh__reloads_get(nlh, &reloads))
		dlh_sdk_dev_reloads_set(dev, reloads);
	nested_said(dev, nlh);
	if (!nlh->nlmsg_seq) {
		dlh_sdk_dev_pending_set(dev, &(struct dlh_pending){.type = DLH_PORT_TYPE_NOTSET});
		dlh_sdk_dev_rules_reset(dev);
	}
}

/* Devices and ports, from a dump or a notification. */

static void on_msg(struct kdl *k, struct nlmsghdr *nlh)
{
	struct nlattr *tb[DLH__SLOTS];
	struct dlh_port *port;
	struct dlh_dev *dev;
	char why[128];
	uint8_t cmd;

	if (nlh->nlmsg_type == k->family && nlh->nlmsg_len >= NLMSG_HDRLEN + GENL_HDRLEN && k->conn.t->daemon &&
	    ((struct genlmsghdr *)nlmsg_data(nlh))->cmd == DLHAL_CMD_PLAN) {
		plan_of(k, nlh);
		return;
	}
	if (nlh->nlmsg_type != k->family || nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN ||
	    dlh__policy_parse(genlmsg_attrdata(nlmsg_data(nlh), 0), genlmsg_attrlen(nlmsg_data(nlh), 0), DLH__IN_REPLY,
			      tb, false, why, sizeof(why)))
		return;
	cmd = ((struct genlmsghdr *)nlmsg_data(nlh))->cmd;
	/* Another device than the one mirrored: a dump's, or a notification the kernel did not filter. */
	if (k->scope_bus[0] && tb[A_BUS] && tb[A_DEV] &&
	    !in_scope(k, dlh__attr_str(tb[A_BUS]), dlh__attr_str(tb[A_DEV])))
		return;
	if (cmd == DLHAL_CMD_SIM_GET) {
		if (k->sim_value && tb[A_SIM_VALUE])
			snprintf(k->sim_value, k->sim_len, "%s", dlh__attr_str(tb[A_SIM_VALUE]));
		return;
	}
	if (cmd == DEVLINK_CMD_INFO_GET) {
		if (k->info_driver && tb[A_DRIVER])
			snprintf(k->info_driver, k->info_len, "%s", dlh__attr_str(tb[A_DRIVER]));
		if (k->info)
			dlh__info_get(nlh, k->info, k->info_bad, sizeof(k->info_bad));
		return;
	}
	/* Linux fills port dump replies with DEVLINK_CMD_NEW (not PORT_NEW): a
	 * message with a port index is about a port whatever its command says. */
	if (cmd == DEVLINK_CMD_NEW && tb[A_INDEX])
		cmd = DEVLINK_CMD_PORT_NEW;
	if (cmd == DEVLINK_CMD_RELOAD) {
		if (k->reload_done && tb[A_RELOAD_DONE]) {
			const struct nla_bitfield32 *b = nla_data(tb[A_RELOAD_DONE]);

			*k->reload_done = b->value & b->selector;
		}
		return;
	}
	switch (cmd) {
	case DEVLINK_CMD_NEW:
		dev = dev_of(k, tb, true);
		if (dev)
			(k->conn.t->daemon ? daemon_dev_said : kernel_dev_said)(k, dev, nlh, tb);
		break;
	case DEVLINK_CMD_DEL:
		dev = dev_of(k, tb, false);
		if (dev) {
			k->last = NULL;
			dlh_sdk_dev_remove(dev);
		}
		break;
	case DEVLINK_CMD_PORT_NEW:
		if (k->walk_fn)
			port_walk(k, tb);
		else
			port_apply(k, tb);
		break;
	case DEVLINK_CMD_PORT_DEL:
		dev = dev_of(k, tb, false);
		if (dev && tb[A_INDEX] && (port = dlh_port_find(dev, nla_get_u32(tb[A_INDEX]))))
			dlh_sdk_port_unregister(port);
		break;
	default: /* params, health, traps...: not in the model */
		break;
	}
}

/* The error, and the extack message the kernel put after it (NETLINK_EXT_ACK). */
static void on_err(struct req *r, struct nlmsghdr *nlh)
{
	struct nlmsgerr *e = nlmsg_data(nlh);

	r->done = 1;
	if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*e)) {
		r->err = -EPROTO;
		return;
	}
	r->err = e->error;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		size_t off = sizeof(*e) + ((nlh->nlmsg_flags & NLM_F_CAPPED) ? 0 : e->msg.nlmsg_len - NLMSG_HDRLEN);
		struct nlattr *tb[E_COUNT_];
		char why[128];

		if (NLMSG_HDRLEN + off <= nlh->nlmsg_len &&
		    !dlh__attrs_parse((struct nlattr *)((char *)e + off), (int)(nlh->nlmsg_len - NLMSG_HDRLEN - off),
				      err_rules, E_COUNT_, tb, false, why, sizeof(why)) &&
		    tb[E_MSG])
			snprintf(r->msg, sizeof(r->msg), "%s", dlh__attr_str(tb[E_MSG]));
	}
}

/*
 * Reads what is queued on @sk (blocking until the end of a request when @r is
 * given) and walks the messages in place: libnl's nl_recvmsgs() would copy
 * each of a 1024-port dump's messages into a new nl_msg first.
 */
/* One read from connection @which (0: requests, 1: notifications); <0 on error, 0 if none. */
static int recv_buf(struct kdl *k, int which, bool wait, unsigned char **buf)
{
	return k->conn.t->recv(&k->conn, which, wait, buf);
}

static int read_msgs(struct kdl *k, int which, struct req *r)
{
	do {
		unsigned char *buf = NULL;
		int n = recv_buf(k, which, r != NULL, &buf);

		if (n <= 0) {
			free(buf);
			return n;
		}
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; nlmsg_ok(h, n); h = nlmsg_next(h, &n)) {
			if (h->nlmsg_flags & NLM_F_DUMP_INTR)
				k->dump_intr = true;
			if (h->nlmsg_type == NLMSG_DONE) {
				if (r)
					r->done = 1;
			} else if (h->nlmsg_type == NLMSG_ERROR) {
				if (r)
					on_err(r, h);
				/* dlhald's word that this client's notifications overflowed */
				else if (which == 1 && h->nlmsg_len >= NLMSG_HDRLEN + sizeof(struct nlmsgerr) &&
					 ((struct nlmsgerr *)nlmsg_data(h))->error == -ENOBUFS)
					k->lost = true;
			} else {
				on_msg(k, h);
			}
		}
		free(buf);
		/* A request reads to its end; a drain (no request) until nothing is queued. */
	} while (!r || !r->done);
	return 0;
}

static int request_on(struct kdl *k, int which, struct nl_msg *msg, struct dlh_extack *ext)
{
	struct req r = {0};
	int err;

	/*
	 * One answer at a time on a connection. Applying an answer emits events,
	 * and a subscriber may want more (dlhald, sending a device a resync's dump
	 * reported, reads its ports): a request sent then would take the rest of
	 * the first answer, and its end, for its own, and the kernel refuses a
	 * second dump on the socket. It gets -EBUSY instead, which every caller
	 * takes as "later": core leaves a fill pending, a driver name unasked.
	 */
	if (k->reading[which]) {
		nlmsg_free(msg);
		return dlh_sdk_extack(ext, -EBUSY, "A request to %s is being answered", k->conn.t->peer);
	}
	err = k->conn.t->send(&k->conn, which, msg);
	nlmsg_free(msg);
	if (err < 0)
		return dlh_sdk_extack(ext, -EIO, "Cannot send to %s: %s", k->conn.t->peer, nl_geterror(err));
	k->reading[which] = true;
	err = read_msgs(k, which, &r);
	k->reading[which] = false;
	if (err < 0)
		return dlh_sdk_extack(ext, -EIO, "Cannot read %s answer: %s", k->conn.t->peers, nl_geterror(err));
	/* the answer's message as it came (none: none); a success may have one (ice: "Reboot required
	 * to finish port split") */
	if (r.err || r.msg[0])
		return dlh_sdk_extack(ext, r.err, "%s", r.msg);
	return 0;
}

static int request(struct kdl *k, struct nl_msg *msg, struct dlh_extack *ext)
{
	return request_on(k, 0, msg, ext);
}

static struct nl_msg *msg_new(struct kdl *k, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg && !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, k->family, 0, flags, cmd, 1)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static int dump(struct kdl *k, uint8_t cmd, struct dlh_extack *ext);

/*
 * Reads and drops what the notification socket holds, to the end: all of it is
 * older than the dump that follows. A further overflow reported meanwhile
 * (ENOBUFS) dropped more of the same, so reading goes on past it. Stopping
 * there instead (as this once did) left older notifications queued whose
 * successors were lost: applied after the dump, they could put back a state
 * the kernel had left. Should the kernel outpace the reading, another resync
 * follows.
 */
static int notifications_drain_all(struct kdl *k);
static void notifications_discard(struct kdl *k)
{
	unsigned char *buf;
	int n;

	for (unsigned long i = 0; i < (1ul << 20); i++) {
		buf = NULL;
		n = recv_buf(k, 1, false, &buf);
		free(buf);
		if (n == 0 || (n < 0 && n != -NLE_NOMEM))
			return;
	}
	k->lost = true;
}

/*
 * Notifications were lost: the model is read again whole and what the dumps
 * did not report is removed. Notifications queued before the dumps are
 * dropped (the dumps are newer); those that come during them are applied
 * after, in order, so the model ends at the latest state. A dump the kernel
 * marks interrupted by changes (NLM_F_DUMP_INTR) is done again.
 */
static void resync(struct kdl *k)
{
	struct dlh_ctx *ctx = dlh_sdk_bus_ctx(k->bus);
	struct dlh_dev *dev, *next;
	struct dlh_port *port, *pnext;
	int err = 0, tries = 0;

	k->lost = false;
	notifications_discard(k);
	if (k->lost)
		return;
	do {
		k->nseen = 0;
		k->dump_intr = false;
		k->resyncing = true;
		k->last = NULL;
		err = dump(k, DEVLINK_CMD_GET, NULL);
		if (!err)
			err = dump(k, DEVLINK_CMD_PORT_GET, NULL);
		k->resyncing = false;
	} while (!err && k->dump_intr && ++tries < 5);
	if (err) {
		/* nothing swept on a failed read: tried again at the next notification */
		k->lost = true;
		return;
	}
	qsort(k->seen, k->nseen, sizeof(*k->seen), seen_cmp);
	k->last = NULL;
	for (dev = dlh_dev_first(ctx); dev; dev = next) {
		next = dlh_dev_next(dev);
		if (dlh_sdk_dev_bus(dev) != k->bus)
			continue;
		if (!seen_has(k, dev, UINT32_MAX)) {
			dlh_sdk_dev_remove(dev);
			continue;
		}
		for (port = dlh_port_first(dev); port; port = pnext) {
			pnext = dlh_port_next(port);
			if (!seen_has(k, dev, dlh_port_index(port)))
				dlh_sdk_port_unregister(port);
		}
	}
	k->nseen = 0;
	k->resyncs++;
	dlh_sdk_bus_resynced(k->bus);
}

/*
 * Applies queued notifications, so that a show after an operation sees its
 * effect; a socket that overflowed (ENOBUFS: libnl's NLE_NOMEM) or dlhald's
 * notice of a loss makes the model be read again.
 *
 * Notifications are applied in the order they came, by construction: one
 * being applied may make core fill the model (a port of a device not seen
 * yet looks the device up, and the device list is filled), and a fill ends
 * with a drain; that nested drain does nothing, and the outer one goes on
 * with the next notification. Before, the nested drain applied the later
 * notifications first, and the one being applied then overwrote them with
 * its older state (a split port left 'type notset' with its old lanes).
 */
static int notifications_drain(struct kdl *k)
{
	int err = 0;

	if (k->draining)
		return 0;
	k->draining = true;
	err = notifications_drain_all(k);
	k->draining = false;
	return err;
}

static int notifications_drain_all(struct kdl *k)
{
	int err = 0;

	for (int i = 0; i < 3; i++) {
		err = read_msgs(k, 1, NULL);
		if (err == -NLE_NOMEM)
			k->lost = true;
		if (!k->lost)
			break;
		resync(k);
	}
	return err;
}

/* dlhald closed the connection (it stopped or died): its devices go with it,
 * with their events, so that clients' objects answer "was removed" rather
 * than show a model nobody keeps; and the socket is watched no more. */
static void daemon_gone(struct kdl *k)
{
	struct dlh_ctx *ctx = dlh_sdk_bus_ctx(k->bus);
	struct dlh_dev *dev, *next;

	for (dev = dlh_dev_first(ctx); dev; dev = next) {
		next = dlh_dev_next(dev);
		if (dlh_sdk_dev_bus(dev) == k->bus)
			dlh_sdk_dev_remove(dev);
	}
	k->last = NULL;
	dlh_sdk_io_free(k->io); /* (io_ready returns right after this callback) */
	k->io = NULL;
	{
		const char *path = dlh_sdk_bus_config(k->bus) ? dlh_sdk_bus_config(k->bus) : DLHAL_SOCKET_DEFAULT;
		char why[160];

		snprintf(why, sizeof(why), "the connection to dlhald at %s closed", path);
		dlh_sdk_bus_lost(k->bus, why);
	}
}

static void on_mon_readable(struct dlh_sdk_io *io, int fd, void *arg)
{
	struct kdl *k = arg;

	(void)io;
	(void)fd;
	if (notifications_drain(k) < 0 && k->conn.t->daemon && !k->lost)
		daemon_gone(k);
}

/* A change of @port as its request: the port's names and index, the change's own attribute. */
static struct nl_msg *change_msg(struct kdl *k, struct dlh_port *port, const struct dlh_change_req *r)
{
	struct dlh_dev *dev = dlh_port_dev(port);
	struct nl_msg *msg = msg_new(k, dlh__change_cmd(r->kind), 0);

	if (msg && (dlh__dev_put(msg, dlh_dev_bus(dev), dlh_dev_name(dev)) ||
		    nla_put_u32(msg, DEVLINK_ATTR_PORT_INDEX, dlh_port_index(port)) || dlh__change_put(msg, r))) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static int port_request(struct dlh_port *port, const struct dlh_change_req *r, struct dlh_extack *ext)
{
	struct kdl *k = dlh_sdk_bus_priv(dlh_sdk_dev_bus(dlh_port_dev(port)));
	struct nl_msg *msg = change_msg(k, port, r);
	int err;

	if (!msg)
		return dlh_sdk_extack(ext, -ENOMEM, "Out of memory");
	/* @port may be replaced by the notifications: nothing touches it after this. */
	err = request(k, msg, ext);
	notifications_drain(k);
	return err;
}

static int kernel_port_type_set(struct dlh_port *port, enum dlh_port_type type, struct dlh_extack *ext)
{
	return port_request(port, &(struct dlh_change_req){.kind = DLH_CHANGE_TYPE, .type = type}, ext);
}

static int kernel_port_split(struct dlh_port *port, unsigned int count, struct dlh_extack *ext)
{
	return port_request(port, &(struct dlh_change_req){.kind = DLH_CHANGE_SPLIT, .count = count}, ext);
}

static int kernel_port_unsplit(struct dlh_port *port, struct dlh_extack *ext)
{
	return port_request(port, &(struct dlh_change_req){.kind = DLH_CHANGE_UNSPLIT}, ext);
}

/*
 * A dlhald's plan: the request with DLHAL_ATTR_DRY_RUN and the changes the
 * sequence planned before on the device, which the daemon plans first with
 * its driver. A daemon from before dry runs refuses the attribute: partial.
 */
static int daemon_plan(struct dlh_port *port, const struct dlh_change_req *r, struct dlh_sdk_plan *plan,
		       struct dlh_extack *ext)
{
	struct kdl *k = dlh_sdk_bus_priv(dlh_sdk_dev_bus(dlh_port_dev(port)));
	size_t n;
	const struct dlh_change_req *before = dlh_sdk_plan_before(plan, &n);
	struct nl_msg *msg;
	int err;

	if (n > DLHAL_PLAN_BEFORE_MAX) {
		dlh_sdk_plan_partial(plan);
		return 0;
	}
	msg = change_msg(k, port, r);
	if (!msg || dlh__before_put(msg, before, n) || nla_put_flag(msg, DLHAL_ATTR_DRY_RUN)) {
		nlmsg_free(msg);
		return dlh_sdk_extack(ext, -ENOMEM, "Out of memory");
	}
	k->plan = plan;
	k->plan_ext = ext;
	k->plan_err = 0;
	k->plan_got = false;
	err = request(k, msg, ext);
	k->plan = NULL;
	if (err == -EINVAL && ext && !strncmp(ext->msg, "Unknown attribute", 17)) {
		memset(ext, 0, sizeof(*ext));
		dlh_sdk_plan_partial(plan);
		return 0;
	}
	if (!err && k->plan_err)
		return k->plan_err;
	if (!err && !k->plan_got)
		dlh_sdk_plan_partial(plan);
	return err;
}

static int daemon_port_split_plan(struct dlh_port *port, unsigned int count, struct dlh_sdk_plan *plan,
				  struct dlh_extack *ext)
{
	return daemon_plan(port, &(struct dlh_change_req){.kind = DLH_CHANGE_SPLIT, .count = count}, plan, ext);
}

static int daemon_port_unsplit_plan(struct dlh_port *port, struct dlh_sdk_plan *plan, struct dlh_extack *ext)
{
	return daemon_plan(port, &(struct dlh_change_req){.kind = DLH_CHANGE_UNSPLIT}, plan, ext);
}

static int daemon_port_type_set_plan(struct dlh_port *port, enum dlh_port_type type, struct dlh_sdk_plan *plan,
				     struct dlh_extack *ext)
{
	return daemon_plan(port, &(struct dlh_change_req){.kind = DLH_CHANGE_TYPE, .type = type}, plan, ext);
}

static int dump(struct kdl *k, uint8_t cmd, struct dlh_extack *ext)
{
	struct nl_msg *msg = msg_new(k, cmd, NLM_F_DUMP);

	if (!msg)
		return dlh_sdk_extack(ext, -ENOMEM, "Out of memory");
	return request(k, msg, ext);
}

static void on_port_policy(const struct nlmsghdr *h, void *arg)
{
	bool *has = arg;

	*has = *has || dlh__policy_has_dump(h, DEVLINK_CMD_PORT_GET);
}

/*
 * Whether a port dump takes the device to dump (Linux 6.6 on), asked once of
 * the controller: a dump that has a policy of its own validates and uses
 * DEVLINK_ATTR_BUS_NAME and _DEV_NAME; before, the dump ignores them and
 * reads every port, and the device's ports come with every port's (bus_fill).
 */
static bool dev_dump_supported(struct kdl *k)
{
	struct nl_msg *msg;
	bool has = false;

	if (k->dev_dump)
		return k->dev_dump > 0;
	k->dev_dump = -1;
	msg = nlmsg_alloc();
	if (!msg)
		return false;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, GENL_ID_CTRL, 0, NLM_F_DUMP, CTRL_CMD_GETPOLICY, 1) ||
	    nla_put_u16(msg, CTRL_ATTR_FAMILY_ID, (uint16_t)k->family) ||
	    nla_put_u32(msg, CTRL_ATTR_OP, DEVLINK_CMD_PORT_GET)) {
		nlmsg_free(msg);
		return false;
	}
	if (!kdl_netlink_ctrl(&k->conn, msg, on_port_policy, &has) && has)
		k->dev_dump = 1;
	return k->dev_dump > 0;
}

/*
 * The backend's config: NULL, or "dev=BUS/NAME" to mirror that one device.
 * A PCI function is mirrored with the other functions of its slot: they are
 * one card, and what is card-wide (an E810's port option) is planned from
 * all of them, so a mirror of one would plan and place its ports wrongly.
 */
static int scope_parse(struct kdl *k, const char *config, struct dlh_extack *ext)
{
	const char *name, *slash;
	size_t blen;

	if (!config)
		return 0;
	name = strncmp(config, "dev=", 4) ? NULL : config + 4;
	slash = name ? strchr(name, '/') : NULL;
	blen = slash ? (size_t)(slash - name) : 0;
	if (!slash || !blen || blen >= sizeof(k->scope_bus) || !slash[1] || strchr(slash + 1, '/') ||
	    strlen(slash + 1) >= sizeof(k->scope_dev))
		return dlh_sdk_extack(ext, -EINVAL, "Kernel backend option \"%.64s\" is not dev=BUS/NAME", config);
	memcpy(k->scope_bus, name, blen);
	k->scope_bus[blen] = '\0';
	snprintf(k->scope_dev, sizeof(k->scope_dev), "%s", slash + 1);
	k->scope_slot = pci_function(k->scope_dev) ? strlen(k->scope_dev) - 1 : 0;
	return 0;
}

/*
 * A mirror of one device asks the kernel (6.8 on) for that device's
 * notifications only, on the notification socket (the filter is the
 * socket's); before, or if it refuses, the others are read and dropped.
 * The filter names one device: a PCI slot's functions are all read.
 */
static void scope_filter_set(struct kdl *k)
{
	struct nl_msg *msg;

	if (!k->scope_bus[0] || k->scope_slot ||
	    !(k->ops[DLH_DEVLINK_CMD_NOTIFY_FILTER_SET / 32] & (1u << (DLH_DEVLINK_CMD_NOTIFY_FILTER_SET % 32))))
		return;
	msg = msg_new(k, DLH_DEVLINK_CMD_NOTIFY_FILTER_SET, 0);
	if (!msg || dlh__dev_put(msg, k->scope_bus, k->scope_dev)) {
		nlmsg_free(msg);
		return;
	}
	request_on(k, 1, msg, NULL);
}

static int kernel_bus_attach(struct dlh_sdk_bus *bus, struct dlh_extack *ext)
{
	struct kdl *k = dlh_sdk_bus_priv(bus);
	struct kdl_family fam;
	struct utsname uts;
	int err;

	k->bus = bus;
	err = scope_parse(k, dlh_sdk_bus_config(bus), ext);
	if (err)
		return err;
	if (!uname(&uts))
		snprintf(k->release, sizeof(k->release), "%s", uts.release);
	err = kdl_netlink_open(&k->conn, &fam, ext);
	if (err)
		return err;
	k->family = fam.id;
	memcpy(k->ops, fam.ops, sizeof(k->ops));
	scope_filter_set(k); /* while the socket blocks: the answer is waited for */
	kdl_netlink_watch(&k->conn);
	err = dlh_sdk_io_new(bus, k->conn.t->fd(&k->conn), on_mon_readable, k, &k->io);
	if (err) {
		dlh_sdk_extack(ext, err, "Out of memory");
		goto err_io;
	}
	/* Dump only what a caller asks for (bus_fill): "dl port show eth3" needs
	 * no device dump, "dl dev show" no port dump. The group is joined
	 * already, so nothing that changes before a dump is missed. */
	dlh_sdk_bus_fill_pending(bus, DLH_SDK_FILL_DEVS | DLH_SDK_FILL_PORTS);
	return 0;

err_io:
	k->conn.t->close(&k->conn);
	return err;
}

static int kernel_bus_fill(struct dlh_sdk_bus *bus, unsigned int what, struct dlh_extack *ext)
{
	struct kdl *k = dlh_sdk_bus_priv(bus);
	int err = 0;

	if (what & DLH_SDK_FILL_DEVS)
		err = dump(k, DEVLINK_CMD_GET, ext);
	if (!err && (what & DLH_SDK_FILL_PORTS))
		err = dump(k, DEVLINK_CMD_PORT_GET, ext);
	notifications_drain(k);
	return err;
}

/*
 * One device's ports (bus_fill_dev): a port dump of that device where the
 * kernel has it (6.6 on), read and applied as a fill's; on an older kernel
 * core reads every port instead (-EOPNOTSUPP).
 */
static int kernel_bus_fill_dev(struct dlh_sdk_bus *bus, const char *handle, struct dlh_extack *ext)
{
	struct kdl *k = dlh_sdk_bus_priv(bus);
	const char *slash = strchr(handle, '/');
	char busname[DLH_BUS_NAME_MAX];
	struct nl_msg *msg;
	int err;

	if (!slash || (size_t)(slash - handle) >= sizeof(busname))
		return dlh_sdk_extack(ext, -EINVAL, "Device handle \"%s\" is not bus/name", handle);
	/* the request socket reads another answer now: every port, later */
	if (k->reading[0])
		return -EBUSY;
	if (!dev_dump_supported(k))
		return -EOPNOTSUPP;
	memcpy(busname, handle, (size_t)(slash - handle));
	busname[slash - handle] = '\0';
	msg = msg_new(k, DEVLINK_CMD_PORT_GET, NLM_F_DUMP);
	if (!msg || dlh__dev_put(msg, busname, slash + 1)) {
		nlmsg_free(msg);
		return dlh_sdk_extack(ext, -ENOMEM, "Out of memory");
	}
	err = request(k, msg, ext);
	notifications_drain(k);
	return err;
}

/*
 * The message of a port dump read whose netdev is @netdev (only scanned:
 * its caller parses it), or NULL; @end is set to the NLMSG_DONE or
 * NLMSG_ERROR that ends the dump when it is in @buf before that port.
 */
struct nlmsghdr *dlh__netdev_scan(unsigned char *buf, int len, const char *netdev, struct nlmsghdr **end)
{
	size_t want = strlen(netdev) + 1;

	*end = NULL;
	for (struct nlmsghdr *h = (struct nlmsghdr *)buf; nlmsg_ok(h, len); h = nlmsg_next(h, &len)) {
		const struct nlattr *a;

		if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
			*end = h;
			return NULL;
		}
		a = dlh__attr_peek(h, DEVLINK_ATTR_PORT_NETDEV_NAME);
		if (a && (size_t)nla_len(a) == want && !memcmp(nla_data(a), netdev, want))
			return h;
	}
	return NULL;
}

/*
 * One port by netdev name (bus_fill_netdev). Linux 6.1 gets a port by index
 * only and filters no dump (iproute2 dumps every port to map a name, then
 * gets the port), so this dumps on a socket of its own and stops reading at
 * the port: the kernel builds a dump a chunk per read, and closing the
 * socket ends it, so ports after the one found are never built. Messages
 * before it are only scanned for the name; the one found is parsed and
 * checked like any other (on_msg).
 */
static int kernel_bus_fill_netdev(struct dlh_sdk_bus *bus, const char *netdev, struct dlh_extack *ext)
{
	struct kdl *k = dlh_sdk_bus_priv(bus);
	struct {
		struct nlmsghdr h;
		struct genlmsghdr g;
	} req = {.h = {.nlmsg_len = sizeof(req),
		       .nlmsg_type = (uint16_t)k->family,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		       .nlmsg_seq = 1},
		 .g = {.cmd = DEVLINK_CMD_PORT_GET, .version = 1}};
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	int fd, err = 0, done = 0;
	unsigned char *buf;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return dlh_sdk_extack(ext, -errno, "Cannot open a generic netlink socket: %s", strerror(errno));
	buf = malloc(DLHAL_RECORD_MAX);
	if (!buf) {
		err = dlh_sdk_extack(ext, -ENOMEM, "Out of memory");
		goto err_buf;
	}
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel)) != sizeof(req)) {
		err = dlh_sdk_extack(ext, -EIO, "Cannot send to the kernel: %s", strerror(errno));
		goto err_send;
	}
	while (!done) {
		struct sockaddr_nl from;
		socklen_t fromlen = sizeof(from);
		ssize_t n = recvfrom(fd, buf, DLHAL_RECORD_MAX, 0, (struct sockaddr *)&from, &fromlen);
		struct nlmsghdr *end = NULL;
		struct nlmsghdr *h;
		int rem = (int)n;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = dlh_sdk_extack(ext, -EIO, "Cannot read the kernel's answer: %s",
					     n ? strerror(errno) : "end of file");
			break;
		}
		if (fromlen != sizeof(from) || from.nl_pid) /* not from the kernel */
			continue;
		h = dlh__netdev_scan(buf, rem, netdev, &end);
		if (end && end->nlmsg_type == NLMSG_ERROR) {
			struct req r = {0};

			on_err(&r, end);
			err = dlh_sdk_extack(ext, r.err < 0 ? r.err : -EPROTO, "Kernel port dump: %s",
					     r.msg[0] ? r.msg : strerror(r.err < 0 ? -r.err : EPROTO));
		}
		if (h)
			on_msg(k, h);
		done = h || end;
	}
err_send:
	free(buf);
err_buf:
	close(fd);
	return err;
}

/* Every port to @fn (bus_ports_walk): the dump read as for a fill, the model untouched. */
static int kernel_bus_ports_walk(struct dlh_sdk_bus *bus, int (*fn)(const struct dlh_sdk_port_info *info, void *arg),
				 void *arg, struct dlh_extack *ext)
{
	struct kdl *k = dlh_sdk_bus_priv(bus);
	int err;

	k->walk_fn = fn;
	k->walk_arg = arg;
	k->walk_ret = 0;
	k->walk_dev[0] = '\0';
	err = dump(k, DEVLINK_CMD_PORT_GET, ext);
	k->walk_fn = NULL;
	return err;
}

static void kernel_bus_detach(struct dlh_sdk_bus *bus)
{
	struct kdl *k = dlh_sdk_bus_priv(bus);

	dlh_sdk_io_free(k->io);
	k->conn.t->close(&k->conn);
	free(k->seen);
}

/* ---- the same protocol to a dlhald (its transport: unix.c) ---------------------------------- */

static int daemon_bus_attach(struct dlh_sdk_bus *bus, struct dlh_extack *ext)
{
	struct kdl *k = dlh_sdk_bus_priv(bus);
	const char *path = dlh_sdk_bus_config(bus) ? dlh_sdk_bus_config(bus) : DLHAL_SOCKET_DEFAULT;
	struct nl_msg *msg;
	int err;

	k->bus = bus;
	k->family = DLHAL_FAMILY;
	err = kdl_unix_open(&k->conn, path, ext);
	if (err)
		return err;
	msg = msg_new(k, DLHAL_CMD_SUBSCRIBE, 0);
	if (!msg) {
		err = dlh_sdk_extack(ext, -ENOMEM, "Out of memory");
		goto err_sub;
	}
	err = request_on(k, 1, msg, ext);
	if (err)
		goto err_sub;
	err = dlh_sdk_io_new(bus, k->conn.t->fd(&k->conn), on_mon_readable, k, &k->io);
	if (err) {
		dlh_sdk_extack(ext, err, "Out of memory");
		goto err_sub;
	}
	dlh_sdk_bus_fill_pending(bus, DLH_SDK_FILL_DEVS | DLH_SDK_FILL_PORTS);
	return 0;

err_sub:
	k->conn.t->close(&k->conn);
	return err;
}

static void daemon_bus_detach(struct dlh_sdk_bus *bus)
{
	struct kdl *k = dlh_sdk_bus_priv(bus);

	if (k->io)
		dlh_sdk_io_free(k->io);
	k->conn.t->close(&k->conn);
	free(k->seen);
	free(k->opts);
}

static struct nl_msg *sim_msg(struct dlh_dev *dev, struct dlh_port *port, uint8_t cmd, const char *key,
			      const char *value)
{
	struct kdl *k = dlh_sdk_bus_priv(dlh_sdk_dev_bus(dev));
	struct nl_msg *msg = msg_new(k, cmd, 0);

	if (!msg)
		return NULL;
	if (dlh__dev_put(msg, dlh_dev_bus(dev), dlh_dev_name(dev)) ||
	    (port && nla_put_u32(msg, DEVLINK_ATTR_PORT_INDEX, dlh_port_index(port))) ||
	    nla_put_string(msg, DLHAL_ATTR_SIM_KEY, key) ||
	    (value && nla_put_string(msg, DLHAL_ATTR_SIM_VALUE, value))) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* One port by netdev name: a get dlhald answers from its model (a dlhal extension; older daemons refuse it). */
static int daemon_bus_fill_netdev(struct dlh_sdk_bus *bus, const char *netdev, struct dlh_extack *ext)
{
	struct kdl *k = dlh_sdk_bus_priv(bus);
	struct nl_msg *msg = msg_new(k, DEVLINK_CMD_PORT_GET, 0);
	int err;

	if (!msg || nla_put_string(msg, DEVLINK_ATTR_PORT_NETDEV_NAME, netdev)) {
		nlmsg_free(msg);
		return dlh_sdk_extack(ext, -ENOMEM, "Out of memory");
	}
	err = request(k, msg, ext);
	if (err == -ENODEV)
		return 0;
	/* "Unknown attribute": a dlhald from before this request, which lists every port instead. */
	return err == -EINVAL ? -EOPNOTSUPP : err;
}

static int daemon_sim_set(struct dlh_dev *dev, struct dlh_port *port, const char *key, const char *value,
			  struct dlh_extack *ext)
{
	struct kdl *k = dlh_sdk_bus_priv(dlh_sdk_dev_bus(dev));
	struct nl_msg *msg = sim_msg(dev, port, DLHAL_CMD_SIM_SET, key, value);
	int err;

	if (!msg)
		return dlh_sdk_extack(ext, -ENOMEM, "Out of memory");
	err = request(k, msg, ext);
	notifications_drain(k);
	return err;
}

static int daemon_sim_get(struct dlh_dev *dev, struct dlh_port *port, const char *key, char *buf, size_t len,
			  struct dlh_extack *ext)
{
	struct kdl *k = dlh_sdk_bus_priv(dlh_sdk_dev_bus(dev));
	struct nl_msg *msg = sim_msg(dev, port, DLHAL_CMD_SIM_GET, key, NULL);
	int err;

	if (!msg)
		return dlh_sdk_extack(ext, -ENOMEM, "Out of memory");
	k->sim_value = buf;
	k->sim_len = len;
	buf[0] = '\0';
	err = request(k, msg, ext);
	k->sim_value = NULL;
	return err;
}

/*
 * devlink's reload, relayed: the action always (so that the actions performed
 * come back), a limit when one is asked for. The devices that go and come
 * arrive as notifications.
 */
static int kernel_dev_reload(struct dlh_dev *dev, enum dlh_reload_action action, enum dlh_reload_limit limit,
			     uint32_t *performed, struct dlh_extack *ext)
{
	struct kdl *k = dlh_sdk_bus_priv(dlh_sdk_dev_bus(dev));
	struct nl_msg *msg = msg_new(k, DEVLINK_CMD_RELOAD, 0);
	struct nla_bitfield32 limits = {1u << limit, 1u << limit};
	uint32_t done = 0;
	int err;

	if (!msg || dlh__dev_put(msg, dlh_dev_bus(dev), dlh_dev_name(dev)) ||
	    nla_put_u8(msg, DEVLINK_ATTR_RELOAD_ACTION, (uint8_t)action) ||
	    (limit != DLH_RELOAD_LIMIT_UNSPEC && nla_put(msg, DEVLINK_ATTR_RELOAD_LIMITS, sizeof(limits), &limits))) {
		nlmsg_free(msg);
		return dlh_sdk_extack(ext, -ENOMEM, "Out of memory");
	}
	k->reload_done = &done;
	err = request(k, msg, ext);
	k->reload_done = NULL;
	notifications_drain(k);
	if (!err)
		*performed = done ? done : 1u << action;
	return err;
}

/*
 * One DEVLINK_CMD_INFO_GET of @dev: its driver's name into @driver (@len
 * bytes; "" when it names none) and, when @info is given, the rest (info_of).
 */
static int info_request(struct kdl *k, struct dlh_dev *dev, char *driver, size_t len, struct dlh_sdk_info *info,
			struct dlh_extack *ext)
{
	struct nl_msg *msg = msg_new(k, DEVLINK_CMD_INFO_GET, 0);
	int err;

	if (!msg || dlh__dev_put(msg, dlh_dev_bus(dev), dlh_dev_name(dev))) {
		nlmsg_free(msg);
		return dlh_sdk_extack(ext, -ENOMEM, "Out of memory");
	}
	driver[0] = '\0';
	k->info_driver = driver;
	k->info_len = len;
	k->info = info;
	k->info_bad[0] = '\0';
	err = request(k, msg, ext);
	k->info_driver = NULL;
	k->info = NULL;
	return err;
}

static void sysfs_driver(const struct dlh_dev *dev, char *buf, size_t len);

/*
 * The kernel driver of a devlink instance, as `devlink dev info` prints it
 * ("driver netdevsim"); where the kernel's info names none (Linux 6.1 and a
 * driver without info_get, as mlx4_core), the bus device's driver in sysfs.
 */
static int kernel_dev_driver_get(struct dlh_dev *dev, char *buf, size_t len, struct dlh_extack *ext)
{
	struct kdl *k = dlh_sdk_bus_priv(dlh_sdk_dev_bus(dev));
	int err = info_request(k, dev, buf, len, NULL, ext);

	if (err == -EOPNOTSUPP || (!err && !buf[0])) {
		err = 0;
		buf[0] = '\0';
		if (!k->conn.t->daemon)
			sysfs_driver(dev, buf, len);
	}
	return err ? err : buf[0] ? 0 : dlh_sdk_extack(ext, -ENODATA, "The kernel names no driver");
}

/* The driver bound to the bus device in sysfs ("/sys/bus/BUS/devices/NAME/driver"), or "". */
static void sysfs_driver(const struct dlh_dev *dev, char *buf, size_t len)
{
	char path[64 + DLH_BUS_NAME_MAX + DLH_DEV_NAME_MAX], link[256];
	const char *base;
	ssize_t n;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/bus/%s/devices/%s/driver",
		 getenv("DLHAL_SYSFS") ? getenv("DLHAL_SYSFS") : "/sys", dlh_dev_bus(dev), dlh_dev_name(dev));
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return;
	link[n] = '\0';
	base = strrchr(link, '/');
	snprintf(buf, len, "%s", base ? base + 1 : link);
}

/*
 * What the device reports of itself (`devlink dev info`): its driver, serial
 * numbers and versions. Linux 6.1 answers -EOPNOTSUPP for a driver without
 * info_get, and from 6.2 on names the driver itself but only when one is bound:
 * then the bus device's driver in sysfs names it, as it does for udev.
 */
static int kernel_dev_info_get(struct dlh_dev *dev, struct dlh_sdk_info *info, struct dlh_extack *ext)
{
	struct kdl *k = dlh_sdk_bus_priv(dlh_sdk_dev_bus(dev));
	char driver[DLH_DRIVER_NAME_MAX];
	struct dlh_extack bad = {0};
	int err = info_request(k, dev, driver, sizeof(driver), info, ext);

	/* the kernel's driver has no info_get (6.1); a dlhald from before it answered INFO_GET: the driver alone */
	if (err == -EOPNOTSUPP) {
		err = 0;
		if (k->conn.t->daemon)
			snprintf(driver, sizeof(driver), "%s", dlh_dev_driver(dev));
	}
	if (err)
		return err;
	if (k->info_bad[0])
		dlh_sdk_log(dev, DLH_LOG_WARNING, "the kernel's info: %s: left out", k->info_bad);
	if (!driver[0] && !k->conn.t->daemon)
		sysfs_driver(dev, driver, sizeof(driver));
	if (driver[0] && dlh_sdk_info_driver_put(info, driver, &bad))
		dlh_sdk_log(dev, DLH_LOG_WARNING, "the kernel's driver name: %s: left out", bad.msg);
	return 0;
}

/* dlhald's power cycle of an emulated card (an emulator control of its own, DLHAL_SIM_RESET). */
static int daemon_sim_reset(struct dlh_dev *dev, struct dlh_extack *ext)
{
	return daemon_sim_set(dev, NULL, DLHAL_SIM_RESET, "1", ext);
}

static const struct dlh_sdk_ops daemon_ops = {
    .port_type_set = kernel_port_type_set,
    .port_split = kernel_port_split,
    .port_unsplit = kernel_port_unsplit,
    .sim_set = daemon_sim_set,
    .sim_get = daemon_sim_get,
    .bus_attach = daemon_bus_attach,
    .bus_detach = daemon_bus_detach,
    .bus_fill = kernel_bus_fill,
    .bus_fill_netdev = daemon_bus_fill_netdev,
    .bus_ports_walk = kernel_bus_ports_walk,
    .dev_reload = kernel_dev_reload,
    .sim_reset = daemon_sim_reset,
    .port_split_plan = daemon_port_split_plan,
    .port_unsplit_plan = daemon_port_unsplit_plan,
    .port_type_set_plan = daemon_port_type_set_plan,
    .dev_fw_options = daemon_dev_fw_options,
    .dev_info_get = kernel_dev_info_get,
    /* the daemon plans on its own view of what the sequence planned before (DLHAL_ATTR_PLAN_BEFORE) */
    .flags = DLH_SDK_F_PLAN_VIEW,
};

const struct dlh_sdk_driver daemon_driver = {
    DLH_SDK_DRIVER_INIT("daemon", &daemon_ops),
    .bus_priv_size = sizeof(struct kdl),
};

/*
 * devlink's changes are GENL_ADMIN_PERM: the kernel answers -EPERM to a
 * process without CAP_NET_ADMIN. Its dry runs (planned here, by rules the
 * kernel never sees) are refused alike, so that none promises a change the
 * kernel would refuse.
 */
static int kernel_dev_change_allowed(struct dlh_dev *dev, struct dlh_extack *ext)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	(void)dev;
	if (syscall(SYS_capget, &h, d))
		return 0; /* cannot tell: the kernel decides when the change is sent */
	if (d[CAP_TO_INDEX(CAP_NET_ADMIN)].effective & CAP_TO_MASK(CAP_NET_ADMIN))
		return 0;
	return dlh_sdk_extack(ext, -EPERM, "Changes to the kernel's devlink need CAP_NET_ADMIN (root)");
}

static const struct dlh_sdk_ops kernel_ops = {
    .port_type_set = kernel_port_type_set,
    .port_split = kernel_port_split,
    .port_unsplit = kernel_port_unsplit,
    .bus_attach = kernel_bus_attach,
    .bus_detach = kernel_bus_detach,
    .bus_fill = kernel_bus_fill,
    .bus_fill_netdev = kernel_bus_fill_netdev,
    .bus_ports_walk = kernel_bus_ports_walk,
    .dev_reload = kernel_dev_reload,
    .dev_driver_get = kernel_dev_driver_get,
    .bus_fill_dev = kernel_bus_fill_dev,
    .dev_info_get = kernel_dev_info_get,
    .dev_change_allowed = kernel_dev_change_allowed,
};

const struct dlh_sdk_driver kernel_driver = {
    DLH_SDK_DRIVER_INIT("kernel", &kernel_ops),
    .bus_priv_size = sizeof(struct kdl),
};
