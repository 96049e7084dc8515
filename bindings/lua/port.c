/* SPDX-License-Identifier: MIT */
/* Port objects: read-only fields named as dl -j -d names them, and the operations. */
#include "ldlhal.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The port @idx names, or NULL when it is gone (or its context closed). */
static struct dlh_port *resolve(lua_State *L, int idx, struct lobj **o, struct lctx **c)
{
	struct dlh_dev *dev;

	*o = luaL_checkudata(L, idx, LDLHAL_PORT);
	lua_getiuservalue(L, idx, 1);
	*c = lua_touserdata(L, -1);
	lua_pop(L, 1);
	if (!*c || !(*c)->ctx)
		return NULL;
	dev = dlh_dev_find((*c)->ctx, (*o)->dev);
	return dev ? dlh_port_find(dev, (*o)->index) : NULL;
}

static int gone(lua_State *L, const struct lobj *o)
{
	char msg[DLH_HANDLE_MAX + 32];

	snprintf(msg, sizeof(msg), "%s: Port was removed", o->handle);
	return ldlhal_fail(L, -ENODEV, msg);
}

void ldlhal_port_push(lua_State *L, int ctx_idx, const struct dlh_port *port)
{
	struct lobj *o;

	ctx_idx = lua_absindex(L, ctx_idx);
	o = lua_newuserdatauv(L, sizeof(*o), 1);
	snprintf(o->handle, sizeof(o->handle), "%s", dlh_port_handle(port));
	snprintf(o->dev, sizeof(o->dev), "%s", dlh_dev_handle(dlh_port_dev(port)));
	o->index = dlh_port_index(port);
	luaL_setmetatable(L, LDLHAL_PORT);
	lua_pushvalue(L, ctx_idx);
	lua_setiuservalue(L, -2, 1);
}

/* One field; false if @key is none of them. Absent values push nil. */
static bool field(lua_State *L, const struct dlh_port *p, const char *key)
{
	enum dlh_port_type des = dlh_port_desired_type(p);
	uint32_t module, lane;

	if (!strcmp(key, "type"))
		lua_pushstring(L, dlh_port_type_name(dlh_port_type(p)));
	else if (!strcmp(key, "netdev"))
		lua_pushstring(L, dlh_port_netdev(p));
	else if (!strcmp(key, "ibdev"))
		lua_pushstring(L, dlh_port_ibdev(p));
	else if (!strcmp(key, "desired_type"))
		des == DLH_PORT_TYPE_NOTSET ? lua_pushnil(L) : (void)lua_pushstring(L, dlh_port_type_name(des));
	else if (!strcmp(key, "split_group"))
		dlh_port_is_split(p) ? lua_pushinteger(L, dlh_port_split_group(p)) : lua_pushnil(L);
	else if (!strcmp(key, "split_subport"))
		dlh_port_is_split(p) ? lua_pushinteger(L, dlh_port_split_subport(p)) : lua_pushnil(L);
	else if (!strcmp(key, "lanes"))
		dlh_port_lanes(p) ? lua_pushinteger(L, dlh_port_lanes(p)) : lua_pushnil(L);
	else if (!strcmp(key, "splittable"))
		lua_pushboolean(L, dlh_port_splittable(p));
	else if (!strcmp(key, "flavour"))
		lua_pushstring(L, dlh_port_flavour_name(dlh_port_flavour(p)));
	else if (!strcmp(key, "port"))
		dlh_port_number(p) ? lua_pushinteger(L, dlh_port_number(p)) : lua_pushnil(L);
	else if (!strcmp(key, "speed"))
		dlh_port_speed(p) ? lua_pushinteger(L, dlh_port_speed(p)) : lua_pushnil(L);
	else if (!strcmp(key, "module") || !strcmp(key, "lane"))
		dlh_port_module(p, &module, &lane) ? lua_pushinteger(L, key[0] == 'm' ? module : lane)
						   : lua_pushnil(L);
	else
		return false;
	return true;
}

static const char *const fields[] = {"handle",	"index",      "type",	 "desired_type", "netdev",
				     "ibdev",	"flavour",    "port",	 "split_group",	 "split_subport",
				     "lanes",	"splittable", "speed",	 "module",	 "lane",
				     NULL};

void ldlhal_port_table(lua_State *L, const struct dlh_port *p)
{
	lua_createtable(L, 0, 16);
	lua_pushstring(L, dlh_port_handle(p));
	lua_setfield(L, -2, "handle");
	lua_pushinteger(L, dlh_port_index(p));
	lua_setfield(L, -2, "index");
	lua_pushstring(L, dlh_dev_handle(dlh_port_dev(p)));
	lua_setfield(L, -2, "dev");
	for (const char *const *k = fields + 2; *k; k++) {
		field(L, p, *k);
		lua_setfield(L, -2, *k);
	}
}

static int port_index(lua_State *L)
{
	struct lobj *o = luaL_checkudata(L, 1, LDLHAL_PORT);
	const char *key = luaL_checkstring(L, 2);
	struct dlh_port *p;
	struct lctx *c;

	/* methods first (upvalue 1), then what the handle alone answers, then the live fields */
	lua_pushvalue(L, 2);
	if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL)
		return 1;
	if (!strcmp(key, "handle")) {
		lua_pushstring(L, o->handle);
		return 1;
	}
	if (!strcmp(key, "index")) {
		lua_pushinteger(L, o->index);
		return 1;
	}
	p = resolve(L, 1, &o, &c);
	if (!p)
		return 0; /* a removed port has no fields: nil */
	if (!strcmp(key, "dev")) {
		lua_getiuservalue(L, 1, 1);
		ldlhal_dev_push(L, -1, dlh_port_dev(p));
		return 1;
	}
	if (!field(L, p, key))
		return luaL_error(L, "port has no field \"%s\"", key);
	return 1;
}

static int port_newindex(lua_State *L)
{
	return luaL_error(L, "port fields are read-only (\"%s\")", luaL_checkstring(L, 2));
}

static int port_tostring(lua_State *L)
{
	struct lctx *c;
	struct lobj *o;
	struct dlh_port *p = resolve(L, 1, &o, &c);
	enum dlh_port_type type, des;
	luaL_Buffer b;

	if (!p) {
		lua_pushfstring(L, "%s: removed", o->handle);
		return 1;
	}
	/* dl port show's line, as in seed 001 */
	type = dlh_port_type(p);
	des = dlh_port_desired_type(p);
	luaL_buffinit(L, &b);
	lua_pushfstring(L, "%s: type %s", o->handle, dlh_port_type_name(type));
	luaL_addvalue(&b);
	if (des != DLH_PORT_TYPE_NOTSET && des != type) {
		lua_pushfstring(L, "(%s)", dlh_port_type_name(des));
		luaL_addvalue(&b);
	}
	if (dlh_port_netdev(p)) {
		lua_pushfstring(L, " netdev %s", dlh_port_netdev(p));
		luaL_addvalue(&b);
	}
	if (dlh_port_ibdev(p)) {
		lua_pushfstring(L, " ibdev %s", dlh_port_ibdev(p));
		luaL_addvalue(&b);
	}
	if (dlh_port_is_split(p)) {
		lua_pushfstring(L, " split_group %I", (lua_Integer)dlh_port_split_group(p));
		luaL_addvalue(&b);
	}
	luaL_pushresult(&b);
	return 1;
}

static int port_eq(lua_State *L)
{
	struct lobj *a = luaL_checkudata(L, 1, LDLHAL_PORT), *b = luaL_checkudata(L, 2, LDLHAL_PORT);

	lua_getiuservalue(L, 1, 1);
	lua_getiuservalue(L, 2, 1);
	lua_pushboolean(L, lua_rawequal(L, -1, -2) && !strcmp(a->handle, b->handle));
	return 1;
}

static int port_totable(lua_State *L)
{
	struct lctx *c;
	struct lobj *o;
	struct dlh_port *p = resolve(L, 1, &o, &c);

	if (!p)
		return gone(L, o);
	ldlhal_port_table(L, p);
	return 1;
}

static int port_set_type(lua_State *L)
{
	struct lctx *c;
	struct lobj *o;
	struct dlh_port *p = resolve(L, 1, &o, &c);
	const char *word = luaL_checkstring(L, 2);
	enum dlh_port_type type;
	struct dlh_extack ext;
	int err;

	if (dlh_port_type_parse(word, &type) || type == DLH_PORT_TYPE_NOTSET)
		return luaL_argerror(L, 2, lua_pushfstring(L, "unknown port type \"%s\" (eth, ib or auto)", word));
	if (!p)
		return gone(L, o);
	ldlhal_ctx_enter(L, c);
	err = dlh_port_type_set(p, type, &ext);
	if (err)
		return ldlhal_fail_ext(L, err, &ext);
	lua_pushboolean(L, 1);
	return 1;
}

/* The ports the operation created, in the order it created them. */
static void push_made(lua_State *L, struct lctx *c)
{
	int n = 0;

	lua_getiuservalue(L, 1, 1);
	lua_createtable(L, (int)c->nmade, 0);
	for (size_t i = 0; i < c->nmade; i++) {
		struct dlh_port *p;
		struct dlh_extack ext;

		if (!dlh_port_lookup(c->ctx, c->made[i], &p, &ext)) {
			ldlhal_port_push(L, -2, p);
			lua_rawseti(L, -2, ++n);
		}
	}
	lua_remove(L, -2);
}

static int port_split(lua_State *L)
{
	struct lctx *c;
	struct lobj *o;
	struct dlh_port *p = resolve(L, 1, &o, &c);
	lua_Integer count = luaL_checkinteger(L, 2);
	struct dlh_extack ext;
	int err;

	luaL_argcheck(L, count >= 1 && count <= UINT32_MAX, 2, "split count out of range");
	if (!p)
		return gone(L, o);
	ldlhal_ctx_enter(L, c);
	c->nmade = 0;
	c->collecting = true;
	err = dlh_port_split(p, (unsigned int)count, &ext);
	c->collecting = false;
	if (err)
		return ldlhal_fail_ext(L, err, &ext);
	push_made(L, c);
	return 1;
}

static int port_unsplit(lua_State *L)
{
	struct lctx *c;
	struct lobj *o;
	struct dlh_port *p = resolve(L, 1, &o, &c);
	struct dlh_extack ext;
	int err;

	if (!p)
		return gone(L, o);
	ldlhal_ctx_enter(L, c);
	c->nmade = 0;
	c->collecting = true;
	err = dlh_port_unsplit(p, &ext);
	c->collecting = false;
	if (err)
		return ldlhal_fail_ext(L, err, &ext);
	push_made(L, c);
	return 1;
}

/* port:sim(key) reads an emulator control, port:sim(key, value) sets it (as dl sim). */
static int port_sim(lua_State *L)
{
	struct lctx *c;
	struct lobj *o;
	struct dlh_port *p = resolve(L, 1, &o, &c);
	const char *key = luaL_checkstring(L, 2), *value = luaL_optstring(L, 3, NULL);
	struct dlh_extack ext;
	char buf[8192];
	int err;

	if (!p)
		return gone(L, o);
	ldlhal_ctx_enter(L, c);
	if (value) {
		err = dlh_dev_sim_set(dlh_port_dev(p), p, key, value, &ext);
		if (err)
			return ldlhal_fail_ext(L, err, &ext);
		lua_pushboolean(L, 1);
		return 1;
	}
	err = dlh_dev_sim_get(dlh_port_dev(p), p, key, buf, sizeof(buf), &ext);
	if (err)
		return ldlhal_fail_ext(L, err, &ext);
	lua_pushstring(L, buf);
	return 1;
}

void ldlhal_port_open(lua_State *L)
{
	static const luaL_Reg methods[] = {
	    {"set_type", port_set_type},
	    {"split", port_split},
	    {"unsplit", port_unsplit},
	    {"totable", port_totable},
	    {"sim", port_sim},
	    {NULL, NULL},
	};
	static const luaL_Reg meta[] = {
	    {"__newindex", port_newindex},
	    {"__tostring", port_tostring},
	    {"__eq", port_eq},
	    {NULL, NULL},
	};

	luaL_newmetatable(L, LDLHAL_PORT);
	luaL_setfuncs(L, meta, 0);
	luaL_newlib(L, methods);
	lua_pushcclosure(L, port_index, 1);
	lua_setfield(L, -2, "__index");
	lua_pushliteral(L, "dlhal.port");
	lua_setfield(L, -2, "__name");
	lua_pop(L, 1);
}
