/* SPDX-License-Identifier: MIT */
/**
 * @file conform.h
 * @brief dlhal conformance kit: checks that a driver behaves as devlink requires.
 *
 * The checks drive a driver through the public API only (dlhal.h), so they
 * run the same against a module loaded in this process and against the
 * same module inside a dlhald the kit starts. Each check prints one line
 * (TAP or Criterion-like) and diagnostics under it; see dlhal-conform(1) and
 * docs/driver-guide.md for what each check asks of a driver.
 */
#ifndef DLHAL_CONFORM_H
#define DLHAL_CONFORM_H

#include <dlhal/dlhal.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Output styles. */
enum dlh_conform_format {
	DLH_CONFORM_TAP,       /**< TAP version 13: "ok 1 - name", "not ok 2 - name". */
	DLH_CONFORM_CRITERION, /**< "[PASS] conform::name", "[FAIL] conform::name". */
};

/** @brief What to check and how. Zero-initialise, then set what you need. */
struct dlh_conform_opts {
	const char *module;		/**< Driver module to load first (a path), or NULL (found by name). */
	const char *profile;		/**< Board profile for the device under test (required). */
	const char *dlhald;		/**< Path of a dlhald to run the driver in, or NULL: in this process. */
	unsigned int cycles;		/**< Split/unsplit cycles of the cycle check; 0: 20. */
	enum dlh_conform_format format; /**< How results are written: TAP or Criterion's lines. */
	FILE *out;			/**< Where results go; NULL: stdout. */
	/**
	 * A kernel device to check instead of a profile's ("pci/0000:03:00.0"):
	 * that a vendor's rules recognise it, and that each of @c steps random
	 * splits and unsplits ends as the plan made just before it said. It
	 * changes the device (Linux's own driver runs it): use a test machine.
	 */
	const char *kernel_dev;
	unsigned int steps; /**< Changes made on @c kernel_dev; 0: 200. */
	unsigned int seed;  /**< Seed of their random choice; 0: 1. The same seed, the same changes. */
};

/** @brief Counts of one run. */
struct dlh_conform_result {
	unsigned int passed;  /**< Checks that passed. */
	unsigned int failed;  /**< Checks that failed. */
	unsigned int skipped; /**< Checks that did not apply to the driver. */
};

/**
 * @brief Run every check against the profile's device (or the kernel device
 *        @c kernel_dev names, which needs no profile).
 * @param[out] res counts (may be NULL).
 * @return 0 when every check passed or was skipped; 1 when one failed; a
 *         negative errno when the device could not be set up at all (the
 *         message, naming the module or profile, is in @p ext).
 */
DLH_EXPORT int dlh_conform_run(const struct dlh_conform_opts *opts, struct dlh_conform_result *res,
			       struct dlh_extack *ext);

#ifdef __cplusplus
}
#endif

#endif /* DLHAL_CONFORM_H */
