/* SPDX-License-Identifier: MIT */
/* Chained hash table used for device, port and netdev lookups (O(1) on average). */
#include "core.h"

#include <errno.h>
#include <stdlib.h>

uint64_t dlh__hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

uint64_t dlh__hash_u64(uint64_t v)
{
	/* splitmix64 finaliser: spreads consecutive indices over buckets */
	v ^= v >> 30;
	v *= 0xbf58476d1ce4e5b9ull;
	v ^= v >> 27;
	v *= 0x94d049bb133111ebull;
	v ^= v >> 31;
	return v;
}

static int grow(struct dlh__htab *t)
{
	size_t n = t->nbuckets ? t->nbuckets * 2 : 16;
	struct dlh__hnode **b = calloc(n, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < t->nbuckets; i++) {
		struct dlh__hnode *e = t->buckets[i], *next;

		for (; e; e = next) {
			next = e->next;
			e->next = b[e->hash & (n - 1)];
			b[e->hash & (n - 1)] = e;
		}
	}
	free(t->buckets);
	t->buckets = b;
	t->nbuckets = n;
	return 0;
}

int dlh__htab_insert(struct dlh__htab *t, struct dlh__hnode *n, uint64_t hash)
{
	if (t->count >= t->nbuckets) {
		int err = grow(t);

		/* A table that has buckets can take more entries; only fail when empty. */
		if (err && !t->nbuckets)
			return err;
	}
	n->hash = hash;
	n->next = t->buckets[hash & (t->nbuckets - 1)];
	t->buckets[hash & (t->nbuckets - 1)] = n;
	t->count++;
	return 0;
}

void dlh__htab_remove(struct dlh__htab *t, struct dlh__hnode *n)
{
	struct dlh__hnode **pp;

	if (!t->nbuckets)
		return;
	for (pp = &t->buckets[n->hash & (t->nbuckets - 1)]; *pp; pp = &(*pp)->next) {
		if (*pp == n) {
			*pp = n->next;
			n->next = NULL;
			t->count--;
			return;
		}
	}
}

struct dlh__hnode *dlh__htab_find(const struct dlh__htab *t, uint64_t hash, dlh__hmatch_fn match, const void *key)
{
	if (!t->nbuckets)
		return NULL;
	return dlh__htab_find_next(t->buckets[hash & (t->nbuckets - 1)], hash, match, key);
}

struct dlh__hnode *dlh__htab_find_next(struct dlh__hnode *from, uint64_t hash, dlh__hmatch_fn match, const void *key)
{
	for (struct dlh__hnode *e = from; e; e = e->next)
		if (e->hash == hash && match(e, key))
			return e;
	return NULL;
}

void dlh__htab_each(const struct dlh__htab *t, void (*fn)(struct dlh__hnode *n, void *arg), void *arg)
{
	for (size_t i = 0; i < t->nbuckets; i++)
		for (struct dlh__hnode *e = t->buckets[i], *next; e; e = next) {
			next = e->next;
			fn(e, arg);
		}
}

void dlh__htab_fini(struct dlh__htab *t)
{
	free(t->buckets);
	t->buckets = NULL;
	t->nbuckets = t->count = 0;
}
