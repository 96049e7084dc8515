/* SPDX-License-Identifier: MIT */
/* The kernel devlink backend, for programs that link it in. */
#ifndef DLHAL_KERNEL_H
#define DLHAL_KERNEL_H

#include <dlhal/sdk.h>

extern const struct dlh_sdk_driver kernel_driver;
/* The same protocol to a dlhald; config: the socket path (NULL: the default). */
extern const struct dlh_sdk_driver daemon_driver;

/* The reply scanners of devlink.c, for fuzz/fuzz_kernel.c. */
struct nlmsghdr;
void dlh__family_parse(const struct nlmsghdr *nlh, int *family, int *group, uint32_t ops[4]);
bool dlh__policy_has_dump(const struct nlmsghdr *nlh, uint32_t cmd);
struct nlmsghdr *dlh__netdev_scan(unsigned char *buf, int len, const char *netdev, struct nlmsghdr **end);

#endif
