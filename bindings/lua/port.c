/* SPDX-License-Identifier: MIT */
/* Port objects: read-only fields named as dl -j -d names them, and the operations. */
#include "ldlhal.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The port @idx names, or NULL when it is gone (or its context closed). The
 * pointer found is kept with the context's removal generation: until a port
 * or device is removed, it is still the live port and no lookup is needed. */
static struct dlh_port *resolve(lua_State *L, int idx, struct lobj **o, struct lctx **c)
{
	struct dlh_dev *dev;
	struct dlh_port *p;

	*o = luaL_checkudata(L, idx, LDLHAL_PORT);
	lua_getiuservalue(L, idx, 1);
	*c = lua_touserdata(L, -1);
	lua_pop(L, 1);
	if (!*c || !(*c)->ctx)
		return NULL;
	if ((*o)->cached && (*o)->gen == (*c)->gen)
		return (*o)->cached;
	dev = dlh_dev_find((*c)->ctx, (*o)->dev);
	p = dev ? dlh_port_find(dev, (*o)->index) : NULL;
	(*o)->cached = p;
	(*o)->gen = (*c)->gen;
	return p;
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
	o->cached = NULL;
	o->gen = 0;
	luaL_setmetatable(L, LDLHAL_PORT);
	lua_pushvalue(L, ctx_idx);
	lua_setiuservalue(L, -2, 1);
}

/* A port userdata's fields: its own, then core's (F_TYPE + DLH_PORT_FIELD_*), then its device and pending. */
enum field {
	F_HANDLE = 1,
	F_INDEX,
	F_TYPE,
	F_LANE = F_TYPE + DLH_PORT_FIELD_COUNT - 1,
	F_DEV,
	F_PENDING,
};

/* F_TYPE to F_LANE are core's fields in its order (DLH_PORT_FIELD_MAP), named as it names them. */
static const char *const fields[] = {
    [F_HANDLE] = "handle",
    [F_INDEX] = "index",
    [F_DEV] = "dev",
    [F_PENDING] = "pending",
};

static const char *field_name(int f)
{
	return f >= F_TYPE && f <= F_LANE ? dlh_port_field_name((enum dlh_port_field)(f - F_TYPE)) : fields[f];
}

/* One live field (F_TYPE..F_LANE, F_PENDING). Absent values push nil. */
static void field(lua_State *L, const struct dlh_port *p, enum field f)
{
	struct dlh_pending pend;
	struct dlh_value v;

	if (f == F_PENDING) {
		if (dlh_port_pending(p, &pend))
			ldlhal_pending_push(L, &pend);
		else
			lua_pushnil(L);
		return;
	}
	if (f < F_TYPE || f > F_LANE) {
		lua_pushnil(L);
		return;
	}
	switch (dlh_port_field(p, (enum dlh_port_field)(f - F_TYPE), &v)) {
	case DLH_VALUE_STR:
		lua_pushstring(L, v.str);
		break;
	case DLH_VALUE_UINT:
		lua_pushinteger(L, (lua_Integer)v.uint);
		break;
	case DLH_VALUE_BOOL:
		lua_pushboolean(L, v.boolean);
		break;
	default:
		lua_pushnil(L);
		break;
	}
}

void ldlhal_port_table(lua_State *L, const struct dlh_port *p)
{
	lua_createtable(L, 0, 16);
	lua_pushstring(L, dlh_port_handle(p));
	lua_setfield(L, -2, "handle");
	lua_pushinteger(L, dlh_port_index(p));
	lua_setfield(L, -2, "index");
	lua_pushstring(L, dlh_dev_handle(dlh_port_dev(p)));
	lua_setfield(L, -2, "dev");
	for (int f = F_TYPE; f <= F_LANE; f++) {
		field(L, p, (enum field)f);
		lua_setfield(L, -2, field_name(f));
	}
}

static int port_index(lua_State *L)
{
	/* Argument 1 is a port when its metatable is ours (upvalue 2): the same
	 * check as luaL_checkudata without its registry lookup. debug.getmetatable
	 * can hand this function anything, so the check stays. */
	struct lobj *o = lua_touserdata(L, 1);
	struct dlh_port *p;
	struct lctx *c;
	lua_Integer f;

	if (!o || !lua_getmetatable(L, 1) || !lua_rawequal(L, -1, lua_upvalueindex(2)))
		return luaL_typeerror(L, 1, LDLHAL_PORT);
	lua_pop(L, 1);
	/* upvalue 1: method names to functions, field names to their numbers */
	lua_pushvalue(L, 2);
	switch (lua_rawget(L, lua_upvalueindex(1))) {
	case LUA_TFUNCTION:
		return 1;
	case LUA_TNUMBER:
		f = lua_tointeger(L, -1);
		lua_pop(L, 1);
		break;
	default:
		return luaL_error(L, "port has no field \"%s\"", luaL_checkstring(L, 2));
	}
	if (f == F_HANDLE) {
		lua_pushstring(L, o->handle);
		return 1;
	}
	if (f == F_INDEX) {
		lua_pushinteger(L, o->index);
		return 1;
	}
	lua_getiuservalue(L, 1, 1);
	c = lua_touserdata(L, -1);
	lua_pop(L, 1);
	if (c && c->ctx && o->cached && o->gen == c->gen)
		p = o->cached;
	else
		p = resolve(L, 1, &o, &c);
	if (!p)
		return 0; /* a removed port has no fields: nil */
	if (f == F_DEV) {
		lua_getiuservalue(L, 1, 1);
		ldlhal_dev_push(L, -1, dlh_port_dev(p));
		return 1;
	}
	field(L, p, (enum field)f);
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
	ldlhal_ctx_enter(L, c, "change ports");
	err = dlh_port_type_set(p, type, &ext);
	if (err)
		return ldlhal_fail_ext(L, err, &ext);
	lua_pushboolean(L, 1);
	/* a change stored for the next reset (a ConnectX-4..7's type) says so: true, the driver's word */
	if (!ext.msg[0])
		return 1;
	{
		char buf[DLH_EXTACK_MSG_MAX + DLH_HANDLE_MAX];

		lua_pushstring(L, dlh_extack_str(&ext, buf, sizeof(buf)));
	}
	return 2;
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
	ldlhal_ctx_enter(L, c, "change ports");
	c->nmade = 0;
	c->collecting = true;
	err = dlh_port_split(p, (unsigned int)count, &ext);
	c->collecting = false;
	if (err)
		return ldlhal_fail_ext(L, err, &ext);
	push_made(L, c);
	/* A staged driver's word with its success ("Reboot required to finish port split"). */
	if (!ext.msg[0])
		return 1;
	lua_pushstring(L, ext.msg);
	return 2;
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
	ldlhal_ctx_enter(L, c, "change ports");
	c->nmade = 0;
	c->collecting = true;
	err = dlh_port_unsplit(p, &ext);
	c->collecting = false;
	if (err)
		return ldlhal_fail_ext(L, err, &ext);
	push_made(L, c);
	if (!ext.msg[0])
		return 1;
	lua_pushstring(L, ext.msg);
	return 2;
}

/* A plan as a table: {partial = bool, del = {handles}, new = {ports}}; a partial one whose rules say
 * why also {why = message}; a staged one (applied at the next reset) also {staged = true, after =
 * {ports}}: what the reset brings up. The members are dl -j's (dlh_plan_write()). */
static void push_plan(lua_State *L, struct dlh_dev *dev, const struct dlh_plan *plan, const char *why)
{
	struct dlh_writer w;
	struct lwriter lw;

	lua_createtable(L, 0, 6);
	ldlhal_writer(L, &lw, &w);
	dlh_plan_write(plan, dlh_dev_handle(dev), &w);
	if (plan->partial && why && why[0]) {
		lua_pushstring(L, why);
		lua_setfield(L, -2, "why");
	}
}

/* port:plan_split(n), port:plan_unsplit(): what the op would do, or nil, message, errname. */
static int port_plan(lua_State *L, bool split)
{
	struct lctx *c;
	struct lobj *o;
	struct dlh_port *p = resolve(L, 1, &o, &c);
	lua_Integer count = split ? luaL_checkinteger(L, 2) : 0;
	struct dlh_extack ext;
	struct dlh_plan plan;
	int err;

	luaL_argcheck(L, !split || (count >= 1 && count <= UINT32_MAX), 2, "split count out of range");
	if (!p)
		return gone(L, o);
	ldlhal_ctx_enter(L, c, "plan changes");
	err = split ? dlh_port_split_plan(p, (unsigned int)count, &plan, &ext) : dlh_port_unsplit_plan(p, &plan, &ext);
	if (err)
		return ldlhal_fail_ext(L, err, &ext);
	push_plan(L, dlh_port_dev(p), &plan, ext.msg);
	return 1;
}

static int port_plan_split(lua_State *L)
{
	return port_plan(L, true);
}

static int port_plan_unsplit(lua_State *L)
{
	return port_plan(L, false);
}

/* port:sim(key) reads an emulator control, port:sim(key, value) sets it (as dl sim). */
static int port_sim(lua_State *L)
{
	struct lctx *c;
	struct lobj *o;
	struct dlh_port *p = resolve(L, 1, &o, &c);

	if (!p)
		return gone(L, o);
	return ldlhal_sim(L, c, dlh_port_dev(p), p);
}

void ldlhal_port_open(lua_State *L)
{
	static const luaL_Reg methods[] = {
	    {"set_type", port_set_type},	 {"split", port_split}, {"unsplit", port_unsplit},
	    {"totable", port_totable},		 {"sim", port_sim},	{"plan_split", port_plan_split},
	    {"plan_unsplit", port_plan_unsplit}, {NULL, NULL},
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
	for (int f = F_HANDLE; f <= F_PENDING; f++) {
		lua_pushinteger(L, f);
		lua_setfield(L, -2, field_name(f));
	}
	lua_pushvalue(L, -2); /* the metatable, for port_index's type check */
	lua_pushcclosure(L, port_index, 2);
	lua_setfield(L, -2, "__index");
	lua_pushliteral(L, "dlhal.port");
	lua_setfield(L, -2, "__name");
	lua_pushliteral(L, "dlhal.port");
	lua_setfield(L, -2, "__metatable");
	lua_pop(L, 1);
}
