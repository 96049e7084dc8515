/* SPDX-License-Identifier: MIT */
/*
 * ctx:apply(entries [, {dry_run = true}]): desired state from a table, with
 * the same steps and order as dl apply (tools/common/desired.c): each entry
 * {device = "pci/...", number = 17 | netdev = "ens4", split = 2, type = "auto"}.
 */
#include "desired.h"
#include "ldlhal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const entry_keys[] = {"device", "number", "netdev", "split", "type", NULL};

/* Entry @i of the table at @idx into @e; misuse raises, naming the entry and key. */
static void entry_read(lua_State *L, int idx, lua_Integer i, struct desired_entry *e)
{
	const char *s;

	memset(e, 0, sizeof(*e));
	e->match_line = e->split_line = e->type_line = (int)i;
	if (lua_geti(L, idx, i) != LUA_TTABLE)
		luaL_error(L, "apply: entry %d: table expected", (int)i);
	lua_pushnil(L);
	while (lua_next(L, -2)) {
		const char *const *k = entry_keys;

		while (*k && !(lua_type(L, -2) == LUA_TSTRING && !strcmp(*k, lua_tostring(L, -2))))
			k++;
		if (!*k)
			luaL_error(L, "apply: entry %d: unknown key %s (expected device, number, netdev, split, type)",
				   (int)i, luaL_tolstring(L, -2, NULL));
		lua_pop(L, 1);
	}
	if (lua_getfield(L, -1, "device") != LUA_TNIL) {
		s = luaL_checkstring(L, -1);
		if (strlen(s) >= sizeof(e->device))
			luaL_error(L, "apply: entry %d: device too long", (int)i);
		strcpy(e->device, s);
	}
	lua_pop(L, 1);
	if (lua_getfield(L, -1, "netdev") != LUA_TNIL) {
		s = luaL_checkstring(L, -1);
		if (!*s || strlen(s) >= sizeof(e->netdev))
			luaL_error(L, "apply: entry %d: netdev: expected a netdev name", (int)i);
		strcpy(e->netdev, s);
	}
	lua_pop(L, 1);
	if (lua_getfield(L, -1, "number") != LUA_TNIL) {
		lua_Integer n = luaL_checkinteger(L, -1);

		if (n < 0 || n > 65535)
			luaL_error(L, "apply: entry %d: number: expected 0 to 65535", (int)i);
		e->number = (unsigned int)n;
		e->has_number = true;
	}
	lua_pop(L, 1);
	if (lua_getfield(L, -1, "split") != LUA_TNIL) {
		lua_Integer n = luaL_checkinteger(L, -1);

		if (n < 1 || n > 64)
			luaL_error(L, "apply: entry %d: split: expected 1 (whole) to 64", (int)i);
		e->split = (unsigned int)n;
	}
	lua_pop(L, 1);
	if (lua_getfield(L, -1, "type") != LUA_TNIL) {
		s = luaL_checkstring(L, -1);
		if (dlh_port_type_parse(s, &e->type) || e->type == DLH_PORT_TYPE_NOTSET)
			luaL_error(L, "apply: entry %d: type: expected eth, ib or auto", (int)i);
	}
	lua_pop(L, 2);
	if (!e->netdev[0] == !(e->device[0] && e->has_number) || (e->netdev[0] && (e->device[0] || e->has_number)))
		luaL_error(L, "apply: entry %d: give device and number, or netdev", (int)i);
	if (!e->split && !e->type)
		luaL_error(L, "apply: entry %d: says nothing: give split and/or type", (int)i);
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

/*
 * The file planned whole first (desired_plan()): a conflict or a refusal
 * fails with nothing changed; then the steps run, with atomic undone in
 * reverse when one is refused; an entry left unmet fails after the others
 * were applied, naming it.
 */
int ldlhal_ctx_apply(lua_State *L)
{
	struct lctx *c = ldlhal_ctx_check(L, 1);
	struct dlh_ctx *ctx = ldlhal_ctx_live(L, 1);
	struct desired d = {.path = "entry"};
	struct desired_plan p;
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
	ldlhal_ctx_enter(L, c);
	n = luaL_len(L, 2);
	if (n < 0 || n > DESIRED_ENTRIES_MAX)
		return luaL_error(L, "apply: at most %d entries", DESIRED_ENTRIES_MAX);
	d.e = lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof(*d.e), 0); /* freed with the stack */
	for (lua_Integer i = 1; i <= n; i++)
		entry_read(L, 2, i, &d.e[i - 1]);
	d.n = (size_t)n;
	if (desired_plan(&d, ctx, &p, NULL))
		return ldlhal_fail(L, -ENOMEM, "out of memory");
	if (p.status == DESIRED_REFUSED || p.status == DESIRED_CONFLICT) {
		snprintf(why, sizeof(why), "%s", p.why);
		desired_plan_free(&p);
		return ldlhal_fail(L, -EINVAL, why);
	}
	err = dry || !p.nsteps ? 0 : desired_apply(&d, ctx, &p, atomic, NULL, why, sizeof(why));
	lua_createtable(L, (int)p.nsteps, 1);
	for (size_t i = 0; i < p.nsteps; i++) {
		if (!dry && p.steps[i].result != DESIRED_STEP_DONE && p.steps[i].result != DESIRED_STEP_PENDING)
			break;
		desired_step_describe(&d, &p.steps[i], what, sizeof(what));
		lua_pushstring(L, what);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
		partial |= p.steps[i].partial;
	}
	if (dry && partial) {
		lua_pushboolean(L, 1);
		lua_setfield(L, -2, "partial");
	}
	if (err && atomic) {
		bool undone = true;

		for (size_t i = 0; i < p.nsteps; i++)
			undone &= p.steps[i].result != DESIRED_STEP_UNDO_FAILED;
		snprintf(what, sizeof(what), "%s", why);
		snprintf(why, sizeof(why), "%s (%s)", what,
			 undone ? "the steps done were undone" : "a step done could not be undone");
	} else if (!err && p.status == DESIRED_UNMET) {
		/* every unmet entry, as many as the message holds, the rest counted */
		size_t n = 0, i;

		err = -ENODEV;
		for (i = 0; i < p.nunmet && n + 200 < sizeof(why); i++)
			n += (size_t)snprintf(why + n, sizeof(why) - n, "%sentry:%zu: %s", i ? "; " : "",
					      p.unmet[i].entry + 1, p.unmet[i].why);
		if (i < p.nunmet)
			snprintf(why + n, sizeof(why) - n, "; and %zu more", p.nunmet - i);
	}
	desired_plan_free(&p);
	return err ? ldlhal_fail(L, err, why) : 1;
}
