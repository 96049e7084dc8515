/* SPDX-License-Identifier: MIT */
/* The words of the enums (types, flavours, events, reload actions and limits), from the X-macro tables of dlhal.h. */
#include "core.h"

#include <errno.h>
#include <string.h>

static const struct {
	int value;
	const char *name;
} port_types[] = {
#define DLH_X(s, n, v) {v, n},
    DLH_PORT_TYPE_MAP(DLH_X)
#undef DLH_X
};

static const struct {
	int value;
	const char *name;
} flavours[] = {
#define DLH_X(s, n, v) {v, n},
    DLH_PORT_FLAVOUR_MAP(DLH_X)
#undef DLH_X
};

static const char *const event_objects[] = {
#define DLH_X(s, o, a) o,
    DLH_EVENT_MAP(DLH_X)
#undef DLH_X
};

static const char *const event_actions[] = {
#define DLH_X(s, o, a) a,
    DLH_EVENT_MAP(DLH_X)
#undef DLH_X
};

DLH_EXPORT const char *dlh_port_type_name(enum dlh_port_type type)
{
	for (size_t i = 0; i < DLH__ARRAY_SIZE(port_types); i++)
		if (port_types[i].value == (int)type)
			return port_types[i].name;
	return "unknown";
}

DLH_EXPORT int dlh_port_type_parse(const char *word, enum dlh_port_type *type)
{
	for (size_t i = 0; word && i < DLH__ARRAY_SIZE(port_types); i++) {
		if (!strcmp(port_types[i].name, word)) {
			*type = (enum dlh_port_type)port_types[i].value;
			return 0;
		}
	}
	return -EINVAL;
}

DLH_EXPORT const char *dlh_port_flavour_name(enum dlh_port_flavour flavour)
{
	for (size_t i = 0; i < DLH__ARRAY_SIZE(flavours); i++)
		if (flavours[i].value == (int)flavour)
			return flavours[i].name;
	return "unknown";
}

/* Per port registered or streamed: no name lookup. */
bool dlh__port_type_valid(enum dlh_port_type type)
{
	switch (type) {
#define X(suffix, name, value) case DLH_PORT_TYPE_##suffix:
		DLH_PORT_TYPE_MAP(X)
#undef X
		return true;
	}
	return false;
}

bool dlh__port_flavour_valid(enum dlh_port_flavour flavour)
{
	switch (flavour) {
#define X(suffix, name, value) case DLH_PORT_FLAVOUR_##suffix:
		DLH_PORT_FLAVOUR_MAP(X)
#undef X
		return true;
	}
	return false;
}

DLH_EXPORT const char *dlh_event_object(enum dlh_event_type type)
{
	return (unsigned)type < DLH_EVENT_COUNT ? event_objects[type] : "unknown";
}

DLH_EXPORT const char *dlh_event_action(enum dlh_event_type type)
{
	return (unsigned)type < DLH_EVENT_COUNT ? event_actions[type] : "unknown";
}

static const struct {
	int value;
	const char *name;
} reload_actions[] =
    {
#define DLH_X(s, n, v) {v, n},
	DLH_RELOAD_ACTION_MAP(DLH_X)
#undef DLH_X
},
  reload_limits[] = {
#define DLH_X(s, n, v) {v, n},
      DLH_RELOAD_LIMIT_MAP(DLH_X)
#undef DLH_X
};

DLH_EXPORT const char *dlh_reload_action_name(enum dlh_reload_action action)
{
	for (size_t i = 0; i < DLH__ARRAY_SIZE(reload_actions); i++)
		if (reload_actions[i].value == (int)action)
			return reload_actions[i].name;
	return "unknown";
}

DLH_EXPORT int dlh_reload_action_parse(const char *word, enum dlh_reload_action *action)
{
	for (size_t i = 0; word && i < DLH__ARRAY_SIZE(reload_actions); i++) {
		if (!strcmp(reload_actions[i].name, word)) {
			*action = (enum dlh_reload_action)reload_actions[i].value;
			return 0;
		}
	}
	return -EINVAL;
}

DLH_EXPORT const char *dlh_reload_limit_name(enum dlh_reload_limit limit)
{
	for (size_t i = 0; i < DLH__ARRAY_SIZE(reload_limits); i++)
		if (reload_limits[i].value == (int)limit)
			return reload_limits[i].name;
	return "unknown";
}

DLH_EXPORT int dlh_reload_limit_parse(const char *word, enum dlh_reload_limit *limit)
{
	for (size_t i = 0; word && i < DLH__ARRAY_SIZE(reload_limits); i++) {
		if (!strcmp(reload_limits[i].name, word)) {
			*limit = (enum dlh_reload_limit)reload_limits[i].value;
			return 0;
		}
	}
	return -EINVAL;
}

static const char *const version_kinds[] = {
#define DLH_X(s, n, v) [v] = n,
    DLH_VERSION_KIND_MAP(DLH_X)
#undef DLH_X
};

DLH_EXPORT const char *dlh_version_kind_name(enum dlh_version_kind kind)
{
	return (unsigned)kind < DLH__ARRAY_SIZE(version_kinds) ? version_kinds[kind] : "unknown";
}
