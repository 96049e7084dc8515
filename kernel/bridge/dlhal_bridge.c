// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * dlhal_bridge: userspace drivers' devices in the kernel's devlink family.
 *
 * The process holding /dev/dlhal creates devlink instances ("dlhal/NAME",
 * on this module's bus), registers their ports with their attributes and,
 * for Ethernet ports, a netdev with no datapath, so that every devlink tool
 * sees them. Everything goes when the file is closed. Every message is
 * checked before use: this file trusts nothing it reads.
 */
#include <linux/completion.h>
#include <linux/device.h>
#include <linux/etherdevice.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/moduleparam.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/poll.h>
#include <linux/rtnetlink.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/uaccess.h>
#include <net/devlink.h>

#include <dlhal/bridge.h>

#include "compat.h"

#define DRV_NAME "dlhal"

/*
 * How long an op waits for the process, in ms. The instance's lock is held
 * meanwhile, so every other devlink command on that instance (a read by
 * anyone, too) waits as long: the default is what a real driver's firmware
 * command may take, and a process that does not answer fails the op.
 */
static unsigned int op_timeout_ms = DLHAL_BRIDGE_TIMEOUT_MS;
module_param(op_timeout_ms, uint, 0644);
MODULE_PARM_DESC(op_timeout_ms, "How long an op waits for the process, ms (100-60000)");

struct dlb_file {
	struct mutex lock; /* devs, and every instance of this file */
	struct list_head devs;
	unsigned int ndevs;
	spinlock_t req_lock; /* everything below */
	struct list_head reqs;	   /* ops (and undo notices) not read yet */
	struct list_head inflight; /* ops read, not answered */
	wait_queue_head_t wq;
	u32 seq;
	bool closing;
};

struct dlb_dev {
	struct list_head node;
	struct device dev;
	struct devlink *devlink;
	struct dlb_file *f;
	struct list_head ports;
	unsigned int nports;
	bool published; /* devlink_register()ed: userspace sees it */
	bool nested;	/* nested in another instance of the file (DLHAL_BRIDGE_DEV_NEST) */
	struct dlhal_bridge_info *info; /* what it reports of itself; NULL: nothing */
	const char *want; /* the name of the driver it is bound to (dlb_drivers'), or NULL */
	/* under f->req_lock: */
	bool op_busy; /* an op of this instance waits for the process */
	bool writing; /* the process changes its ports: an op now would deadlock */
	bool dying;   /* being removed: its ops fail at once */
	u32 reload_done; /* what the process's reload did, from reload_down to reload_up */
};

struct dlb_port {
	struct list_head node;
	struct devlink_port dl;
	struct net_device *netdev;
	u32 index;
	struct dlhal_bridge_port msg; /* as registered (type PORT_ADD): to put it back */
};

/* How to undo one applied change. */
enum dlb_undo_action {
	DLB_UNDO_DEL,	 /* the change added the port: remove it */
	DLB_UNDO_ADD,	 /* it removed the port: add it again */
	DLB_UNDO_RETYPE, /* it changed the port's type: put the type back */
};

struct dlb_undo {
	enum dlb_undo_action action;
	struct dlhal_bridge_port msg;
};

/*
 * An operation forwarded to the process: on the stack of the devlink
 * caller, which holds the instance's lock and waits for the answer. An undo
 * notice has no waiter and is freed once read.
 */
struct dlb_op {
	struct list_head node;
	struct dlhal_bridge_req req;
	struct completion done;
	struct dlb_dev *d;
	bool notice;
	bool answered;
	bool closed;
	int err;
	char msg[DLHAL_BRIDGE_MSG_MAX];
	struct dlhal_bridge_port *changes;
	u32 nchanges;
	u32 performed;
};

struct dlb_netdev {
	struct dlb_port *port;
};

/* Names are unique on the bus across files: checked and taken under this lock. */
static DEFINE_MUTEX(dlb_names_lock);

/* The parent of every instance's device: none sits at the top of /sys/devices. */
static struct device *dlb_root;

static int dlb_match(struct device *dev, DLB_MATCH_CONST struct device_driver *drv);

static DLB_BUS_TYPE dlb_bus = {
	.name = DRV_NAME,
	.dev_name = DRV_NAME,
	.match = dlb_match,
};

/*
 * The Linux drivers instances stand for (DLHAL_BRIDGE_DEV_INFO): a driver of
 * that name on this bus, registered when first named and kept until the
 * module goes, is bound to the instances that name it, so that sysfs and
 * devlink's core (6.2 on) name it as they name the real one.
 */
#define DLB_DRIVERS_MAX 16

struct dlb_driver {
	struct device_driver drv;
	char name[DLHAL_BRIDGE_DRIVER_MAX];
};

static struct dlb_driver *dlb_drivers[DLB_DRIVERS_MAX];
static DEFINE_MUTEX(dlb_drivers_lock); /* dlb_drivers, and binding */

/* The instance's device (the only kind on the bus) and the driver it names: pointers, read once. */
static int dlb_match(struct device *dev, DLB_MATCH_CONST struct device_driver *drv)
{
	return READ_ONCE(container_of(dev, struct dlb_dev, dev)->want) == drv->name;
}

/*
 * Linux 6.1 keeps a pointer to an extack message until the answer is sent,
 * after the op returns: a driver's message is kept here, once per distinct
 * text, until the module goes (a bounded number; past it, a fixed text).
 */
#define DLB_MSGS_MAX 256

struct dlb_msg {
	struct list_head node;
	char text[DLHAL_BRIDGE_MSG_MAX];
};

static LIST_HEAD(dlb_msgs);
static unsigned int dlb_nmsgs;
static DEFINE_MUTEX(dlb_msgs_lock);

static const char *msg_intern(const char *text)
{
	const char *ret = "Refused by the dlhal driver process";
	struct dlb_msg *m;

	mutex_lock(&dlb_msgs_lock);
	list_for_each_entry(m, &dlb_msgs, node) {
		if (!strcmp(m->text, text)) {
			ret = m->text;
			goto out;
		}
	}
	if (dlb_nmsgs < DLB_MSGS_MAX) {
		m = kzalloc(sizeof(*m), GFP_KERNEL);
		if (m) {
			strscpy(m->text, text, sizeof(m->text));
			list_add(&m->node, &dlb_msgs);
			dlb_nmsgs++;
			ret = m->text;
		}
	}
out:
	mutex_unlock(&dlb_msgs_lock);
	return ret;
}

static netdev_tx_t dlb_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	dev_kfree_skb(skb);
	dev->stats.tx_dropped++;
	return NETDEV_TX_OK;
}

#ifndef DLB_HAVE_SET_NETDEV_DEVLINK_PORT
static struct devlink_port *dlb_get_devlink_port(struct net_device *dev)
{
	struct dlb_netdev *nd = netdev_priv(dev);

	return &nd->port->dl;
}
#endif

static const struct net_device_ops dlb_netdev_ops = {
	.ndo_start_xmit = dlb_start_xmit,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
#ifndef DLB_HAVE_SET_NETDEV_DEVLINK_PORT
	.ndo_get_devlink_port = dlb_get_devlink_port,
#endif
};

static void dlb_netdev_setup(struct net_device *dev)
{
	ether_setup(dev);
	eth_hw_addr_random(dev);
	dev->netdev_ops = &dlb_netdev_ops;
	dev->tx_queue_len = 0;
	dev->flags |= IFF_NOARP;
	dev->priv_flags |= IFF_NO_QUEUE;
}

/* A NUL inside the field, at least one byte before it. */
static bool field_str(const char *s, size_t size)
{
	size_t len = strnlen(s, size);

	return len && len < size;
}

/* ASCII only: the kernel's isalnum() takes Latin-1 letters, devlink prints bytes. */
static bool name_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == ':' || c == '.' || c == '_' || c == '-';
}

static bool dev_name_ok(const char *s)
{
	if (!field_str(s, DLHAL_BRIDGE_NAME_MAX) || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (!name_char_ok(*s))
			return false;
	return true;
}

/* The name devlink derives for a physical port's netdev (phys_port_name) must fit IFNAMSIZ. */
static bool phys_port_name_fits(const struct dlhal_bridge_port *m)
{
	char name[IFNAMSIZ];
	int len;

	if (m->split)
		len = snprintf(name, sizeof(name), "p%us%u", m->number, m->subport);
	else
		len = snprintf(name, sizeof(name), "p%u", m->number);
	return len < sizeof(name);
}

static struct dlb_dev *dev_find(struct dlb_file *f, const char *name)
{
	struct dlb_dev *d;

	list_for_each_entry(d, &f->devs, node)
		if (!strcmp(dev_name(&d->dev), name))
			return d;
	return NULL;
}

static struct dlb_port *port_find(struct dlb_dev *d, u32 index)
{
	struct dlb_port *p;

	list_for_each_entry(p, &d->ports, node)
		if (p->index == index)
			return p;
	return NULL;
}

static void dlb_dev_release(struct device *dev)
{
	struct dlb_dev *d = container_of(dev, struct dlb_dev, dev);

	kfree(d->info);
	kfree(d);
}

static struct net_device *netdev_alloc(struct dlb_dev *d, struct dlb_port *p, const char *name)
{
	struct net_device *netdev;
	struct dlb_netdev *nd;

	netdev = alloc_netdev(sizeof(*nd), name, NET_NAME_USER, dlb_netdev_setup);
	if (!netdev)
		return NULL;
	nd = netdev_priv(netdev);
	nd->port = p;
	SET_NETDEV_DEV(netdev, &d->dev);
	return netdev;
}

#ifdef DLB_HAVE_SET_NETDEV_DEVLINK_PORT
/*
 * The port's netdev, registered under the name @name (NULL: none), in place
 * of the one it has. 6.2 on, devlink follows the port's netdevs by their
 * registration, and the old one's unregistration would clear what the new
 * one's set: the old one goes first, under the RTNL with the new one's
 * registration, after the name is seen free, so that a refusal (a name the
 * kernel has) leaves the port as it was.
 */
static int port_netdev_replace(struct dlb_dev *d, struct dlb_port *p, const char *name)
{
	struct net_device *netdev = NULL, *old = p->netdev;
	int err = 0;

	if (!name && !old)
		return 0;
	if (name) {
		netdev = netdev_alloc(d, p, name);
		if (!netdev)
			return -ENOMEM;
		SET_NETDEV_DEVLINK_PORT(netdev, &p->dl);
	}
	rtnl_lock();
	if (name && __dev_get_by_name(&init_net, name)) {
		err = -EEXIST;
		goto err_unlock;
	}
	if (old) {
		unregister_netdevice(old);
		p->netdev = NULL;
	}
	if (netdev) {
		err = register_netdevice(netdev);
		if (err)
			goto err_unlock;
		p->netdev = netdev;
	}
	rtnl_unlock();
	/* unregistered once the RTNL was let go */
	if (old)
		free_netdev(old);
	return 0;

err_unlock:
	rtnl_unlock();
	if (netdev)
		free_netdev(netdev);
	if (old && !p->netdev)
		free_netdev(old);
	return err;
}
#else
/*
 * Up to 6.1: the new netdev is registered before the old one goes, so that a
 * refusal (a name the kernel has) leaves the port as it was; the driver sets
 * and clears the port's type, the type first, as it must not point at a
 * netdev gone.
 */
static int port_netdev_replace(struct dlb_dev *d, struct dlb_port *p, const char *name)
{
	struct net_device *netdev = NULL;
	int err;

	if (name) {
		netdev = netdev_alloc(d, p, name);
		if (!netdev)
			return -ENOMEM;
		err = register_netdev(netdev);
		if (err) {
			free_netdev(netdev);
			return err;
		}
	}
	if (p->netdev) {
		devlink_port_type_clear(&p->dl);
		unregister_netdev(p->netdev);
		free_netdev(p->netdev);
		p->netdev = NULL;
	}
	if (netdev) {
		devlink_port_type_eth_set(&p->dl, netdev);
		p->netdev = netdev;
	}
	return 0;
}
#endif

/*
 * The port's type and netdev as @m says; its other attributes stay. On a
 * refusal the port is as it was, but if the new netdev failed to register
 * after the old one went: then it is left with no type, and says so.
 */
static int port_type_apply(struct dlb_dev *d, struct dlb_port *p, const struct dlhal_bridge_port *m)
{
	int err;

	if (m->port_type == DLHAL_BRIDGE_PORT_ETH) {
		if (p->netdev && !strcmp(p->netdev->name, m->netdev))
			goto out;
		err = port_netdev_replace(d, p, m->netdev);
		if (err && !p->netdev && p->msg.port_type == DLHAL_BRIDGE_PORT_ETH) {
			p->msg.port_type = DLHAL_BRIDGE_PORT_NOTSET;
			p->msg.netdev[0] = '\0';
		}
		if (err)
			return err;
	} else {
		port_netdev_replace(d, p, NULL);
		if (m->port_type == DLHAL_BRIDGE_PORT_IB && p->msg.port_type != m->port_type)
			devlink_port_type_ib_set(&p->dl, NULL);
		else if (m->port_type == DLHAL_BRIDGE_PORT_NOTSET &&
			 p->msg.port_type == DLHAL_BRIDGE_PORT_IB)
			devlink_port_type_clear(&p->dl);
	}
out:
	p->msg = *m;
	p->msg.type = DLHAL_BRIDGE_PORT_ADD;
	return 0;
}

#ifdef DLB_HAVE_DEVLINK_PORT_OPS
static const struct devlink_port_ops dlb_port_ops;
#endif

/* 6.5 on, its split, unsplit and type set ops come with it. */
static int dlb_port_register(struct dlb_dev *d, struct dlb_port *p)
{
#ifdef DLB_HAVE_DEVLINK_PORT_OPS
	return devl_port_register_with_ops(d->devlink, &p->dl, p->index, &dlb_port_ops);
#else
	return devl_port_register(d->devlink, &p->dl, p->index);
#endif
}

/* Under devl_lock. */
static void port_del(struct dlb_dev *d, struct dlb_port *p)
{
	/* with no type: 6.2 on warns about a port unregistered with one */
	port_netdev_replace(d, p, NULL);
	if (p->msg.port_type == DLHAL_BRIDGE_PORT_IB)
		devlink_port_type_clear(&p->dl);
	devl_port_unregister(&p->dl);
	list_del(&p->node);
	d->nports--;
	kfree(p);
}

/* Under devl_lock. */
static int port_add(struct dlb_dev *d, const struct dlhal_bridge_port *m)
{
	struct devlink_port_attrs attrs = {};
	struct dlb_port *p;
	int err;

	if (d->nports >= DLHAL_BRIDGE_PORTS_MAX)
		return -ENOSPC;
	if (port_find(d, m->index))
		return -EEXIST;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->index = m->index;
	p->msg = *m;
	p->msg.type = DLHAL_BRIDGE_PORT_ADD;
	attrs.flavour = DEVLINK_PORT_FLAVOUR_PHYSICAL;
	attrs.phys.port_number = m->number;
	attrs.phys.split_subport_number = m->subport;
	attrs.split = m->split;
	attrs.splittable = m->splittable;
	attrs.lanes = m->lanes;
	devlink_port_attrs_set(&p->dl, &attrs);
	err = dlb_port_register(d, p);
	if (err)
		goto err_free;
	if (m->port_type == DLHAL_BRIDGE_PORT_ETH) {
		err = port_netdev_replace(d, p, m->netdev);
		if (err)
			goto err_port_unregister;
	} else if (m->port_type == DLHAL_BRIDGE_PORT_IB) {
		devlink_port_type_ib_set(&p->dl, NULL);
	}
	list_add_tail(&p->node, &d->ports);
	d->nports++;
	return 0;

err_port_unregister:
	devl_port_unregister(&p->dl);
err_free:
	kfree(p);
	return err;
}

/* A port message's fields (an add's all of them), before anything uses it. */
static int port_msg_check(const struct dlhal_bridge_port *m)
{
	if (!dev_name_ok(m->dev))
		return -EINVAL;
	if (m->type == DLHAL_BRIDGE_PORT_DEL)
		return 0;
	if (m->type != DLHAL_BRIDGE_PORT_ADD)
		return -EINVAL;
	if (m->reserved || m->split > 1 || m->splittable > 1 ||
	    m->lanes > DLHAL_BRIDGE_LANES_MAX ||
	    (m->splittable && (m->split || m->lanes < 2)) || !phys_port_name_fits(m))
		return -EINVAL;
	switch (m->port_type) {
	case DLHAL_BRIDGE_PORT_ETH:
		if (!field_str(m->netdev, sizeof(m->netdev)) ||
		    !dev_valid_name(m->netdev) || strchr(m->netdev, '%'))
			return -EINVAL;
		return 0;
	case DLHAL_BRIDGE_PORT_NOTSET:
	case DLHAL_BRIDGE_PORT_IB:
		return m->netdev[0] ? -EINVAL : 0;
	default:
		return -EINVAL;
	}
}

/* An add for a port that exists, with the same attributes: a type change. */
static bool is_retype(const struct dlb_port *p, const struct dlhal_bridge_port *m)
{
	return p->msg.number == m->number && p->msg.subport == m->subport &&
	       p->msg.lanes == m->lanes && p->msg.split == m->split &&
	       p->msg.splittable == m->splittable;
}

/*
 * Applies an op's changes in order, under the instance's lock; on a failure
 * undoes those applied, newest first, and returns the error. The port the op
 * was called for survives a type set (the devlink core uses it afterwards).
 */
static int changes_apply(struct dlb_dev *d, const struct dlb_op *op)
{
	struct dlb_undo *undo;
	struct dlb_port *p;
	u32 i, n = 0;
	int err = 0;

	undo = kcalloc(op->nchanges, sizeof(*undo), GFP_KERNEL);
	if (!undo && op->nchanges)
		return -ENOMEM;
	for (i = 0; i < op->nchanges && !err; i++) {
		const struct dlhal_bridge_port *m = &op->changes[i];

		p = port_find(d, m->index);
		if (m->type == DLHAL_BRIDGE_PORT_DEL) {
			if (!p || (op->req.type == DLHAL_BRIDGE_REQ_TYPE_SET &&
				   m->index == op->req.index)) {
				err = -EINVAL;
				break;
			}
			undo[n].action = DLB_UNDO_ADD;
			undo[n++].msg = p->msg;
			port_del(d, p);
		} else if (p) {
			if (!is_retype(p, m)) {
				err = -EEXIST;
				break;
			}
			undo[n].action = DLB_UNDO_RETYPE;
			undo[n].msg = p->msg;
			err = port_type_apply(d, p, m);
			if (!err)
				n++;
		} else {
			undo[n].action = DLB_UNDO_DEL;
			undo[n].msg = *m;
			err = port_add(d, m);
			if (!err)
				n++;
		}
	}
	while (err && n--) {
		p = port_find(d, undo[n].msg.index);
		if (undo[n].action == DLB_UNDO_DEL && p)
			port_del(d, p);
		else if (undo[n].action == DLB_UNDO_RETYPE && p)
			port_type_apply(d, p, &undo[n].msg);
		else if (undo[n].action == DLB_UNDO_ADD && !p)
			port_add(d, &undo[n].msg);
	}
	kfree(undo);
	return err;
}

/* Not for a file being closed or an instance being removed: nobody would read it. */
static void notice_queue(struct dlb_dev *d, const struct dlhal_bridge_req *req, int err)
{
	struct dlb_op *n = kzalloc(sizeof(*n), GFP_KERNEL);
	struct dlb_file *f = d->f;

	if (!n)
		return;
	n->req = *req;
	n->req.type = DLHAL_BRIDGE_REQ_UNDO;
	n->req.arg = -err;
	n->notice = true;
	n->d = d;
	spin_lock(&f->req_lock);
	if (f->closing || d->dying) {
		spin_unlock(&f->req_lock);
		kfree(n);
		return;
	}
	list_add_tail(&n->node, &f->reqs);
	spin_unlock(&f->req_lock);
	wake_up_interruptible(&f->wq);
}

/* Forwards an op to the process and waits, bounded, for its answer. */
static int dlb_op_run(struct dlb_dev *d, u32 type, u32 index, u32 arg,
		      struct netlink_ext_ack *extack)
{
	struct dlb_file *f = d->f;
	struct dlb_op op = { .d = d };
	unsigned long timeout;
	long left;
	int err;

	init_completion(&op.done);
	op.req.type = type;
	op.req.index = index;
	op.req.arg = arg;
	strscpy(op.req.dev, dev_name(&d->dev), sizeof(op.req.dev));
	spin_lock(&f->req_lock);
	if (f->closing || d->dying) {
		spin_unlock(&f->req_lock);
		NL_SET_ERR_MSG_MOD(extack, "The dlhal driver process went away");
		return -ENODEV;
	}
	if (d->writing) {
		spin_unlock(&f->req_lock);
		NL_SET_ERR_MSG_MOD(extack, "The dlhal driver process is busy with it, try again");
		return -EBUSY;
	}
	op.req.seq = ++f->seq;
	d->op_busy = true;
	list_add_tail(&op.node, &f->reqs);
	spin_unlock(&f->req_lock);
	wake_up_interruptible(&f->wq);

	timeout = msecs_to_jiffies(clamp(op_timeout_ms, 100U, 60000U));
	left = wait_for_completion_killable_timeout(&op.done, timeout);
	spin_lock(&f->req_lock);
	d->op_busy = false;
	if (!op.answered && !op.closed)
		list_del(&op.node);
	spin_unlock(&f->req_lock);
	if (op.closed) {
		NL_SET_ERR_MSG_MOD(extack, "The dlhal driver process went away");
		return -ENODEV;
	}
	if (!op.answered) {
		NL_SET_ERR_MSG_MOD(extack, "The dlhal driver process did not answer");
		return left < 0 ? -EINTR : -ETIMEDOUT;
	}
	/* A success may come with a warning: a change the driver stored for the next reset. */
	if (op.msg[0] && extack)
		extack->_msg = msg_intern(op.msg);
	if (op.err)
		return op.err;
	if (type == DLHAL_BRIDGE_REQ_RELOAD)
		d->reload_done = op.performed;
	err = changes_apply(d, &op);
	kfree(op.changes);
	if (err) {
		notice_queue(d, &op.req, err);
		NL_SET_ERR_MSG_MOD(extack, "The kernel could not take the driver's ports");
	}
	return err;
}

static struct dlb_dev *dlb_of(struct devlink *devlink)
{
	return *(struct dlb_dev **)devlink_priv(devlink);
}

static int dlb_port_split(struct devlink *devlink, struct devlink_port *port,
			  unsigned int count, struct netlink_ext_ack *extack)
{
	return dlb_op_run(dlb_of(devlink), DLHAL_BRIDGE_REQ_SPLIT, port->index, count, extack);
}

static int dlb_port_unsplit(struct devlink *devlink, struct devlink_port *port,
			    struct netlink_ext_ack *extack)
{
	return dlb_op_run(dlb_of(devlink), DLHAL_BRIDGE_REQ_UNSPLIT, port->index, 0, extack);
}

/* Linux gives this op no extack (6.1 to 6.12 at least): the caller gets the errno only. */
static int dlb_port_type_set(struct devlink_port *port, enum devlink_port_type type)
{
	return dlb_op_run(dlb_of(port->devlink), DLHAL_BRIDGE_REQ_TYPE_SET, port->index, type,
			  NULL);
}

/*
 * devlink reload: the process resets the device in reload_down (it answers
 * once done), reload_up reports what it did. The instances and ports that go
 * and come follow as the process's messages once devlink lets go of this
 * instance. Which actions and limits the device has is the process's driver's
 * to say: it refuses the others in devlink's words.
 */
static int dlb_reload_down(struct devlink *devlink, bool netns_change,
			   enum devlink_reload_action action, enum devlink_reload_limit limit,
			   struct netlink_ext_ack *extack)
{
	struct dlb_dev *d = dlb_of(devlink);

	if (netns_change) {
		NL_SET_ERR_MSG_MOD(extack, "Namespace change is not supported");
		return -EOPNOTSUPP;
	}
	d->reload_done = 0;
	return dlb_op_run(d, DLHAL_BRIDGE_REQ_RELOAD, 0, action | limit << 8, extack);
}

static int dlb_reload_up(struct devlink *devlink, enum devlink_reload_action action,
			 enum devlink_reload_limit limit, u32 *actions_performed,
			 struct netlink_ext_ack *extack)
{
	*actions_performed = dlb_of(devlink)->reload_done;
	return 0;
}

/*
 * What the instance reports of itself, as its process said. Up to 6.1 a
 * driver puts its own name, and one without info answers -EOPNOTSUPP; from
 * 6.2 on the core puts the bound driver's name before this runs.
 */
static int dlb_info_get(struct devlink *devlink, struct devlink_info_req *req,
			struct netlink_ext_ack *extack)
{
	const struct dlhal_bridge_info *in = dlb_of(devlink)->info;
	const struct dlhal_bridge_version *v;
	int err = 0;
	u32 i;

	if (!in)
		return DLB_INFO_NONE;
#ifdef DLB_HAVE_DEVLINK_INFO_DRIVER_NAME_PUT
	if (in->driver[0])
		err = devlink_info_driver_name_put(req, in->driver);
#endif
	if (!err && in->serial[0])
		err = devlink_info_serial_number_put(req, in->serial);
	if (!err && in->board_serial[0])
		err = devlink_info_board_serial_number_put(req, in->board_serial);
	for (i = 0; !err && i < in->nversions; i++) {
		v = &in->versions[i];
		if (v->kind == DLHAL_BRIDGE_VERSION_FIXED)
			err = devlink_info_version_fixed_put(req, v->name, v->value);
		else if (v->kind == DLHAL_BRIDGE_VERSION_RUNNING)
			err = devlink_info_version_running_put(req, v->name, v->value);
		else
			err = devlink_info_version_stored_put(req, v->name, v->value);
	}
	return err;
}

#ifdef DLB_HAVE_DEVLINK_PORT_OPS
static const struct devlink_port_ops dlb_port_ops = {
	.port_split = dlb_port_split,
	.port_unsplit = dlb_port_unsplit,
	.port_type_set = dlb_port_type_set,
};
#endif

static const struct devlink_ops dlb_devlink_ops = {
#ifndef DLB_HAVE_DEVLINK_PORT_OPS
	.port_split = dlb_port_split,
	.port_unsplit = dlb_port_unsplit,
	.port_type_set = dlb_port_type_set,
#endif
	.reload_actions = BIT(DEVLINK_RELOAD_ACTION_DRIVER_REINIT) |
			  BIT(DEVLINK_RELOAD_ACTION_FW_ACTIVATE),
	.reload_limits = BIT(DEVLINK_RELOAD_LIMIT_NO_RESET),
	.reload_down = dlb_reload_down,
	.reload_up = dlb_reload_up,
	.info_get = dlb_info_get,
};

/* Ops of @d (all of them if @d is NULL) on @list fail at once; its notices go. */
static void ops_close(struct list_head *list, struct dlb_dev *d)
{
	struct dlb_op *op, *tmp;

	list_for_each_entry_safe(op, tmp, list, node) {
		if (d && op->d != d)
			continue;
		list_del(&op->node);
		if (op->notice) {
			kfree(op);
			continue;
		}
		op->closed = true;
		complete(&op->done);
	}
}

/*
 * Its waiting ops fail first (devlink_unregister() waits for every op that
 * holds the instance), then it goes; the name is free for another file only
 * once its sysfs directory is gone.
 */
static void dev_del(struct dlb_file *f, struct dlb_dev *d)
{
	struct dlb_port *p, *tmp;

	spin_lock(&f->req_lock);
	d->dying = true;
	ops_close(&f->reqs, d);
	ops_close(&f->inflight, d);
	spin_unlock(&f->req_lock);
	if (d->published)
		devlink_unregister(d->devlink);
	devl_lock(d->devlink);
	list_for_each_entry_safe(p, tmp, &d->ports, node)
		port_del(d, p);
	devl_unlock(d->devlink);
	devlink_free(d->devlink);
	list_del(&d->node);
	f->ndevs--;
	mutex_lock(&dlb_names_lock);
	device_unregister(&d->dev);
	mutex_unlock(&dlb_names_lock);
}

static int dev_register(struct dlb_file *f, const struct dlhal_bridge_dev *m)
{
	struct dlb_dev *d;
	int err;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	INIT_LIST_HEAD(&d->ports);
	d->dev.bus = &dlb_bus;
	d->dev.parent = dlb_root;
	d->dev.release = dlb_dev_release;
	err = dev_set_name(&d->dev, "%s", m->name);
	if (err) {
		kfree(d);
		return err;
	}
	err = device_register(&d->dev);
	if (err) {
		put_device(&d->dev);
		return err;
	}
	d->f = f;
	d->devlink = devlink_alloc(&dlb_devlink_ops, sizeof(d), &d->dev);
	if (!d->devlink) {
		device_unregister(&d->dev);
		return -ENOMEM;
	}
	*(struct dlb_dev **)devlink_priv(d->devlink) = d;
	dlb_devlink_reload_enable(d->devlink);
	list_add_tail(&d->node, &f->devs);
	f->ndevs++;
	return 0;
}

static int dev_add(struct dlb_file *f, const struct dlhal_bridge_dev *m)
{
	struct device *other;
	int err;

	if (f->ndevs >= DLHAL_BRIDGE_DEVS_MAX)
		return -ENOSPC;
	mutex_lock(&dlb_names_lock);
	/* device_register() would warn about a duplicate sysfs name: refuse it first. */
	other = bus_find_device_by_name(&dlb_bus, NULL, m->name);
	if (other) {
		put_device(other);
		err = -EEXIST;
		goto out_unlock;
	}
	err = dev_register(f, m);
out_unlock:
	mutex_unlock(&dlb_names_lock);
	return err;
}

static int msg_dev(struct dlb_file *f, const struct dlhal_bridge_dev *m)
{
	struct dlb_dev *d;

	if (m->reserved || !dev_name_ok(m->name))
		return -EINVAL;
	d = dev_find(f, m->name);
	if (m->type == DLHAL_BRIDGE_DEV_ADD)
		return d ? -EEXIST : dev_add(f, m);
	if (!d)
		return -ENODEV;
	if (m->type == DLHAL_BRIDGE_DEV_PUBLISH) {
		if (d->published)
			return -EALREADY;
		/* with its ports: userspace sees it complete, or not at all */
		devlink_register(d->devlink);
		d->published = true;
		return 0;
	}
	dev_del(f, d);
	return 0;
}

/*
 * The process is about to take @d's lock to change it. An op of @d holds that
 * lock while it waits for this process: the process answers it first, so the
 * change is refused, retryably. Otherwise an op that comes while the change
 * waits for the lock is refused (-EBUSY) until writing_end().
 */
static int writing_begin(struct dlb_file *f, struct dlb_dev *d)
{
	spin_lock(&f->req_lock);
	if (d->op_busy) {
		spin_unlock(&f->req_lock);
		return -EBUSY;
	}
	d->writing = true;
	spin_unlock(&f->req_lock);
	return 0;
}

static void writing_end(struct dlb_file *f, struct dlb_dev *d)
{
	spin_lock(&f->req_lock);
	d->writing = false;
	spin_unlock(&f->req_lock);
}

/*
 * @m->dev is nested in @m->parent, both this file's: set before the nested
 * one is published (the kernel takes it only then), and once (a second
 * would replace the kernel's record of the first).
 */
static int msg_nest(struct dlb_file *f, const struct dlhal_bridge_nest *m)
{
	struct dlb_dev *d, *parent;
	int err;

	if (m->reserved || !dev_name_ok(m->dev) || !dev_name_ok(m->parent))
		return -EINVAL;
	d = dev_find(f, m->dev);
	parent = dev_find(f, m->parent);
	if (!d || !parent)
		return -ENODEV;
	if (d == parent)
		return -EINVAL;
	if (d->published || d->nested)
		return -EALREADY;
	/* as msg_port(): an op of the parent holds its lock while it waits for this process */
	err = writing_begin(f, parent);
	if (err)
		return err;
	devl_lock(parent->devlink);
	err = dlb_devl_nested_devlink_set(parent->devlink, d->devlink);
	devl_unlock(parent->devlink);
	writing_end(f, parent);
	if (!err)
		d->nested = true;
	return err;
}

static int msg_port(struct dlb_file *f, const struct dlhal_bridge_port *m)
{
	struct dlb_port *p;
	struct dlb_dev *d;
	int err;

	err = port_msg_check(m);
	if (err)
		return err;
	d = dev_find(f, m->dev);
	if (!d)
		return -ENODEV;
	err = writing_begin(f, d);
	if (err)
		return err;
	devl_lock(d->devlink);
	p = port_find(d, m->index);
	if (m->type == DLHAL_BRIDGE_PORT_DEL) {
		err = p ? 0 : -ENODEV;
		if (p)
			port_del(d, p);
	} else if (p && is_retype(p, m)) {
		err = port_type_apply(d, p, m);
	} else {
		err = port_add(d, m);
	}
	devl_unlock(d->devlink);
	writing_end(f, d);
	return err;
}

/* The answer to an op: checked whole, then handed to the op's caller, which applies it. */
static int msg_reply(struct dlb_file *f, const char __user *buf, size_t len)
{
	struct dlhal_bridge_port *changes = NULL;
	struct dlhal_bridge_reply r;
	struct dlb_op *op, *found = NULL;
	u32 i;
	int err;

	if (len < sizeof(r) || copy_from_user(&r, buf, sizeof(r)))
		return len < sizeof(r) ? -EINVAL : -EFAULT;
	/* an errno a caller can get: netlink answers no -EINTR, and no kernel-internal one */
	if (r.type != DLHAL_BRIDGE_REPLY || r.err > 0 || r.err < -EHWPOISON || r.err == -EINTR ||
	    r.nchanges > DLHAL_BRIDGE_CHANGES_MAX || (r.err && r.nchanges) ||
	    strnlen(r.msg, sizeof(r.msg)) == sizeof(r.msg) ||
	    len != sizeof(r) + r.nchanges * sizeof(*changes))
		return -EINVAL;
	if (r.nchanges) {
		changes = memdup_user(buf + sizeof(r), r.nchanges * sizeof(*changes));
		if (IS_ERR(changes))
			return PTR_ERR(changes);
	}
	for (i = 0; i < r.nchanges; i++) {
		err = port_msg_check(&changes[i]);
		if (err)
			goto err_free;
	}
	spin_lock(&f->req_lock);
	list_for_each_entry(op, &f->inflight, node) {
		if (op->req.seq == r.seq) {
			found = op;
			break;
		}
	}
	err = found ? 0 : -ESRCH;
	for (i = 0; found && i < r.nchanges && !err; i++)
		if (strcmp(changes[i].dev, found->req.dev))
			err = -EINVAL;
	if (err) {
		spin_unlock(&f->req_lock);
		goto err_free;
	}
	/* A reload's actions: valid ones, the one asked for among them (else devlink warns). */
	if (!err && !r.err &&
	    (found->req.type == DLHAL_BRIDGE_REQ_RELOAD
		     ? r.nchanges || r.performed & ~(BIT(DEVLINK_RELOAD_ACTION_DRIVER_REINIT) |
						     BIT(DEVLINK_RELOAD_ACTION_FW_ACTIVATE)) ||
		       !(r.performed & BIT(found->req.arg & 0xff))
		     : r.performed))
		err = -EINVAL;
	if (err) {
		spin_unlock(&f->req_lock);
		goto err_free;
	}
	found->err = r.err;
	found->performed = r.performed;
	memcpy(found->msg, r.msg, sizeof(found->msg));
	found->changes = changes;
	found->nchanges = r.nchanges;
	found->answered = true;
	list_del(&found->node);
	complete(&found->done);
	spin_unlock(&f->req_lock);
	return 0;

err_free:
	kfree(changes);
	return err;
}

/* Printable ASCII in a NUL-terminated field; empty allowed if @empty, blanks if @blank. */
static bool text_ok(const char *s, size_t size, bool empty, bool blank)
{
	size_t len = strnlen(s, size), i;

	if (len == size || (!len && !empty))
		return false;
	for (i = 0; i < len; i++)
		if (s[i] < (blank ? ' ' : '!') || s[i] > '~')
			return false;
	return true;
}

/* A Linux driver name: [a-z0-9._-] (an auxiliary driver's has a dot), empty for none. */
static bool driver_name_ok(const char *s)
{
	size_t len = strnlen(s, DLHAL_BRIDGE_DRIVER_MAX), i;

	if (len == DLHAL_BRIDGE_DRIVER_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
		      s[i] == '_' || s[i] == '-' || s[i] == '.'))
			return false;
	return true;
}

static int info_check(const struct dlhal_bridge_info *in)
{
	u32 i;

	if (in->nversions > DLHAL_BRIDGE_VERSIONS_MAX || !dev_name_ok(in->dev) ||
	    !driver_name_ok(in->driver) ||
	    !text_ok(in->serial, sizeof(in->serial), true, true) ||
	    !text_ok(in->board_serial, sizeof(in->board_serial), true, true))
		return -EINVAL;
	for (i = 0; i < in->nversions; i++)
		if (in->versions[i].kind > DLHAL_BRIDGE_VERSION_STORED ||
		    !text_ok(in->versions[i].name, DLHAL_BRIDGE_VNAME_MAX, false, false) ||
		    !text_ok(in->versions[i].value, DLHAL_BRIDGE_VVALUE_MAX, false, true))
			return -EINVAL;
	return 0;
}

/* The driver named @name, registered on first use (under dlb_drivers_lock). */
static struct dlb_driver *driver_get(const char *name)
{
	struct dlb_driver *dd;
	int i, err;

	for (i = 0; i < DLB_DRIVERS_MAX && dlb_drivers[i]; i++)
		if (!strcmp(dlb_drivers[i]->name, name))
			return dlb_drivers[i];
	if (i == DLB_DRIVERS_MAX)
		return ERR_PTR(-ENOSPC);
	dd = kzalloc(sizeof(*dd), GFP_KERNEL);
	if (!dd)
		return ERR_PTR(-ENOMEM);
	strscpy(dd->name, name, sizeof(dd->name));
	dd->drv.name = dd->name;
	dd->drv.bus = &dlb_bus;
	dd->drv.owner = THIS_MODULE;
	/* bound and unbound by this module alone */
	dd->drv.suppress_bind_attrs = true;
	err = driver_register(&dd->drv);
	if (err) {
		kfree(dd);
		return ERR_PTR(err);
	}
	dlb_drivers[i] = dd;
	return dd;
}

/* Bind @d to the driver named @name ("" for none). */
static int dev_bind(struct dlb_dev *d, const char *name)
{
	struct dlb_driver *dd = NULL;
	int err = 0;

	mutex_lock(&dlb_drivers_lock);
	if (name[0]) {
		dd = driver_get(name);
		if (IS_ERR(dd)) {
			err = PTR_ERR(dd);
			goto out_unlock;
		}
	}
	if (dd && d->dev.driver == &dd->drv)
		goto out_unlock;
	if (d->dev.driver)
		device_release_driver(&d->dev);
	WRITE_ONCE(d->want, dd ? dd->name : NULL);
	if (dd) {
		err = device_attach(&d->dev);
		err = err == 1 ? 0 : err ? err : -ENODEV;
	}
out_unlock:
	mutex_unlock(&dlb_drivers_lock);
	return err;
}

static int msg_info(struct dlb_file *f, const char __user *buf, size_t len)
{
	struct dlhal_bridge_info *in;
	struct dlb_dev *d;
	int err;

	if (len != sizeof(*in))
		return -EINVAL;
	in = memdup_user(buf, len);
	if (IS_ERR(in))
		return PTR_ERR(in);
	err = info_check(in);
	/* a bind carries a driver name and nothing else */
	if (!err && in->type == DLHAL_BRIDGE_DEV_BIND &&
	    (in->nversions || in->serial[0] || in->board_serial[0] || !in->driver[0]))
		err = -EINVAL;
	else if (!err && in->type != DLHAL_BRIDGE_DEV_INFO && in->type != DLHAL_BRIDGE_DEV_BIND)
		err = -EINVAL;
	if (err)
		goto out_free;
	mutex_lock(&f->lock);
	d = dev_find(f, in->dev);
	err = !d ? -ENODEV : d->published ? -EALREADY : dev_bind(d, in->driver);
	if (!err) {
		kfree(d->info);
		d->info = NULL;
		/* kept: what info_get reports; a bind keeps nothing */
		if (in->type == DLHAL_BRIDGE_DEV_INFO)
			swap(d->info, in);
	}
	mutex_unlock(&f->lock);
out_free:
	kfree(in);
	return err;
}

static ssize_t dlb_write(struct file *file, const char __user *buf, size_t len, loff_t *ppos)
{
	struct dlb_file *f = file->private_data;
	union {
		struct dlhal_bridge_dev dev;
		struct dlhal_bridge_port port;
		struct dlhal_bridge_nest nest;
	} m;
	size_t want;
	u32 type;
	int err;

	if (len < sizeof(type))
		return -EINVAL;
	if (copy_from_user(&type, buf, sizeof(type)))
		return -EFAULT;
	switch (type) {
	case DLHAL_BRIDGE_DEV_ADD:
	case DLHAL_BRIDGE_DEV_DEL:
	case DLHAL_BRIDGE_DEV_PUBLISH:
		want = sizeof(m.dev);
		break;
	case DLHAL_BRIDGE_PORT_ADD:
	case DLHAL_BRIDGE_PORT_DEL:
		want = sizeof(m.port);
		break;
	case DLHAL_BRIDGE_DEV_NEST:
		want = sizeof(m.nest);
		break;
	case DLHAL_BRIDGE_REPLY:
		err = msg_reply(f, buf, len);
		return err ? err : len;
	case DLHAL_BRIDGE_DEV_INFO:
	case DLHAL_BRIDGE_DEV_BIND:
		err = msg_info(f, buf, len);
		return err ? err : len;
	default:
		return -EINVAL;
	}
	if (len != want)
		return -EINVAL;
	if (copy_from_user(&m, buf, want))
		return -EFAULT;
	/* The type again from the copy: the buffer may have changed in between. */
	if (m.dev.type != type)
		return -EINVAL;
	mutex_lock(&f->lock);
	if (type == DLHAL_BRIDGE_DEV_ADD || type == DLHAL_BRIDGE_DEV_DEL ||
	    type == DLHAL_BRIDGE_DEV_PUBLISH)
		err = msg_dev(f, &m.dev);
	else if (type == DLHAL_BRIDGE_DEV_NEST)
		err = msg_nest(f, &m.nest);
	else
		err = msg_port(f, &m.port);
	mutex_unlock(&f->lock);
	return err ? err : len;
}

/* One request a read; an op read and not answered waits in inflight. */
static ssize_t dlb_read(struct file *file, char __user *buf, size_t len, loff_t *ppos)
{
	struct dlb_file *f = file->private_data;
	struct dlhal_bridge_req req;
	struct dlb_op *op;

	if (len < sizeof(req))
		return -EINVAL;
	spin_lock(&f->req_lock);
	while (list_empty(&f->reqs)) {
		spin_unlock(&f->req_lock);
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(f->wq, !list_empty(&f->reqs)))
			return -ERESTARTSYS;
		spin_lock(&f->req_lock);
	}
	op = list_first_entry(&f->reqs, struct dlb_op, node);
	req = op->req;
	if (op->notice) {
		list_del(&op->node);
		kfree(op);
	} else {
		list_move_tail(&op->node, &f->inflight);
	}
	spin_unlock(&f->req_lock);
	if (copy_to_user(buf, &req, sizeof(req)))
		return -EFAULT;
	return sizeof(req);
}

static __poll_t dlb_poll(struct file *file, struct poll_table_struct *wait)
{
	struct dlb_file *f = file->private_data;
	__poll_t mask = EPOLLOUT | EPOLLWRNORM;

	poll_wait(file, &f->wq, wait);
	spin_lock(&f->req_lock);
	if (!list_empty(&f->reqs))
		mask |= EPOLLIN | EPOLLRDNORM;
	spin_unlock(&f->req_lock);
	return mask;
}

static int dlb_open(struct inode *inode, struct file *file)
{
	struct dlb_file *f;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	mutex_init(&f->lock);
	INIT_LIST_HEAD(&f->devs);
	spin_lock_init(&f->req_lock);
	INIT_LIST_HEAD(&f->reqs);
	INIT_LIST_HEAD(&f->inflight);
	init_waitqueue_head(&f->wq);
	file->private_data = f;
	return nonseekable_open(inode, file);
}

/* Ops waiting on this file fail at once; then its instances go. */
static int dlb_release(struct inode *inode, struct file *file)
{
	struct dlb_file *f = file->private_data;
	struct dlb_dev *d, *tmp;

	spin_lock(&f->req_lock);
	f->closing = true;
	ops_close(&f->reqs, NULL);
	ops_close(&f->inflight, NULL);
	spin_unlock(&f->req_lock);
	mutex_lock(&f->lock);
	list_for_each_entry_safe(d, tmp, &f->devs, node)
		dev_del(f, d);
	mutex_unlock(&f->lock);
	mutex_destroy(&f->lock);
	kfree(f);
	return 0;
}

static const struct file_operations dlb_fops = {
	.owner = THIS_MODULE,
	.open = dlb_open,
	.release = dlb_release,
	.read = dlb_read,
	.write = dlb_write,
	.poll = dlb_poll,
#ifdef DLB_HAVE_NO_LLSEEK
	.llseek = no_llseek,
#endif
};

static struct miscdevice dlb_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = DRV_NAME,
	.fops = &dlb_fops,
	.mode = 0600,
};

static int __init dlb_init(void)
{
	int err;

	dlb_root = root_device_register(DRV_NAME);
	if (IS_ERR(dlb_root))
		return PTR_ERR(dlb_root);
	err = bus_register(&dlb_bus);
	if (err)
		goto err_root_unregister;
	err = misc_register(&dlb_misc);
	if (err)
		goto err_bus_unregister;
	return 0;

err_bus_unregister:
	bus_unregister(&dlb_bus);
err_root_unregister:
	root_device_unregister(dlb_root);
	return err;
}

static void __exit dlb_exit(void)
{
	struct dlb_msg *m, *tmp;
	int i;

	misc_deregister(&dlb_misc);
	for (i = 0; i < DLB_DRIVERS_MAX && dlb_drivers[i]; i++) {
		driver_unregister(&dlb_drivers[i]->drv);
		kfree(dlb_drivers[i]);
	}
	bus_unregister(&dlb_bus);
	root_device_unregister(dlb_root);
	list_for_each_entry_safe(m, tmp, &dlb_msgs, node)
		kfree(m);
}

module_init(dlb_init);
module_exit(dlb_exit);
MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("dlhal: userspace drivers' devices in the devlink family");
