/* SPDX-License-Identifier: MIT */
/* Netlink attributes checked before use (see nlattr.h for why not libnl's policy). */
#include "nlattr.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int attr_check(const struct nlattr *a, const struct dlh__attr_rule *r, char *why, size_t whylen)
{
	static const int width[] = {[DLH__ATTR_U8] = 1, [DLH__ATTR_U16] = 2, [DLH__ATTR_U32] = 4};
	int len = nla_len(a);
	const char *s = nla_data(a);

	if (r->kind != DLH__ATTR_STR) {
		if (len == width[r->kind])
			return 0;
		snprintf(why, whylen, "Malformed attribute %s: %d bytes, expected %d", r->name, len, width[r->kind]);
		return -EINVAL;
	}
	if (len < 2 || !s[0])
		snprintf(why, whylen, "Malformed attribute %s: empty string", r->name);
	else if (s[len - 1])
		snprintf(why, whylen, "Malformed attribute %s: no NUL at its end", r->name);
	else if (memchr(s, '\0', (size_t)len - 1))
		snprintf(why, whylen, "Malformed attribute %s: NUL inside the string", r->name);
	else if (r->max && len > r->max)
		snprintf(why, whylen, "Malformed attribute %s: longer than %u bytes", r->name, r->max - 1u);
	else
		return 0;
	return -EINVAL;
}

int dlh__attrs_parse(const struct nlattr *head, int len, const struct dlh__attr_rule *rules, size_t n,
		     struct nlattr **found, bool strict, char *why, size_t whylen)
{
	const struct nlattr *a;
	int rem;

	memset(found, 0, n * sizeof(*found));
	nla_for_each_attr(a, head, len, rem)
	{
		size_t i;

		for (i = 0; i < n && rules[i].type != nla_type(a); i++)
			;
		if (i == n) {
			if (!strict)
				continue;
			snprintf(why, whylen, "Unknown attribute %d", nla_type(a));
			return -EINVAL;
		}
		if (attr_check(a, &rules[i], why, whylen))
			return -EINVAL;
		found[i] = (struct nlattr *)a;
	}
	if (strict && rem > 0) {
		snprintf(why, whylen, "Malformed attribute: %d bytes that are no whole attribute", rem);
		return -EINVAL;
	}
	return 0;
}
