/* SPDX-License-Identifier: MIT */
/* E810's port-option rules (rules.h), in ice's words. */
#include "rules.h"

#include <errno.h>
#include <stdio.h>

int ice_split_option(const struct ice_facts *f, unsigned int count, uint8_t *new_option, struct dlh_extack *ext)
{
	uint8_t from = f->pending >= 0 ? (uint8_t)f->pending : f->active;

	*new_option = ICE_AQC_PORT_OPT_MAX;
	/* From the option after the active (or pending) one, wrapping around, so that the same
	 * count asked again moves on to the next option with that count. */
	for (unsigned int i = 1; i <= f->count; i++) {
		uint8_t j = (uint8_t)((from + i) % f->count);

		if (count == f->options[j].pmd) {
			*new_option = j;
			break;
		}
	}
	if (*new_option == from)
		return dlh_sdk_extack(ext, -EINVAL, "Requested split count is already set");
	if (*new_option == ICE_AQC_PORT_OPT_MAX)
		return dlh_sdk_extack(ext, -EINVAL, "Port split requested unsupported port config");
	return 0;
}

/*
 * The lane PF @pf's port uses under option @o: the option's pf-th lane in use (ice.rst's table has a
 * column per lane, quad 0's four then quad 1's; each PF one of them). Which PF takes which lane is
 * not in ice's sources: in order is the choice here (docs/vendors.md). -1 past the option's lanes.
 */
static int pf_lane(const struct ice_port_option *o, unsigned int pf)
{
	for (int l = 0; l < ICE_MAX_PORT_PER_PCI_DEV; l++)
		if (o->lane_mbps[l] && !pf--)
			return l;
	return -1;
}

void ice_port_attrs(const struct ice_facts *f, uint8_t opt, unsigned int pf, struct dlh_sdk_port_attrs *attrs)
{
	int lane = pf_lane(&f->options[opt], pf);
	uint8_t lanes = 0;

	for (uint8_t i = 0; i < f->count; i++)
		lanes = f->options[i].pmd > lanes ? f->options[i].pmd : lanes;
	*attrs = (struct dlh_sdk_port_attrs){.flavour = DLH_PORT_FLAVOUR_PHYSICAL, .number = pf};
	if (pf == 0) {
		attrs->lanes = lanes;
		attrs->splittable = lanes != 0;
	}
	/* the QSFP28 cage (quad) and the lane in it: what a faceplate places the port by */
	if (lane >= 0) {
		attrs->speed = f->options[opt].lane_mbps[lane];
		attrs->has_module = true;
		attrs->module = (uint32_t)lane / ICE_LANES_PER_QUAD;
		attrs->lane = (uint32_t)lane % ICE_LANES_PER_QUAD;
	}
}

/*
 * What the card will be after the reset: the chosen option's PCI functions, one port each. In a
 * sequence, the splits planned before this one on the device are pending by then: this one searches
 * from the last of them, as the op would.
 */
static int plan_to(struct dlh_port *port, unsigned int count, struct dlh_sdk_plan *plan, struct dlh_extack *ext)
{
	const struct ice_facts *facts = dlh_sdk_dev_facts(dlh_port_dev(port));
	struct ice_facts f = *facts;
	const struct dlh_change_req *before;
	char handle[160], netdev[16];
	uint8_t opt;
	size_t n;
	int err;

	before = dlh_sdk_plan_before(plan, &n);
	for (size_t i = 0; i < n; i++) {
		unsigned int c = before[i].kind == DLH_CHANGE_SPLIT ? before[i].count : 1;

		if (before[i].kind != DLH_CHANGE_TYPE && !ice_split_option(&f, c, &opt, NULL))
			f.pending = opt;
	}
	err = ice_split_option(&f, count, &opt, ext);
	if (err)
		return err;
	for (unsigned int pf = 0; pf < f.options[opt].pmd; pf++) {
		struct dlh_sdk_port_attrs attrs;

		ice_port_attrs(&f, opt, pf, &attrs);
		snprintf(handle, sizeof(handle), "%s/%s.%u", f.bus_name, f.slot, pf);
		snprintf(netdev, sizeof(netdev), "%s%u", f.netdev_prefix, pf);
		err = dlh_sdk_plan_after(plan, handle, 0, &attrs, DLH_PORT_TYPE_ETH, netdev, ext);
		if (err)
			return err;
	}
	return 0;
}

static int ice_port_split_plan(struct dlh_port *port, unsigned int count, struct dlh_sdk_plan *plan,
			       struct dlh_extack *ext)
{
	return plan_to(port, count, plan, ext);
}

/* There may be no option of one port: then ice's own "unsupported port config". */
static int ice_port_unsplit_plan(struct dlh_port *port, struct dlh_sdk_plan *plan, struct dlh_extack *ext)
{
	return plan_to(port, 1, plan, ext);
}

const struct dlh_sdk_rules ice_rules = {
    .facts_size = sizeof(struct ice_facts),
    .port_split_plan = ice_port_split_plan,
    .port_unsplit_plan = ice_port_unsplit_plan,
};
