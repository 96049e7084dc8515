/* SPDX-License-Identifier: MIT */
/*
 * Records through a caller's writer (struct dlh_writer): each field named
 * and ordered once, here, for every front end that shows a plan (dl's JSON,
 * the desired-state report, a binding's tables).
 */
#include "core.h"

#include <stdio.h>

static void plan_port_write(const struct dlh_writer *w, const char *dev, const struct dlh_plan_port *c)
{
	char h[2 * DLH_HANDLE_MAX];

	snprintf(h, sizeof(h), "%s/%u", dev, c->index);
	w->obj_open(w->arg, NULL);
	w->str(w->arg, "port", h);
	w->str(w->arg, "type", dlh_port_type_name(c->type));
	if (c->netdev[0])
		w->str(w->arg, "netdev", c->netdev);
	if (c->ibdev[0])
		w->str(w->arg, "ibdev", c->ibdev);
	w->uint(w->arg, "lanes", c->lanes);
	w->boolean(w->arg, "split", c->split);
	if (c->split) {
		w->uint(w->arg, "split_group", c->split_group);
		w->uint(w->arg, "subport", c->split_subport);
	}
	w->obj_close(w->arg);
}

DLH_EXPORT void dlh_plan_write(const struct dlh_plan *plan, const char *dev, const struct dlh_writer *w)
{
	unsigned int ngone = plan->ngone < DLH_PLAN_PORTS_MAX ? plan->ngone : DLH_PLAN_PORTS_MAX;
	unsigned int ncome = plan->ncome < DLH_PLAN_PORTS_MAX ? plan->ncome : DLH_PLAN_PORTS_MAX;
	unsigned int nafter = plan->nafter < DLH_PLAN_PORTS_MAX ? plan->nafter : DLH_PLAN_PORTS_MAX;

	w->boolean(w->arg, "partial", plan->partial);
	w->arr_open(w->arg, "del");
	for (unsigned int i = 0; i < ngone; i++) {
		char h[2 * DLH_HANDLE_MAX];

		snprintf(h, sizeof(h), "%s/%u", dev, plan->gone[i]);
		w->str(w->arg, NULL, h);
	}
	w->arr_close(w->arg);
	w->arr_open(w->arg, "new");
	for (unsigned int i = 0; i < ncome; i++)
		plan_port_write(w, dev, &plan->come[i]);
	w->arr_close(w->arg);
	if (plan->staged) {
		w->boolean(w->arg, "staged", true);
		w->arr_open(w->arg, "after");
		for (unsigned int i = 0; i < nafter; i++)
			plan_port_write(w, plan->after[i].dev, &plan->after[i].port);
		w->arr_close(w->arg);
	}
}
