/* SPDX-License-Identifier: MIT */
/* A module file named mismatch.so that holds driver "bar": profiles naming "mismatch" must be refused. */
#include <dlhal/sdk.h>

static const struct dlh_sdk_ops bar_ops = {0};

static const struct dlh_sdk_driver bar_driver = {
    DLH_SDK_DRIVER_INIT("bar", &bar_ops),
};

DLH_SDK_MODULE(bar_driver);
