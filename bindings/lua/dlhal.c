/* SPDX-License-Identifier: MIT */
/*
 * require "dlhal": the Lua 5.4 binding of <dlhal/dlhal.h>. A refused
 * operation returns nil, message, errname (as luv does); misuse (a wrong
 * argument type, an unknown word, a count that is no integer) raises.
 */
#include "ldlhal.h"

#include <string.h>

void ldlhal_options_check(lua_State *L, int idx, const char *const *known, const char *list)
{
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		const char *const *k = known;

		lua_pop(L, 1);
		for (; *k && !(lua_type(L, -1) == LUA_TSTRING && !strcmp(lua_tostring(L, -1), *k)); k++)
			;
		if (!*k)
			luaL_argerror(
			    L, idx,
			    lua_pushfstring(L, "unknown option %s (expected %s)", luaL_tolstring(L, -1, NULL), list));
	}
}

#include <string.h>

#define LDLHAL_EXPORT __attribute__((visibility("default")))

int ldlhal_fail(lua_State *L, int err, const char *msg)
{
	const char *name = strerrorname_np(err < 0 ? -err : err);

	lua_pushnil(L);
	lua_pushstring(L, msg && *msg ? msg : strerror(err < 0 ? -err : err));
	lua_pushstring(L, name ? name : "EIO");
	return 3;
}

int ldlhal_fail_ext(lua_State *L, int err, const struct dlh_extack *ext)
{
	char buf[DLH_EXTACK_MSG_MAX + DLH_HANDLE_MAX];

	return ldlhal_fail(L, err, dlh_extack_str(ext, buf, sizeof(buf)));
}

static int iter_next(lua_State *L)
{
	lua_Integer i = lua_tointeger(L, lua_upvalueindex(2)) + 1;

	lua_pushinteger(L, i);
	lua_replace(L, lua_upvalueindex(2));
	lua_rawgeti(L, lua_upvalueindex(1), i);
	return 1;
}

void ldlhal_iter_push(lua_State *L)
{
	lua_pushinteger(L, 0);
	lua_pushcclosure(L, iter_next, 2);
}

int ldlhal_sim(lua_State *L, struct lctx *c, struct dlh_dev *dev, struct dlh_port *port)
{
	const char *key = luaL_checkstring(L, 2), *value = luaL_optstring(L, 3, NULL);
	struct dlh_extack ext;
	char buf[8192];
	int err;

	ldlhal_ctx_enter(L, c, "use an emulator control");
	err = value ? dlh_dev_sim_set(dev, port, key, value, &ext)
		    : dlh_dev_sim_get(dev, port, key, buf, sizeof(buf), &ext);
	if (err)
		return ldlhal_fail_ext(L, err, &ext);
	if (value)
		lua_pushboolean(L, 1);
	else
		lua_pushstring(L, buf);
	return 1;
}

/* dlhal.port_types, dlhal.flavours, dlhal.events: from the enum tables, not a second copy. */
static void word_lists(lua_State *L)
{
	static const char *const types[] = {
#define DLH_X(s, n, v) n,
	    DLH_PORT_TYPE_MAP(DLH_X)
#undef DLH_X
	};
	static const char *const flavours[] = {
#define DLH_X(s, n, v) n,
	    DLH_PORT_FLAVOUR_MAP(DLH_X)
#undef DLH_X
	};
	static const char *const events[][2] = {
#define DLH_X(s, o, a) {o, a},
	    DLH_EVENT_MAP(DLH_X)
#undef DLH_X
	};

	lua_createtable(L, (int)(sizeof(types) / sizeof(types[0])), 0);
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		lua_pushstring(L, types[i]);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, "port_types");
	lua_createtable(L, (int)(sizeof(flavours) / sizeof(flavours[0])), 0);
	for (size_t i = 0; i < sizeof(flavours) / sizeof(flavours[0]); i++) {
		lua_pushstring(L, flavours[i]);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, "flavours");
	/* {object = "port", action = "new"} for each event type; PORT_CHANGE reads as a port "new", as
	 * devlink monitor prints it */
	lua_createtable(L, (int)(sizeof(events) / sizeof(events[0])), 0);
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		lua_createtable(L, 0, 2);
		lua_pushstring(L, events[i][0]);
		lua_setfield(L, -2, "object");
		lua_pushstring(L, events[i][1]);
		lua_setfield(L, -2, "action");
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, "events");
}

LDLHAL_EXPORT int luaopen_dlhal(lua_State *L)
{
	luaL_checkversion(L);
	lua_newtable(L);
	ldlhal_port_open(L);
	ldlhal_dev_open(L);
	ldlhal_ctx_open(L);
	word_lists(L);
	lua_pushstring(L, DLH_VERSION);
	lua_setfield(L, -2, "version");
	return 1;
}
