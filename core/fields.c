/* SPDX-License-Identifier: MIT */
/*
 * A port's fields, said once: what each one is and when a port has it, for
 * every front end that lists ports (dl's text and JSON, the Lua binding's
 * fields, the metrics' labels), each in its own order and words.
 */
#include "core.h"

static const char *const names[] = {
#define DLH_X(s, n) [DLH_PORT_FIELD_##s] = n,
    DLH_PORT_FIELD_MAP(DLH_X)
#undef DLH_X
};

DLH_EXPORT const char *dlh_port_field_name(enum dlh_port_field f)
{
	return (unsigned int)f < DLH_PORT_FIELD_COUNT ? names[f] : "unknown";
}

/* Only the member the kind names is set: a listing asks for each field of every port. */
static enum dlh_value_kind str(struct dlh_value *v, const char *s)
{
	v->str = s;
	return v->kind = s ? DLH_VALUE_STR : DLH_VALUE_NONE;
}

static enum dlh_value_kind uint_if(struct dlh_value *v, bool has, uint64_t u)
{
	v->uint = u;
	return v->kind = has ? DLH_VALUE_UINT : DLH_VALUE_NONE;
}

/* The model's own fields are read here directly (a listing asks for each of every port's). */
DLH_EXPORT enum dlh_value_kind dlh_port_field(const struct dlh_port *port, enum dlh_port_field f, struct dlh_value *v)
{
	const struct dlh_sdk_port_attrs *a = &port->attrs;
	uint32_t module = 0, lane = 0;
	bool has_module;

	switch (f) {
	case DLH_PORT_FIELD_TYPE:
		return str(v, dlh_port_type_name(port->type));
	case DLH_PORT_FIELD_DESIRED_TYPE:
		return str(v,
			   port->desired_type == DLH_PORT_TYPE_NOTSET ? NULL : dlh_port_type_name(port->desired_type));
	case DLH_PORT_FIELD_NETDEV:
		return str(v, dlh__port_netdev(port));
	case DLH_PORT_FIELD_IBDEV:
		return str(v, dlh__port_ibdev(port));
	case DLH_PORT_FIELD_FLAVOUR:
		return str(v, dlh_port_flavour_name(a->flavour));
	case DLH_PORT_FIELD_NUMBER:
		return uint_if(v, dlh__port_has_number(port), a->number);
	case DLH_PORT_FIELD_SPLIT_GROUP:
		return uint_if(v, a->split, a->split_group);
	case DLH_PORT_FIELD_SPLIT_SUBPORT:
		return uint_if(v, a->split, a->split_subport);
	case DLH_PORT_FIELD_LANES:
		return uint_if(v, a->lanes != 0, a->lanes);
	case DLH_PORT_FIELD_SPLITTABLE:
		v->boolean = a->splittable;
		return v->kind = DLH_VALUE_BOOL;
	/* what a relay's rules fill in (dlh_port_speed(), dlh_port_module()) */
	case DLH_PORT_FIELD_SPEED:
		return uint_if(v, dlh_port_speed(port) != 0, dlh_port_speed(port));
	case DLH_PORT_FIELD_MODULE:
	case DLH_PORT_FIELD_LANE:
		has_module = dlh_port_module(port, &module, &lane);
		return uint_if(v, has_module, f == DLH_PORT_FIELD_MODULE ? module : lane);
	default:
		return str(v, NULL);
	}
}
