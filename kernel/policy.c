/* SPDX-License-Identifier: MIT */
/* The devlink family's one attribute table (policy.h), and a parse by it. */
#include "policy.h"

#include <dlhal/dlhal.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

struct policy {
	struct dlh__attr_rule rule;
	uint8_t in; /* enum dlh__attr_in bits */
};

#define RQ			      DLH__IN_REQUEST
#define RP			      DLH__IN_REPLY
#define RULE(id, kind, max, name, in) [DLH__SLOT(id)] = {{(id), (kind), (max), (name)}, (in)}

static const struct policy policy[DLH__SLOTS] = {
    /* an object's names: both ends */
    RULE(DEVLINK_ATTR_BUS_NAME, DLH__ATTR_STR, DLH_BUS_NAME_MAX, "bus name", RQ | RP),
    RULE(DEVLINK_ATTR_DEV_NAME, DLH__ATTR_STR, DLH_DEV_NAME_MAX, "device name", RQ | RP),
    RULE(DEVLINK_ATTR_PORT_INDEX, DLH__ATTR_U32, 0, "port index", RQ | RP),
    RULE(DEVLINK_ATTR_PORT_NETDEV_NAME, DLH__ATTR_STR, DLH_NETDEV_NAME_MAX, "netdev name", RQ | RP),
    RULE(DEVLINK_ATTR_PORT_TYPE, DLH__ATTR_U16, 0, "port type", RQ | RP),
    /* what a request asks */
    RULE(DEVLINK_ATTR_PORT_SPLIT_COUNT, DLH__ATTR_U32, 0, "split count", RQ),
    RULE(DEVLINK_ATTR_RELOAD_ACTION, DLH__ATTR_U8, 0, "reload action", RQ),
    RULE(DEVLINK_ATTR_RELOAD_LIMITS, DLH__ATTR_BF32, 0, "reload limits", RQ),
    RULE(DLHAL_ATTR_SIM_KEY, DLH__ATTR_STR, DLHAL_SIM_KEY_MAX, "emulator key", RQ),
    RULE(DLHAL_ATTR_SIM_VALUE, DLH__ATTR_STR, DLHAL_SIM_VALUE_MAX, "emulator value", RQ | RP),
    RULE(DLHAL_ATTR_DRY_RUN, DLH__ATTR_FLAG, 0, "dry run", RQ),
    RULE(DLHAL_ATTR_PLAN_BEFORE, DLH__ATTR_RECS, 4 * sizeof(uint32_t), "changes planned before", RQ),
    /* what a device or port message says */
    RULE(DEVLINK_ATTR_PORT_DESIRED_TYPE, DLH__ATTR_U16, 0, "desired type", RP),
    RULE(DEVLINK_ATTR_PORT_IBDEV_NAME, DLH__ATTR_STR, DLH_IBDEV_NAME_MAX, "ibdev name", RP),
    RULE(DEVLINK_ATTR_PORT_FLAVOUR, DLH__ATTR_U16, 0, "flavour", RP),
    RULE(DEVLINK_ATTR_PORT_NUMBER, DLH__ATTR_U32, 0, "port number", RP),
    RULE(DEVLINK_ATTR_PORT_SPLIT_GROUP, DLH__ATTR_U32, 0, "split group", RP),
    RULE(DEVLINK_ATTR_PORT_SPLIT_SUBPORT_NUMBER, DLH__ATTR_U32, 0, "split subport", RP),
    RULE(DEVLINK_ATTR_PORT_LANES, DLH__ATTR_U32, 0, "lanes", RP),
    RULE(DEVLINK_ATTR_PORT_SPLITTABLE, DLH__ATTR_U8, 0, "splittable", RP),
    RULE(DEVLINK_ATTR_RELOAD_ACTIONS_PERFORMED, DLH__ATTR_BF32, 0, "reload actions performed", RP),
    RULE(DEVLINK_ATTR_INFO_DRIVER_NAME, DLH__ATTR_STR, DLH_DRIVER_NAME_MAX, "driver name", RP),
    RULE(DEVLINK_ATTR_INFO_SERIAL_NUMBER, DLH__ATTR_STR, DLH_VERSION_VALUE_MAX, "serial number", RP),
    RULE(DEVLINK_ATTR_INFO_BOARD_SERIAL_NUMBER, DLH__ATTR_STR, DLH_VERSION_VALUE_MAX, "board serial number", RP),
    RULE(DEVLINK_ATTR_INFO_VERSION_NAME, DLH__ATTR_STR, DLH_VERSION_NAME_MAX, "version name", RP),
    RULE(DEVLINK_ATTR_INFO_VERSION_VALUE, DLH__ATTR_STR, DLH_VERSION_VALUE_MAX, "version value", RP),
    RULE(DLHAL_ATTR_PENDING_SPLIT, DLH__ATTR_U32, 0, "pending split", RP),
    RULE(DLHAL_ATTR_PENDING_TYPE, DLH__ATTR_U16, 0, "pending type", RP),
    RULE(DLHAL_ATTR_PENDING_MSG, DLH__ATTR_STR, DLH_EXTACK_MSG_MAX, "pending message", RP),
    RULE(DLHAL_ATTR_PORT_MODULE, DLH__ATTR_U32, 0, "port module", RP),
    RULE(DLHAL_ATTR_PORT_LANE, DLH__ATTR_U32, 0, "port lane", RP),
    RULE(DLHAL_ATTR_PORT_SPEED, DLH__ATTR_U32, 0, "port speed", RP),
    RULE(DLHAL_ATTR_CARD, DLH__ATTR_STR, DLH_CARD_NAME_MAX, "card", RP),
    /* nested in DLHAL_ATTR_FW_OPTION */
    RULE(DLHAL_ATTR_FW_OPTION_SPLIT, DLH__ATTR_U32, 0, "option split", RP),
    RULE(DLHAL_ATTR_FW_OPTION_SPEED, DLH__ATTR_RECS, sizeof(uint32_t), "option speeds", RP),
    RULE(DLHAL_ATTR_FW_OPTION_ACTIVE, DLH__ATTR_U8, 0, "option active", RP),
    RULE(DLHAL_ATTR_FW_OPTION_PENDING, DLH__ATTR_U8, 0, "option pending", RP),
    /* nested in DLHAL_ATTR_CAGE */
    RULE(DLHAL_ATTR_CAGE_NUMBER, DLH__ATTR_U32, 0, "cage number", RP),
    RULE(DLHAL_ATTR_CAGE_ROW, DLH__ATTR_U32, 0, "cage row", RP),
    RULE(DLHAL_ATTR_CAGE_COL, DLH__ATTR_U32, 0, "cage column", RP),
    RULE(DLHAL_ATTR_CAGE_FORM, DLH__ATTR_STR, DLH_CAGE_NAME_MAX, "cage form", RP),
    RULE(DLHAL_ATTR_CAGE_LABEL, DLH__ATTR_STR, DLH_CAGE_NAME_MAX, "cage label", RP),
    RULE(DLHAL_ATTR_CAGE_MODULE, DLH__ATTR_U32, 0, "cage module", RP),
};

unsigned int dlh__slot_of(uint16_t type)
{
	if (type >= DLHAL_ATTR_SIM_KEY)
		return type < DLHAL_ATTR_END_ ? DLH__SLOT(type) : 0;
	return type <= DEVLINK_ATTR_MAX ? type : 0;
}

int dlh__policy_parse(const struct nlattr *head, int len, enum dlh__attr_in in, struct nlattr *tb[DLH__SLOTS],
		      bool strict, char *why, size_t whylen)
{
	const unsigned char *p = (const unsigned char *)head, *end = p + (len > 0 ? len : 0);

	memset(tb, 0, DLH__SLOTS * sizeof(*tb));
	/* A walk as libnl's nla_for_each_attr(), without a call per attribute. */
	while ((size_t)(end - p) >= NLA_HDRLEN) {
		const struct nlattr *a = (const struct nlattr *)p;
		uint16_t type = a->nla_type & NLA_TYPE_MASK;
		size_t step = (size_t)NLA_ALIGN((size_t)a->nla_len), left = (size_t)(end - p);
		unsigned int slot;

		if (a->nla_len < NLA_HDRLEN || a->nla_len > left)
			break;
		p += step < left ? step : left;
		slot = dlh__slot_of(type);
		if (!slot || !(policy[slot].in & in)) {
			if (!strict)
				continue;
			snprintf(why, whylen, "Unknown attribute %d", type);
			return -EINVAL;
		}
		if (dlh__attr_check(a, &policy[slot].rule, why, whylen))
			return -EINVAL;
		tb[slot] = (struct nlattr *)a;
	}
	if (strict && p < end) {
		snprintf(why, whylen, "Malformed attribute: %d bytes that are no whole attribute", (int)(end - p));
		return -EINVAL;
	}
	return 0;
}
