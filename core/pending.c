/* SPDX-License-Identifier: MIT */
/*
 * What devices and ports have pending until their next reset: the changes a
 * staged driver stored in its hardware (ops.staged), reported by the driver
 * and kept here, so that every client sees them as they see the ports.
 */
#include "core.h"

#include <stdlib.h>
#include <string.h>

bool dlh__pending_set(struct dlh_pending **slot, const struct dlh_pending *p)
{
	struct dlh_pending v = {0};

	if (p) {
		v.split = p->split;
		v.type = dlh__port_type_valid(p->type) ? p->type : DLH_PORT_TYPE_NOTSET;
		/* A driver's buffer is not trusted to be terminated. */
		memcpy(v.message, p->message, strnlen(p->message, sizeof(v.message) - 1));
	}
	if (!v.split && v.type == DLH_PORT_TYPE_NOTSET) {
		if (!*slot)
			return false;
		free(*slot);
		*slot = NULL;
		return true;
	}
	if (*slot && !memcmp(*slot, &v, sizeof(v)))
		return false;
	if (!*slot) {
		*slot = malloc(sizeof(**slot));
		if (!*slot)
			return false;
	}
	**slot = v;
	return true;
}

static bool pending_get(const struct dlh_pending *slot, struct dlh_pending *out)
{
	if (out) {
		if (slot)
			*out = *slot;
		else
			memset(out, 0, sizeof(*out));
	}
	return slot != NULL;
}

DLH_EXPORT bool dlh_dev_pending(const struct dlh_dev *dev, struct dlh_pending *pending)
{
	return pending_get(dev->pending, pending);
}

DLH_EXPORT bool dlh_port_pending(const struct dlh_port *port, struct dlh_pending *pending)
{
	return pending_get(port->pending, pending);
}

/* Inside a staged op, the op has done what it must (op.c checks it at its end). */
static void note_op(struct dlh_ctx *ctx, const struct dlh_dev *dev)
{
	if (ctx->op.name && ctx->op.dev == dev)
		ctx->op.pending_set = true;
}

DLH_EXPORT void dlh_sdk_dev_pending_set(struct dlh_dev *dev, const struct dlh_pending *pending)
{
	if (pending && !dlh__port_type_valid(pending->type))
		dlh__log(dev->ctx, DLH_LOG_ERR, dev, "driver %s: pending type %d is no port type (driver bug): ignored",
			 dev->drv->name, (int)pending->type);
	note_op(dev->ctx, dev);
	if (dlh__pending_set(&dev->pending, pending))
		dlh__event_emit(dev->ctx, DLH_EVENT_DEV_CHANGE, dev, NULL);
}

DLH_EXPORT void dlh_sdk_port_pending_set(struct dlh_port *port, const struct dlh_pending *pending)
{
	if (port->life != DLH__PORT_LIVE)
		return;
	if (pending && !dlh__port_type_valid(pending->type))
		dlh__log(port->dev->ctx, DLH_LOG_ERR, port->dev,
			 "driver %s: pending type %d is no port type (driver bug): ignored", port->dev->drv->name,
			 (int)pending->type);
	note_op(port->dev->ctx, port->dev);
	if (dlh__pending_set(&port->pending, pending))
		dlh__event_emit(port->dev->ctx, DLH_EVENT_PORT_CHANGE, port->dev, port);
}
