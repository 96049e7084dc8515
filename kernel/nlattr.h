/* SPDX-License-Identifier: MIT */
/*
 * Netlink attributes checked before use, at both ends of the devlink protocol:
 * dlhald on its clients' requests, the client codec on the replies of the
 * kernel or of a dlhald. One place decides what a well-formed attribute is.
 *
 * Why not libnl's policy: libnl 3.7's validate_nla() checks the terminating
 * NUL only for NLA_STRING, and NLA_NUL_STRING has no minimum length and no
 * NUL check at all (the opposite of the kernel's meaning), so a name without
 * its NUL, or of zero bytes, passes a policy that asks for a NUL string.
 */
#ifndef DLHAL_NLATTR_H
#define DLHAL_NLATTR_H

#include <netlink/attr.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <errno.h>

enum dlh__attr_kind {
	DLH__ATTR_U8 = 1,
	DLH__ATTR_U16,
	DLH__ATTR_U32,
	DLH__ATTR_BF32, /* struct nla_bitfield32: value, selector */
	/* At least one character, its NUL in the last byte and nowhere before,
	 * strlen + 1 <= max when max is set. */
	DLH__ATTR_STR,
	DLH__ATTR_FLAG, /* no payload */
	DLH__ATTR_RECS, /* fixed-size records: a whole number of max bytes, at least one */
};

struct dlh__attr_rule {
	uint16_t type;
	uint8_t kind;
	uint16_t max;	  /* strings: largest size with the NUL, 0: any; records: the size of one */
	const char *name; /* for messages: "bus name" */
};

/*
 * The rule for an attribute of @type and where to keep it (@at), or NULL
 * for one the caller does not take.
 */
typedef const struct dlh__attr_rule *(*dlh__attr_lookup_fn)(uint16_t type, void *arg, struct nlattr ***at);

/* Whether @a is well formed by @r: 0, or -EINVAL with @why naming it (inline: every attribute read comes here). */
static inline int dlh__attr_check(const struct nlattr *a, const struct dlh__attr_rule *r, char *why, size_t whylen)
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

/*
 * Walks the attributes at @head (@len bytes): each one @lookup takes is
 * checked against its rule and kept where it says (the last of a type wins,
 * as the kernel keeps it). With @strict, an attribute it does not take, or
 * trailing bytes, is an error. Returns 0, or -EINVAL with @why. Inline, so
 * that a caller's own lookup is too: a port dump walks every attribute here.
 */
static inline __attribute__((always_inline)) int dlh__attrs_walk_inline(const struct nlattr *head, int len,
									dlh__attr_lookup_fn lookup, void *arg,
									bool strict, char *why, size_t whylen)
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

/*
 * For attributes outside the devlink family (the controller's, an extack's;
 * the family's own are policy.h's, by slot):
 * walks the attributes at @head (@len bytes) and sets @found[i] to the last
 * one of type @rules[i].type (as the kernel keeps the last), or NULL. Every
 * attribute a rule names must be well formed; with @strict, so must the
 * stream (no trailing bytes) and every attribute must be named by a rule.
 * Returns 0, or -EINVAL with @why saying which attribute and what is wrong.
 */
int dlh__attrs_parse(const struct nlattr *head, int len, const struct dlh__attr_rule *rules, size_t n,
		     struct nlattr **found, bool strict, char *why, size_t whylen);

/* The string of an attribute that passed a DLH__ATTR_STR rule, or NULL if absent. */
static inline const char *dlh__attr_str(const struct nlattr *a)
{
	return a ? (const char *)nla_data(a) : NULL;
}

/* The first attribute @type of a generic netlink message, bounds checked, not yet validated; NULL if none. */
struct nlmsghdr;
const struct nlattr *dlh__attr_peek(const struct nlmsghdr *h, uint16_t type);

#endif
