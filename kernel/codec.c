/* SPDX-License-Identifier: MIT */
/* dlhal's devlink messages as data: each part's encoder beside its decoder (codec.h). */
#include "codec.h"

#include <dlhal/protocol.h>
#include <errno.h>
#include <stddef.h>
#include <linux/devlink.h>
#include <netlink/genl/genl.h>
#include <stdio.h>
#include <string.h>

enum {
	A_BUS = DLH__SLOT(DEVLINK_ATTR_BUS_NAME),
	A_DEV = DLH__SLOT(DEVLINK_ATTR_DEV_NAME),
	A_INDEX = DLH__SLOT(DEVLINK_ATTR_PORT_INDEX),
	A_TYPE = DLH__SLOT(DEVLINK_ATTR_PORT_TYPE),
	A_COUNT = DLH__SLOT(DEVLINK_ATTR_PORT_SPLIT_COUNT),
	A_DESIRED = DLH__SLOT(DEVLINK_ATTR_PORT_DESIRED_TYPE),
	A_NETDEV = DLH__SLOT(DEVLINK_ATTR_PORT_NETDEV_NAME),
	A_IBDEV = DLH__SLOT(DEVLINK_ATTR_PORT_IBDEV_NAME),
	A_FLAVOUR = DLH__SLOT(DEVLINK_ATTR_PORT_FLAVOUR),
	A_NUMBER = DLH__SLOT(DEVLINK_ATTR_PORT_NUMBER),
	A_GROUP = DLH__SLOT(DEVLINK_ATTR_PORT_SPLIT_GROUP),
	A_SUBPORT = DLH__SLOT(DEVLINK_ATTR_PORT_SPLIT_SUBPORT_NUMBER),
	A_LANES = DLH__SLOT(DEVLINK_ATTR_PORT_LANES),
	A_SPLITTABLE = DLH__SLOT(DEVLINK_ATTR_PORT_SPLITTABLE),
	A_PEND_SPLIT = DLH__SLOT(DLHAL_ATTR_PENDING_SPLIT),
	A_PEND_TYPE = DLH__SLOT(DLHAL_ATTR_PENDING_TYPE),
	A_PEND_MSG = DLH__SLOT(DLHAL_ATTR_PENDING_MSG),
	A_MODULE = DLH__SLOT(DLHAL_ATTR_PORT_MODULE),
	A_LANE = DLH__SLOT(DLHAL_ATTR_PORT_LANE),
	A_SPEED = DLH__SLOT(DLHAL_ATTR_PORT_SPEED),
	A_SPLIT_COUNTS = DLH__SLOT(DLHAL_ATTR_PORT_SPLIT_COUNTS),
	O_SPLIT = DLH__SLOT(DLHAL_ATTR_FW_OPTION_SPLIT),
	O_SPEED = DLH__SLOT(DLHAL_ATTR_FW_OPTION_SPEED),
	O_ACTIVE = DLH__SLOT(DLHAL_ATTR_FW_OPTION_ACTIVE),
	O_PENDING = DLH__SLOT(DLHAL_ATTR_FW_OPTION_PENDING),
	C_NUMBER = DLH__SLOT(DLHAL_ATTR_CAGE_NUMBER),
	C_ROW = DLH__SLOT(DLHAL_ATTR_CAGE_ROW),
	C_COL = DLH__SLOT(DLHAL_ATTR_CAGE_COL),
	C_FORM = DLH__SLOT(DLHAL_ATTR_CAGE_FORM),
	C_LABEL = DLH__SLOT(DLHAL_ATTR_CAGE_LABEL),
	C_MODULE = DLH__SLOT(DLHAL_ATTR_CAGE_MODULE),
	S_VALUE = DLH__SLOT(DEVLINK_ATTR_RELOAD_STATS_VALUE),
	V_NAME = DLH__SLOT(DEVLINK_ATTR_INFO_VERSION_NAME),
	V_VALUE = DLH__SLOT(DEVLINK_ATTR_INFO_VERSION_VALUE),
};

/* The top-level attributes of a generic-netlink message. */
#define for_each_genl_attr(a, nlh, rem) \
	nla_for_each_attr(a, genlmsg_attrdata(nlmsg_data(nlh), 0), genlmsg_attrlen(nlmsg_data(nlh), 0), rem)

static bool get_u32(const struct nlattr *a, uint32_t *v)
{
	if (a)
		*v = nla_get_u32((struct nlattr *)a);
	return a;
}

static bool get_u16(const struct nlattr *a, uint32_t *v)
{
	if (a)
		*v = nla_get_u16((struct nlattr *)a);
	return a;
}

static enum dlh_port_type type_of(uint32_t t)
{
	return t <= DEVLINK_PORT_TYPE_IB ? (enum dlh_port_type)t : DLH_PORT_TYPE_NOTSET;
}

/* A nest's members by slot: 0, or -EINVAL for a malformed one. */
static int nest_parse(const struct nlattr *nest, struct nlattr *tb[DLH__SLOTS])
{
	char why[128];

	return dlh__policy_parse(nla_data(nest), nla_len(nest), DLH__IN_REPLY, tb, false, why, sizeof(why));
}

int dlh__dev_put(struct nl_msg *msg, const char *bus, const char *name)
{
	return nla_put_string(msg, DEVLINK_ATTR_BUS_NAME, bus) || nla_put_string(msg, DEVLINK_ATTR_DEV_NAME, name);
}

int dlh__pending_put(struct nl_msg *msg, const struct dlh_pending *p)
{
	return (p->split && nla_put_u32(msg, DLHAL_ATTR_PENDING_SPLIT, p->split)) ||
	       (p->type != DLH_PORT_TYPE_NOTSET && nla_put_u16(msg, DLHAL_ATTR_PENDING_TYPE, (uint16_t)p->type)) ||
	       (p->message[0] && nla_put_string(msg, DLHAL_ATTR_PENDING_MSG, p->message));
}

void dlh__pending_get(struct nlattr *const tb[DLH__SLOTS], struct dlh_pending *p)
{
	uint32_t v;

	memset(p, 0, sizeof(*p));
	get_u32(tb[A_PEND_SPLIT], &p->split);
	if (get_u16(tb[A_PEND_TYPE], &v))
		p->type = type_of(v);
	if (tb[A_PEND_MSG])
		snprintf(p->message, sizeof(p->message), "%s", dlh__attr_str(tb[A_PEND_MSG]));
}

void dlh__port_msg_of(const struct dlh_port *p, struct dlh__port_msg *m)
{
	struct dlh_sdk_port_attrs *a = &m->attrs;

	memset(m, 0, sizeof(*m));
	m->bus = dlh_dev_bus(dlh_port_dev(p));
	m->dev = dlh_dev_name(dlh_port_dev(p));
	m->index = dlh_port_index(p);
	m->type = dlh_port_type(p);
	m->desired = dlh_port_desired_type(p);
	m->netdev = dlh_port_netdev(p);
	m->ibdev = dlh_port_ibdev(p);
	a->flavour = dlh_port_flavour(p);
	m->has_number = dlh_port_has_number(p);
	a->number = m->has_number ? dlh_port_number(p) : 0;
	a->split = dlh_port_is_split(p);
	a->split_group = a->split ? dlh_port_split_group(p) : 0;
	a->split_subport = a->split ? dlh_port_split_subport(p) : 0;
	a->lanes = dlh_port_lanes(p);
	a->splittable = dlh_port_splittable(p);
	a->has_module = dlh_port_module(p, &a->module, &a->lane);
	a->speed = dlh_port_speed(p);
	/* said only where the driver takes fewer counts than the lanes allow (a driver's split_counts) */
	{
		uint32_t all = 0;

		for (uint32_t n = 2; a->splittable && n <= a->lanes && n < 32; n *= 2)
			all |= 1u << n;
		if (dlh_port_split_counts(p) != all)
			m->split_counts = dlh_port_split_counts(p) ? dlh_port_split_counts(p) : 1u;
	}
	dlh_port_pending(p, &m->pending);
}

void dlh__port_msg_of_plan(const struct dlh_plan_port *c, const struct dlh_port *as, struct dlh__port_msg *m)
{
	struct dlh_sdk_port_attrs *a = &m->attrs;

	memset(m, 0, sizeof(*m));
	m->index = c->index;
	m->type = c->type;
	m->desired = DLH_PORT_TYPE_NOTSET;
	m->netdev = c->netdev[0] ? c->netdev : NULL;
	m->ibdev = c->ibdev[0] ? c->ibdev : NULL;
	a->lanes = c->lanes;
	a->split = c->split;
	a->split_group = c->split ? c->split_group : 0;
	a->split_subport = c->split ? c->split_subport : 0;
	if (as) { /* what the plan's port does not say */
		a->flavour = dlh_port_flavour(as);
		m->has_number = true;
		a->number = dlh_port_number(as);
		a->splittable = dlh_port_splittable(as);
	}
}

int dlh__port_msg_put(struct nl_msg *msg, const struct dlh__port_msg *m)
{
	const struct dlh_sdk_port_attrs *a = &m->attrs;

	return (m->bus && dlh__dev_put(msg, m->bus, m->dev)) || nla_put_u32(msg, DEVLINK_ATTR_PORT_INDEX, m->index) ||
	       nla_put_u16(msg, DEVLINK_ATTR_PORT_TYPE, (uint16_t)m->type) ||
	       (m->desired != DLH_PORT_TYPE_NOTSET &&
		nla_put_u16(msg, DEVLINK_ATTR_PORT_DESIRED_TYPE, (uint16_t)m->desired)) ||
	       (m->netdev && nla_put_string(msg, DEVLINK_ATTR_PORT_NETDEV_NAME, m->netdev)) ||
	       (m->ibdev && nla_put_string(msg, DEVLINK_ATTR_PORT_IBDEV_NAME, m->ibdev)) ||
	       nla_put_u16(msg, DEVLINK_ATTR_PORT_FLAVOUR, (uint16_t)a->flavour) ||
	       (m->has_number && nla_put_u32(msg, DEVLINK_ATTR_PORT_NUMBER, a->number)) ||
	       (a->split && (nla_put_u32(msg, DEVLINK_ATTR_PORT_SPLIT_GROUP, a->split_group) ||
			     nla_put_u32(msg, DEVLINK_ATTR_PORT_SPLIT_SUBPORT_NUMBER, a->split_subport))) ||
	       (a->lanes && nla_put_u32(msg, DEVLINK_ATTR_PORT_LANES, a->lanes)) ||
	       nla_put_u8(msg, DEVLINK_ATTR_PORT_SPLITTABLE, a->splittable) ||
	       /* what devlink has no attribute for: where the port is (dl panel), its speed */
	       (a->has_module && (nla_put_u32(msg, DLHAL_ATTR_PORT_MODULE, a->module) ||
				  nla_put_u32(msg, DLHAL_ATTR_PORT_LANE, a->lane))) ||
	       (a->speed && nla_put_u32(msg, DLHAL_ATTR_PORT_SPEED, a->speed)) ||
	       (m->split_counts && nla_put_u32(msg, DLHAL_ATTR_PORT_SPLIT_COUNTS, m->split_counts)) ||
	       dlh__pending_put(msg, &m->pending);
}

int dlh__port_msg_get(struct nlattr *const tb[DLH__SLOTS], struct dlh__port_msg *m)
{
	struct dlh_sdk_port_attrs *a = &m->attrs;
	uint32_t v = DEVLINK_PORT_TYPE_NOTSET;

	/* all but what is pending, which dlh__pending_get() clears (every port of a dump comes here) */
	memset(m, 0, offsetof(struct dlh__port_msg, pending));
	if (!get_u32(tb[A_INDEX], &m->index))
		return -EPROTO;
	m->bus = tb[A_BUS] && tb[A_DEV] ? dlh__attr_str(tb[A_BUS]) : NULL;
	m->dev = m->bus ? dlh__attr_str(tb[A_DEV]) : NULL;
	get_u16(tb[A_TYPE], &v);
	m->type = type_of(v);
	v = DEVLINK_PORT_TYPE_NOTSET;
	get_u16(tb[A_DESIRED], &v);
	m->desired = type_of(v);
	m->netdev = dlh__attr_str(tb[A_NETDEV]);
	m->ibdev = dlh__attr_str(tb[A_IBDEV]);
	if (get_u16(tb[A_FLAVOUR], &v))
		a->flavour = (enum dlh_port_flavour)v;
	m->has_number = get_u32(tb[A_NUMBER], &a->number);
	a->split = get_u32(tb[A_GROUP], &a->split_group);
	get_u32(tb[A_SUBPORT], &a->split_subport);
	get_u32(tb[A_LANES], &a->lanes);
	a->splittable = tb[A_SPLITTABLE] && *(const uint8_t *)nla_data(tb[A_SPLITTABLE]);
	/* a dlhald's (the kernel has none) */
	a->has_module = get_u32(tb[A_MODULE], &a->module) && get_u32(tb[A_LANE], &a->lane);
	if (!a->has_module)
		a->module = a->lane = 0;
	get_u32(tb[A_SPEED], &a->speed);
	get_u32(tb[A_SPLIT_COUNTS], &m->split_counts);
	dlh__pending_get(tb, &m->pending);
	return 0;
}

int dlh__fw_options_put(struct nl_msg *msg, const struct dlh_fw_option *opts, size_t n)
{
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		struct nlattr *nest = nla_nest_start(msg, DLHAL_ATTR_FW_OPTION);

		err = !nest || nla_put_u32(msg, DLHAL_ATTR_FW_OPTION_SPLIT, opts[i].split) ||
		      nla_put(msg, DLHAL_ATTR_FW_OPTION_SPEED, sizeof(opts[i].speed), opts[i].speed) ||
		      (opts[i].active && nla_put_u8(msg, DLHAL_ATTR_FW_OPTION_ACTIVE, 1)) ||
		      (opts[i].pending && nla_put_u8(msg, DLHAL_ATTR_FW_OPTION_PENDING, 1));
		if (!err)
			nla_nest_end(msg, nest);
	}
	return err;
}

void dlh__fw_options_get(const struct nlmsghdr *nlh, struct dlh_fw_option *opts, size_t max, size_t *n)
{
	const struct nlattr *a;
	int rem;

	*n = 0;
	for_each_genl_attr(a, nlh, rem)
	{
		struct nlattr *tb[DLH__SLOTS];
		struct dlh_fw_option *f;

		if (nla_type(a) != DLHAL_ATTR_FW_OPTION || *n == max || nest_parse(a, tb) || !tb[O_SPLIT] ||
		    (tb[O_SPEED] && nla_len(tb[O_SPEED]) > (int)sizeof(f->speed)))
			continue;
		f = &opts[(*n)++];
		memset(f, 0, sizeof(*f));
		f->split = nla_get_u32(tb[O_SPLIT]);
		if (tb[O_SPEED])
			memcpy(f->speed, nla_data(tb[O_SPEED]), (size_t)nla_len(tb[O_SPEED]));
		f->active = tb[O_ACTIVE] && nla_get_u8(tb[O_ACTIVE]);
		f->pending = tb[O_PENDING] && nla_get_u8(tb[O_PENDING]);
	}
}

/*
 * DEV_STATS { RELOAD_STATS | REMOTE_RELOAD_STATS { ACTION_INFO { ACTION,
 * ACTION_STATS { STATS_ENTRY { LIMIT, VALUE } ... } } ... } }, as Linux
 * 5.11 on puts them (devlink_reload_stats_put()); an entry that is not
 * well formed is not counted.
 */
static void reload_stats_sum(const struct nlattr *nest, int depth, uint64_t *sum)
{
	static const int types[] = {DEVLINK_ATTR_RELOAD_ACTION_INFO, DEVLINK_ATTR_RELOAD_ACTION_STATS,
				    DEVLINK_ATTR_RELOAD_STATS_ENTRY};
	const struct nlattr *a;
	int rem;

	nla_for_each_nested(a, (struct nlattr *)nest, rem)
	{
		struct nlattr *tb[DLH__SLOTS];

		if (nla_type(a) != types[depth])
			continue;
		if (depth < 2)
			reload_stats_sum(a, depth + 1, sum);
		else if (!nest_parse(a, tb) && tb[S_VALUE])
			*sum += nla_get_u32(tb[S_VALUE]);
	}
}

bool dlh__reloads_get(const struct nlmsghdr *nlh, uint64_t *count)
{
	const struct nlattr *a, *s;
	bool found = false;
	int rem, srem;

	*count = 0;
	for_each_genl_attr(a, nlh, rem)
	{
		if (nla_type(a) != DEVLINK_ATTR_DEV_STATS)
			continue;
		nla_for_each_nested(s, (struct nlattr *)a, srem)
		{
			if (nla_type(s) != DEVLINK_ATTR_RELOAD_STATS && nla_type(s) != DEVLINK_ATTR_REMOTE_RELOAD_STATS)
				continue;
			found = true;
			reload_stats_sum(s, 0, count);
		}
	}
	return found;
}

enum { N_BUS, N_DEV, N_NETNS, N_COUNT_ };

static const struct dlh__attr_rule nested_rules[N_COUNT_] = {
    [N_BUS] = {DEVLINK_ATTR_BUS_NAME, DLH__ATTR_STR, DLH_BUS_NAME_MAX, "nested instance's bus name"},
    [N_DEV] = {DEVLINK_ATTR_DEV_NAME, DLH__ATTR_STR, DLH_DEV_NAME_MAX, "nested instance's device name"},
    [N_NETNS] = {DEVLINK_ATTR_NETNS_ID, DLH__ATTR_U32, 0, "nested instance's namespace"},
};

size_t dlh__nested_get(const struct nlmsghdr *nlh, char (*handles)[DLH_HANDLE_MAX], size_t max)
{
	struct nlattr *tb[N_COUNT_];
	const struct nlattr *a;
	char why[128];
	size_t n = 0;
	int rem;

	for_each_genl_attr(a, nlh, rem)
	{
		if (nla_type(a) != DEVLINK_ATTR_NESTED_DEVLINK || n == max ||
		    dlh__attrs_parse(nla_data(a), nla_len(a), nested_rules, N_COUNT_, tb, false, why, sizeof(why)) ||
		    !tb[N_BUS] || !tb[N_DEV] || tb[N_NETNS])
			continue;
		snprintf(handles[n], DLH_HANDLE_MAX, "%s/%s", dlh__attr_str(tb[N_BUS]), dlh__attr_str(tb[N_DEV]));
		n++;
	}
	return n;
}

int dlh__cages_put(struct nl_msg *msg, const struct dlh_cage *c, size_t n)
{
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		struct nlattr *nest = nla_nest_start(msg, DLHAL_ATTR_CAGE);

		err = !nest || nla_put_u32(msg, DLHAL_ATTR_CAGE_NUMBER, c[i].number) ||
		      nla_put_u32(msg, DLHAL_ATTR_CAGE_ROW, c[i].row) ||
		      nla_put_u32(msg, DLHAL_ATTR_CAGE_COL, c[i].col) ||
		      nla_put_string(msg, DLHAL_ATTR_CAGE_FORM, c[i].form) ||
		      nla_put_string(msg, DLHAL_ATTR_CAGE_LABEL, c[i].label) ||
		      (c[i].has_module && nla_put_u32(msg, DLHAL_ATTR_CAGE_MODULE, c[i].module));
		if (!err)
			nla_nest_end(msg, nest);
	}
	return err;
}

int dlh__cages_get(const struct nlmsghdr *nlh, struct dlh_cage *cages, size_t max, size_t *n)
{
	const struct nlattr *a;
	int rem;

	*n = 0;
	for_each_genl_attr(a, nlh, rem)
	{
		struct nlattr *tb[DLH__SLOTS];
		struct dlh_cage *c;

		if (nla_type(a) != DLHAL_ATTR_CAGE)
			continue;
		if (*n == max || nest_parse(a, tb) || !tb[C_NUMBER] || !tb[C_ROW] || !tb[C_COL] || !tb[C_FORM] ||
		    !tb[C_LABEL])
			return -EPROTO;
		c = &cages[(*n)++];
		memset(c, 0, sizeof(*c));
		c->number = nla_get_u32(tb[C_NUMBER]);
		c->row = nla_get_u32(tb[C_ROW]);
		c->col = nla_get_u32(tb[C_COL]);
		snprintf(c->form, sizeof(c->form), "%s", dlh__attr_str(tb[C_FORM]));
		snprintf(c->label, sizeof(c->label), "%s", dlh__attr_str(tb[C_LABEL]));
		c->has_module = get_u32(tb[C_MODULE], &c->module);
	}
	return 0;
}

/* A version's nest by its kind, as the kernel's devlink_info_version_put() does. */
static const int version_nests[] = {DEVLINK_ATTR_INFO_VERSION_FIXED, DEVLINK_ATTR_INFO_VERSION_RUNNING,
				    DEVLINK_ATTR_INFO_VERSION_STORED};

int dlh__info_put(struct nl_msg *msg, const struct dlh_dev_info *info)
{
	int err =
	    (info->driver[0] && nla_put_string(msg, DEVLINK_ATTR_INFO_DRIVER_NAME, info->driver)) ||
	    (info->serial[0] && nla_put_string(msg, DEVLINK_ATTR_INFO_SERIAL_NUMBER, info->serial)) ||
	    (info->board_serial[0] && nla_put_string(msg, DEVLINK_ATTR_INFO_BOARD_SERIAL_NUMBER, info->board_serial));

	for (size_t i = 0; !err && i < info->nversions; i++) {
		struct nlattr *nest = nla_nest_start(msg, version_nests[info->versions[i].kind]);

		err = !nest || nla_put_string(msg, DEVLINK_ATTR_INFO_VERSION_NAME, info->versions[i].name) ||
		      nla_put_string(msg, DEVLINK_ATTR_INFO_VERSION_VALUE, info->versions[i].value);
		if (!err)
			nla_nest_end(msg, nest);
	}
	return err;
}

void dlh__info_get(const struct nlmsghdr *nlh, struct dlh_sdk_info *info, char *bad, size_t badlen)
{
	const struct nlattr *a;
	int rem;

	for_each_genl_attr(a, nlh, rem)
	{
		struct nlattr *tb[DLH__SLOTS];
		struct dlh_extack ext = {0};
		char why[128] = "";
		int type = nla_type(a), err;

		if (type == DEVLINK_ATTR_INFO_SERIAL_NUMBER || type == DEVLINK_ATTR_INFO_BOARD_SERIAL_NUMBER) {
			/* the attribute itself, as a stream of one */
			err = dlh__policy_parse(a, a->nla_len, DLH__IN_REPLY, tb, false, why, sizeof(why));
			if (!err)
				err = dlh_sdk_info_serial_put(info, type == DEVLINK_ATTR_INFO_BOARD_SERIAL_NUMBER,
							      dlh__attr_str(tb[dlh__slot_of((uint16_t)type)]), &ext);
		} else if (type >= DEVLINK_ATTR_INFO_VERSION_FIXED && type <= DEVLINK_ATTR_INFO_VERSION_STORED) {
			err = dlh__policy_parse(nla_data(a), nla_len(a), DLH__IN_REPLY, tb, false, why, sizeof(why));
			if (!err && (!tb[V_NAME] || !tb[V_VALUE]))
				err = -EINVAL, snprintf(why, sizeof(why), "a version without its name or value");
			if (!err)
				err = dlh_sdk_info_version_put(
				    info, (enum dlh_version_kind)(type - DEVLINK_ATTR_INFO_VERSION_FIXED),
				    dlh__attr_str(tb[V_NAME]), dlh__attr_str(tb[V_VALUE]), &ext);
		} else {
			continue;
		}
		if (err && bad && !bad[0])
			snprintf(bad, badlen, "%s", why[0] ? why : ext.msg);
	}
}

uint8_t dlh__change_cmd(enum dlh_change kind)
{
	return kind == DLH_CHANGE_SPLIT	    ? DEVLINK_CMD_PORT_SPLIT
	       : kind == DLH_CHANGE_UNSPLIT ? DEVLINK_CMD_PORT_UNSPLIT
					    : DEVLINK_CMD_PORT_SET;
}

int dlh__change_put(struct nl_msg *msg, const struct dlh_change_req *r)
{
	switch (r->kind) {
	case DLH_CHANGE_SPLIT:
		return nla_put_u32(msg, DEVLINK_ATTR_PORT_SPLIT_COUNT, r->count);
	case DLH_CHANGE_TYPE:
		return nla_put_u16(msg, DEVLINK_ATTR_PORT_TYPE, (uint16_t)r->type);
	default:
		return 0;
	}
}

int dlh__change_get(uint8_t cmd, struct nlattr *const tb[DLH__SLOTS], struct dlh_change_req *r, const char **why)
{
	memset(r, 0, sizeof(*r));
	r->kind = cmd == DEVLINK_CMD_PORT_SPLIT	    ? DLH_CHANGE_SPLIT
		  : cmd == DEVLINK_CMD_PORT_UNSPLIT ? DLH_CHANGE_UNSPLIT
						    : DLH_CHANGE_TYPE;
	r->type = DLH_PORT_TYPE_NOTSET;
	*why = !tb[A_INDEX]				     ? "Port index is required"
	       : r->kind == DLH_CHANGE_SPLIT && !tb[A_COUNT] ? "Split count is required"
	       : r->kind == DLH_CHANGE_TYPE && !tb[A_TYPE]   ? "Port type is required"
							     : NULL;
	if (*why)
		return -EINVAL;
	r->index = nla_get_u32(tb[A_INDEX]);
	if (r->kind == DLH_CHANGE_SPLIT)
		r->count = nla_get_u32(tb[A_COUNT]);
	if (r->kind == DLH_CHANGE_TYPE)
		r->type = (enum dlh_port_type)nla_get_u16(tb[A_TYPE]);
	return 0;
}

/* A change planned before, as a record of four u32: kind, index, count, type. */
int dlh__before_put(struct nl_msg *msg, const struct dlh_change_req *before, size_t n)
{
	struct nlattr *a;
	uint32_t *r;

	if (!n)
		return 0;
	a = nla_reserve(msg, DLHAL_ATTR_PLAN_BEFORE, (int)(n * 4 * sizeof(uint32_t)));
	if (!a)
		return -ENOMEM;
	r = nla_data(a);
	for (size_t i = 0; i < n; i++) {
		uint32_t rec[4] = {(uint32_t)before[i].kind, before[i].index, before[i].count,
				   (uint32_t)before[i].type};

		memcpy(r + 4 * i, rec, sizeof(rec));
	}
	return 0;
}

int dlh__before_get(const struct nlattr *a, struct dlh_change_req *before, size_t max, size_t *n, const char **why)
{
	size_t count = a ? (size_t)nla_len(a) / (4 * sizeof(uint32_t)) : 0;

	*n = 0;
	*why = NULL;
	if (count > max) {
		*why = "Too many changes planned before";
		return -E2BIG;
	}
	for (size_t i = 0; i < count; i++) {
		uint32_t r[4];

		memcpy(r, (const char *)nla_data((struct nlattr *)a) + i * sizeof(r), sizeof(r));
		if (r[0] > DLH_CHANGE_TYPE) {
			*why = "Malformed attribute changes planned before: unknown change";
			return -EINVAL;
		}
		before[i] = (struct dlh_change_req){(enum dlh_change)r[0], r[1], r[2], (enum dlh_port_type)r[3]};
	}
	*n = count;
	return 0;
}

static int plan_port_put(struct nl_msg *msg, int attr, const struct dlh__port_msg *m)
{
	struct nlattr *nest = nla_nest_start(msg, attr);

	if (!nest || dlh__port_msg_put(msg, m))
		return -ENOMEM;
	nla_nest_end(msg, nest);
	return 0;
}

int dlh__plan_put(struct nl_msg *msg, const struct dlh_plan *plan, const char *why,
		  const struct dlh_port *(*as)(uint32_t index, void *arg), void *arg)
{
	struct dlh__port_msg m;
	int err = 0;

	if (plan->partial)
		return nla_put_u8(msg, DLHAL_ATTR_PLAN_PARTIAL, 1) ||
		       (why && why[0] && nla_put_string(msg, DLHAL_ATTR_PLAN_WHY, why));
	if (plan->staged)
		err = nla_put_u8(msg, DLHAL_ATTR_PLAN_STAGED, 1);
	for (unsigned int i = 0; !err && i < plan->ngone; i++)
		err = nla_put_u32(msg, DLHAL_ATTR_PLAN_GONE, plan->gone[i]);
	for (unsigned int i = 0; !err && i < plan->ncome; i++) {
		dlh__port_msg_of_plan(&plan->come[i], as ? as(plan->come[i].index, arg) : NULL, &m);
		err = plan_port_put(msg, DLHAL_ATTR_PLAN_NEW, &m);
	}
	for (unsigned int i = 0; !err && i < plan->nafter; i++) {
		const char *slash = strchr(plan->after[i].dev, '/');
		char bus[DLH_BUS_NAME_MAX];

		if (!slash)
			return -EINVAL;
		snprintf(bus, sizeof(bus), "%.*s", (int)(slash - plan->after[i].dev), plan->after[i].dev);
		dlh__port_msg_of_plan(&plan->after[i].port, NULL, &m);
		m.bus = bus;
		m.dev = slash + 1;
		err = plan_port_put(msg, DLHAL_ATTR_PLAN_AFTER, &m);
	}
	return err;
}

/* A port a plan names (DLHAL_ATTR_PLAN_NEW or _AFTER), checked as a port message is. */
static int plan_port_get(const struct nlattr *nest, bool after, struct dlh_sdk_plan *plan, struct dlh_extack *ext)
{
	struct nlattr *tb[DLH__SLOTS];
	struct dlh__port_msg m;
	const char *name;
	char dev[DLH_BUS_NAME_MAX + DLH_DEV_NAME_MAX + 1];

	if (nest_parse(nest, tb) || dlh__port_msg_get(tb, &m) || (after && !m.bus))
		return dlh_sdk_extack(ext, -EPROTO, "dlhald's plan names a malformed port");
	name = m.type == DLH_PORT_TYPE_ETH ? m.netdev : m.type == DLH_PORT_TYPE_IB ? m.ibdev : NULL;
	if (!after)
		return dlh_sdk_plan_come(plan, m.index, &m.attrs, m.type, name, ext);
	snprintf(dev, sizeof(dev), "%s/%s", m.bus, m.dev);
	return dlh_sdk_plan_after(plan, dev, m.index, &m.attrs, m.type, name, ext);
}

/* A string that fits an extack, or the plan is malformed. */
static bool why_ok(const struct nlattr *a)
{
	const char *s = nla_data((struct nlattr *)a);
	int len = nla_len((struct nlattr *)a);

	return len >= 2 && len <= DLH_EXTACK_MSG_MAX && !s[len - 1] && strlen(s) == (size_t)len - 1;
}

int dlh__plan_get(const struct nlmsghdr *nlh, struct dlh_sdk_plan *plan, struct dlh_extack *ext)
{
	const struct nlattr *a;
	int rem, err = 0;

	for_each_genl_attr(a, nlh, rem)
	{
		switch (nla_type(a)) {
		case DLHAL_ATTR_PLAN_PARTIAL:
			dlh_sdk_plan_partial(plan);
			break;
		case DLHAL_ATTR_PLAN_WHY:
			if (!why_ok(a))
				err = dlh_sdk_extack(ext, -EPROTO, "dlhald's plan is malformed");
			else
				dlh_sdk_extack(ext, 0, "%s", (const char *)nla_data((struct nlattr *)a));
			break;
		case DLHAL_ATTR_PLAN_GONE:
			err = nla_len(a) == 4 ? dlh_sdk_plan_gone(plan, nla_get_u32((struct nlattr *)a), ext)
					      : dlh_sdk_extack(ext, -EPROTO, "dlhald's plan is malformed");
			break;
		case DLHAL_ATTR_PLAN_NEW:
		case DLHAL_ATTR_PLAN_AFTER:
			err = plan_port_get(a, nla_type(a) == DLHAL_ATTR_PLAN_AFTER, plan, ext);
			break;
		default: /* the device's names, DLHAL_ATTR_PLAN_STAGED (the after ports say it) */
			break;
		}
		if (err)
			return err;
	}
	return rem ? dlh_sdk_extack(ext, -EPROTO, "dlhald's plan is malformed") : 0;
}
