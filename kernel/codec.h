/* SPDX-License-Identifier: MIT */
/*
 * dlhal's devlink messages as data, both directions side by side: for each
 * part of a message, the encoder dlhald (or the client, for a request) puts
 * it with and the decoder the other end reads it back with, next to each
 * other so that they cannot drift. Decoders read attributes a parse by the
 * family's table (policy.h) has checked; nested ones are parsed here the
 * same way; a message's decoder takes one at least its generic-netlink
 * header long (the caller checks it, as on_msg() does). Who sends what,
 * and what a reply means, stays with each end (tools/dlhald/proto.c
 * serves, devlink.c asks).
 */
#ifndef DLHAL_CODEC_H
#define DLHAL_CODEC_H

#include "policy.h"

#include <dlhal/dlhal.h>
#include <dlhal/sdk.h>
#include <netlink/msg.h>

/* A device's names: DEVLINK_ATTR_BUS_NAME and _DEV_NAME. */
int dlh__dev_put(struct nl_msg *msg, const char *bus, const char *name);

/* What is pending until the next reset (dlhal's attributes; the kernel sends none: nothing pending). */
int dlh__pending_put(struct nl_msg *msg, const struct dlh_pending *p);
void dlh__pending_get(struct nlattr *const tb[DLH__SLOTS], struct dlh_pending *p);

/*
 * A port as a message says it: a port message (PORT_NEW, a PORT_GET reply)
 * or a port a plan names. Strings point into the model (put) or into the
 * message (get), never copied.
 */
struct dlh__port_msg {
	const char *bus, *dev; /* NULL: not said (a plan's new ports are the request's device's) */
	uint32_t index;
	enum dlh_port_type type;
	enum dlh_port_type desired; /* NOTSET: not said */
	const char *netdev, *ibdev; /* NULL: none */
	struct dlh_sdk_port_attrs attrs;
	bool has_number;       /* attrs.number is said */
	uint32_t split_counts; /* a dlhald's: what its driver takes, when fewer than the lanes allow; 0: not said */
	struct dlh_pending pending; /* last: dlh__port_msg_get() clears what comes before it */
};

/* A model port as its message says it. */
void dlh__port_msg_of(const struct dlh_port *p, struct dlh__port_msg *m);
/* A plan's port; @as, the port as the plan leaves it, says what the plan does not (NULL: nothing). */
void dlh__port_msg_of_plan(const struct dlh_plan_port *c, const struct dlh_port *as, struct dlh__port_msg *m);
int dlh__port_msg_put(struct nl_msg *msg, const struct dlh__port_msg *m);
/* 0, or -EPROTO for a message without the port's index. */
int dlh__port_msg_get(struct nlattr *const tb[DLH__SLOTS], struct dlh__port_msg *m);

/* The firmware options a reset chooses between (an E810's), in a device message. */
int dlh__fw_options_put(struct nl_msg *msg, const struct dlh_fw_option *opts, size_t n);
/* Those of @nlh, at most @max; a malformed one is skipped. */
void dlh__fw_options_get(const struct nlmsghdr *nlh, struct dlh_fw_option *opts, size_t max, size_t *n);

/*
 * The kernel's count of a device's reloads (dlh_dev_reloads()): the values
 * of the reload statistics nested in DEVLINK_ATTR_DEV_STATS, local and
 * remote, summed. false when the message has none (dlhald sends none).
 */
bool dlh__reloads_get(const struct nlmsghdr *nlh, uint64_t *count);

/*
 * The instances nested in a device (DEVLINK_ATTR_NESTED_DEVLINK, Linux 6.7
 * on: 6.12's mlx5_core nests a function's Ethernet instance) as handles, at
 * most @max; one malformed, or in another namespace, is left out.
 */
size_t dlh__nested_get(const struct nlmsghdr *nlh, char (*handles)[DLH_HANDLE_MAX], size_t max);

/* A device's faceplate, in a device message. */
int dlh__cages_put(struct nl_msg *msg, const struct dlh_cage *cages, size_t n);
/* Those of @nlh, at most @max; -EPROTO if one is malformed or there are more (the whole is dropped). */
int dlh__cages_get(const struct nlmsghdr *nlh, struct dlh_cage *cages, size_t max, size_t *n);

/* An INFO_GET reply's driver, serial numbers and versions (the names are the caller's). */
int dlh__info_put(struct nl_msg *msg, const struct dlh_dev_info *info);
/*
 * Those of @nlh into @info (through core's checks), in the order they came;
 * one that fails is left out and the first such is named in @bad.
 */
void dlh__info_get(const struct nlmsghdr *nlh, struct dlh_sdk_info *info, char *bad, size_t badlen);

/*
 * A change request's own attribute (PORT_SET's type, PORT_SPLIT's count;
 * PORT_UNSPLIT has none): the command for @r's kind, and its attribute.
 */
uint8_t dlh__change_cmd(enum dlh_change kind);
int dlh__change_put(struct nl_msg *msg, const struct dlh_change_req *r);
/*
 * The change a request of @cmd asks for on port @r->index; -EINVAL with @why
 * ("Port index is required") when an attribute it needs is missing.
 */
int dlh__change_get(uint8_t cmd, struct nlattr *const tb[DLH__SLOTS], struct dlh_change_req *r, const char **why);

/* A dry run's changes planned before (DLHAL_ATTR_PLAN_BEFORE), as records. */
int dlh__before_put(struct nl_msg *msg, const struct dlh_change_req *before, size_t n);
/*
 * Those of @a (checked as records by the table) into @before, at most @max;
 * -E2BIG for more, -EINVAL with @why for an unknown change.
 */
int dlh__before_get(const struct nlattr *a, struct dlh_change_req *before, size_t max, size_t *n, const char **why);

/*
 * A plan (DLHAL_CMD_PLAN): gone ports, new ones (each as @as gives the port
 * the plan leaves at an index, or NULL), ports of other devices after a
 * reset; a partial plan with @why, its reason.
 */
int dlh__plan_put(struct nl_msg *msg, const struct dlh_plan *plan, const char *why,
		  const struct dlh_port *(*as)(uint32_t index, void *arg), void *arg);
/* @nlh's plan into @plan, each port through core's checks; 0 or the first error, said in @ext. */
int dlh__plan_get(const struct nlmsghdr *nlh, struct dlh_sdk_plan *plan, struct dlh_extack *ext);

#endif
