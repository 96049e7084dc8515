/* SPDX-License-Identifier: MIT */
/*
 * The kernel backend's reply scanners that run outside the dump parser
 * (fuzz_client covers that one): the generic-netlink controller's family
 * reply (id, "config" group, nested groups and commands), its policy reply
 * (whether the port dump has a policy of its own), the scan of a port dump
 * read for one netdev name, and a device message's reload statistics
 * (dlh__reloads_get(), which only the kernel sends) and the instances nested
 * in it (dlh__nested_get()). The input is a buffer of netlink messages as a
 * read from the kernel would return it; every byte of it is hostile.
 */
#include "codec.h"
#include "kernel.h"

#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nlmsghdr *end = NULL, *found;
	unsigned char *buf;
	int family = -1, group = -1, rem, dumps = 0;
	uint32_t ops[4] = {0};

	/* A copy of exactly the input's size, so that ASan sees any read past it; aligned as a read buffer is. */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	rem = (int)size;
	for (struct nlmsghdr *h = (struct nlmsghdr *)buf; nlmsg_ok(h, rem); h = nlmsg_next(h, &rem)) {
		dlh__family_parse(h, &family, &group, ops);
		uint64_t reloads;

		dumps += dlh__policy_has_dump(h, 3);
		/* as on_msg() does: only a message with its generic-netlink header is read */
		if (h->nlmsg_len >= NLMSG_HDRLEN + GENL_HDRLEN) {
			char nested[DLH_NESTED_MAX][DLH_HANDLE_MAX];

			dlh__reloads_get(h, &reloads);
			dlh__nested_get(h, nested, DLH_NESTED_MAX);
		}
	}
	found = dlh__netdev_scan(buf, (int)size, "eth0", &end);
	/* What the scan hands back lies inside the buffer, whole. */
	if (found && ((unsigned char *)found < buf || (unsigned char *)found + found->nlmsg_len > buf + size))
		abort();
	if (end && ((unsigned char *)end < buf || (unsigned char *)end + end->nlmsg_len > buf + size))
		abort();
	free(buf);
	return family == -2 && group == -2 && dumps == -1 && ops[3] == 7; /* keeps the results */
}
