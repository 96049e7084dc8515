/* SPDX-License-Identifier: MIT */
/* Netlink attributes checked before use (see nlattr.h for why not libnl's policy). */
#include "nlattr.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <netlink/msg.h>
#include <stdio.h>
#include <string.h>

int dlh__attr_check(const struct nlattr *a, const struct dlh__attr_rule *r, char *why, size_t whylen)
{
	static const int width[] = {
	    [DLH__ATTR_U8] = 1, [DLH__ATTR_U16] = 2, [DLH__ATTR_U32] = 4, [DLH__ATTR_BF32] = 8, [DLH__ATTR_FLAG] = 0};
	int len = a->nla_len - NLA_HDRLEN;
	const char *s = (const char *)a + NLA_HDRLEN;

	if (r->kind == DLH__ATTR_RECS) {
		if (r->max && len > 0 && len % r->max == 0)
			return 0;
		snprintf(why, whylen, "Malformed attribute %s: %d bytes, expected records of %u", r->name, len, r->max);
		return -EINVAL;
	}
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

int dlh__attrs_walk(const struct nlattr *head, int len, dlh__attr_lookup_fn lookup, void *arg, bool strict, char *why,
		    size_t whylen)
{
	const unsigned char *p = (const unsigned char *)head, *end = p + (len > 0 ? len : 0);

	/* A walk as libnl's nla_for_each_attr(), without a call per attribute. */
	while ((size_t)(end - p) >= NLA_HDRLEN) {
		const struct nlattr *a = (const struct nlattr *)p;
		uint16_t type = a->nla_type & NLA_TYPE_MASK;
		size_t step = (size_t)NLA_ALIGN((size_t)a->nla_len), left = (size_t)(end - p);
		const struct dlh__attr_rule *rule;
		struct nlattr **at;

		if (a->nla_len < NLA_HDRLEN || a->nla_len > left)
			break;
		p += step < left ? step : left;
		rule = lookup(type, arg, &at);
		if (!rule) {
			if (!strict)
				continue;
			snprintf(why, whylen, "Unknown attribute %d", type);
			return -EINVAL;
		}
		if (dlh__attr_check(a, rule, why, whylen))
			return -EINVAL;
		*at = (struct nlattr *)a;
	}
	if (strict && p < end) {
		snprintf(why, whylen, "Malformed attribute: %d bytes that are no whole attribute", (int)(end - p));
		return -EINVAL;
	}
	return 0;
}

struct listed {
	const struct dlh__attr_rule *rules;
	size_t n;
	struct nlattr **found;
};

static const struct dlh__attr_rule *listed_lookup(uint16_t type, void *arg, struct nlattr ***at)
{
	struct listed *l = arg;

	for (size_t i = 0; i < l->n; i++)
		if (l->rules[i].type == type) {
			*at = &l->found[i];
			return &l->rules[i];
		}
	return NULL;
}

int dlh__attrs_parse(const struct nlattr *head, int len, const struct dlh__attr_rule *rules, size_t n,
		     struct nlattr **found, bool strict, char *why, size_t whylen)
{
	struct listed l = {rules, n, found};

	memset(found, 0, n * sizeof(*found));
	return dlh__attrs_walk(head, len, listed_lookup, &l, strict, why, whylen);
}

/* The first attribute @type of a generic netlink message, bounds checked, not yet validated. */
const struct nlattr *dlh__attr_peek(const struct nlmsghdr *h, uint16_t type)
{
	const unsigned char *p = (const unsigned char *)nlmsg_data(h) + GENL_HDRLEN;
	const unsigned char *end = (const unsigned char *)h + h->nlmsg_len;

	if (h->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return NULL;
	while (end - p >= NLA_HDRLEN) {
		const struct nlattr *a = (const struct nlattr *)p;

		if (a->nla_len < NLA_HDRLEN || a->nla_len > end - p)
			return NULL;
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
		p += NLA_ALIGN(a->nla_len);
	}
	return NULL;
}
