/* SPDX-License-Identifier: MIT */
/* The example driver (examples/driver/example.c) linked in, for fuzz_profile: its hand-written hw parser is fuzzed too.
 */
#include <dlhal/sdk.h>

#undef DLH_SDK_MODULE
#define DLH_SDK_MODULE(drv) const struct dlh_sdk_driver *const fuzz_example_driver = &(drv)
#include "../examples/driver/example.c"
