/* SPDX-License-Identifier: MIT */
/* E810's port-option rules (rules.h), in ice's words. */
#include "rules.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static int option_parse(const struct dlh_sdk_json *j, size_t i, struct ice_port_option *opt)
{
	unsigned int used = 0;
	char path[64];
	uint64_t pmd;
	size_t n = 0;

	snprintf(path, sizeof(path), "options[%zu].split", i);
	if (dlh_sdk_json_uint(j, path, 1, ICE_MAX_PORT_PER_PCI_DEV, &pmd, NULL))
		return -EINVAL;
	snprintf(path, sizeof(path), "options[%zu].lanes", i);
	if (dlh_sdk_json_count(j, path, &n, NULL) || n != ICE_MAX_PORT_PER_PCI_DEV)
		return -EINVAL;
	opt->pmd = (uint8_t)pmd;
	for (size_t k = 0; k < n; k++) {
		double gbps;

		snprintf(path, sizeof(path), "options[%zu].lanes[%zu]", i, k);
		if (dlh_sdk_json_number(j, path, 0, 400, &gbps, NULL))
			return -EINVAL;
		opt->lane_mbps[k] = (uint32_t)(gbps * 1000 + 0.5);
		used += opt->lane_mbps[k] != 0;
	}
	/* a PF per lane in use: the firmware would not offer more ports than lanes, or lanes no port uses */
	return used == opt->pmd ? 0 : -ERANGE;
}

int ice_options_parse(const struct dlh_sdk_json *j, struct ice_port_option *opts, size_t *n, struct dlh_extack *ext)
{
	if (dlh_sdk_json_count(j, "options", n, NULL) || !*n || *n > ICE_AQC_PORT_OPT_MAX)
		return dlh_sdk_extack(ext, -EINVAL, "options: expected 1 to %d options", ICE_AQC_PORT_OPT_MAX);
	for (size_t i = 0; i < *n; i++) {
		int err = option_parse(j, i, &opts[i]);

		if (err == -ERANGE)
			return dlh_sdk_extack(ext, -EINVAL,
					      "options[%zu]: split %u, but not as many lanes in use (a port per lane)",
					      i, opts[i].pmd);
		if (err)
			return dlh_sdk_extack(
			    ext, -EINVAL, "options[%zu]: expected {\"split\": 1 to 8, \"lanes\": [8 speeds in Gb/s]}",
			    i);
	}
	return 0;
}

int ice_handle_parse(const char *handle, struct ice_facts *f)
{
	const char *slash = handle ? strchr(handle, '/') : NULL, *dot = handle ? strrchr(handle, '.') : NULL;

	if (!slash || !dot || dot < slash || dot == slash + 1 || (size_t)(slash - handle) >= sizeof(f->bus_name) ||
	    (size_t)(dot - slash - 1) >= sizeof(f->slot) || dot[1] < '0' || dot[1] > '7' || dot[2])
		return -EINVAL;
	snprintf(f->bus_name, sizeof(f->bus_name), "%.*s", (int)(slash - handle), handle);
	snprintf(f->slot, sizeof(f->slot), "%.*s", (int)(dot - slash - 1), slash + 1);
	return 0;
}

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

/* ice's choice from option @s, as if it were the active one and nothing were pending. */
static int split_from(const struct ice_facts *f, uint8_t s, unsigned int count, uint8_t *opt, struct dlh_extack *ext)
{
	struct ice_facts g = *f;

	g.active = s;
	g.pending = -1;
	return ice_split_option(&g, count, opt, ext);
}

/*
 * A split by @count from each option of @from (a bit each): 0, with *to the options it may choose,
 * or ice's refusal, when they all decide alike; 1 when they do not, with *at an option whose
 * choice differs from the others' (the refusal's, when one is refused).
 */
static int choose(const struct ice_facts *f, uint16_t from, unsigned int count, uint16_t *to, uint8_t *at,
		  struct dlh_extack *ext)
{
	struct dlh_extack first = {0}, e;
	int err0 = 0, n = 0;
	uint8_t opt, first_at = 0;

	*to = 0;
	for (uint8_t s = 0; s < f->count; s++) {
		int err;

		if (!(from & (1u << s)))
			continue;
		err = split_from(f, s, count, &opt, &e);
		if (!n++) {
			err0 = err;
			first = e;
			first_at = s;
		} else if (!err != !err0 || (err && strcmp(e.msg, first.msg))) {
			*at = err ? s : first_at;
			return 1;
		}
		if (!err)
			*to |= (uint16_t)(1u << opt);
	}
	if (err0)
		return dlh_sdk_extack(ext, err0, "%s", first.msg);
	return 0;
}

static uint8_t lowest(uint16_t set)
{
	uint8_t i = 0;

	while (set && !(set & 1u)) {
		set >>= 1;
		i++;
	}
	return i;
}

/* The options the next split searches from: the pending one, else the active one (a kernel's: any). */
static uint16_t from_of(const struct ice_facts *f)
{
	if (f->kernel)
		return f->from;
	return (uint16_t)(1u << (f->pending >= 0 ? f->pending : f->active));
}

/* The PCI function of a kernel device's handle ("dlhal/0000:16:00.2": 2). */
static unsigned int function_of(const struct dlh_dev *dev)
{
	const char *h = dlh_dev_handle(dev);

	return (unsigned int)(h[strlen(h) - 1] - '0');
}

/*
 * The options a kernel PF's card may run (a bit each): those with as many ports as the card has
 * PFs in the context, numbered from .0 (Linux registers one devlink instance, with one port, per
 * PF). Counted when asked, not once: after a reset the PFs come one by one. 0, saying why in
 * @why, while they do not number from .0, or no option has that many ports.
 */
static uint16_t card_runs(const struct dlh_dev *dev, char *why, size_t len)
{
	const struct ice_facts *f = dlh_sdk_dev_facts(dev);
	unsigned int npf = 0, pfs = 0;
	uint16_t runs = 0;

	for (struct dlh_dev *d = dlh_dev_first(dlh_sdk_dev_ctx(dev)); d; d = dlh_dev_next(d)) {
		struct ice_facts g;

		if (!ice_handle_parse(dlh_dev_handle(d), &g) && !strcmp(g.bus_name, f->bus_name) &&
		    !strcmp(g.slot, f->slot)) {
			npf++;
			pfs |= 1u << function_of(d);
		}
	}
	if (pfs != (1u << npf) - 1) {
		snprintf(why, len, "the card's functions are not %s.0 to %s.%u", f->slot, f->slot, npf - 1);
		return 0;
	}
	for (uint8_t i = 0; i < f->count; i++)
		if (f->options[i].pmd == npf)
			runs |= (uint16_t)(1u << i);
	if (!runs)
		snprintf(why, len, "the card has %u PFs; no option of the board has %u ports", npf, npf);
	return runs;
}

/*
 * What the card will be after the reset: the chosen option's PCI functions, one port each. In a
 * sequence, the splits planned before this one on the device are pending by then: this one searches
 * from the last of them, as the op would. On a kernel device the option may be one of several (Linux
 * reports neither the active nor the pending one): the plan is exact where every one of them decides
 * alike, and partial, saying why, where not. udev names a kernel device's netdevs: the plan names none.
 */
/* @from, narrowed by the splits planned before this one in a sequence: each searches from the last. */
static uint16_t after_before(const struct ice_facts *f, uint16_t from, const struct dlh_change_req *before, size_t n)
{
	uint16_t to;
	uint8_t at;

	for (size_t i = 0; i < n; i++) {
		unsigned int c = before[i].kind == DLH_CHANGE_SPLIT ? before[i].count : 1;

		if (before[i].kind != DLH_CHANGE_TYPE && !choose(f, from, c, &to, &at, NULL))
			from = to;
	}
	return from;
}

/*
 * Whether a refusal (@err, @said) rests on what was learnt from the kernel's answers: from every
 * option it would not be alike. Such a refusal is not certain (iproute2 may have split behind
 * dlhal's back), and a refusal is not sent: the kernel would never say it was wrong.
 */
static bool refused_as_learnt(const struct ice_facts *f, const struct dlh_change_req *before, size_t n,
			      unsigned int count, int err, const struct dlh_extack *said)
{
	const uint16_t all = (uint16_t)((1u << f->count) - 1);
	struct dlh_extack e = {0};
	uint16_t to;
	uint8_t at;

	if (!f->kernel || f->from == all)
		return false;
	return choose(f, after_before(f, all, before, n), count, &to, &at, &e) != err || strcmp(e.msg, said->msg);
}

static int plan_to(struct dlh_port *port, unsigned int count, struct dlh_sdk_plan *plan, struct dlh_extack *ext)
{
	const struct ice_facts *f = dlh_sdk_dev_facts(dlh_port_dev(port));
	const struct dlh_change_req *before;
	char handle[160], netdev[16], why[128];
	struct dlh_extack said = {0};
	uint16_t from, to;
	uint8_t opt, at;
	size_t n;
	int err;

	if (f->kernel && !card_runs(dlh_port_dev(port), why, sizeof(why))) {
		dlh_sdk_plan_partial(plan);
		return dlh_sdk_extack(ext, 0, "Cannot tell which port option the card runs: %s", why);
	}
	before = dlh_sdk_plan_before(plan, &n);
	from = after_before(f, from_of(f), before, n);
	err = choose(f, from, count, &to, &at, &said);
	if (err == 1) {
		dlh_sdk_plan_partial(plan);
		return dlh_sdk_extack(ext, 0,
				      "The kernel does not report the card's pending port option: a split into %u is "
				      "refused if it is option %u",
				      count, at);
	}
	if (err && refused_as_learnt(f, before, n, count, err, &said)) {
		dlh_sdk_plan_partial(plan); /* sent: the kernel decides, and says if what was learnt is wrong */
		return dlh_sdk_extack(ext, 0,
				      "%s, if the pending port option is still the one dlhal learnt (the kernel "
				      "does not report it)",
				      said.msg);
	}
	if (err)
		return dlh_sdk_extack(ext, err, "%s", said.msg);
	opt = lowest(to);
	for (unsigned int pf = 0; pf < f->options[opt].pmd; pf++) {
		struct dlh_sdk_port_attrs attrs;

		ice_port_attrs(f, opt, pf, &attrs);
		snprintf(handle, sizeof(handle), "%s/%s.%u", f->bus_name, f->slot, pf);
		snprintf(netdev, sizeof(netdev), "%s%u", f->netdev_prefix, pf);
		err = dlh_sdk_plan_after(plan, handle, 0, &attrs, DLH_PORT_TYPE_ETH, f->kernel ? NULL : netdev, ext);
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

/*
 * Take a PF that Linux's ice runs: the card's option table from the profile; the options it may run
 * from how many PFs its slot has (card_runs); which one it runs, and what it has pending, Linux does
 * not report. Every PF of the card is one card.
 */
static int ice_rules_attach(struct dlh_dev *dev, const char *config, struct dlh_extack *ext)
{
	struct ice_facts *f = dlh_sdk_dev_facts(dev);
	struct dlh_sdk_json *hw = NULL;
	char card[sizeof(f->bus_name) + sizeof(f->slot) + 4];
	unsigned int nports = 0;
	size_t n;
	int err;

	if (!config)
		return dlh_sdk_extack(ext, -EINVAL, "field \"hw\": missing");
	err = dlh_sdk_json_parse(config, "hw", &hw, ext);
	if (!err)
		err = ice_options_parse(hw, f->options, &n, ext);
	dlh_sdk_json_free(hw);
	if (err)
		return err;
	f->count = (uint8_t)n;
	if (ice_handle_parse(dlh_dev_handle(dev), f))
		return dlh_sdk_extack(ext, -EINVAL, "%s is not a PCI function's", dlh_dev_handle(dev));
	for (struct dlh_port *p = dlh_port_first(dev); p; p = dlh_port_next(p), nports++)
		if (dlh_port_index(p) != 0 || dlh_port_flavour(p) != DLH_PORT_FLAVOUR_PHYSICAL)
			return dlh_sdk_extack(ext, -EINVAL, "port %u is not a PF's one port, 0", dlh_port_index(p));
	if (nports != 1)
		return dlh_sdk_extack(ext, -EINVAL, "the kernel reports %u ports; a PF has one", nports);
	f->kernel = true;
	f->from = (uint16_t)((1u << f->count) - 1);
	f->pending = -1;
	snprintf(card, sizeof(card), "%s/%s.0", f->bus_name, f->slot);
	return dlh_sdk_dev_card_set(dev, card, ext);
}

/* Where a kernel PF's port sits (the option's lanes): known when one option has as many ports as PFs. */
static void ice_port_attrs_fill(const struct dlh_dev *dev, uint32_t index, struct dlh_sdk_port_attrs *attrs)
{
	const struct ice_facts *f = dlh_sdk_dev_facts(dev);
	struct dlh_sdk_port_attrs a;
	char why[128];
	uint16_t runs;

	if (!f->kernel || index != 0)
		return;
	runs = card_runs(dev, why, sizeof(why));
	if (!runs || (runs & (runs - 1)))
		return;
	ice_port_attrs(f, lowest(runs), function_of(dev), &a);
	attrs->speed = a.speed;
	attrs->has_module = a.has_module;
	attrs->module = a.module;
	attrs->lane = a.lane;
}

/* PF 0 shows the split a kernel PF's card has pending: stored by dlhal, as the kernel does not report it. */
static void pending_show(struct dlh_dev *dev, unsigned int count)
{
	struct dlh_pending p = {.split = count};

	snprintf(p.message, sizeof(p.message),
		 "Reboot required to finish port split (stored by dlhal: the kernel does not report it)");
	dlh_sdk_dev_pending_set(dev, &p);
}

/*
 * The options the next split may search from, once the kernel answered a split into @c with @err
 * (its message in @ext), searched from one of @set: done, those the search chose; refused in ice's
 * words, those that refuse so. 0: none of @set would have it so.
 */
static uint16_t learn(const struct ice_facts *f, uint16_t set, unsigned int c, int err, const struct dlh_extack *ext)
{
	uint16_t from = 0;
	uint8_t opt;

	for (uint8_t s = 0; s < f->count; s++) {
		struct dlh_extack e;
		int r;

		if (!(set & (1u << s)))
			continue;
		r = split_from(f, s, c, &opt, &e);
		if (!err && !r)
			from |= (uint16_t)(1u << opt);
		else if (err && r == err && ext && strstr(ext->msg, e.msg))
			from |= (uint16_t)(1u << s);
	}
	return from;
}

/*
 * The kernel answered a split (an unsplit is one into 1) of a kernel PF: what Linux does not report,
 * learnt from it, and PF 0 shows a split done pending (said to be ours: the kernel does not report
 * it). What was learnt before may be wrong: a split made behind dlhal's back (iproute2's), or one
 * kept from before a reset this process did not see. The check has then said the plan missed, and
 * the answer is learnt from again from nothing known. Every PF of the card learns it; a reset brings
 * up new devices, which start from nothing known.
 */
static void ice_kernel_answered(struct dlh_dev *dev, const struct dlh_change_req *req, int err,
				const struct dlh_extack *ext)
{
	const struct ice_facts *f = dlh_sdk_dev_facts(dev);
	const uint16_t all = (uint16_t)((1u << f->count) - 1);
	uint16_t from;
	unsigned int c;

	if (!f->kernel || req->kind == DLH_CHANGE_TYPE || (err && err != -EINVAL))
		return;
	c = req->kind == DLH_CHANGE_SPLIT ? req->count : 1;
	from = learn(f, f->from, c, err, ext);
	if (!from)
		from = learn(f, all, c, err, ext);
	if (!from)
		from = all; /* the table does not explain it: nothing is known */
	for (struct dlh_dev *d = dlh_dev_first(dlh_sdk_dev_ctx(dev)); d; d = dlh_dev_next(d)) {
		struct ice_facts *g, at;

		if (ice_handle_parse(dlh_dev_handle(d), &at) || strcmp(at.bus_name, f->bus_name) ||
		    strcmp(at.slot, f->slot))
			continue;
		dlh_dev_rules(d, NULL); /* the card's other PFs: recognised now if they were not */
		if (dlh_sdk_dev_rules(d) != &ice_rules)
			continue;
		g = dlh_sdk_dev_facts(d);
		if (g->kernel) {
			g->from = from;
			if (!err && function_of(d) == 0)
				pending_show(d, c);
		}
	}
}

/*
 * What a kernel PF learnt: {"from": [the options the next split may search from], "split": the count
 * of the split pending (PF 0's)}; "" while it knows no more than the table.
 */
static int ice_learnt_save(const struct dlh_dev *dev, char *buf, size_t len, struct dlh_extack *ext)
{
	const struct ice_facts *f = dlh_sdk_dev_facts(dev);
	struct dlh_pending p;
	json_t *o, *from;
	char *text;
	int err = 0;

	buf[0] = '\0';
	if (!f->kernel || f->from == (uint16_t)((1u << f->count) - 1))
		return 0;
	o = json_object();
	from = json_array();
	for (uint8_t i = 0; i < f->count && o && from; i++)
		if (f->from & (1u << i) && json_array_append_new(from, json_integer(i)))
			err = -ENOMEM;
	if (!err && (!o || json_object_set_new(o, "from", from)))
		err = -ENOMEM;
	if (!err && dlh_dev_pending(dev, &p) && p.split && json_object_set_new(o, "split", json_integer(p.split)))
		err = -ENOMEM;
	text = err ? NULL : json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (!text)
		return dlh_sdk_extack(ext, -ENOMEM, "Out of memory");
	if (strlen(text) >= len)
		err = dlh_sdk_extack(ext, -ENOSPC, "What ice's rules learnt takes %zu bytes", strlen(text) + 1);
	else
		snprintf(buf, len, "%s", text);
	free(text);
	return err;
}

static int ice_learnt_restore(struct dlh_dev *dev, const char *json, struct dlh_extack *ext)
{
	struct ice_facts *f = dlh_sdk_dev_facts(dev);
	json_t *o = json_loads(json, JSON_REJECT_DUPLICATES, NULL), *from = json_object_get(o, "from"), *v;
	json_t *split = json_object_get(o, "split");
	uint16_t set = 0;
	size_t i;
	int err = 0;

	if (!f->kernel || !json_is_object(o) || !json_is_array(from) || !json_array_size(from) ||
	    json_object_size(o) != (split ? 2u : 1u))
		err = -EINVAL;
	json_array_foreach(from, i, v)
	{
		if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) >= f->count)
			err = -EINVAL;
		else
			set |= (uint16_t)(1u << json_integer_value(v));
	}
	if (split && (!json_is_integer(split) || json_integer_value(split) < 1 ||
		      json_integer_value(split) > ICE_MAX_PORT_PER_PCI_DEV || function_of(dev) != 0))
		err = -EINVAL;
	if (!err) {
		f->from = set;
		if (split)
			pending_show(dev, (unsigned int)json_integer_value(split));
	}
	json_decref(o);
	return err ? dlh_sdk_extack(ext, err,
				    "expected {\"from\": [options of the table, 0 to %u], \"split\": PF 0's count}",
				    f->count - 1u)
		   : 0;
}

static const char *const ice_kernel_drivers[] = {"ice", NULL};

const struct dlh_sdk_rules ice_rules = {
    .kernel_drivers = ice_kernel_drivers,
    .facts_size = sizeof(struct ice_facts),
    .attach = ice_rules_attach,
    .port_attrs_fill = ice_port_attrs_fill,
    .kernel_answered = ice_kernel_answered,
    .learnt_save = ice_learnt_save,
    .learnt_restore = ice_learnt_restore,
    .port_split_plan = ice_port_split_plan,
    .port_unsplit_plan = ice_port_unsplit_plan,
};
