/* SPDX-License-Identifier: MIT */
/*
 * The protocol's codec (kernel/codec.c): each part of a message put by one
 * end and got back by the other, as dlhald and the client use them, and
 * what the decoder does with a part that is malformed or missing.
 */
#include "codec.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <dlhal/protocol.h>
#include <linux/devlink.h>
#include <netlink/genl/genl.h>
#include <string.h>

static struct nl_msg *msg_new(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	cr_assert_not_null(msg);
	cr_assert_not_null(genlmsg_put(msg, 0, 1, DLHAL_FAMILY, 0, 0, cmd, 1));
	return msg;
}

/* The message's attributes by slot, as the client parses a reply (@in) or dlhald a request. */
static void parse(struct nl_msg *msg, enum dlh__attr_in in, struct nlattr *tb[DLH__SLOTS])
{
	struct genlmsghdr *g = nlmsg_data(nlmsg_hdr(msg));
	char why[128] = "";

	cr_assert_eq(dlh__policy_parse(genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0), in, tb, in == DLH__IN_REQUEST,
				       why, sizeof(why)),
		     0, "%s", why);
}

Test(codec, a_port_message_gives_back_every_field)
{
	struct dlh__port_msg in = {
	    .bus = "pci",
	    .dev = "0000:03:00.0",
	    .index = 7,
	    .type = DLH_PORT_TYPE_IB,
	    .desired = DLH_PORT_TYPE_AUTO,
	    .ibdev = "mlx4_0",
	    .attrs = {.flavour = DLH_PORT_FLAVOUR_PHYSICAL,
		      .number = 0,
		      .split = true,
		      .split_group = 3,
		      .split_subport = 1,
		      .lanes = 2,
		      .splittable = false,
		      .speed = 50000,
		      .has_module = true,
		      .module = 2,
		      .lane = 2},
	    .has_number = true,
	    .pending = {.split = 4, .type = DLH_PORT_TYPE_ETH, .message = "Reboot required"},
	};
	struct nl_msg *msg = msg_new(DEVLINK_CMD_PORT_NEW);
	struct nlattr *tb[DLH__SLOTS];
	struct dlh__port_msg out;

	cr_assert_eq(dlh__port_msg_put(msg, &in), 0);
	parse(msg, DLH__IN_REPLY, tb);
	cr_assert_eq(dlh__port_msg_get(tb, &out), 0);
	cr_assert_str_eq(out.bus, "pci");
	cr_assert_str_eq(out.dev, "0000:03:00.0");
	cr_assert_eq(out.index, 7);
	cr_assert_eq(out.type, DLH_PORT_TYPE_IB);
	cr_assert_eq(out.desired, DLH_PORT_TYPE_AUTO);
	cr_assert_null(out.netdev);
	cr_assert_str_eq(out.ibdev, "mlx4_0");
	cr_assert(out.has_number, "port number 0 is said, not dropped");
	cr_assert_eq(memcmp(&out.attrs, &in.attrs, sizeof(in.attrs)), 0);
	cr_assert_eq(out.pending.split, 4);
	cr_assert_eq(out.pending.type, DLH_PORT_TYPE_ETH);
	cr_assert_str_eq(out.pending.message, "Reboot required");
	nlmsg_free(msg);
}

/* Every port of a Spectrum, through dlhald's encoder and the client's decoder: what dl shows of it. */
Test(codec, a_model_port_comes_back_as_the_model_has_it)
{
	struct dlh_ctx *ctx = ctx_with("sn2700");
	struct dlh_dev *dev = dlh_dev_first(ctx);
	struct dlh_extack ext = {0};
	unsigned int n = 0;

	cr_assert_not_null(dev);
	cr_assert_eq(dlh_port_split(dlh_port_find(dev, 1), 4, &ext), 0, "%s", ext.msg);
	for (struct dlh_port *p = dlh_port_first(dev); p; p = dlh_port_next(p), n++) {
		struct nl_msg *msg = msg_new(DEVLINK_CMD_PORT_NEW);
		struct nlattr *tb[DLH__SLOTS];
		struct dlh__port_msg in, out;

		dlh__port_msg_of(p, &in);
		cr_assert_eq(dlh__port_msg_put(msg, &in), 0);
		parse(msg, DLH__IN_REPLY, tb);
		cr_assert_eq(dlh__port_msg_get(tb, &out), 0);
		cr_assert_eq(out.index, dlh_port_index(p));
		cr_assert_eq(out.type, dlh_port_type(p));
		cr_assert_str_eq(out.netdev ? out.netdev : "-", dlh_port_netdev(p) ? dlh_port_netdev(p) : "-");
		cr_assert_eq(out.attrs.split, dlh_port_is_split(p));
		cr_assert_eq(out.attrs.lanes, dlh_port_lanes(p));
		cr_assert_eq(out.attrs.splittable, dlh_port_splittable(p));
		cr_assert_eq(out.has_number, dlh_port_has_number(p));
		cr_assert_eq(memcmp(&out.attrs, &in.attrs, sizeof(in.attrs)), 0, "port %u", dlh_port_index(p));
		nlmsg_free(msg);
	}
	cr_assert_eq(n, 34, "32 ports; ports 1 and 3 give way to 4 from a split");
	dlh_ctx_free(ctx);
}

Test(codec, a_port_message_without_its_index_is_refused)
{
	struct nl_msg *msg = msg_new(DEVLINK_CMD_PORT_NEW);
	struct nlattr *tb[DLH__SLOTS];
	struct dlh__port_msg out;

	cr_assert_eq(dlh__dev_put(msg, "pci", "0000:03:00.0"), 0);
	parse(msg, DLH__IN_REPLY, tb);
	cr_assert_eq(dlh__port_msg_get(tb, &out), -EPROTO);
	nlmsg_free(msg);
}

Test(codec, firmware_options_and_a_faceplate_round_trip)
{
	struct dlh_fw_option opts[2] = {{.split = 1, .speed = {100000}, .active = true},
					{.split = 4, .speed = {25000, 25000, 25000, 25000}, .pending = true}};
	struct dlh_cage cages[2] = {
	    {.number = 1, .row = 0, .col = 0, .form = "QSFP28", .label = "1"},
	    {.number = 2, .row = 1, .col = 0, .form = "QSFP28", .label = "2", .has_module = true, .module = 1}};
	struct dlh_fw_option got[4];
	struct dlh_cage gotc[4];
	struct nl_msg *msg = msg_new(DEVLINK_CMD_NEW);
	size_t n;

	cr_assert_eq(dlh__fw_options_put(msg, opts, 2), 0);
	cr_assert_eq(dlh__cages_put(msg, cages, 2), 0);
	dlh__fw_options_get(nlmsg_hdr(msg), got, 4, &n);
	cr_assert_eq(n, 2);
	cr_assert_eq(memcmp(got, opts, sizeof(opts)), 0);
	dlh__fw_options_get(nlmsg_hdr(msg), got, 1, &n);
	cr_assert_eq(n, 1, "no more than the caller has room for");
	cr_assert_eq(dlh__cages_get(nlmsg_hdr(msg), gotc, 4, &n), 0);
	cr_assert_eq(n, 2);
	cr_assert_eq(memcmp(gotc, cages, sizeof(cages)), 0);
	cr_assert_eq(dlh__cages_get(nlmsg_hdr(msg), gotc, 1, &n), -EPROTO, "a faceplate cut short is no faceplate");
	nlmsg_free(msg);
}

Test(codec, a_cage_without_its_label_drops_the_faceplate)
{
	struct nl_msg *msg = msg_new(DEVLINK_CMD_NEW);
	struct nlattr *nest = nla_nest_start(msg, DLHAL_ATTR_CAGE);
	struct dlh_cage got[2];
	size_t n;

	nla_put_u32(msg, DLHAL_ATTR_CAGE_NUMBER, 1);
	nla_put_u32(msg, DLHAL_ATTR_CAGE_ROW, 0);
	nla_put_u32(msg, DLHAL_ATTR_CAGE_COL, 0);
	nla_put_string(msg, DLHAL_ATTR_CAGE_FORM, "SFP28");
	nla_nest_end(msg, nest);
	cr_assert_eq(dlh__cages_get(nlmsg_hdr(msg), got, 2, &n), -EPROTO);
	nlmsg_free(msg);
}

Test(codec, each_change_request_round_trips_as_dlhald_reads_it)
{
	static const struct dlh_change_req reqs[] = {
	    {.kind = DLH_CHANGE_SPLIT, .index = 5, .count = 4, .type = DLH_PORT_TYPE_NOTSET},
	    {.kind = DLH_CHANGE_UNSPLIT, .index = 6, .type = DLH_PORT_TYPE_NOTSET},
	    {.kind = DLH_CHANGE_TYPE, .index = 7, .type = DLH_PORT_TYPE_IB},
	};
	static const uint8_t cmds[] = {DEVLINK_CMD_PORT_SPLIT, DEVLINK_CMD_PORT_UNSPLIT, DEVLINK_CMD_PORT_SET};

	for (size_t i = 0; i < 3; i++) {
		struct nl_msg *msg = msg_new(dlh__change_cmd(reqs[i].kind));
		struct nlattr *tb[DLH__SLOTS];
		struct dlh_change_req out;
		const char *why;

		cr_assert_eq(dlh__change_cmd(reqs[i].kind), cmds[i]);
		cr_assert_eq(dlh__dev_put(msg, "pci", "0000:03:00.0"), 0);
		cr_assert_eq(nla_put_u32(msg, DEVLINK_ATTR_PORT_INDEX, reqs[i].index), 0);
		cr_assert_eq(dlh__change_put(msg, &reqs[i]), 0);
		parse(msg, DLH__IN_REQUEST, tb);
		cr_assert_eq(dlh__change_get(cmds[i], tb, &out, &why), 0);
		cr_assert_eq(memcmp(&out, &reqs[i], sizeof(out)), 0, "change %zu", i);
		nlmsg_free(msg);
	}
}

Test(codec, a_change_request_missing_its_attribute_says_which)
{
	static const struct {
		uint8_t cmd;
		bool index;
		const char *why;
	} cases[] = {
	    {DEVLINK_CMD_PORT_SPLIT, false, "Port index is required"},
	    {DEVLINK_CMD_PORT_SPLIT, true, "Split count is required"},
	    {DEVLINK_CMD_PORT_SET, true, "Port type is required"},
	};

	for (size_t i = 0; i < 3; i++) {
		struct nl_msg *msg = msg_new(cases[i].cmd);
		struct nlattr *tb[DLH__SLOTS];
		struct dlh_change_req out;
		const char *why;

		if (cases[i].index)
			nla_put_u32(msg, DEVLINK_ATTR_PORT_INDEX, 1);
		else
			dlh__dev_put(msg, "pci", "x");
		parse(msg, DLH__IN_REQUEST, tb);
		cr_assert_eq(dlh__change_get(cases[i].cmd, tb, &out, &why), -EINVAL);
		cr_assert_str_eq(why, cases[i].why);
		nlmsg_free(msg);
	}
}

Test(codec, changes_planned_before_round_trip_and_are_bounded)
{
	struct dlh_change_req before[3] = {
	    {.kind = DLH_CHANGE_SPLIT, .index = 1, .count = 2, .type = DLH_PORT_TYPE_NOTSET},
	    {.kind = DLH_CHANGE_TYPE, .index = 3, .type = DLH_PORT_TYPE_ETH},
	    {.kind = DLH_CHANGE_UNSPLIT, .index = 1, .type = DLH_PORT_TYPE_NOTSET},
	};
	struct dlh_change_req got[3];
	struct nl_msg *msg = msg_new(DEVLINK_CMD_PORT_SPLIT);
	struct nlattr *tb[DLH__SLOTS];
	const char *why;
	size_t n;

	cr_assert_eq(dlh__before_put(msg, before, 3), 0);
	parse(msg, DLH__IN_REQUEST, tb);
	cr_assert_eq(dlh__before_get(tb[DLH__SLOT(DLHAL_ATTR_PLAN_BEFORE)], got, 3, &n, &why), 0);
	cr_assert_eq(n, 3);
	cr_assert_eq(memcmp(got, before, sizeof(before)), 0);
	cr_assert_eq(dlh__before_get(tb[DLH__SLOT(DLHAL_ATTR_PLAN_BEFORE)], got, 2, &n, &why), -E2BIG);
	cr_assert_str_eq(why, "Too many changes planned before");
	cr_assert_eq(dlh__before_get(NULL, got, 3, &n, &why), 0);
	cr_assert_eq(n, 0, "no attribute: nothing planned before");
	nlmsg_free(msg);

	before[1].kind = (enum dlh_change)9;
	msg = msg_new(DEVLINK_CMD_PORT_SPLIT);
	cr_assert_eq(dlh__before_put(msg, before, 3), 0);
	parse(msg, DLH__IN_REQUEST, tb);
	cr_assert_eq(dlh__before_get(tb[DLH__SLOT(DLHAL_ATTR_PLAN_BEFORE)], got, 3, &n, &why), -EINVAL);
	cr_assert_str_eq(why, "Malformed attribute changes planned before: unknown change");
	nlmsg_free(msg);
}

/* A reload statistic as Linux 5.11 on nests it: ACTION_INFO { ACTION, ACTION_STATS { ENTRY { LIMIT, VALUE } } }. */
static void reload_stat_put(struct nl_msg *msg, uint8_t action, uint32_t value, bool value_u16)
{
	struct nlattr *info = nla_nest_start(msg, DEVLINK_ATTR_RELOAD_ACTION_INFO), *stats, *entry;

	nla_put_u8(msg, DEVLINK_ATTR_RELOAD_ACTION, action);
	stats = nla_nest_start(msg, DEVLINK_ATTR_RELOAD_ACTION_STATS);
	entry = nla_nest_start(msg, DEVLINK_ATTR_RELOAD_STATS_ENTRY);
	nla_put_u8(msg, DEVLINK_ATTR_RELOAD_STATS_LIMIT, 0);
	if (value_u16)
		nla_put_u16(msg, DEVLINK_ATTR_RELOAD_STATS_VALUE, (uint16_t)value);
	else
		nla_put_u32(msg, DEVLINK_ATTR_RELOAD_STATS_VALUE, value);
	nla_nest_end(msg, entry);
	nla_nest_end(msg, stats);
	nla_nest_end(msg, info);
}

Test(codec, a_devices_reloads_are_the_kernels_statistics_summed)
{
	struct nl_msg *msg = msg_new(DEVLINK_CMD_NEW);
	struct nlattr *dev_stats, *local, *remote;
	uint64_t n = 99;

	cr_assert_eq(dlh__dev_put(msg, "pci", "0000:16:00.0"), 0);
	cr_expect_not(dlh__reloads_get(nlmsg_hdr(msg), &n), "a device message without statistics");
	nla_put_u8(msg, DEVLINK_ATTR_RELOAD_FAILED, 0);
	dev_stats = nla_nest_start(msg, DEVLINK_ATTR_DEV_STATS);
	local = nla_nest_start(msg, DEVLINK_ATTR_RELOAD_STATS);
	reload_stat_put(msg, DEVLINK_RELOAD_ACTION_DRIVER_REINIT, 2, false);
	reload_stat_put(msg, DEVLINK_RELOAD_ACTION_FW_ACTIVATE, 3, false);
	reload_stat_put(msg, DEVLINK_RELOAD_ACTION_FW_ACTIVATE, 1000, true); /* malformed: not counted */
	nla_nest_end(msg, local);
	remote = nla_nest_start(msg, DEVLINK_ATTR_REMOTE_RELOAD_STATS);
	reload_stat_put(msg, DEVLINK_RELOAD_ACTION_FW_ACTIVATE, 4, false);
	nla_nest_end(msg, remote);
	nla_nest_end(msg, dev_stats);
	cr_assert(dlh__reloads_get(nlmsg_hdr(msg), &n));
	cr_expect_eq(n, 9, "2 + 3 here, 4 remote");
	nlmsg_free(msg);
}

/* A DEVLINK_ATTR_NESTED_DEVLINK: NULL leaves a name out; @netns < 0, none. */
static void nested_put(struct nl_msg *msg, const char *bus, const char *dev, int netns)
{
	struct nlattr *nest = nla_nest_start(msg, DEVLINK_ATTR_NESTED_DEVLINK);

	if (bus)
		nla_put_string(msg, DEVLINK_ATTR_BUS_NAME, bus);
	if (dev)
		nla_put_string(msg, DEVLINK_ATTR_DEV_NAME, dev);
	if (netns >= 0)
		nla_put_s32(msg, DEVLINK_ATTR_NETNS_ID, netns);
	nla_nest_end(msg, nest);
}

/* Linux 6.7 on: a device message names the instances nested in it, as mlx5_core's function its Ethernet one. */
Test(codec, nested_instances_are_read_from_a_device_message)
{
	struct nl_msg *msg = msg_new(DEVLINK_CMD_NEW);
	char handles[DLH_NESTED_MAX][DLH_HANDLE_MAX];

	cr_assert_eq(dlh__dev_put(msg, "pci", "0000:03:00.0"), 0);
	cr_expect_eq(dlh__nested_get(nlmsg_hdr(msg), handles, DLH_NESTED_MAX), 0, "6.1 names none");
	nested_put(msg, "auxiliary", "mlx5_core.eth.0", -1);
	nested_put(msg, "auxiliary", "mlx5_core.sf.4", 3); /* in another namespace: not in this view */
	nested_put(msg, "auxiliary", "", -1);		   /* malformed: an empty device name */
	nested_put(msg, NULL, "mlx5_core.eth.1", -1);	   /* and one with no bus */
	nested_put(msg, "pci", "0000:04:00.0", -1);
	cr_assert_eq(dlh__nested_get(nlmsg_hdr(msg), handles, DLH_NESTED_MAX), 2);
	cr_expect_str_eq(handles[0], "auxiliary/mlx5_core.eth.0");
	cr_expect_str_eq(handles[1], "pci/0000:04:00.0");
	cr_expect_eq(dlh__nested_get(nlmsg_hdr(msg), handles, 1), 1, "at most max");
	nlmsg_free(msg);
}
