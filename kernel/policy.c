/* SPDX-License-Identifier: MIT */
/* The devlink family's one attribute table (policy.h), and a parse by it. */
#include "policy.h"

#include <dlhal/dlhal.h>
#include <stdio.h>
#include <string.h>

struct policy {
	struct dlh__attr_rule rule;
	uint8_t in; /* enum dlh__attr_in bits */
};

#define RQ DLH__IN_REQUEST
#define RP DLH__IN_REPLY

static const struct policy policy[DLH__SLOTS] = {
#define DLH_X(id, kind, max, name, where) [DLH__SLOT_##id] = {{(id), DLH__ATTR_##kind, (max), (name)}, (where)},
    DLH__POLICY_MAP(DLH_X)
#undef DLH_X
};

/* Slots by id: devlink's ids from 0, dlhal's from DLHAL_ATTR_SIM_KEY. */
static const uint8_t devlink_slots[DEVLINK_ATTR_MAX + 1] = {
#define DLH_X(id, kind, max, name, where) [id] = DLH__SLOT_##id,
    DLH__POLICY_DEVLINK(DLH_X)
#undef DLH_X
};
static const uint8_t dlhal_slots[DLHAL_ATTR_END_ - DLHAL_ATTR_SIM_KEY] = {
#define DLH_X(id, kind, max, name, where) [(id)-DLHAL_ATTR_SIM_KEY] = DLH__SLOT_##id,
    DLH__POLICY_DLHAL(DLH_X)
#undef DLH_X
};

_Static_assert(DLH__SLOTS <= UINT8_MAX, "a slot is a byte");

unsigned int dlh__slot_of(uint16_t type)
{
	if (type <= DEVLINK_ATTR_MAX)
		return devlink_slots[type];
	if (type >= DLHAL_ATTR_SIM_KEY && type < DLHAL_ATTR_END_)
		return dlhal_slots[type - DLHAL_ATTR_SIM_KEY];
	return DLH__SLOT_NONE;
}

struct slots {
	enum dlh__attr_in in;
	struct nlattr **tb;
};

static inline const struct dlh__attr_rule *slot_lookup(uint16_t type, void *arg, struct nlattr ***at)
{
	struct slots *s = arg;
	unsigned int slot = dlh__slot_of(type);

	if (!slot || !(policy[slot].in & s->in))
		return NULL;
	*at = &s->tb[slot];
	return &policy[slot].rule;
}

int dlh__policy_parse(const struct nlattr *head, int len, enum dlh__attr_in in, struct nlattr *tb[DLH__SLOTS],
		      bool strict, char *why, size_t whylen)
{
	struct slots s = {in, tb};

	memset(tb, 0, DLH__SLOTS * sizeof(*tb));
	return dlh__attrs_walk_inline(head, len, slot_lookup, &s, strict, why, whylen);
}
