/* SPDX-License-Identifier: MIT */
/*
 * The devlink family as dlhal reads it, at both ends: one rule per attribute,
 * in one table (DLH__POLICY_MAP), as the kernel's devlink_nl_policy is; an
 * attribute's id gives its row (its slot). dlhald takes a request's attributes with it
 * (DLH__IN_REQUEST, strictly: any other is refused), the client takes a
 * reply's or a notification's (DLH__IN_REPLY: others are skipped, as a newer
 * kernel's). A parse fills tb[] by slot: tb[DLH__SLOT(DEVLINK_ATTR_BUS_NAME)].
 */
#ifndef DLHAL_POLICY_H
#define DLHAL_POLICY_H

#include "nlattr.h"

#include <dlhal/dlhal.h>

#include <dlhal/protocol.h>
#include <linux/devlink.h>

/*
 * The family's attributes: X(ID, KIND, MAX, "name", WHERE), KIND a
 * DLH__ATTR_ suffix, MAX a string's largest size with its NUL (0: any) or a
 * record's size, WHERE the DLH__IN_ bits of where it is taken (RQ: in a
 * request, RP: in a reply). devlink's, then dlhal's extensions (nested ones
 * too: they have ids of their own).
 */
#define DLH__POLICY_DEVLINK(X)                                                                          \
	X(DEVLINK_ATTR_BUS_NAME, STR, DLH_BUS_NAME_MAX, "bus name", RQ | RP)                            \
	X(DEVLINK_ATTR_DEV_NAME, STR, DLH_DEV_NAME_MAX, "device name", RQ | RP)                         \
	X(DEVLINK_ATTR_PORT_INDEX, U32, 0, "port index", RQ | RP)                                       \
	X(DEVLINK_ATTR_PORT_NETDEV_NAME, STR, DLH_NETDEV_NAME_MAX, "netdev name", RQ | RP)              \
	X(DEVLINK_ATTR_PORT_TYPE, U16, 0, "port type", RQ | RP)                                         \
	X(DEVLINK_ATTR_PORT_SPLIT_COUNT, U32, 0, "split count", RQ)                                     \
	X(DEVLINK_ATTR_RELOAD_ACTION, U8, 0, "reload action", RQ | RP)                                  \
	X(DEVLINK_ATTR_RELOAD_LIMITS, BF32, 0, "reload limits", RQ)                                     \
	X(DEVLINK_ATTR_PORT_DESIRED_TYPE, U16, 0, "desired type", RP)                                   \
	X(DEVLINK_ATTR_PORT_IBDEV_NAME, STR, DLH_IBDEV_NAME_MAX, "ibdev name", RP)                      \
	X(DEVLINK_ATTR_PORT_FLAVOUR, U16, 0, "flavour", RP)                                             \
	X(DEVLINK_ATTR_PORT_NUMBER, U32, 0, "port number", RP)                                          \
	X(DEVLINK_ATTR_PORT_SPLIT_GROUP, U32, 0, "split group", RP)                                     \
	X(DEVLINK_ATTR_PORT_SPLIT_SUBPORT_NUMBER, U32, 0, "split subport", RP)                          \
	X(DEVLINK_ATTR_PORT_LANES, U32, 0, "lanes", RP)                                                 \
	X(DEVLINK_ATTR_PORT_SPLITTABLE, U8, 0, "splittable", RP)                                        \
	X(DEVLINK_ATTR_RELOAD_ACTIONS_PERFORMED, BF32, 0, "reload actions performed", RP)               \
	X(DEVLINK_ATTR_RELOAD_STATS_LIMIT, U8, 0, "reload statistic's limit", RP)                       \
	X(DEVLINK_ATTR_RELOAD_STATS_VALUE, U32, 0, "reload statistic", RP)                              \
	X(DEVLINK_ATTR_INFO_DRIVER_NAME, STR, DLH_DRIVER_NAME_MAX, "driver name", RP)                   \
	X(DEVLINK_ATTR_INFO_SERIAL_NUMBER, STR, DLH_VERSION_VALUE_MAX, "serial number", RP)             \
	X(DEVLINK_ATTR_INFO_BOARD_SERIAL_NUMBER, STR, DLH_VERSION_VALUE_MAX, "board serial number", RP) \
	X(DEVLINK_ATTR_INFO_VERSION_NAME, STR, DLH_VERSION_NAME_MAX, "version name", RP)                \
	X(DEVLINK_ATTR_INFO_VERSION_VALUE, STR, DLH_VERSION_VALUE_MAX, "version value", RP)

#define DLH__POLICY_DLHAL(X)                                                                \
	X(DLHAL_ATTR_SIM_KEY, STR, DLHAL_SIM_KEY_MAX, "emulator key", RQ)                   \
	X(DLHAL_ATTR_SIM_VALUE, STR, DLHAL_SIM_VALUE_MAX, "emulator value", RQ | RP)        \
	X(DLHAL_ATTR_DRY_RUN, FLAG, 0, "dry run", RQ)                                       \
	X(DLHAL_ATTR_PLAN_BEFORE, RECS, 4 * sizeof(uint32_t), "changes planned before", RQ) \
	X(DLHAL_ATTR_PENDING_SPLIT, U32, 0, "pending split", RP)                            \
	X(DLHAL_ATTR_PENDING_TYPE, U16, 0, "pending type", RP)                              \
	X(DLHAL_ATTR_PENDING_MSG, STR, DLH_EXTACK_MSG_MAX, "pending message", RP)           \
	X(DLHAL_ATTR_PORT_MODULE, U32, 0, "port module", RP)                                \
	X(DLHAL_ATTR_PORT_LANE, U32, 0, "port lane", RP)                                    \
	X(DLHAL_ATTR_PORT_SPEED, U32, 0, "port speed", RP)                                  \
	X(DLHAL_ATTR_PORT_SPLIT_COUNTS, U32, 0, "port split counts", RP)                    \
	X(DLHAL_ATTR_CARD, STR, DLH_CARD_NAME_MAX, "card", RP)                              \
	X(DLHAL_ATTR_FW_OPTION_SPLIT, U32, 0, "option split", RP)                           \
	X(DLHAL_ATTR_FW_OPTION_SPEED, RECS, sizeof(uint32_t), "option speeds", RP)          \
	X(DLHAL_ATTR_FW_OPTION_ACTIVE, U8, 0, "option active", RP)                          \
	X(DLHAL_ATTR_FW_OPTION_PENDING, U8, 0, "option pending", RP)                        \
	X(DLHAL_ATTR_CAGE_NUMBER, U32, 0, "cage number", RP)                                \
	X(DLHAL_ATTR_CAGE_ROW, U32, 0, "cage row", RP)                                      \
	X(DLHAL_ATTR_CAGE_COL, U32, 0, "cage column", RP)                                   \
	X(DLHAL_ATTR_CAGE_FORM, STR, DLH_CAGE_NAME_MAX, "cage form", RP)                    \
	X(DLHAL_ATTR_CAGE_LABEL, STR, DLH_CAGE_NAME_MAX, "cage label", RP)                  \
	X(DLHAL_ATTR_CAGE_MODULE, U32, 0, "cage module", RP)

#define DLH__POLICY_MAP(X)     \
	DLH__POLICY_DEVLINK(X) \
	DLH__POLICY_DLHAL(X)

/* An attribute's slot: its row in the table (0: none), what a parse indexes tb[] by. */
enum dlh__slot {
	DLH__SLOT_NONE,
#define DLH_X(id, kind, max, name, in) DLH__SLOT_##id,
	DLH__POLICY_MAP(DLH_X)
#undef DLH_X
	    DLH__SLOTS
};
#define DLH__SLOT(id) DLH__SLOT_##id

/* Where an attribute is taken. */
enum dlh__attr_in {
	DLH__IN_REQUEST = 1, /* in a client's request, by dlhald */
	DLH__IN_REPLY = 2,   /* in a reply or notification (or nested in one), by the client */
};

/* The slot of attribute @type; 0 for one the table does not hold. */
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
