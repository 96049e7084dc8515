/* SPDX-License-Identifier: MIT */
/* Netlink attributes checked before use (see nlattr.h for why not libnl's policy). */
#include "nlattr.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <netlink/msg.h>
#include <stdio.h>
#include <string.h>

struct listed {
	const struct dlh__attr_rule *rules;
	size_t n;
	struct nlattr **found;
};

static inline const struct dlh__attr_rule *listed_lookup(uint16_t type, void *arg, struct nlattr ***at)
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
	return dlh__attrs_walk_inline(head, len, listed_lookup, &l, strict, why, whylen);
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
