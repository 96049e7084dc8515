/* SPDX-License-Identifier: MIT */
/*
 * The devlink family as dlhal reads it, at both ends: one rule per attribute,
 * in one table indexed by the attribute's id (its slot), as the kernel's
 * devlink_nl_policy is. dlhald takes a request's attributes with it
 * (DLH__IN_REQUEST, strictly: any other is refused), the client takes a
 * reply's or a notification's (DLH__IN_REPLY: others are skipped, as a newer
 * kernel's). A parse fills tb[] by slot: tb[DLH__SLOT(DEVLINK_ATTR_BUS_NAME)].
 */
#ifndef DLHAL_POLICY_H
#define DLHAL_POLICY_H

#include "nlattr.h"

#include <dlhal/protocol.h>
#include <linux/devlink.h>

/* devlink's attributes by their id; dlhal's extensions (from DLHAL_ATTR_SIM_KEY) after them. */
#define DLH__SLOT(id)                                                                                           \
	((int)(id) >= (int)DLHAL_ATTR_SIM_KEY ? (int)DEVLINK_ATTR_MAX + 1 + (int)(id) - (int)DLHAL_ATTR_SIM_KEY \
					      : (int)(id))
#define DLH__SLOTS DLH__SLOT(DLHAL_ATTR_END_)

/* Where an attribute is taken. */
enum dlh__attr_in {
	DLH__IN_REQUEST = 1, /* in a client's request, by dlhald */
	DLH__IN_REPLY = 2,   /* in a reply or notification (or nested in one), by the client */
};

/* The slot of attribute @type; 0 (no attribute is 0) for one the family does not define. */
unsigned int dlh__slot_of(uint16_t type);

/*
 * Walks the attributes at @head (@len bytes) into @tb by slot (the last of a
 * type, as the kernel keeps it), each one the table takes @in checked
 * against its rule. With @strict, any other attribute, or trailing bytes,
 * is an error. Returns 0, or -EINVAL with @why naming the attribute.
 */
int dlh__policy_parse(const struct nlattr *head, int len, enum dlh__attr_in in, struct nlattr *tb[DLH__SLOTS],
		      bool strict, char *why, size_t whylen);

#endif
