/* SPDX-License-Identifier: MIT */
/*
 * libdlhal's writer (struct dlh_writer) as Lua tables: the records the
 * library writes (a plan, a desired-state report) come to Lua with the
 * names and members dl's JSON has, built here once instead of per record.
 */
#include "ldlhal.h"

#include <stdio.h>

/* The container on top of the stack takes the value below it: by key, or next in the array. */
static void store(struct lwriter *lw, const char *key)
{
	struct lwriter_level *up = &lw->lv[lw->depth];

	if (up->array)
		lua_rawseti(lw->L, -2, ++up->n);
	else
		lua_setfield(lw->L, -2, key);
}

static void open_(void *a, const char *key, bool array)
{
	struct lwriter *lw = a;

	if (lw->depth + 1 >= LWRITER_DEPTH)
		luaL_error(lw->L, "dlhal: a record nested deeper than %d", LWRITER_DEPTH);
	lua_newtable(lw->L);
	lw->depth++;
	lw->lv[lw->depth] = (struct lwriter_level){.array = array};
	snprintf(lw->lv[lw->depth].key, sizeof(lw->lv[lw->depth].key), "%s", key ? key : "");
}

static void close_(void *a)
{
	struct lwriter *lw = a;
	char key[sizeof(lw->lv[0].key)];

	snprintf(key, sizeof(key), "%s", lw->lv[lw->depth].key);
	lw->depth--;
	store(lw, key);
}

static void obj_open(void *a, const char *key)
{
	open_(a, key, false);
}

static void arr_open(void *a, const char *key)
{
	open_(a, key, true);
}

static void str(void *a, const char *key, const char *val)
{
	lua_pushstring(((struct lwriter *)a)->L, val);
	store(a, key);
}

static void uint_(void *a, const char *key, uint64_t val)
{
	lua_pushinteger(((struct lwriter *)a)->L, (lua_Integer)val);
	store(a, key);
}

static void boolean(void *a, const char *key, bool val)
{
	lua_pushboolean(((struct lwriter *)a)->L, val);
	store(a, key);
}

void ldlhal_writer(lua_State *L, struct lwriter *lw, struct dlh_writer *w)
{
	*lw = (struct lwriter){.L = L};
	*w = (struct dlh_writer){.obj_open = obj_open,
				 .obj_close = close_,
				 .arr_open = arr_open,
				 .arr_close = close_,
				 .str = str,
				 .uint = uint_,
				 .boolean = boolean,
				 .arg = lw};
}
