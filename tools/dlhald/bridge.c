/* SPDX-License-Identifier: MIT */
/*
 * --kernel-bridge: the devices of dlhald's drivers in the kernel's devlink
 * family, through kernel/bridge's /dev/dlhal. Each device becomes instance
 * dlhal/NAME (NAME: the profile handle's device part); its ports are mirrored
 * there, and what the kernel asks (devlink port split, unsplit, type set from
 * any tool) runs the driver's op here, answered with the ports it changed.
 * The mirror (what the kernel holds) is kept per device, so that changes made
 * here otherwise (a client of the socket, a driver's timer) follow as a diff.
 * Devices that go and come (a reset of a card whose option sets how many PCI
 * functions it has) follow too: an instance whose device came back under the
 * same name stays, with its ports diffed; the others go and come.
 */
#include "dlhald.h"

#include <dlhal/bridge.h>
#include <dlhal/sdk.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <syslog.h>
#include <unistd.h>

static void port_msg(const struct dlh_port *p, struct dlhal_bridge_port *m)
{
	memset(m, 0, sizeof(*m));
	m->type = DLHAL_BRIDGE_PORT_ADD;
	m->index = dlh_port_index(p);
	snprintf(m->dev, sizeof(m->dev), "%s", dlh_dev_name(dlh_port_dev(p)));
	m->number = dlh_port_number(p);
	m->subport = dlh_port_split_subport(p);
	m->lanes = dlh_port_lanes(p);
	m->split = dlh_port_is_split(p);
	m->splittable = dlh_port_splittable(p);
	if (dlh_port_type(p) == DLH_PORT_TYPE_ETH && dlh_port_netdev(p)) {
		m->port_type = DLHAL_BRIDGE_PORT_ETH;
		snprintf(m->netdev, sizeof(m->netdev), "%s", dlh_port_netdev(p));
	} else if (dlh_port_type(p) == DLH_PORT_TYPE_IB) {
		m->port_type = DLHAL_BRIDGE_PORT_IB;
	}
}

/* The instance that holds the device's ports: its own, or the nested Ethernet one. */
static const char *port_home(const struct bridge_dev *bd)
{
	return bd->eth_name[0] ? bd->eth_name : bd->name;
}

/*
 * The device's ports as the kernel is to hold them: as its Linux driver registers them (mlx5_core
 * registers a devlink port only for a function that runs Ethernet, from 6.7 on on a nested instance).
 */
static size_t model_msgs(const struct bridge_dev *bd, struct dlhal_bridge_port **out)
{
	size_t n = 0, cap = dlh_dev_port_count(bd->dev);
	struct dlhal_bridge_port *v = calloc(cap ? cap : 1, sizeof(*v));

	for (struct dlh_port *p = dlh_port_first(bd->dev); v && p && n < cap; p = dlh_port_next(p)) {
		if (bd->eth_only && dlh_port_type(p) != DLH_PORT_TYPE_ETH)
			continue;
		port_msg(p, &v[n]);
		snprintf(v[n++].dev, sizeof(v->dev), "%s", port_home(bd));
	}
	*out = v;
	return v ? n : 0;
}

static const struct dlhal_bridge_port *find(const struct dlhal_bridge_port *v, size_t n, uint32_t index)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].index == index)
			return &v[i];
	return NULL;
}

/* Same port for the kernel but perhaps for its type: a retype, not a replacement. */
static bool same_attrs(const struct dlhal_bridge_port *a, const struct dlhal_bridge_port *b)
{
	return a->number == b->number && a->subport == b->subport && a->lanes == b->lanes && a->split == b->split &&
	       a->splittable == b->splittable;
}

static bool same(const struct dlhal_bridge_port *a, const struct dlhal_bridge_port *b)
{
	return same_attrs(a, b) && a->port_type == b->port_type && !strcmp(a->netdev, b->netdev);
}

/* What takes @from to @to: removals first (their names become free), then additions and retypes. */
static size_t diff(const struct dlhal_bridge_port *from, size_t nfrom, const struct dlhal_bridge_port *to, size_t nto,
		   struct dlhal_bridge_port *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < nfrom; i++) {
		const struct dlhal_bridge_port *t = find(to, nto, from[i].index);

		if ((!t || !same_attrs(t, &from[i])) && n < max) {
			out[n] = from[i];
			out[n++].type = DLHAL_BRIDGE_PORT_DEL;
		}
	}
	for (size_t i = 0; i < nto; i++) {
		const struct dlhal_bridge_port *f = find(from, nfrom, to[i].index);

		if ((!f || !same(f, &to[i])) && n < max)
			out[n++] = to[i];
	}
	return n;
}

/* The device of instance @name: its own, or its nested Ethernet one. */
static struct bridge_dev *bdev_find(struct bridge *b, const char *name)
{
	for (size_t i = 0; i < b->ndevs; i++)
		if (b->devs[i].dev &&
		    (!strcmp(b->devs[i].name, name) || (b->devs[i].eth_up && !strcmp(b->devs[i].eth_name, name))))
			return &b->devs[i];
	return NULL;
}

/* The mirror after the kernel took @m: what it holds, message by message. */
static int mirror_apply(struct bridge_dev *bd, const struct dlhal_bridge_port *m)
{
	struct dlhal_bridge_port *v;

	for (size_t i = 0; i < bd->n; i++) {
		if (bd->mirror[i].index != m->index)
			continue;
		if (m->type == DLHAL_BRIDGE_PORT_DEL)
			memmove(&bd->mirror[i], &bd->mirror[i + 1], (--bd->n - i) * sizeof(*v));
		else
			bd->mirror[i] = *m;
		return 0;
	}
	if (m->type == DLHAL_BRIDGE_PORT_DEL)
		return 0;
	v = realloc(bd->mirror, (bd->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	bd->mirror = v;
	v[bd->n++] = *m;
	return 0;
}

/*
 * Brings the kernel's copy of @bd up to the model, message by message; the
 * mirror follows each message the kernel took. -EBUSY: an op of the instance
 * waits for this process, which answers it first (the reads come before the
 * next sync); the rest is tried again then. Another refusal is logged once.
 */
static int dev_msg(struct bridge *b, uint32_t type, const char *name)
{
	struct dlhal_bridge_dev m = {.type = type};

	snprintf(m.name, sizeof(m.name), "%s", name);
	return write(b->fd, &m, sizeof(m)) == sizeof(m) ? 0 : -errno;
}

static int eth_instance(struct bridge *b, struct bridge_dev *bd);

static int sync_dev(struct bridge *b, struct bridge_dev *bd)
{
	struct dlhal_bridge_port *model, *changes;
	size_t nmodel, n;
	int err = bd->eth_name[0] ? eth_instance(b, bd) : 0;

	if (err)
		return err;
	nmodel = model_msgs(bd, &model);

	changes = calloc(bd->n + nmodel + 1, sizeof(*changes));
	if (!model || !changes) {
		free(model);
		free(changes);
		return -ENOMEM;
	}
	n = diff(bd->mirror, bd->n, model, nmodel, changes, bd->n + nmodel);
	for (size_t i = 0; i < n && err != -EBUSY; i++) {
		const struct dlhal_bridge_port *c = &changes[i];

		if (write(b->fd, c, sizeof(*c)) == sizeof(*c)) {
			if (mirror_apply(bd, c))
				err = -ENOMEM;
			continue;
		}
		err = -errno;
		if (err == -EBUSY ||
		    (bd->failed.index == c->index && bd->failed.err == err && bd->failed.type == c->type))
			continue;
		bd->failed.index = c->index;
		bd->failed.err = err;
		bd->failed.type = c->type;
		dlhald_log(LOG_ERR, "kernel bridge: %s port %u%s%s: %s",
			   c->type == DLHAL_BRIDGE_PORT_DEL ? "removing" : "adding", c->index,
			   c->netdev[0] ? " netdev " : "", c->netdev, strerror(-err));
	}
	if (!err)
		bd->failed.err = 0;
	/* the nested instance is published once its parent is, with its ports */
	if (!err && bd->eth_up && !bd->eth_published && bd->published) {
		err = dev_msg(b, DLHAL_BRIDGE_DEV_PUBLISH, bd->eth_name);
		if (!err || err == -EALREADY)
			bd->eth_published = true;
		else
			dlhald_log(LOG_ERR, "kernel bridge: publishing dlhal/%s: %s", bd->eth_name, strerror(-err));
		err = 0;
	}
	free(model);
	free(changes);
	return err;
}

static void reply(struct bridge *b, uint32_t seq, int err, const char *msg, const struct dlhal_bridge_port *changes,
		  size_t n, uint32_t performed)
{
	size_t len = sizeof(struct dlhal_bridge_reply) + n * sizeof(*changes);
	struct dlhal_bridge_reply *r = calloc(1, len);

	if (!r)
		return;
	r->type = DLHAL_BRIDGE_REPLY;
	r->seq = seq;
	/* netlink gives the caller no answer for -EINTR, the kernel no errno past EHWPOISON */
	r->err = err == -EINTR || err < -EHWPOISON ? -EIO : err;
	r->nchanges = (uint32_t)n;
	r->performed = err ? 0 : performed;
	snprintf(r->msg, sizeof(r->msg), "%s", msg ? msg : "");
	memcpy(r + 1, changes, n * sizeof(*changes));
	if (write(b->fd, r, len) != (ssize_t)len)
		dlhald_log(LOG_ERR, "kernel bridge: answering request %u: %s", seq, strerror(errno));
	free(r);
}

/* The kernel could not take the ports of op @seq and undid them: undo the op here too. */
static void undo(struct bridge *b, const struct dlhal_bridge_req *req)
{
	struct bridge_dev *bd = bdev_find(b, req->dev);
	struct dlh_extack ext = {0};
	struct dlh_port *p = NULL;
	int err = -ESRCH;

	if (!bd || req->seq != b->last.seq) {
		dlhald_log(LOG_ERR, "kernel bridge: undo of unknown request %u", req->seq);
		return;
	}
	dlhald_log(LOG_WARNING, "kernel bridge: the kernel refused the ports of request %u (%s): undoing it", req->seq,
		   strerror((int)req->arg));
	if (b->last.type == DLHAL_BRIDGE_REQ_SPLIT) {
		/* any port the split made */
		for (p = dlh_port_first(bd->dev); p; p = dlh_port_next(p)) {
			struct dlhal_bridge_port m;

			port_msg(p, &m);
			if (m.split && !find(b->last.before, b->last.nbefore, m.index))
				break;
		}
		err = p ? dlh_port_unsplit(p, &ext) : -ENODEV;
	} else if (b->last.type == DLHAL_BRIDGE_REQ_UNSPLIT) {
		p = dlh_port_find(bd->dev, b->last.index);
		err = p ? dlh_port_split(p, b->last.count, &ext) : -ENODEV;
	} else if (b->last.type == DLHAL_BRIDGE_REQ_TYPE_SET && b->last.prev_type != DLH_PORT_TYPE_NOTSET) {
		p = dlh_port_find(bd->dev, b->last.index);
		err = p ? dlh_port_type_set(p, b->last.prev_type, &ext) : -ENODEV;
	}
	if (err)
		dlhald_log(LOG_ERR, "kernel bridge: cannot undo request %u: %s", req->seq,
			   ext.msg[0] ? ext.msg : strerror(-err));
	/* The kernel holds the ports from before the op again. */
	free(bd->mirror);
	bd->mirror = b->last.held;
	bd->n = b->last.nheld;
	b->last.held = NULL;
	b->last.nheld = 0;
	b->srv->state_dirty = true;
	sync_dev(b, bd);
}

static int run_op(struct bridge_dev *bd, const struct dlhal_bridge_req *req, struct dlh_extack *ext)
{
	struct dlh_port *p = dlh_port_find(bd->dev, req->index);

	if (!p)
		return dlh_sdk_extack(ext, -ENODEV, "Port %u does not exist", req->index);
	switch (req->type) {
	case DLHAL_BRIDGE_REQ_SPLIT:
		return dlh_port_split(p, req->arg, ext);
	case DLHAL_BRIDGE_REQ_UNSPLIT:
		return dlh_port_unsplit(p, ext);
	case DLHAL_BRIDGE_REQ_TYPE_SET:
		/* mlx5_core has no port_type_set: devlink's core answers so, with no message */
		if (bd->eth_only)
			return -EOPNOTSUPP;
		if (req->arg < DLH_PORT_TYPE_AUTO || req->arg > DLH_PORT_TYPE_IB)
			return dlh_sdk_extack(ext, -EINVAL, "Port type %u is not eth, ib or auto", req->arg);
		return dlh_port_type_set(p, (enum dlh_port_type)req->arg, ext);
	}
	return dlh_sdk_extack(ext, -EOPNOTSUPP, "Unknown request %u", req->type);
}

/* The number of ports split with @index before the op: what an unsplit is undone with. */
static uint32_t group_size(const struct dlhal_bridge_port *v, size_t n, uint32_t index)
{
	const struct dlhal_bridge_port *p = find(v, n, index);
	uint32_t count = 0;

	for (size_t i = 0; p && p->split && i < n; i++)
		count += v[i].split && v[i].number == p->number;
	return count;
}

static void on_request(struct bridge *b, const struct dlhal_bridge_req *req)
{
	struct dlhal_bridge_port *model = NULL, changes[DLHAL_BRIDGE_CHANGES_MAX];
	struct bridge_dev *bd = bdev_find(b, req->dev);
	struct dlh_extack ext = {0};
	struct dlh_port *p;
	size_t nmodel, n;
	char why[512];
	int err;

	if (req->type == DLHAL_BRIDGE_REQ_UNDO) {
		undo(b, req);
		return;
	}
	if (!bd) {
		reply(b, req->seq, -ENODEV, "No such device in dlhald", NULL, 0, 0);
		return;
	}
	if (req->type == DLHAL_BRIDGE_REQ_RELOAD) {
		uint32_t done = 0;

		/* mlx5e's nested instance has no devlink ops of its own */
		if (strcmp(req->dev, bd->name)) {
			reply(b, req->seq, -EOPNOTSUPP, NULL, NULL, 0, 0);
			return;
		}

		/* The reset is answered first; the instances and ports it changed follow by sync. */
		err = dlh_dev_reload(bd->dev, (enum dlh_reload_action)(req->arg & 0xff),
				     (enum dlh_reload_limit)((req->arg >> 8) & 0xff), &done, &ext);
		dlhald_log(LOG_INFO, "kernel bridge: request %u (reload of %s, %u): %s", req->seq, bd->name, req->arg,
			   err ? ext.msg : "done");
		if (!err && state_commit(b->srv, why, sizeof(why)))
			dlhald_log(LOG_ERR, "kernel bridge: changed, but not saved: %s", why);
		reply(b, req->seq, err, ext.msg, NULL, 0, done);
		return;
	}
	p = dlh_port_find(bd->dev, req->index);
	free(b->last.before);
	b->last.before = NULL;
	b->last.nbefore = model_msgs(bd, &b->last.before);
	b->last.seq = req->seq;
	b->last.type = req->type;
	b->last.index = req->index;
	b->last.count = group_size(b->last.before, b->last.nbefore, req->index);
	b->last.prev_type = p ? dlh_port_desired_type(p) : DLH_PORT_TYPE_NOTSET;
	err = run_op(bd, req, &ext);
	dlhald_log(LOG_INFO, "kernel bridge: request %u (%u on %s/%u, %u): %s", req->seq, req->type,
		   dlh_dev_handle(bd->dev), req->index, req->arg, err ? ext.msg : "done");
	if (err) {
		reply(b, req->seq, err, ext.msg, NULL, 0, 0);
		return;
	}
	/* As for a socket client: durable before the answer. */
	if (state_commit(b->srv, why, sizeof(why)))
		dlhald_log(LOG_ERR, "kernel bridge: changed, but not saved: %s", why);
	nmodel = model_msgs(bd, &model);
	n = diff(bd->mirror, bd->n, model, nmodel, changes, DLHAL_BRIDGE_CHANGES_MAX);
	free(b->last.held);
	b->last.held = malloc((bd->n ? bd->n : 1) * sizeof(*bd->mirror));
	b->last.nheld = b->last.held ? bd->n : 0;
	if (b->last.held && bd->n)
		memcpy(b->last.held, bd->mirror, bd->n * sizeof(*bd->mirror));
	/* a staged driver's word comes with its success */
	reply(b, req->seq, 0, ext.msg, changes, n, 0);
	/* what did not fit the reply follows by sync; an UNDO puts the mirror back */
	for (size_t i = 0; i < n; i++)
		mirror_apply(bd, &changes[i]);
	free(model);
}

static void on_readable(struct ev_loop *loop, ev_io *w, int revents)
{
	struct bridge *b = w->data;
	struct dlhal_bridge_req req;
	ssize_t n;

	(void)loop;
	(void)revents;
	while ((n = read(b->fd, &req, sizeof(req))) == sizeof(req)) {
		req.dev[sizeof(req.dev) - 1] = '\0';
		on_request(b, &req);
	}
	if (n >= 0 || (errno != EAGAIN && errno != EINTR))
		dlhald_log(LOG_ERR, "kernel bridge: reading %s: %s", "/dev/dlhal",
			   n < 0 ? strerror(errno) : "short read");
}

/* The kernel's own devices (dlhald --kernel mirrors them) are in its devlink family already; the
 * devices of dlhald's drivers, a card's bus of its own included (ice), are not. */
/* (the backend: the driver of a kernel device is the kernel's, "netdevsim") */
static bool from_kernel(const struct dlh_dev *d)
{
	return dlh_sdk_dev_bus(d) && !strcmp(dlh_dev_backend(d), "kernel");
}

/*
 * As Linux 6.7 on, mlx5_core: the nested instance that holds the function's Ethernet port, there
 * while the function has one (mlx5e's, bound to mlx5_core.eth, no info of its own). A kernel
 * without nested instances (-EOPNOTSUPP) gets 6.1's layout: the port on the function's instance.
 */
static int eth_instance(struct bridge *b, struct bridge_dev *bd)
{
	struct dlhal_bridge_nest nest = {.type = DLHAL_BRIDGE_DEV_NEST};
	struct dlhal_bridge_info bind = {.type = DLHAL_BRIDGE_DEV_BIND};
	bool want = false;
	int err;

	for (struct dlh_port *p = dlh_port_first(bd->dev); p && !want; p = dlh_port_next(p))
		want = dlh_port_type(p) == DLH_PORT_TYPE_ETH;
	if (want == bd->eth_up)
		return 0;
	if (!want) {
		/* its port and netdev go with it; the kernel announces the function again */
		err = dev_msg(b, DLHAL_BRIDGE_DEV_DEL, bd->eth_name);
		if (err)
			return err;
		bd->eth_up = bd->eth_published = false;
		free(bd->mirror);
		bd->mirror = NULL;
		bd->n = 0;
		return 0;
	}
	snprintf(bind.dev, sizeof(bind.dev), "%s", bd->eth_name);
	snprintf(bind.driver, sizeof(bind.driver), "mlx5_core.eth");
	snprintf(nest.dev, sizeof(nest.dev), "%s", bd->eth_name);
	snprintf(nest.parent, sizeof(nest.parent), "%s", bd->name);
	err = dev_msg(b, DLHAL_BRIDGE_DEV_ADD, bd->eth_name);
	if (err)
		return err;
	if (write(b->fd, &bind, sizeof(bind)) != sizeof(bind) || write(b->fd, &nest, sizeof(nest)) != sizeof(nest))
		err = -errno;
	if (err) {
		dev_msg(b, DLHAL_BRIDGE_DEV_DEL, bd->eth_name);
		if (err != -EOPNOTSUPP)
			return err;
		dlhald_log(LOG_INFO, "kernel bridge: this kernel nests no instances: %s's port on dlhal/%s, as 6.1's",
			   bd->eth_name, bd->name);
		b->no_nest = true;
		bd->eth_name[0] = '\0';
		return 0;
	}
	bd->eth_up = true;
	free(bd->mirror);
	bd->mirror = NULL;
	bd->n = 0;
	return 0;
}

/*
 * What the device reports of itself, for the instance to report (`devlink dev
 * info`) and to be bound to the Linux driver it stands for: what a real one
 * shows, so that a tool recognises it as it would the real one. A device that
 * reports nothing, or what the bridge cannot carry, is published without; one
 * that reports only its driver is bound to it and answers as a Linux driver
 * without info_get does.
 */
static int info_msg(struct bridge *b, struct bridge_dev *bd, struct dlh_dev *d, const char *name)
{
	static const uint32_t kinds[] = {
	    [DLH_VERSION_FIXED] = DLHAL_BRIDGE_VERSION_FIXED,
	    [DLH_VERSION_RUNNING] = DLHAL_BRIDGE_VERSION_RUNNING,
	    [DLH_VERSION_STORED] = DLHAL_BRIDGE_VERSION_STORED,
	};
	struct dlhal_bridge_info m = {.type = DLHAL_BRIDGE_DEV_INFO};
	struct dlh_dev_info info;
	struct dlh_extack ext;

	if (dlh_dev_info_get(d, &info, &ext))
		return 0;
	snprintf(m.dev, sizeof(m.dev), "%s", name);
	if (strlen(info.driver) >= sizeof(m.driver) || strlen(info.serial) >= sizeof(m.serial) ||
	    strlen(info.board_serial) >= sizeof(m.board_serial) || info.nversions > DLHAL_BRIDGE_VERSIONS_MAX) {
		dlhald_log(LOG_WARNING, "kernel bridge: dlhal/%s: its info does not fit the bridge: left out", name);
		return 0;
	}
	snprintf(m.driver, sizeof(m.driver), "%s", info.driver);
	/* a ConnectX-4..7: an InfiniBand function has no devlink port, and no type is set through devlink */
	bd->eth_only = !strcmp(info.driver, "mlx5_core");
	if (bd->eth_only && !b->no_nest && !bd->eth_name[0])
		snprintf(bd->eth_name, sizeof(bd->eth_name), "mlx5_core.eth.%u", b->eth_next++);
	/* nothing but a driver's name: one with no info of its own, as Linux 6.1's mlx4_core */
	if (info.driver[0] && !info.serial[0] && !info.board_serial[0] && !info.nversions)
		m.type = DLHAL_BRIDGE_DEV_BIND;
	snprintf(m.serial, sizeof(m.serial), "%s", info.serial);
	snprintf(m.board_serial, sizeof(m.board_serial), "%s", info.board_serial);
	for (size_t i = 0; i < info.nversions; i++) {
		const struct dlh_version *v = &info.versions[i];

		if (strlen(v->name) >= sizeof(m.versions[0].name) || strlen(v->value) >= sizeof(m.versions[0].value) ||
		    strchr(v->name, ' ')) {
			dlhald_log(LOG_WARNING, "kernel bridge: dlhal/%s: version %s does not fit the bridge: left out",
				   name, v->name);
			continue;
		}
		m.versions[m.nversions].kind = kinds[v->kind];
		snprintf(m.versions[m.nversions].name, sizeof(m.versions[0].name), "%s", v->name);
		snprintf(m.versions[m.nversions].value, sizeof(m.versions[0].value), "%s", v->value);
		m.nversions++;
	}
	if (write(b->fd, &m, sizeof(m)) != sizeof(m))
		return -errno;
	/* Published as that Linux driver: where it decides otherwise than the device's driver, the device now
	 * follows the running kernel's (an emulated Spectrum as Linux 6.1's mlxsw_spectrum, docs/vendors.md). */
	if (info.driver[0] && b->release[0])
		dlh_sdk_dev_linux_set(d, b->release, NULL);
	return 0;
}

/* A device of dlhald's own drivers (not the kernel's, which is there already) gets an instance. */
static int bdev_add(struct bridge *b, struct dlh_dev *d)
{
	struct bridge_dev *v = realloc(b->devs, (b->ndevs + 1) * sizeof(*v)), *bd;
	int err;

	if (!v)
		return -ENOMEM;
	b->devs = v;
	bd = memset(&v[b->ndevs], 0, sizeof(*bd));
	bd->dev = d;
	snprintf(bd->name, sizeof(bd->name), "%s", dlh_dev_name(d));
	err = dev_msg(b, DLHAL_BRIDGE_DEV_ADD, bd->name);
	if (err)
		return err;
	b->ndevs++;
	err = info_msg(b, bd, d, bd->name);
	if (err)
		dlhald_log(LOG_ERR, "kernel bridge: the info of dlhal/%s: %s", bd->name, strerror(-err));
	bd->as_linux = dlh_sdk_dev_linux(d) != NULL;
	return 0;
}

/* The instance of a device that went: its ports and netdevs go with it (its nested one first). */
static void bdev_del(struct bridge *b, size_t i)
{
	int err = b->devs[i].eth_up ? dev_msg(b, DLHAL_BRIDGE_DEV_DEL, b->devs[i].eth_name) : 0;

	if (err)
		dlhald_log(LOG_ERR, "kernel bridge: removing dlhal/%s: %s", b->devs[i].eth_name, strerror(-err));
	err = dev_msg(b, DLHAL_BRIDGE_DEV_DEL, b->devs[i].name);

	if (err)
		dlhald_log(LOG_ERR, "kernel bridge: removing dlhal/%s: %s", b->devs[i].name, strerror(-err));
	free(b->devs[i].mirror);
	memmove(&b->devs[i], &b->devs[i + 1], (--b->ndevs - i) * sizeof(*b->devs));
}

static void on_dev_event(const struct dlh_event *ev, void *arg)
{
	struct bridge *b = arg;

	if (ev->type == DLH_EVENT_DEV_DEL) {
		for (size_t i = 0; i < b->ndevs; i++)
			if (b->devs[i].dev == ev->dev)
				b->devs[i].dev = NULL;
	} else if (ev->type == DLH_EVENT_DEV_NEW && !from_kernel(ev->dev)) {
		/* Back under the same name: the same instance, its ports diffed at the next sync. */
		for (size_t i = 0; i < b->ndevs; i++) {
			if (!b->devs[i].dev && !strcmp(b->devs[i].name, dlh_dev_name(ev->dev))) {
				b->devs[i].dev = ev->dev;
				if (b->devs[i].as_linux)
					dlh_sdk_dev_linux_set(ev->dev, b->release, NULL);
				return;
			}
		}
		b->added = true;
	}
}

/*
 * Before the loop waits: instances of devices that went go, devices that came
 * get one (published once their ports are in), and changes made here otherwise
 * (socket clients, drivers' timers) follow.
 */
/* Only wakes the loop: its prepare watcher (on_sync) does the work. */
static void on_retry(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)w;
	(void)revents;
}

static void on_sync(struct ev_loop *loop, ev_prepare *w, int revents)
{
	struct bridge *b = w->data;

	(void)revents;
	for (size_t i = b->ndevs; i-- > 0;)
		if (!b->devs[i].dev)
			bdev_del(b, i);
	if (b->added) {
		b->added = false;
		for (struct dlh_dev *d = dlh_dev_first(b->srv->ctx); d; d = dlh_dev_next(d)) {
			bool known = from_kernel(d);

			for (size_t i = 0; i < b->ndevs && !known; i++)
				known = b->devs[i].dev == d;
			if (!known && bdev_add(b, d))
				dlhald_log(LOG_ERR, "kernel bridge: instance dlhal/%s: %s", dlh_dev_name(d),
					   strerror(errno));
		}
	}
	for (size_t i = 0; i < b->ndevs; i++) {
		struct bridge_dev *bd = &b->devs[i];
		int err = sync_dev(b, bd);

		/*
		 * -EBUSY: an op of the instance has its answer but its waiter in the kernel has not let go
		 * yet (a reload answered, then its ports synced at once). Nothing else may wake the loop
		 * then: a timer does, and the sync runs again.
		 */
		if (err == -EBUSY && !ev_is_active(&b->retry)) {
			ev_timer_set(&b->retry, 0.005, 0.);
			ev_timer_start(loop, &b->retry);
		}
		if (!err && !bd->published) {
			int err = dev_msg(b, DLHAL_BRIDGE_DEV_PUBLISH, bd->name);

			if (!err || err == -EALREADY)
				bd->published = true;
			else
				dlhald_log(LOG_ERR, "kernel bridge: publishing dlhal/%s: %s", bd->name, strerror(-err));
			if (bd->published && bd->eth_up)
				sync_dev(b, bd); /* its nested instance, after it as mlx5_core registers them */
		}
	}
}

int bridge_open(struct bridge *b, struct server *srv, const char *path, char *why, size_t whylen)
{
	struct utsname uts;
	size_t ndevs = 0;

	memset(b, 0, sizeof(*b));
	b->srv = srv;
	if (!uname(&uts))
		snprintf(b->release, sizeof(b->release), "%s", uts.release);
	b->fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (b->fd < 0) {
		snprintf(why, whylen, "%s: %s%s", path, strerror(errno),
			 errno == ENOENT ? " (is the dlhal_bridge module loaded?)" : "");
		return -1;
	}
	for (struct dlh_dev *d = dlh_dev_first(srv->ctx); d; d = dlh_dev_next(d))
		ndevs++;
	b->devs = calloc(ndevs ? ndevs : 1, sizeof(*b->devs));
	if (!b->devs) {
		snprintf(why, whylen, "out of memory");
		goto err_close;
	}
	for (struct dlh_dev *d = dlh_dev_first(srv->ctx); d; d = dlh_dev_next(d)) {
		struct bridge_dev *bd;
		int err;

		if (from_kernel(d))
			continue;
		err = bdev_add(b, d);
		if (err) {
			snprintf(why, whylen, "%s: instance dlhal/%s for %s: %s", path, dlh_dev_name(d),
				 dlh_dev_handle(d), strerror(-err));
			goto err_close;
		}
		bd = &b->devs[b->ndevs - 1];
		if (sync_dev(b, bd)) {
			snprintf(why, whylen, "%s: the ports of %s (see the log above)", path, dlh_dev_handle(d));
			goto err_close;
		}
		/* Only now does devlink show it: whole, so nobody acts on half a device. */
		err = dev_msg(b, DLHAL_BRIDGE_DEV_PUBLISH, bd->name);
		if (err) {
			snprintf(why, whylen, "%s: publishing dlhal/%s: %s", path, bd->name, strerror(-err));
			goto err_close;
		}
		bd->published = true;
		if (bd->eth_up && sync_dev(b, bd)) {
			snprintf(why, whylen, "%s: the nested instance of %s (see the log above)", path,
				 dlh_dev_handle(d));
			goto err_close;
		}
	}
	if (dlh_ctx_subscribe(srv->ctx, on_dev_event, b, &b->sub)) {
		snprintf(why, whylen, "out of memory");
		goto err_close;
	}
	ev_io_init(&b->io, on_readable, b->fd, EV_READ);
	b->io.data = b;
	ev_io_start(srv->loop, &b->io);
	ev_prepare_init(&b->sync, on_sync);
	b->sync.data = b;
	ev_prepare_start(srv->loop, &b->sync);
	ev_timer_init(&b->retry, on_retry, 0.005, 0.);
	b->retry.data = b;
	return 0;

err_close:
	bridge_close(b);
	return -1;
}

void bridge_close(struct bridge *b)
{
	if (b->fd < 0)
		return;
	if (b->srv && b->srv->loop && ev_is_active(&b->io)) {
		ev_io_stop(b->srv->loop, &b->io);
		ev_prepare_stop(b->srv->loop, &b->sync);
		ev_timer_stop(b->srv->loop, &b->retry);
	}
	dlh_ctx_unsubscribe(b->sub);
	b->sub = NULL;
	/* Closing removes the instances, their ports and netdevs. */
	close(b->fd);
	b->fd = -1;
	for (size_t i = 0; i < b->ndevs; i++)
		free(b->devs[i].mirror);
	free(b->devs);
	free(b->last.before);
	free(b->last.held);
	b->devs = NULL;
	b->ndevs = 0;
}
