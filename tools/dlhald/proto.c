/* SPDX-License-Identifier: MIT */
/*
 * devlink's generic-netlink messages, built and parsed with libnl, served
 * from the model: the same commands and attributes as the kernel's family
 * (docs/protocol.md), plus SUBSCRIBE and emulator control (docs/daemon.md).
 */
#include "dlhald.h"
#include "codec.h"
#include "nlattr.h"
#include "policy.h"

#include <dlhal/desired.h>
#include <dlhal/protocol.h>
#include <errno.h>
#include <linux/devlink.h>
#include <linux/netlink.h>
#include <netlink/genl/genl.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

/* The attributes a request may carry, by slot (kernel/policy.h: the family's
 * one table, which the client reads replies with too); anything else is
 * refused, as newer generic-netlink families do (strict validation). Every
 * command parses them here, once, before any of them is used. */
enum {
	A_BUS = DLH__SLOT(DEVLINK_ATTR_BUS_NAME),
	A_DEV = DLH__SLOT(DEVLINK_ATTR_DEV_NAME),
	A_INDEX = DLH__SLOT(DEVLINK_ATTR_PORT_INDEX),
	A_SIM_KEY = DLH__SLOT(DLHAL_ATTR_SIM_KEY),
	A_SIM_VALUE = DLH__SLOT(DLHAL_ATTR_SIM_VALUE),
	A_NETDEV = DLH__SLOT(DEVLINK_ATTR_PORT_NETDEV_NAME),
	A_ACTION = DLH__SLOT(DEVLINK_ATTR_RELOAD_ACTION),
	A_LIMITS = DLH__SLOT(DEVLINK_ATTR_RELOAD_LIMITS),
	A_DRY = DLH__SLOT(DLHAL_ATTR_DRY_RUN),
	A_BEFORE = DLH__SLOT(DLHAL_ATTR_PLAN_BEFORE),
};

static struct nl_msg *reply_new(const struct nlmsghdr *req, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg && !genlmsg_put(msg, 0, req ? req->nlmsg_seq : 0, DLHAL_FAMILY, 0, flags, cmd, 1)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* NLMSG_ERROR with the errno (0: an ack) and, if any, the extack message. */
static void reply_err(struct client *c, const struct nlmsghdr *req, int err, const char *text)
{
	struct nl_msg *msg = nlmsg_alloc_simple(NLMSG_ERROR, NLM_F_CAPPED | (text && *text ? NLM_F_ACK_TLVS : 0));
	struct nlmsgerr *e;

	if (!msg)
		return;
	nlmsg_hdr(msg)->nlmsg_seq = req->nlmsg_seq;
	e = nlmsg_reserve(msg, sizeof(*e), NLMSG_ALIGNTO);
	if (e) {
		e->error = err;
		e->msg = *req;
		if (text && *text)
			nla_put_string(msg, NLMSGERR_ATTR_MSG, text);
		client_send_msg(c, msg);
	}
	nlmsg_free(msg);
}

/* Success: an ack when the request asked for one (NLM_F_ACK), as the kernel does. */
static void reply_ack(struct client *c, const struct nlmsghdr *req)
{
	if (req->nlmsg_flags & NLM_F_ACK)
		reply_err(c, req, 0, NULL);
}

/*
 * A get's answer, then the ack; @msg NULL or @put_err (it could not be built
 * whole): -ENOMEM instead, never an ack without the answer. @msg is the
 * caller's to free.
 */
static void reply_answer(struct client *c, const struct nlmsghdr *req, struct nl_msg *msg, int put_err)
{
	if (!msg || put_err) {
		reply_err(c, req, -ENOMEM, "Out of memory");
		return;
	}
	client_send_msg(c, msg);
	reply_ack(c, req);
}

static int put_dev_name(struct nl_msg *msg, const struct dlh_dev *dev)
{
	return dlh__dev_put(msg, dlh_dev_bus(dev), dlh_dev_name(dev));
}

/* A device as its message says it: names, driver, pending, firmware options, faceplate, card. */
static int put_dev(struct nl_msg *msg, const struct dlh_dev *dev)
{
	struct dlh_fw_option opts[16];
	const struct dlh_cage *cages;
	size_t nopts = 0, ncages = dlh_dev_cages(dev, &cages);
	struct dlh_pending p;

	if (dlh_dev_fw_options((struct dlh_dev *)dev, opts, 16, &nopts, NULL))
		nopts = 0;
	return put_dev_name(msg, dev) || nla_put_string(msg, DEVLINK_ATTR_INFO_DRIVER_NAME, dlh_dev_driver(dev)) ||
	       (dlh_dev_pending(dev, &p) && dlh__pending_put(msg, &p)) || dlh__fw_options_put(msg, opts, nopts) ||
	       dlh__cages_put(msg, cages, ncages) ||
	       (dlh_dev_card(dev) && nla_put_string(msg, DLHAL_ATTR_CARD, dlh_dev_card(dev)));
}

static int put_port(struct nl_msg *msg, const struct dlh_port *p)
{
	struct dlh__port_msg m;

	dlh__port_msg_of(p, &m);
	return dlh__port_msg_put(msg, &m);
}

/* Dump replies go out packed several to a record, then NLMSG_DONE. */
struct dump {
	struct client *c;
	const struct nlmsghdr *req;
	unsigned char buf[DLHAL_RECORD_MAX / 2];
	size_t len;
};

static void dump_flush(struct dump *d)
{
	if (d->len)
		client_send(d->c, d->buf, d->len);
	d->len = 0;
}

static void dump_add(struct dump *d, struct nl_msg *msg)
{
	size_t n = nlmsg_hdr(msg)->nlmsg_len;

	if (d->len + n > sizeof(d->buf))
		dump_flush(d);
	if (n > sizeof(d->buf)) {
		client_send_msg(d->c, msg);
		return;
	}
	memcpy(d->buf + d->len, nlmsg_hdr(msg), n);
	d->len += n;
}

static void dump_done(struct dump *d)
{
	struct nl_msg *done = nlmsg_alloc_simple(NLMSG_DONE, NLM_F_MULTI);
	int zero = 0;

	if (done) {
		nlmsg_hdr(done)->nlmsg_seq = d->req->nlmsg_seq;
		nlmsg_append(done, &zero, sizeof(zero), NLMSG_ALIGNTO);
		dump_add(d, done);
		nlmsg_free(done);
	}
	dump_flush(d);
}

static int find_dev(struct client *c, const struct nlmsghdr *req, struct nlattr **tb, struct dlh_dev **dev)
{
	char handle[DLH_BUS_NAME_MAX + DLH_DEV_NAME_MAX + 1], text[DLH_EXTACK_MSG_MAX];

	if (!tb[A_BUS] || !tb[A_DEV]) {
		reply_err(c, req, -EINVAL, "Bus and device names are required");
		return -EINVAL;
	}
	snprintf(handle, sizeof(handle), "%s/%s", dlh__attr_str(tb[A_BUS]), dlh__attr_str(tb[A_DEV]));
	*dev = dlh_dev_find(c->srv->ctx, handle);
	if (!*dev) {
		snprintf(text, sizeof(text), "%s: Device does not exist", handle);
		reply_err(c, req, -ENODEV, text);
		return -ENODEV;
	}
	return 0;
}

static int find_port(struct client *c, const struct nlmsghdr *req, struct nlattr **tb, struct dlh_port **port)
{
	struct dlh_dev *dev;
	char text[DLH_EXTACK_MSG_MAX];

	/* By netdev name alone (a dlhal extension: "dl port show eth3" without a dump). */
	if (tb[A_NETDEV] && !tb[A_BUS] && !tb[A_DEV] && !tb[A_INDEX]) {
		*port = dlh_port_find_netdev(c->srv->ctx, dlh__attr_str(tb[A_NETDEV]));
		if (*port)
			return 0;
		snprintf(text, sizeof(text), "%s: No port has this netdev", dlh__attr_str(tb[A_NETDEV]));
		reply_err(c, req, -ENODEV, text);
		return -ENODEV;
	}
	if (find_dev(c, req, tb, &dev))
		return -ENODEV;
	if (!tb[A_INDEX]) {
		reply_err(c, req, -EINVAL, "Port index is required");
		return -EINVAL;
	}
	*port = dlh_port_find(dev, nla_get_u32(tb[A_INDEX]));
	if (!*port) {
		snprintf(text, sizeof(text), "%s/%u: Port does not exist", dlh_dev_handle(dev),
			 nla_get_u32(tb[A_INDEX]));
		reply_err(c, req, -ENODEV, text);
		return -ENODEV;
	}
	return 0;
}

/* A success may come with the driver's message (a staged change's "Reboot required to finish port
 * split"): the ack carries it, as the kernel's does for NETLINK_EXT_ACK sockets. */
static void reply_result(struct client *c, const struct nlmsghdr *req, int err, const struct dlh_extack *ext)
{
	if (err)
		reply_err(c, req, err, ext->msg);
	else if (ext->msg[0] && (req->nlmsg_flags & NLM_F_ACK))
		reply_err(c, req, 0, ext->msg);
	else
		reply_ack(c, req);
}

/*
 * A change is acknowledged only once it is durable: with --state, the file
 * is written, synced, renamed and its directory synced before the ack (the
 * notifications may already be out). A change that is made but cannot be
 * saved is reported as such, not as a success.
 */
static void reply_change(struct client *c, const struct nlmsghdr *req, int err, const struct dlh_extack *ext)
{
	char why[400], text[DLH_EXTACK_MSG_MAX];

	if (!err) {
		c->srv->state_dirty = true;
		err = state_commit(c->srv, why, sizeof(why));
		if (err) {
			snprintf(text, sizeof(text), "Changed, but not saved: %s", why);
			reply_err(c, req, err, text);
			return;
		}
	}
	reply_result(c, req, err, ext);
}

static bool may_write(struct client *c, const struct nlmsghdr *req)
{
	if (c->may_write)
		return true;
	reply_err(c, req, -EPERM, "Changes need root or the daemon's group");
	return false;
}

static void cmd_get(struct client *c, const struct nlmsghdr *req, struct nlattr **tb, bool ports)
{
	struct dump d = {.c = c, .req = req};
	bool all = req->nlmsg_flags & NLM_F_DUMP;
	struct dlh_port *one = NULL;
	struct dlh_dev *dev = NULL;
	struct nl_msg *msg;

	if (!all && (ports ? find_port(c, req, tb, &one) : find_dev(c, req, tb, &dev)))
		return;
	if (!all) {
		msg = reply_new(req, ports ? DEVLINK_CMD_PORT_NEW : DEVLINK_CMD_NEW, 0);
		reply_answer(c, req, msg, msg ? (ports ? put_port(msg, one) : put_dev(msg, dev)) : 0);
		nlmsg_free(msg);
		return;
	}
	for (dev = dlh_dev_first(c->srv->ctx); dev; dev = dlh_dev_next(dev)) {
		if (!ports) {
			msg = reply_new(req, DEVLINK_CMD_NEW, NLM_F_MULTI);
			if (msg && !put_dev(msg, dev))
				dump_add(&d, msg);
			nlmsg_free(msg);
			continue;
		}
		for (struct dlh_port *p = dlh_port_first(dev); p; p = dlh_port_next(p)) {
			msg = reply_new(req, DEVLINK_CMD_PORT_NEW, NLM_F_MULTI);
			if (msg && !put_port(msg, p))
				dump_add(&d, msg);
			nlmsg_free(msg);
		}
	}
	dump_done(&d);
}

static void cmd_sim(struct client *c, const struct nlmsghdr *req, struct nlattr **tb, bool set)
{
	const char *key = dlh__attr_str(tb[A_SIM_KEY]), *value = dlh__attr_str(tb[A_SIM_VALUE]);
	struct dlh_port *port = NULL;
	struct dlh_extack ext;
	struct dlh_dev *dev;
	char buf[8192];
	struct nl_msg *msg;
	int err;

	if (set && !may_write(c, req))
		return;
	if (tb[A_INDEX] ? find_port(c, req, tb, &port) : find_dev(c, req, tb, &dev))
		return;
	if (port)
		dev = dlh_port_dev(port);
	if (!key || (set && !value)) {
		reply_err(c, req, -EINVAL,
			  set ? "Emulator control needs a key and a value" : "Emulator control needs a key");
		return;
	}
	if (set) {
		/* The power cycle is core's (its devices go and come), not a driver's control. */
		if (!port && !strcmp(key, DLHAL_SIM_RESET))
			err = dlh_dev_sim_reset(dev, &ext);
		else
			err = dlh_dev_sim_set(dev, port, key, value, &ext);
		reply_change(c, req, err, &ext);
		return;
	}
	err = dlh_dev_sim_get(dev, port, key, buf, sizeof(buf), &ext);
	if (err) {
		reply_result(c, req, err, &ext);
		return;
	}
	msg = reply_new(req, DLHAL_CMD_SIM_GET, 0);
	reply_answer(c, req, msg, msg ? put_dev(msg, dev) || nla_put_string(msg, DLHAL_ATTR_SIM_VALUE, buf) : 0);
	nlmsg_free(msg);
}

/*
 * DEVLINK_CMD_RELOAD as Linux 6.1 takes it: action (u8, driver_reinit when
 * absent) and limits (bitfield32, one bit). With either given, the actions
 * performed come back in a DEVLINK_CMD_RELOAD message before the ack.
 */
static void cmd_reload(struct client *c, const struct nlmsghdr *req, struct nlattr **tb)
{
	enum dlh_reload_action action = DLH_RELOAD_ACTION_DRIVER_REINIT;
	enum dlh_reload_limit limit = DLH_RELOAD_LIMIT_UNSPEC;
	char bus[DLH_BUS_NAME_MAX], name[DLH_DEV_NAME_MAX];
	struct nla_bitfield32 done = {0, 0};
	struct dlh_extack ext = {0};
	struct dlh_dev *dev;
	struct nl_msg *msg;
	double t0;
	int err;

	if (!may_write(c, req) || find_dev(c, req, tb, &dev))
		return;
	if (tb[A_ACTION])
		action = (enum dlh_reload_action)nla_get_u8(tb[A_ACTION]);
	if (tb[A_LIMITS]) {
		const struct nla_bitfield32 *l = nla_data(tb[A_LIMITS]);
		uint32_t sel = l->value & l->selector;

		if (!sel || (sel & (sel - 1))) {
			reply_err(c, req, sel ? -EOPNOTSUPP : -EINVAL,
				  sel ? "Multiselection of limit is not supported" : "Invalid limit selected");
			return;
		}
		limit = (enum dlh_reload_limit)__builtin_ctz(sel);
	}
	/* The device may be gone after the reset: its names are kept for the reply. */
	snprintf(bus, sizeof(bus), "%s", dlh_dev_bus(dev));
	snprintf(name, sizeof(name), "%s", dlh_dev_name(dev));
	t0 = metrics_now();
	err = dlh_dev_reload(dev, action, limit, &done.value, &ext);
	metrics_op(METRICS_OP_RELOAD, METRICS_SOURCE_CLIENT, err, metrics_now() - t0);
	done.selector = done.value;
	if (!err && (tb[A_ACTION] || tb[A_LIMITS])) {
		msg = reply_new(req, DEVLINK_CMD_RELOAD, 0);
		if (msg && !nla_put_string(msg, DEVLINK_ATTR_BUS_NAME, bus) &&
		    !nla_put_string(msg, DEVLINK_ATTR_DEV_NAME, name) &&
		    !nla_put(msg, DEVLINK_ATTR_RELOAD_ACTIONS_PERFORMED, sizeof(done), &done))
			client_send_msg(c, msg);
		nlmsg_free(msg);
	}
	reply_change(c, req, err, &ext);
}

struct plan_as {
	struct dlh_seq *seq;
	struct dlh_dev *dev;
};

/* The port the plan leaves at @index: what the plan's port does not say (flavour, number). */
static const struct dlh_port *plan_as(uint32_t index, void *arg)
{
	struct plan_as *a = arg;

	return dlh_seq_port_find(a->seq, a->dev, index);
}

/*
 * Whether the --desired file owns what @want would change: the daemon would
 * undo it at once, so it is refused before anything changes. Any other
 * refusal of the plan is left to the change itself, which answers in the
 * driver's words.
 */
static bool desired_keeps(struct client *c, struct dlh_port *port, const struct dlh_change_req *want,
			  struct dlh_extack *ext)
{
	const struct dlh_desired *d = dlhald_desired();
	struct dlh_seq *seq;
	struct dlh_plan plan;
	int err;

	if (!d || dlh_seq_new(c->srv->ctx, &seq))
		return false;
	err = dlh_desired_seq_change(d, c->srv->ctx, seq, dlh_port_dev(port), want, &plan, ext);
	dlh_seq_free(seq);
	/* -EBUSY from the plan itself (a driver's) is the change's to answer: only the file's is ours */
	if (err == -EBUSY && !dlh_seq_new(c->srv->ctx, &seq)) {
		struct dlh_extack plain;

		if (dlh_desired_seq_change(NULL, c->srv->ctx, seq, dlh_port_dev(port), want, &plan, &plain) == -EBUSY)
			err = 0;
		dlh_seq_free(seq);
	}
	if (err == -EBUSY)
		return true;
	memset(ext, 0, sizeof(*ext));
	return false;
}

/*
 * A client's last dry run: the sequence it left and the changes planned in
 * it. A file planned entry by entry sends each dry run with every change
 * before it on the device (dl apply, dlhald --desired): the next goes on
 * from here instead of planning them all again, so a whole board's file is
 * planned in time linear in its entries. Only while the model is as it was
 * (no event since) and the changes before are these.
 */
struct plan_cache {
	struct dlh_seq *seq;
	struct dlh_dev *dev;
	unsigned long gen;
	size_t n;
	struct dlh_change_req reqs[DLHAL_PLAN_BEFORE_MAX];
};

void proto_client_free(struct client *c)
{
	if (c->plan)
		dlh_seq_free(c->plan->seq);
	free(c->plan);
	c->plan = NULL;
}

static bool req_same(const struct dlh_change_req *a, const struct dlh_change_req *b)
{
	return a->kind == b->kind && a->index == b->index && a->count == b->count && a->type == b->type;
}

/* The cached sequence, if it is of @dev as the model is now after exactly @before; else NULL (and none kept). */
static struct dlh_seq *plan_cached(struct client *c, struct dlh_dev *dev, const struct dlh_change_req *before,
				   size_t nbefore)
{
	struct plan_cache *pc = c->plan;

	if (!pc || pc->dev != dev || pc->gen != c->srv->model_gen || pc->n != nbefore)
		goto drop;
	for (size_t i = 0; i < nbefore; i++)
		if (!req_same(&pc->reqs[i], &before[i]))
			goto drop;
	return pc->seq;
drop:
	proto_client_free(c);
	return NULL;
}

/* Keeps @seq, after @before and @want, for the client's next dry run; frees it if it cannot. */
static void plan_keep(struct client *c, struct dlh_seq *seq, struct dlh_dev *dev, unsigned long gen,
		      const struct dlh_change_req *before, size_t nbefore, const struct dlh_change_req *want)
{
	struct plan_cache *pc = c->plan;

	if (nbefore >= DLHAL_PLAN_BEFORE_MAX || (!pc && !(pc = calloc(1, sizeof(*pc))))) {
		dlh_seq_free(seq);
		proto_client_free(c);
		return;
	}
	dlh_seq_free(pc->seq); /* (none: the one in hand was taken out of it) */
	memcpy(pc->reqs, before, nbefore * sizeof(*before));
	pc->reqs[nbefore] = *want;
	pc->n = nbefore + 1;
	pc->seq = seq;
	pc->dev = dev;
	pc->gen = gen;
	c->plan = pc;
}

/*
 * A dry run (DLHAL_ATTR_DRY_RUN on PORT_SET, PORT_SPLIT or PORT_UNSPLIT): the
 * changes the client planned before on the device (DLHAL_ATTR_PLAN_BEFORE)
 * are planned first, then this one, each by the daemon's driver on the ports
 * the ones before leave (a dlh_seq); nothing changes, so any client may ask.
 * The reply is DLHAL_CMD_PLAN, then the ack; a refusal is the op's error.
 */
static void cmd_plan(struct client *c, const struct nlmsghdr *req, struct nlattr **tb, uint8_t cmd)
{
	struct dlh_change_req want, before[DLHAL_PLAN_BEFORE_MAX];
	struct dlh_extack ext = {0};
	char text[DLH_EXTACK_MSG_MAX + 64];
	struct nl_msg *msg = NULL;
	struct plan_as as = {0};
	struct dlh_plan plan;
	unsigned long gen;
	const char *why;
	size_t nbefore;
	int err;

	/* a dry run promises nothing its asker may not do: refused as the change would be */
	if (!may_write(c, req) || find_dev(c, req, tb, &as.dev))
		return;
	err = dlh__change_get(cmd, tb, &want, &why);
	if (!err)
		err = dlh__before_get(tb[A_BEFORE], before, DLHAL_PLAN_BEFORE_MAX, &nbefore, &why);
	if (err) {
		reply_err(c, req, err, why);
		return;
	}
	gen = c->srv->model_gen;
	as.seq = plan_cached(c, as.dev, before, nbefore);
	if (as.seq) {
		c->plan->seq = NULL; /* in hand: kept again below, or freed */
	} else {
		if (dlh_seq_new(c->srv->ctx, &as.seq)) {
			reply_err(c, req, -ENOMEM, "Out of memory");
			return;
		}
		for (size_t i = 0; i < nbefore; i++) {
			err = dlh_seq_change(as.seq, as.dev, &before[i], &plan, &ext);
			if (err) {
				snprintf(text, sizeof(text), "A change planned before would be refused: %s", ext.msg);
				reply_err(c, req, err, text);
				goto out_seq;
			}
		}
	}
	/* what a --desired file keeps is refused in a dry run as in the change */
	err = dlh_desired_seq_change(dlhald_desired(), c->srv->ctx, as.seq, as.dev, &want, &plan, &ext);
	if (err) {
		reply_err(c, req, err, ext.msg);
		goto out_seq;
	}
	msg = reply_new(req, DLHAL_CMD_PLAN, 0);
	reply_answer(c, req, msg,
		     msg ? put_dev_name(msg, as.dev) || dlh__plan_put(msg, &plan, ext.msg, plan_as, &as) : 0);
	nlmsg_free(msg);
	plan_keep(c, as.seq, as.dev, gen, before, nbefore, &want);
	return;
out_seq:
	dlh_seq_free(as.seq);
	proto_client_free(c);
}

/*
 * DEVLINK_CMD_INFO_GET of one device: what it reports of itself, as the
 * kernel answers (driver, serial numbers, a nest per version), then the ack.
 */
static void cmd_info(struct client *c, const struct nlmsghdr *req, struct nlattr **tb)
{
	struct dlh_extack ext = {0};
	struct dlh_dev_info *info;
	struct nl_msg *msg = NULL;
	struct dlh_dev *dev;
	int err = -ENOMEM;

	if (find_dev(c, req, tb, &dev))
		return;
	info = malloc(sizeof(*info));
	if (info && (err = dlh_dev_info_get(dev, info, &ext))) {
		reply_err(c, req, err, ext.msg);
		goto out;
	}
	msg = info ? reply_new(req, DEVLINK_CMD_INFO_GET, 0) : NULL;
	err = !msg || put_dev_name(msg, dev) || dlh__info_put(msg, info);
	reply_answer(c, req, msg, err);
out:
	nlmsg_free(msg);
	free(info);
}

static void handle_one(struct client *c, const struct nlmsghdr *req)
{
	struct nlattr *tb[DLH__SLOTS];
	struct dlh_change_req want;
	const char *why;
	struct genlmsghdr *g = nlmsg_data(req);
	struct dlh_port *port;
	struct dlh_extack ext;
	char text[128];
	uint8_t cmd;
	double t0;
	int err;

	if (req->nlmsg_type != DLHAL_FAMILY) {
		snprintf(text, sizeof(text), "Unknown message type %u", req->nlmsg_type);
		reply_err(c, req, -EOPNOTSUPP, text);
		return;
	}
	if (req->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN) {
		reply_err(c, req, -EINVAL, "Message too short for a generic netlink header");
		return;
	}
	if (dlh__policy_parse(genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0), DLH__IN_REQUEST, tb, true, text,
			      sizeof(text))) {
		reply_err(c, req, -EINVAL, text);
		return;
	}
	cmd = g->cmd;
	switch (cmd) {
	case DEVLINK_CMD_GET:
		cmd_get(c, req, tb, false);
		return;
	case DEVLINK_CMD_PORT_GET:
		cmd_get(c, req, tb, true);
		return;
	case DLHAL_CMD_SUBSCRIBE:
		c->subscribed = true;
		reply_ack(c, req);
		return;
	case DLHAL_CMD_SIM_SET:
	case DLHAL_CMD_SIM_GET:
		cmd_sim(c, req, tb, cmd == DLHAL_CMD_SIM_SET);
		return;
	case DEVLINK_CMD_RELOAD:
		cmd_reload(c, req, tb);
		return;
	case DEVLINK_CMD_INFO_GET:
		cmd_info(c, req, tb);
		return;
	case DEVLINK_CMD_PORT_SET:
	case DEVLINK_CMD_PORT_SPLIT:
	case DEVLINK_CMD_PORT_UNSPLIT:
		break;
	default:
		snprintf(text, sizeof(text), "Unknown command %u", cmd);
		reply_err(c, req, -EOPNOTSUPP, text);
		return;
	}
	if (tb[A_DRY]) {
		cmd_plan(c, req, tb, cmd);
		return;
	}
	if (!may_write(c, req) || find_port(c, req, tb, &port))
		return;
	err = dlh__change_get(cmd, tb, &want, &why);
	if (err) {
		reply_err(c, req, err, why);
		return;
	}
	memset(&ext, 0, sizeof(ext));
	if (desired_keeps(c, port, &want, &ext)) {
		reply_err(c, req, -EBUSY, ext.msg);
		return;
	}
	t0 = metrics_now();
	err = dlh_port_change(port, &want, &ext);
	metrics_op((enum metrics_op)want.kind, METRICS_SOURCE_CLIENT, err, metrics_now() - t0);
	reply_change(c, req, err, &ext);
}

void proto_handle(struct client *c, const unsigned char *buf, size_t len)
{
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	int rem = (int)len;

	for (; nlmsg_ok(h, rem); h = nlmsg_next(h, &rem))
		handle_one(c, h);
	if (rem > 0) {
		/* Bytes that are no whole message: a truncated header or a length past the end. */
		struct nlmsghdr bad = {.nlmsg_len = (uint32_t)rem, .nlmsg_type = NLMSG_NOOP};

		if ((size_t)rem >= sizeof(bad))
			bad.nlmsg_seq = h->nlmsg_seq;
		reply_err(c, &bad, -EINVAL, "Malformed netlink message");
	}
}

/* Model events as the kernel's notifications, to every subscribed client. */
void proto_event(const struct dlh_event *ev, void *arg)
{
	static const uint8_t cmds[DLH_EVENT_COUNT] = {
	    [DLH_EVENT_DEV_NEW] = DEVLINK_CMD_NEW,	    [DLH_EVENT_DEV_DEL] = DEVLINK_CMD_DEL,
	    [DLH_EVENT_PORT_NEW] = DEVLINK_CMD_PORT_NEW,    [DLH_EVENT_PORT_DEL] = DEVLINK_CMD_PORT_DEL,
	    [DLH_EVENT_PORT_CHANGE] = DEVLINK_CMD_PORT_NEW, [DLH_EVENT_DEV_CHANGE] = DEVLINK_CMD_NEW,
	};
	struct server *srv = arg;
	struct nl_msg *msg;

	srv->model_gen++;
	/* The kernel mirror lost notifications and repaired itself: clients saw the repair as port and
	 * device events already. */
	if (ev->type == DLH_EVENT_RESYNC) {
		dlhald_log(LOG_WARNING, "%s: notifications were lost; the state was read again", ev->bus);
		return;
	}
	if (ev->type == DLH_EVENT_LOST) {
		dlhald_log(LOG_ERR, "%s: %s", ev->bus, ev->msg);
		return;
	}
	/* the kernel did otherwise than a vendor's rules planned: core logged it; no notification of devlink's */
	if (ev->type == DLH_EVENT_PLAN_MISS)
		return;
	/* A device that came is recognised once no event is being delivered: what its rules add (ports
	 * the kernel lacks, what waits for a reset, attributes) reaches clients with no client asking. */
	if (ev->type == DLH_EVENT_DEV_NEW)
		dlh_dev_rules(ev->dev, NULL);
	msg = reply_new(NULL, cmds[ev->type], 0);

	if (msg && !(ev->port ? put_port(msg, ev->port) : put_dev(msg, ev->dev)))
		server_notify(srv, msg);
	nlmsg_free(msg);
}
