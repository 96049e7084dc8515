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

struct slots {
	enum dlh__attr_in in;
	struct nlattr **tb;
};

static const struct dlh__attr_rule *slot_lookup(uint16_t type, void *arg, struct nlattr ***at)
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
	return dlh__attrs_walk(head, len, slot_lookup, &s, strict, why, whylen);
}
