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
#include <linux/ctype.h>
#include <linux/device.h>
#include <linux/etherdevice.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <net/devlink.h>

#include <dlhal/bridge.h>

#define DRV_NAME "dlhal"

struct dlb_file {
	struct mutex lock; /* devs, and every instance of this file */
	struct list_head devs;
	unsigned int ndevs;
};

struct dlb_dev {
	struct list_head node;
	struct device dev;
	struct devlink *devlink;
	struct list_head ports;
	unsigned int nports;
	bool registered;
};

struct dlb_port {
	struct list_head node;
	struct devlink_port dl;
	struct net_device *netdev;
	u32 index;
};

struct dlb_netdev {
	struct dlb_port *port;
};

/* Names are unique on the bus across files: checked and taken under this lock. */
static DEFINE_MUTEX(dlb_names_lock);

static struct bus_type dlb_bus = {
	.name = DRV_NAME,
	.dev_name = DRV_NAME,
};

static const struct devlink_ops dlb_devlink_ops = {
};

static netdev_tx_t dlb_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	dev_kfree_skb(skb);
	dev->stats.tx_dropped++;
	return NETDEV_TX_OK;
}

static struct devlink_port *dlb_get_devlink_port(struct net_device *dev)
{
	struct dlb_netdev *nd = netdev_priv(dev);

	return &nd->port->dl;
}

static const struct net_device_ops dlb_netdev_ops = {
	.ndo_start_xmit = dlb_start_xmit,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
	.ndo_get_devlink_port = dlb_get_devlink_port,
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

static bool dev_name_ok(const char *s)
{
	if (!field_str(s, DLHAL_BRIDGE_NAME_MAX))
		return false;
	for (; *s; s++)
		if (!isalnum(*s) && *s != ':' && *s != '.' && *s != '_' && *s != '-')
			return false;
	return true;
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
	kfree(container_of(dev, struct dlb_dev, dev));
}

/* Under devl_lock: the netdev first, as its devlink port must outlive it. */
static void port_del(struct dlb_dev *d, struct dlb_port *p)
{
	if (p->netdev) {
		devlink_port_type_clear(&p->dl);
		unregister_netdev(p->netdev);
		free_netdev(p->netdev);
	}
	devl_port_unregister(&p->dl);
	list_del(&p->node);
	d->nports--;
	kfree(p);
}

static int port_add(struct dlb_dev *d, const struct dlhal_bridge_port *m)
{
	struct devlink_port_attrs attrs = {};
	struct dlb_netdev *nd;
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
	attrs.flavour = DEVLINK_PORT_FLAVOUR_PHYSICAL;
	attrs.phys.port_number = m->number;
	attrs.phys.split_subport_number = m->subport;
	attrs.split = m->split;
	attrs.splittable = m->splittable;
	attrs.lanes = m->lanes;
	devlink_port_attrs_set(&p->dl, &attrs);
	err = devl_port_register(d->devlink, &p->dl, m->index);
	if (err)
		goto err_free;
	if (m->port_type == DLHAL_BRIDGE_PORT_ETH) {
		p->netdev = alloc_netdev(sizeof(*nd), m->netdev, NET_NAME_USER, dlb_netdev_setup);
		if (!p->netdev) {
			err = -ENOMEM;
			goto err_port_unregister;
		}
		nd = netdev_priv(p->netdev);
		nd->port = p;
		SET_NETDEV_DEV(p->netdev, &d->dev);
		err = register_netdev(p->netdev);
		if (err)
			goto err_free_netdev;
		devlink_port_type_eth_set(&p->dl, p->netdev);
	} else if (m->port_type == DLHAL_BRIDGE_PORT_IB) {
		devlink_port_type_ib_set(&p->dl, NULL);
	}
	list_add_tail(&p->node, &d->ports);
	d->nports++;
	return 0;

err_free_netdev:
	free_netdev(p->netdev);
err_port_unregister:
	devl_port_unregister(&p->dl);
err_free:
	kfree(p);
	return err;
}

static void dev_del(struct dlb_file *f, struct dlb_dev *d)
{
	struct dlb_port *p, *tmp;

	devlink_unregister(d->devlink);
	devl_lock(d->devlink);
	list_for_each_entry_safe(p, tmp, &d->ports, node)
		port_del(d, p);
	devl_unlock(d->devlink);
	devlink_free(d->devlink);
	list_del(&d->node);
	f->ndevs--;
	device_unregister(&d->dev);
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
	d->devlink = devlink_alloc(&dlb_devlink_ops, 0, &d->dev);
	if (!d->devlink) {
		device_unregister(&d->dev);
		return -ENOMEM;
	}
	devlink_register(d->devlink);
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
	dev_del(f, d);
	return 0;
}

static int msg_port(struct dlb_file *f, const struct dlhal_bridge_port *m)
{
	struct dlb_port *p;
	struct dlb_dev *d;
	int err;

	if (!dev_name_ok(m->dev))
		return -EINVAL;
	if (m->type == DLHAL_BRIDGE_PORT_ADD) {
		if (m->reserved || m->split > 1 || m->splittable > 1 ||
		    m->lanes > DLHAL_BRIDGE_LANES_MAX ||
		    (m->splittable && (m->split || m->lanes < 2)))
			return -EINVAL;
		switch (m->port_type) {
		case DLHAL_BRIDGE_PORT_ETH:
			if (!field_str(m->netdev, sizeof(m->netdev)) ||
			    !dev_valid_name(m->netdev) || strchr(m->netdev, '%'))
				return -EINVAL;
			break;
		case DLHAL_BRIDGE_PORT_NOTSET:
		case DLHAL_BRIDGE_PORT_IB:
			if (m->netdev[0])
				return -EINVAL;
			break;
		default:
			return -EINVAL;
		}
	}
	d = dev_find(f, m->dev);
	if (!d)
		return -ENODEV;
	devl_lock(d->devlink);
	if (m->type == DLHAL_BRIDGE_PORT_ADD) {
		err = port_add(d, m);
	} else {
		p = port_find(d, m->index);
		err = p ? 0 : -ENODEV;
		if (p)
			port_del(d, p);
	}
	devl_unlock(d->devlink);
	return err;
}

static ssize_t dlb_write(struct file *file, const char __user *buf, size_t len, loff_t *ppos)
{
	struct dlb_file *f = file->private_data;
	union {
		struct dlhal_bridge_dev dev;
		struct dlhal_bridge_port port;
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
		want = sizeof(m.dev);
		break;
	case DLHAL_BRIDGE_PORT_ADD:
	case DLHAL_BRIDGE_PORT_DEL:
		want = sizeof(m.port);
		break;
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
	if (type == DLHAL_BRIDGE_DEV_ADD || type == DLHAL_BRIDGE_DEV_DEL)
		err = msg_dev(f, &m.dev);
	else
		err = msg_port(f, &m.port);
	mutex_unlock(&f->lock);
	return err ? err : len;
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
	file->private_data = f;
	return nonseekable_open(inode, file);
}

static int dlb_release(struct inode *inode, struct file *file)
{
	struct dlb_file *f = file->private_data;
	struct dlb_dev *d, *tmp;

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
	.write = dlb_write,
	.llseek = no_llseek,
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

	err = bus_register(&dlb_bus);
	if (err)
		return err;
	err = misc_register(&dlb_misc);
	if (err)
		goto err_bus_unregister;
	return 0;

err_bus_unregister:
	bus_unregister(&dlb_bus);
	return err;
}

static void __exit dlb_exit(void)
{
	misc_deregister(&dlb_misc);
	bus_unregister(&dlb_bus);
}

module_init(dlb_init);
module_exit(dlb_exit);
MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("dlhal: userspace drivers' devices in the devlink family");
