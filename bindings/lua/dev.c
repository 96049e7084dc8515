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
	lua_createtable(L, 0, 5);
	lua_pushstring(L, dlh_dev_handle(dev));
	lua_setfield(L, -2, "handle");
	lua_pushstring(L, dlh_dev_bus(dev));
	lua_setfield(L, -2, "bus");
	lua_pushstring(L, dlh_dev_name(dev));
	lua_setfield(L, -2, "name");
	lua_pushstring(L, dlh_dev_driver(dev));
	lua_setfield(L, -2, "driver");
	lua_pushstring(L, dlh_dev_backend(dev));
	lua_setfield(L, -2, "backend");
}

void ldlhal_pending_push(lua_State *L, const struct dlh_pending *p)
{
	lua_createtable(L, 0, 3);
	if (p->split) {
		lua_pushinteger(L, p->split);
		lua_setfield(L, -2, "split");
	}
	if (p->type != DLH_PORT_TYPE_NOTSET) {
		lua_pushstring(L, dlh_port_type_name(p->type));
		lua_setfield(L, -2, "type");
	}
	lua_pushstring(L, p->message);
	lua_setfield(L, -2, "message");
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
	else if (!strcmp(key, "backend"))
		lua_pushstring(L, dlh_dev_backend(dev));
	else if (!strcmp(key, "pending")) {
		struct dlh_pending p;

		if (!dlh_dev_pending(dev, &p))
			return 0;
		ldlhal_pending_push(L, &p);
	} else
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

/*
 * dev:reload([action [, limit]]): devlink's reload ("driver_reinit" by
 * default). Returns the actions performed as a list of words; the device may
 * be gone afterwards (a reset replaces a card's devices): look it up again.
 */
static int dev_reload(lua_State *L)
{
	static const char *const actions[] = {"driver_reinit", "fw_activate", NULL};
	static const char *const limits[] = {"unspec", "no_reset", NULL};
	struct lobj *o;
	struct dlh_dev *dev = resolve(L, 1, &o);
	int a = luaL_checkoption(L, 2, "driver_reinit", actions), l = luaL_checkoption(L, 3, "unspec", limits), n = 0;
	enum dlh_reload_action action;
	enum dlh_reload_limit limit;
	struct dlh_extack ext;
	struct lctx *c;
	uint32_t done;
	int err;

	if (dlh_reload_action_parse(actions[a], &action) || dlh_reload_limit_parse(limits[l], &limit))
		return luaL_error(L, "reload: unknown action or limit");
	if (!dev)
		return gone(L, o);
	lua_getiuservalue(L, 1, 1);
	c = lua_touserdata(L, -1);
	lua_pop(L, 1);
	ldlhal_ctx_enter(L, c, "reload a device");
	err = dlh_dev_reload(dev, action, limit, &done, &ext);
	if (err)
		return ldlhal_fail_ext(L, err, &ext);
	lua_newtable(L);
	for (int i = 0; i < 32; i++) {
		if (done & (1u << i)) {
			lua_pushstring(L, dlh_reload_action_name((enum dlh_reload_action)i));
			lua_rawseti(L, -2, ++n);
		}
	}
	return 1;
}

/* dev:options(): the firmware option table, {split, lanes = {Mb/s x 8}, active, pending} each. */
static int dev_options(lua_State *L)
{
	struct dlh_fw_option opts[16];
	struct lobj *o;
	struct dlh_dev *dev = resolve(L, 1, &o);
	struct dlh_extack ext;
	size_t n = 0;
	int err;

	if (!dev)
		return gone(L, o);
	err = dlh_dev_fw_options(dev, opts, 16, &n, &ext);
	if (err)
		return ldlhal_fail_ext(L, err, &ext);
	n = n > 16 ? 16 : n;
	lua_createtable(L, (int)n, 0);
	for (size_t i = 0; i < n; i++) {
		lua_createtable(L, 0, 4);
		lua_pushinteger(L, opts[i].split);
		lua_setfield(L, -2, "split");
		lua_createtable(L, 8, 0);
		for (int l = 0; l < 8; l++) {
			lua_pushinteger(L, opts[i].speed[l]);
			lua_rawseti(L, -2, l + 1);
		}
		lua_setfield(L, -2, "lanes");
		lua_pushboolean(L, opts[i].active);
		lua_setfield(L, -2, "active");
		lua_pushboolean(L, opts[i].pending);
		lua_setfield(L, -2, "pending");
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	return 1;
}

/*
 * dev:info(): what the device reports of itself, shaped as devlink's JSON:
 * {driver = ..., serial_number = ..., ["board.serial_number"] = ...,
 * versions = {fixed = {name = value}, running = {...}, stored = {...}}};
 * absent fields and kinds are nil.
 */
static int dev_info(lua_State *L)
{
	struct lobj *o;
	struct dlh_dev *dev = resolve(L, 1, &o);
	struct dlh_dev_info *info;
	struct dlh_extack ext;
	int err;

	if (!dev)
		return gone(L, o);
	/* ~13 KiB: a userdata Lua frees even if a push below raises */
	info = lua_newuserdatauv(L, sizeof(*info), 0);
	err = dlh_dev_info_get(dev, info, &ext);
	if (err)
		return ldlhal_fail_ext(L, err, &ext);
	lua_createtable(L, 0, 4);
	if (info->driver[0]) {
		lua_pushstring(L, info->driver);
		lua_setfield(L, -2, "driver");
	}
	if (info->serial[0]) {
		lua_pushstring(L, info->serial);
		lua_setfield(L, -2, "serial_number");
	}
	if (info->board_serial[0]) {
		lua_pushstring(L, info->board_serial);
		lua_setfield(L, -2, "board.serial_number");
	}
	if (info->nversions) {
		lua_createtable(L, 0, 3);
		for (size_t i = 0; i < info->nversions; i++) {
			const char *kind = dlh_version_kind_name(info->versions[i].kind);

			if (lua_getfield(L, -1, kind) != LUA_TTABLE) {
				lua_pop(L, 1);
				lua_newtable(L);
				lua_pushvalue(L, -1);
				lua_setfield(L, -3, kind);
			}
			lua_pushstring(L, info->versions[i].value);
			lua_setfield(L, -2, info->versions[i].name);
			lua_pop(L, 1);
		}
		lua_setfield(L, -2, "versions");
	}
	return 1;
}

/*
 * dev:rules(): what the device's plans rest on, and whether they are exact:
 * "mlxsw rules, profile sn2700", true; for a kernel device no vendor knows,
 * what is missing, false; nil when there is nothing to say (a daemon's).
 */
static int dev_rules(lua_State *L)
{
	struct lobj *o;
	struct dlh_dev *dev = resolve(L, 1, &o);
	const char *basis;
	bool exact = false;

	if (!dev)
		return gone(L, o);
	basis = dlh_dev_rules(dev, &exact);
	if (!basis) {
		lua_pushnil(L);
		return 1;
	}
	lua_pushstring(L, basis);
	lua_pushboolean(L, exact);
	return 2;
}

void ldlhal_dev_open(lua_State *L)
{
	static const luaL_Reg methods[] = {
	    {"ports", dev_ports}, {"port", dev_port},	  {"totable", dev_totable},
	    {"sim", dev_sim},	  {"reload", dev_reload}, {"options", dev_options},
	    {"info", dev_info},	  {"rules", dev_rules},	  {NULL, NULL},
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
