/* SPDX-License-Identifier: MIT */
/* Netdev names: the kernel's validity rules and its "eth%d" allocation. */
#include "core.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The kernel's dev_valid_name(): 1..15 bytes, not "." or "..", no '/', ':' or space. */
int dlh__netdev_name_valid(const char *name)
{
	size_t len = strlen(name);

	if (!len || len >= DLH_NETDEV_NAME_MAX || !strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	for (; *name; name++)
		if (*name == '/' || *name == ':' || *name == ' ' || *name == '\t' || *name == '\n' ||
		    (unsigned char)*name < 0x20 || *name == '%')
			return 0;
	return 1;
}

/* The kernel scans at most one page of bits for a free number. */
#define NAME_ALLOC_MAX 32768

int dlh__netdev_name_pick(const struct dlh_ctx *ctx, const char *pattern, dlh__name_taken_fn taken,
			  dlh__name_next_fn next, const void *arg, int *from, char *buf, size_t len,
			  struct dlh_extack *ext)
{
	const char *pct = strchr(pattern, '%');
	char name[DLH_NETDEV_NAME_MAX + 16];
	size_t pre, post;

	if (!pct || pct[1] != 'd' || strchr(pct + 2, '%') || strlen(pattern) >= DLH_NETDEV_NAME_MAX)
		return dlh__extack_set(ext, -EINVAL, NULL, "Invalid netdev name pattern \"%s\"",
				       DLH__QUOTE(pattern, strlen(pattern)));
	pre = (size_t)(pct - pattern);
	post = strlen(pct + 2);
	/* Digits never make a name invalid: the pattern is checked once, with the first number. */
	memcpy(name, pattern, pre);
	name[pre] = '0';
	memcpy(name + pre + 1, pct + 2, post + 1);
	if (!dlh__netdev_name_valid(name) && pre + 1 + post < DLH_NETDEV_NAME_MAX)
		return dlh__extack_set(ext, -EINVAL, NULL, "Invalid netdev name pattern \"%s\"", pattern);
	for (int i = from && *from > 0 ? *from : 0; i < NAME_ALLOC_MAX; i++) {
		char digits[8];
		size_t nd = 0, n;

		if (next && (i = next(arg, i)) >= NAME_ALLOC_MAX)
			break;
		for (int v = i; nd == 0 || v; v /= 10)
			digits[nd++] = (char)('0' + v % 10);
		n = pre + nd + post;
		if (n >= DLH_NETDEV_NAME_MAX)
			break;
		for (size_t k = 0; k < nd; k++)
			name[pre + k] = digits[nd - 1 - k];
		memcpy(name + pre + nd, pct + 2, post + 1);
		if (taken(ctx, name, arg))
			continue;
		if (n >= len)
			return dlh__extack_set(ext, -ENOSPC, NULL, "No room for netdev name \"%s\"", name);
		memcpy(buf, name, n + 1);
		if (from)
			*from = i + 1;
		return 0;
	}
	return dlh__extack_set(ext, -ENFILE, NULL, "No free netdev name for pattern \"%s\"", pattern);
}

int dlh__netdev_name_number(const char *pattern, const char *name)
{
	const char *pct = strchr(pattern, '%');
	size_t pre, post, n = strlen(name), digits;
	long v = 0;

	if (!pct || pct[1] != 'd')
		return -1;
	pre = (size_t)(pct - pattern);
	post = strlen(pct + 2);
	if (n < pre + post + 1 || strncmp(name, pattern, pre) || strcmp(name + n - post, pct + 2))
		return -1;
	digits = n - pre - post;
	/* as a pick writes them: no leading zero but in "0" itself */
	if (digits > 5 || (digits > 1 && name[pre] == '0'))
		return -1;
	for (size_t i = pre; i < pre + digits; i++) {
		if (name[i] < '0' || name[i] > '9')
			return -1;
		v = v * 10 + (name[i] - '0');
	}
	return v < NAME_ALLOC_MAX ? (int)v : -1;
}

bool dlh__name_bits_set(struct dlh__name_bits *b, int n, bool in)
{
	size_t w = (size_t)n / 64;

	if (w >= b->nwords) {
		uint64_t *nw;
		size_t cap = b->nwords ? b->nwords : 4;

		if (!in)
			return true;
		while (cap <= w)
			cap *= 2;
		nw = realloc(b->words, cap * sizeof(*nw));
		if (!nw) {
			dlh__name_bits_fini(b);
			return false;
		}
		memset(nw + b->nwords, 0, (cap - b->nwords) * sizeof(*nw));
		b->words = nw;
		b->nwords = cap;
	}
	if (in)
		b->words[w] |= 1ull << (n % 64);
	else
		b->words[w] &= ~(1ull << (n % 64));
	return true;
}

int dlh__name_bits_free(const struct dlh__name_bits *b, int from)
{
	size_t w = (size_t)from / 64;

	if (w < b->nwords) {
		uint64_t free = ~b->words[w] & (~0ull << (from % 64));

		for (;;) {
			if (free)
				return (int)(w * 64) + __builtin_ctzll(free);
			if (++w == b->nwords)
				break;
			free = ~b->words[w];
		}
	}
	return from > (int)(w * 64) ? from : (int)(w * 64);
}

void dlh__name_bits_fini(struct dlh__name_bits *b)
{
	free(b->words);
	memset(b, 0, sizeof(*b));
}

void dlh__netdev_name_note(struct dlh_ctx *ctx, const char *name, bool in)
{
	for (size_t i = 0; i < DLH__NAME_BITS; i++) {
		struct dlh__name_bits *b = &ctx->name_bits[i];
		int n = b->pattern[0] ? dlh__netdev_name_number(b->pattern, name) : -1;

		if (n >= 0)
			dlh__name_bits_set(b, n, in);
	}
}

struct bits_fill {
	struct dlh__name_bits *b;
	bool failed;
};

static void bits_fill_one(struct dlh__hnode *node, void *arg)
{
	struct bits_fill *f = arg;
	int n = dlh__netdev_name_number(f->b->pattern, dlh__container_of(node, struct dlh_port, netdev_node)->netdev);

	if (n >= 0 && !f->failed && !dlh__name_bits_set(f->b, n, true))
		f->failed = true;
}

struct dlh__name_bits *dlh__netdev_name_bits(struct dlh_ctx *ctx, const char *pattern)
{
	struct dlh__name_bits *b = &ctx->name_bits[0];
	char name[DLH_NETDEV_NAME_MAX];
	struct bits_fill f;

	if (strlen(pattern) >= sizeof(b->pattern))
		return NULL;
	for (size_t i = 0; i < DLH__NAME_BITS; i++) {
		if (!strcmp(ctx->name_bits[i].pattern, pattern)) {
			ctx->name_bits[i].stamp = ++ctx->name_stamp;
			return &ctx->name_bits[i];
		}
		if (ctx->name_bits[i].stamp < b->stamp)
			b = &ctx->name_bits[i];
	}
	/* the oldest goes: this pattern's bits are made from the model's names */
	dlh__name_bits_fini(b);
	memcpy(name, pattern, strlen(pattern) + 1);
	memcpy(b->pattern, name, sizeof(name));
	b->stamp = ++ctx->name_stamp;
	f = (struct bits_fill){b, false};
	dlh__htab_each(&ctx->port_by_netdev, bits_fill_one, &f);
	if (f.failed) {
		dlh__name_bits_fini(b);
		return NULL;
	}
	return b;
}

static bool in_model(const struct dlh_ctx *ctx, const char *name, const void *arg)
{
	(void)arg;
	return dlh__port_find_netdev(ctx, name) != NULL;
}

static int model_next(const void *arg, int n)
{
	return arg ? dlh__name_bits_free(arg, n) : n;
}

DLH_EXPORT int dlh_sdk_netdev_name_alloc(struct dlh_ctx *ctx, const char *pattern, char *buf, size_t len,
					 struct dlh_extack *ext)
{
	/* (bits that cannot be kept: every number is tried, as before) */
	return dlh__netdev_name_pick(ctx, pattern, in_model, model_next, dlh__netdev_name_bits(ctx, pattern), NULL, buf,
				     len, ext);
}
