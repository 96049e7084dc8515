/* SPDX-License-Identifier: MIT */
/*
 * Faceplates: where each front-panel port's cage is (docs/profiles.md), for
 * pictures of the panel (dl panel). Checked as any driver or relay input is:
 * no two cages of one number or at one place, names terminated.
 */
#include "core.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CAGES_MAX 1024
#define PLACE_MAX 63

DLH_EXPORT size_t dlh_dev_cages(const struct dlh_dev *dev, const struct dlh_cage **cages)
{
	*cages = dev->cages;
	return dev->ncages;
}

static bool name_ok(const char *s)
{
	size_t n = strnlen(s, DLH_CAGE_NAME_MAX);

	return n > 0 && n < DLH_CAGE_NAME_MAX;
}

DLH_EXPORT int dlh_sdk_dev_cages_set(struct dlh_dev *dev, const struct dlh_cage *cages, size_t n,
				     struct dlh_extack *ext)
{
	struct dlh_cage *copy = NULL;

	if (n > CAGES_MAX)
		return dlh__extack_set(ext, -E2BIG, dev->handle, "Faceplate: more than %d cages", CAGES_MAX);
	for (size_t i = 0; i < n; i++) {
		const struct dlh_cage *c = &cages[i];

		if (c->row > PLACE_MAX || c->col > PLACE_MAX)
			return dlh__extack_set(ext, -EINVAL, dev->handle,
					       "Faceplate: cage %u at row %u, column %u: past %d", c->number, c->row,
					       c->col, PLACE_MAX);
		if (!name_ok(c->form) || !name_ok(c->label))
			return dlh__extack_set(ext, -EINVAL, dev->handle,
					       "Faceplate: cage %u: form and label are 1 to %d characters", c->number,
					       DLH_CAGE_NAME_MAX - 1);
		for (size_t j = 0; j < i; j++) {
			if (cages[j].number == c->number)
				return dlh__extack_set(ext, -EINVAL, dev->handle, "Faceplate: cage %u twice",
						       c->number);
			if (cages[j].row == c->row && cages[j].col == c->col)
				return dlh__extack_set(
				    ext, -EINVAL, dev->handle,
				    "Faceplate: cages %u and %u at the same place (row %u, column %u)", cages[j].number,
				    c->number, c->row, c->col);
		}
	}
	if (n) {
		copy = malloc(n * sizeof(*copy));
		if (!copy)
			return dlh__extack_set(ext, -ENOMEM, dev->handle, "Out of memory");
		memcpy(copy, cages, n * sizeof(*copy));
	}
	free(dev->cages);
	dev->cages = copy;
	dev->ncages = n;
	return 0;
}
