/* SPDX-License-Identifier: MIT */
/*
 * A vendor's rules and the devices they serve: a driver's own (facts given
 * before probe) and a kernel device that Linux's driver for the same hardware
 * runs (recognised by the host from what the device reports, facts from the
 * profile that stands for it). Plans then come from the rules either way.
 */
#include "core.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int (*dlh__recognise_hook)(struct dlh_dev *dev, struct dlh_extack *ext);

DLH_EXPORT void *dlh_sdk_dev_facts(const struct dlh_dev *dev)
{
	return dev->facts;
}

static int basis_set(struct dlh_dev *dev, const char *fmt, const char *a, const char *b)
{
	size_t n = strlen(fmt) + strlen(a) + strlen(b) + 1;
	char *s = malloc(n);

	if (!s)
		return -ENOMEM;
	snprintf(s, n, fmt, a, b);
	free(dev->basis);
	dev->basis = s;
	return 0;
}

static int facts_alloc(struct dlh_dev *dev, const struct dlh_sdk_rules *rules, struct dlh_extack *ext)
{
	dev->facts = calloc(1, rules->facts_size ? rules->facts_size : 1);
	return dev->facts ? 0 : dlh__extack_set(ext, -ENOMEM, dev->handle, "Out of memory");
}

/* A driver's own device: its rules, with facts for probe to fill. */
int dlh__dev_rules_own(struct dlh_dev *dev, struct dlh_extack *ext)
{
	const struct dlh_sdk_rules *rules = dev->drv->rules;
	int err;

	if (!rules || DLH__RELAY(dev->drv))
		return 0;
	err = facts_alloc(dev, rules, ext);
	if (err)
		return err;
	if (basis_set(dev, "%s rules%s", dev->drv->name, "")) {
		dlh__dev_rules_free(dev);
		return dlh__extack_set(ext, -ENOMEM, dev->handle, "Out of memory");
	}
	dev->rules = rules;
	dev->rules_drv = dev->drv;
	return 0;
}

void dlh__dev_rules_free(struct dlh_dev *dev)
{
	free(dev->facts);
	free(dev->basis);
	dev->facts = NULL;
	dev->basis = NULL;
	dev->rules = NULL;
	dev->rules_drv = NULL;
}

/*
 * Recognition is lazy, as the driver name is: asked once, outside a fill or
 * an op, for a relay that cannot plan itself (the kernel); a relay that is
 * busy now is asked again next time.
 */
void dlh__dev_rules(struct dlh_dev *dev)
{
	struct dlh_extack ext;
	int err;

	if (dev->rules || dev->rules_asked || !DLH__RELAY(dev->drv) || DLH__OP(dev->drv, port_split_plan) ||
	    !dlh__recognise_hook || dev->ctx->filling || dev->ctx->op.name)
		return;
	dev->rules_asked = true;
	dlh__extack_clear(&ext);
	err = dlh__recognise_hook(dev, &ext);
	if (err == -EBUSY) {
		dev->rules_asked = false;
		return;
	}
	if (err && err != -ENODEV)
		dlh__log(dev->ctx, DLH_LOG_WARNING, dev, "not recognised: %s", ext.msg);
}

void dlh__dev_rules_missing(struct dlh_dev *dev, const char *why)
{
	if (!dev->rules)
		basis_set(dev, "%s%s", why, "");
}

void dlh__port_attrs_fill(const struct dlh_dev *dev, uint32_t index, struct dlh_sdk_port_attrs *attrs)
{
	if (dev->rules && dev->rules->port_attrs_fill && DLH__RELAY(dev->drv))
		dev->rules->port_attrs_fill(dev, index, attrs);
}

/* A kernel device recognised as one @drv's rules know, with the facts of @profile's hw. */
int dlh__dev_rules_attach(struct dlh_dev *dev, const struct dlh_sdk_driver *drv, const char *config,
			  const char *profile, struct dlh_extack *ext)
{
	const struct dlh_sdk_rules *rules = drv->rules;
	int err;

	if (!rules || !rules->attach)
		return dlh__extack_set(ext, -EOPNOTSUPP, dev->handle, "Driver %s has no rules for a kernel device",
				       drv->name);
	err = facts_alloc(dev, rules, ext);
	if (err)
		return err;
	err = rules->attach(dev, config, ext);
	if (err > 0)
		err = -EIO;
	if (err) {
		char why[DLH_EXTACK_MSG_MAX + 96];

		snprintf(why, sizeof(why), "%s rules, profile %s, do not fit: %s", drv->name, profile,
			 ext && ext->msg[0] ? ext->msg : strerror(-err));
		dlh__dev_rules_free(dev);
		dlh__dev_rules_missing(dev, why);
		dlh__extack_set(ext, err, dev->handle, "%s", why);
		return err;
	}
	if (basis_set(dev, "%s rules, profile %s", drv->name, profile)) {
		dlh__dev_rules_free(dev);
		return dlh__extack_set(ext, -ENOMEM, dev->handle, "Out of memory");
	}
	dev->rules = rules;
	dev->rules_drv = drv;
	/* What the kernel reported, completed as the vendor's own device would have it. */
	for (struct dlh__list *n = dev->ports.next; n != &dev->ports; n = n->next) {
		struct dlh_port *p = dlh__container_of(n, struct dlh_port, node);
		struct dlh_sdk_port_attrs attrs = p->attrs;

		dlh__port_attrs_fill(dev, p->index, &attrs);
		dlh_sdk_port_attrs_set(p, &attrs);
	}
	return 0;
}

DLH_EXPORT const char *dlh_dev_rules(const struct dlh_dev *dev, bool *exact)
{
	dlh__dev_rules((struct dlh_dev *)dev);
	if (exact)
		*exact = dev->rules != NULL;
	return dev->basis;
}
