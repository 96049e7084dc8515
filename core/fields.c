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

static enum dlh_value_kind str(struct dlh_value *v, const char *s)
{
	*v = (struct dlh_value){.kind = s ? DLH_VALUE_STR : DLH_VALUE_NONE, .str = s};
	return v->kind;
}

static enum dlh_value_kind uint_if(struct dlh_value *v, bool has, uint64_t u)
{
	*v = (struct dlh_value){.kind = has ? DLH_VALUE_UINT : DLH_VALUE_NONE, .uint = u};
	return v->kind;
}

DLH_EXPORT enum dlh_value_kind dlh_port_field(const struct dlh_port *port, enum dlh_port_field f, struct dlh_value *v)
{
	enum dlh_port_type des;
	uint32_t module = 0, lane = 0;
	bool has_module;

	switch (f) {
	case DLH_PORT_FIELD_TYPE:
		return str(v, dlh_port_type_name(dlh_port_type(port)));
	case DLH_PORT_FIELD_DESIRED_TYPE:
		des = dlh_port_desired_type(port);
		return str(v, des == DLH_PORT_TYPE_NOTSET ? NULL : dlh_port_type_name(des));
	case DLH_PORT_FIELD_NETDEV:
		return str(v, dlh_port_netdev(port));
	case DLH_PORT_FIELD_IBDEV:
		return str(v, dlh_port_ibdev(port));
	case DLH_PORT_FIELD_FLAVOUR:
		return str(v, dlh_port_flavour_name(dlh_port_flavour(port)));
	case DLH_PORT_FIELD_NUMBER:
		return uint_if(v, dlh_port_has_number(port), dlh_port_number(port));
	case DLH_PORT_FIELD_SPLIT_GROUP:
		return uint_if(v, dlh_port_is_split(port), dlh_port_split_group(port));
	case DLH_PORT_FIELD_SPLIT_SUBPORT:
		return uint_if(v, dlh_port_is_split(port), dlh_port_split_subport(port));
	case DLH_PORT_FIELD_LANES:
		return uint_if(v, dlh_port_lanes(port) != 0, dlh_port_lanes(port));
	case DLH_PORT_FIELD_SPLITTABLE:
		*v = (struct dlh_value){.kind = DLH_VALUE_BOOL, .boolean = dlh_port_splittable(port)};
		return v->kind;
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
