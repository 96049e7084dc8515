/* SPDX-License-Identifier: MIT */
/* Netdev names: the kernel's validity rules and its "eth%d" allocation. */
#include "core.h"

#include <errno.h>
#include <stdio.h>
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

int dlh__netdev_name_pick(const struct dlh_ctx *ctx, const char *pattern, dlh__name_taken_fn taken, const void *arg,
			  int *from, char *buf, size_t len, struct dlh_extack *ext)
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

static bool in_model(const struct dlh_ctx *ctx, const char *name, const void *arg)
{
	(void)arg;
	return dlh__port_find_netdev(ctx, name) != NULL;
}

DLH_EXPORT int dlh_sdk_netdev_name_alloc(struct dlh_ctx *ctx, const char *pattern, char *buf, size_t len,
					 struct dlh_extack *ext)
{
	return dlh__netdev_name_pick(ctx, pattern, in_model, NULL, NULL, buf, len, ext);
}
