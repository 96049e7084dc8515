/* SPDX-License-Identifier: MIT */
/*
 * ctx:apply(entries [, {dry_run = true}]): desired state from a table, with
 * the same steps and order as dl apply (libdlhal-desired): each entry
 * {device = "pci/...", number = 17 | netdev = "ens4", split = 2, type = "auto"}.
 */
#include <dlhal/desired.h>
#include "ldlhal.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const char *const entry_keys[] = {"device", "number", "netdev", "split", "type", NULL};

/* Misuse of field @key of entry @i, named as the library names it ("apply: entry:I.KEY: ..."). */
static int field_error(lua_State *L, lua_Integer i, const char *key, const char *why)
{
	return luaL_error(L, "apply: entry:%d.%s: %s", (int)i, key, why);
}

/* What the value on top of the stack is, for a message: its type, or a number as it is. */
static const char *value_what(lua_State *L)
{
	if (lua_type(L, -1) == LUA_TNUMBER)
		return lua_pushfstring(L, "%s", luaL_tolstring(L, -1, NULL));
	return luaL_typename(L, -1);
}

/* The string on top of the stack into @out, which must hold it. */
static void str_field(lua_State *L, lua_Integer i, const char *key, char *out, size_t size)
{
	size_t len;
	const char *s;

	if (lua_type(L, -1) != LUA_TSTRING)
		field_error(L, i, key, lua_pushfstring(L, "expected a string, got %s", value_what(L)));
	s = lua_tolstring(L, -1, &len);
	if (len >= size || strlen(s) != len)
		field_error(L, i, key, lua_pushfstring(L, "\"%s\" does not fit (%d bytes at most)", s, (int)size - 1));
	memcpy(out, s, len + 1);
}

/* The whole number on top of the stack as an unsigned int, at least @min (what the entry can hold). */
static unsigned int uint_field(lua_State *L, lua_Integer i, const char *key, lua_Integer min)
{
	int whole = 0;
	lua_Integer n = lua_type(L, -1) == LUA_TNUMBER ? lua_tointegerx(L, -1, &whole) : 0;

	if (!whole)
		field_error(L, i, key, lua_pushfstring(L, "expected a whole number, got %s", value_what(L)));
	if (n < min || n > (lua_Integer)UINT_MAX)
		field_error(L, i, key, lua_pushfstring(L, "%I is out of range", n));
	return (unsigned int)n;
}

/*
 * Entry @i of the table at @idx into @d, named "entry:I"; misuse raises,
 * naming the entry and key: a key or a value Lua cannot hand over here, the
 * library's refusal (dlh_desired_entry_add(): "entry:I.FIELD: why") else.
 */
static void entry_read(lua_State *L, int idx, lua_Integer i, struct dlh_desired *d)
{
	struct dlh_desired_entry ent = {0}, *e = &ent;
	struct dlh_extack ext;
	char origin[32];
	const char *s;
	if (lua_geti(L, idx, i) != LUA_TTABLE)
		luaL_error(L, "apply: entry:%d: expected a table {device = ..., number = ...}, got %s", (int)i,
			   luaL_typename(L, -1));
	lua_pushnil(L);
	while (lua_next(L, -2)) {
		const char *const *k = entry_keys;

		while (*k && !(lua_type(L, -2) == LUA_TSTRING && !strcmp(*k, lua_tostring(L, -2))))
			k++;
		if (!*k)
			luaL_error(L, "apply: entry:%d: unknown key %s (expected device, number, netdev, split, type)",
				   (int)i, luaL_tolstring(L, -2, NULL));
		lua_pop(L, 1);
	}
	/* what the entry struct can hold is checked here; what it may hold, by the library */
	if (lua_getfield(L, -1, "device") != LUA_TNIL)
		str_field(L, i, "device", e->device, sizeof(e->device));
	lua_pop(L, 1);
	if (lua_getfield(L, -1, "netdev") != LUA_TNIL)
		str_field(L, i, "netdev", e->netdev, sizeof(e->netdev));
	lua_pop(L, 1);
	if (lua_getfield(L, -1, "number") != LUA_TNIL) {
		e->number = uint_field(L, i, "number", 0);
		e->has_number = true;
	}
	lua_pop(L, 1);
	if (lua_getfield(L, -1, "split") != LUA_TNIL)
		e->split = uint_field(L, i, "split", 1);
	lua_pop(L, 1);
	if (lua_getfield(L, -1, "type") != LUA_TNIL) {
		s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
		if (dlh_port_type_parse(s, &e->type) || e->type == DLH_PORT_TYPE_NOTSET)
			field_error(L, i, "type",
				    lua_type(L, -1) == LUA_TSTRING
					? lua_pushfstring(L, "\"%s\": expected eth, ib or auto", s)
					: lua_pushfstring(L, "expected eth, ib or auto, got %s", value_what(L)));
	}
	lua_pop(L, 2);
	snprintf(origin, sizeof(origin), "entry:%d", (int)i);
	if (dlh_desired_entry_add(d, e, origin, &ext)) {
		char buf[DLH_EXTACK_MSG_MAX + DLH_HANDLE_MAX + 4];

		luaL_error(L, "apply: %s", dlh_extack_str(&ext, buf, sizeof(buf)));
	}
}

/*
 * The entries are a list, 1 to @n and nothing else: an entry given bare
 * (ctx:apply{device = ..., number = 17}) or a list with a hole would
 * otherwise be taken as nothing to do, and "nothing differs" reported.
 */
static void entries_check(lua_State *L, lua_Integer n)
{
	lua_Integer count = 0;

	lua_pushnil(L);
	while (lua_next(L, 2)) {
		lua_pop(L, 1);
		if (lua_type(L, -1) == LUA_TSTRING)
			luaL_error(
			    L,
			    "apply: expected a list of entries, { {device = ..., number = ..., split = ...}, ... }: "
			    "got key %s (an entry given without its list?)",
			    lua_tostring(L, -1));
		if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > n) {
			bool hole = lua_isinteger(L, -1) && lua_tointeger(L, -1) > n;

			luaL_error(L, "apply: expected a list of entries 1 to N: key %s %s",
				   luaL_tolstring(L, -1, NULL), hole ? "leaves a hole before it" : "is no index");
		}
		count++;
	}
	if (count != n)
		luaL_error(L, "apply: expected a list of entries 1 to N: it has a hole");
}

/* An option of the table at 3: absent is false; anything but a boolean is misuse. */
static bool opt_bool(lua_State *L, const char *key)
{
	int t = lua_getfield(L, 3, key);
	bool v = lua_toboolean(L, -1);

	if (t != LUA_TNIL && t != LUA_TBOOLEAN)
		luaL_argerror(L, 3, lua_pushfstring(L, "%s: expected a boolean, got %s", key, lua_typename(L, t)));
	lua_pop(L, 1);
	return v;
}

/* The set's box: freed with it when a raise leaves ctx:apply() early, or after. */
static int set_gc(lua_State *L)
{
	struct dlh_desired **box = lua_touserdata(L, 1);

	dlh_desired_free(*box);
	*box = NULL;
	return 0;
}

/*
 * The file planned whole first (dlh_desired_plan()): a conflict or a refusal
 * fails with nothing changed; then the steps run, with atomic undone in
 * reverse when one is refused; an entry left unmet fails after the others
 * were applied, naming it.
 */
int ldlhal_ctx_apply(lua_State *L)
{
	struct lctx *c = ldlhal_ctx_check(L, 1);
	struct dlh_ctx *ctx = ldlhal_ctx_live(L, 1);
	struct dlh_desired **box, *d;
	struct dlh_desired_plan p;
	char what[1024], why[1200];
	bool dry = false, atomic = false, partial = false;
	lua_Integer n;
	int err;

	luaL_checktype(L, 2, LUA_TTABLE);
	if (!lua_isnoneornil(L, 3)) {
		luaL_checktype(L, 3, LUA_TTABLE);
		ldlhal_options_check(L, 3, (const char *const[]){"dry_run", "atomic", NULL}, "dry_run, atomic");
		dry = opt_bool(L, "dry_run");
		atomic = opt_bool(L, "atomic");
	}
	ldlhal_ctx_enter(L, c, "apply entries");
	n = luaL_len(L, 2);
	if (n < 0 || n > DLH_DESIRED_ENTRIES_MAX)
		return luaL_error(L, "apply: at most %d entries", DLH_DESIRED_ENTRIES_MAX);
	entries_check(L, n);
	box = lua_newuserdatauv(L, sizeof(*box), 0);
	*box = NULL;
	if (luaL_newmetatable(L, "dlhal.desired_set")) {
		lua_pushcfunction(L, set_gc);
		lua_setfield(L, -2, "__gc");
	}
	lua_setmetatable(L, -2);
	if (dlh_desired_new("entry", box))
		return ldlhal_fail(L, -ENOMEM, "out of memory");
	d = *box;
	for (lua_Integer i = 1; i <= n; i++)
		entry_read(L, 2, i, d);
	if (dlh_desired_plan(d, ctx, &p, NULL)) {
		dlh_desired_plan_free(&p);
		return ldlhal_fail(L, -ENOMEM, "out of memory");
	}
	if (p.status == DLH_DESIRED_REFUSED || p.status == DLH_DESIRED_CONFLICT) {
		snprintf(why, sizeof(why), "%s", p.why);
		dlh_desired_plan_free(&p);
		return ldlhal_fail(L, -EINVAL, why);
	}
	err = dry || !p.nsteps ? 0 : dlh_desired_apply(d, ctx, &p, atomic, NULL, why, sizeof(why));
	lua_createtable(L, (int)p.nsteps, 1);
	for (size_t i = 0; i < p.nsteps; i++) {
		if (!dry && p.steps[i].result != DLH_DESIRED_STEP_DONE && p.steps[i].result != DLH_DESIRED_STEP_PENDING)
			break;
		dlh_desired_step_describe(d, &p.steps[i], what, sizeof(what));
		lua_pushstring(L, what);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
		partial |= p.steps[i].partial;
	}
	if (dry && partial) {
		lua_pushboolean(L, 1);
		lua_setfield(L, -2, "partial");
	}
	if (err && atomic) {
		snprintf(what, sizeof(what), "%s", why);
		snprintf(why, sizeof(why), "%s (%s)", what,
			 dlh_desired_plan_undone(&p) ? "the steps done were undone"
						     : "a step done could not be undone");
	} else if (!err && p.status == DLH_DESIRED_UNMET) {
		err = -ENODEV;
		dlh_desired_plan_unmet_str(d, &p, why, sizeof(why));
	}
	dlh_desired_plan_free(&p);
	return err ? ldlhal_fail(L, err, why) : 1;
}
