/* SPDX-License-Identifier: MIT */
/* Device objects: handle, bus, name, driver; their ports; emulator controls. */
#include "ldlhal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static struct dlh_dev *resolve(lua_State *L, int idx, struct lobj **o)
{
	struct lctx *c;

	*o = luaL_checkudata(L, idx, LDLHAL_DEV);
	lua_getiuservalue(L, idx, 1);
	c = lua_touserdata(L, -1);
	lua_pop(L, 1);
	return c && c->ctx ? dlh_dev_find(c->ctx, (*o)->handle) : NULL;
}

static int gone(lua_State *L, const struct lobj *o)
{
	char msg[DLH_HANDLE_MAX + 32];

	snprintf(msg, sizeof(msg), "%s: Device was removed", o->handle);
	return ldlhal_fail(L, -ENODEV, msg);
}

void ldlhal_dev_push(lua_State *L, int ctx_idx, const struct dlh_dev *dev)
{
	struct lobj *o;

	ctx_idx = lua_absindex(L, ctx_idx);
	o = lua_newuserdatauv(L, sizeof(*o), 1);
	snprintf(o->handle, sizeof(o->handle), "%s", dlh_dev_handle(dev));
	snprintf(o->dev, sizeof(o->dev), "%s", dlh_dev_handle(dev));
	o->index = 0;
	luaL_setmetatable(L, LDLHAL_DEV);
	lua_pushvalue(L, ctx_idx);
	lua_setiuservalue(L, -2, 1);
}

void ldlhal_dev_table(lua_State *L, const struct dlh_dev *dev)
{
	lua_createtable(L, 0, 4);
	lua_pushstring(L, dlh_dev_handle(dev));
	lua_setfield(L, -2, "handle");
	lua_pushstring(L, dlh_dev_bus(dev));
	lua_setfield(L, -2, "bus");
	lua_pushstring(L, dlh_dev_name(dev));
	lua_setfield(L, -2, "name");
	lua_pushstring(L, dlh_dev_driver(dev));
	lua_setfield(L, -2, "driver");
}

static int dev_index(lua_State *L)
{
	struct lobj *o = luaL_checkudata(L, 1, LDLHAL_DEV);
	const char *key = luaL_checkstring(L, 2);
	struct dlh_dev *dev;

	lua_pushvalue(L, 2);
	if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL)
		return 1;
	if (!strcmp(key, "handle")) {
		lua_pushstring(L, o->handle);
		return 1;
	}
	dev = resolve(L, 1, &o);
	if (!dev)
		return 0;
	if (!strcmp(key, "bus"))
		lua_pushstring(L, dlh_dev_bus(dev));
	else if (!strcmp(key, "name"))
		lua_pushstring(L, dlh_dev_name(dev));
	else if (!strcmp(key, "driver"))
		lua_pushstring(L, dlh_dev_driver(dev));
	else
		return luaL_error(L, "device has no field \"%s\"", key);
	return 1;
}

static int dev_newindex(lua_State *L)
{
	return luaL_error(L, "device fields are read-only (\"%s\")", luaL_checkstring(L, 2));
}

static int dev_tostring(lua_State *L)
{
	struct lobj *o;

	if (resolve(L, 1, &o))
		lua_pushstring(L, o->handle);
	else
		lua_pushfstring(L, "%s: removed", o->handle);
	return 1;
}

static int dev_eq(lua_State *L)
{
	struct lobj *a = luaL_checkudata(L, 1, LDLHAL_DEV), *b = luaL_checkudata(L, 2, LDLHAL_DEV);

	lua_getiuservalue(L, 1, 1);
	lua_getiuservalue(L, 2, 1);
	lua_pushboolean(L, lua_rawequal(L, -1, -2) && !strcmp(a->handle, b->handle));
	return 1;
}

static int dev_totable(lua_State *L)
{
	struct lobj *o;
	struct dlh_dev *dev = resolve(L, 1, &o);

	if (!dev)
		return gone(L, o);
	ldlhal_dev_table(L, dev);
	return 1;
}

/* The ports as they are now, in listing order: changes while iterating do not disturb it. */
static int dev_ports(lua_State *L)
{
	struct lobj *o;
	struct dlh_dev *dev = resolve(L, 1, &o);
	int n = 0;

	if (!dev)
		return gone(L, o);
	lua_getiuservalue(L, 1, 1);
	lua_createtable(L, (int)dlh_dev_port_count(dev), 0);
	for (struct dlh_port *p = dlh_port_first(dev); p; p = dlh_port_next(p)) {
		ldlhal_port_push(L, -2, p);
		lua_rawseti(L, -2, ++n);
	}
	ldlhal_iter_push(L);
	return 1;
}

static int dev_port(lua_State *L)
{
	struct lobj *o;
	struct dlh_dev *dev = resolve(L, 1, &o);
	lua_Integer index = luaL_checkinteger(L, 2);
	struct dlh_port *p;
	char msg[DLH_HANDLE_MAX + 48];

	luaL_argcheck(L, index >= 0 && index <= UINT32_MAX, 2, "port index out of range");
	if (!dev)
		return gone(L, o);
	p = dlh_port_find(dev, (uint32_t)index);
	if (!p) {
		snprintf(msg, sizeof(msg), "%s/%u: Port does not exist", o->handle, (unsigned)index);
		return ldlhal_fail(L, -ENODEV, msg);
	}
	lua_getiuservalue(L, 1, 1);
	ldlhal_port_push(L, -1, p);
	return 1;
}

static int dev_sim(lua_State *L)
{
	struct lobj *o;
	struct dlh_dev *dev = resolve(L, 1, &o);
	struct lctx *c;

	if (!dev)
		return gone(L, o);
	lua_getiuservalue(L, 1, 1);
	c = lua_touserdata(L, -1);
	lua_pop(L, 1);
	return ldlhal_sim(L, c, dev, NULL);
}

void ldlhal_dev_open(lua_State *L)
{
	static const luaL_Reg methods[] = {
	    {"ports", dev_ports}, {"port", dev_port}, {"totable", dev_totable}, {"sim", dev_sim}, {NULL, NULL},
	};
	static const luaL_Reg meta[] = {
	    {"__newindex", dev_newindex},
	    {"__tostring", dev_tostring},
	    {"__eq", dev_eq},
	    {NULL, NULL},
	};

	luaL_newmetatable(L, LDLHAL_DEV);
	luaL_setfuncs(L, meta, 0);
	luaL_newlib(L, methods);
	lua_pushcclosure(L, dev_index, 1);
	lua_setfield(L, -2, "__index");
	lua_pushliteral(L, "dlhal.dev");
	lua_setfield(L, -2, "__metatable");
	lua_pop(L, 1);
}
