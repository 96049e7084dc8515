/* SPDX-License-Identifier: MIT */
/* A module built against a future SDK: its entry says ABI 99. */
#include <dlhal/sdk.h>

static const struct dlh_sdk_driver future_driver = {
    .abi_version = 99,
    .name = "future",
};

DLH_EXPORT const struct dlh_sdk_module dlh_sdk_module_entry = {
    .abi_version = 99,
    .driver = &future_driver,
};
