/* SPDX-License-Identifier: MIT */
/*
 * Faceplates: where each front-panel port's cage is (docs/profiles.md), for
 * pictures of the panel (dl panel). Checked as any driver or relay input is:
 * no two cages of one number or at one place, names terminated.
 */
#include "core.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAGES_MAX 1024
#define PLACE_MAX 63

DLH_EXPORT size_t dlh_dev_cages(const struct dlh_dev *dev, const struct dlh_cage **cages)
{
	/* a kernel device's faceplate is its board's, once recognised */
	dlh__dev_rules((struct dlh_dev *)dev);
	*cages = dev->cages;
	return dev->ncages;
}

static bool name_ok(const char *s)
{
	size_t n = strnlen(s, DLH_CAGE_NAME_MAX);

	return n > 0 && n < DLH_CAGE_NAME_MAX;
}

/* The cages whole: each in its place and named, no number, place or module twice. */
static int cages_check(const char *obj, const struct dlh_cage *cages, size_t n, struct dlh_extack *ext)
{
	if (n > CAGES_MAX)
		return dlh__extack_set(ext, -E2BIG, obj, "Faceplate: more than %d cages", CAGES_MAX);
	for (size_t i = 0; i < n; i++) {
		const struct dlh_cage *c = &cages[i];

		if (c->row > PLACE_MAX || c->col > PLACE_MAX)
			return dlh__extack_set(ext, -EINVAL, obj, "Faceplate: cage %u at row %u, column %u: past %d",
					       c->number, c->row, c->col, PLACE_MAX);
		if (!name_ok(c->form) || !name_ok(c->label))
			return dlh__extack_set(ext, -EINVAL, obj,
					       "Faceplate: cage %u: form and label are 1 to %d characters", c->number,
					       DLH_CAGE_NAME_MAX - 1);
		for (size_t j = 0; j < i; j++) {
			if (cages[j].number == c->number)
				return dlh__extack_set(ext, -EINVAL, obj, "Faceplate: cage %u twice", c->number);
			if (cages[j].row == c->row && cages[j].col == c->col)
				return dlh__extack_set(
				    ext, -EINVAL, obj,
				    "Faceplate: cages %u and %u at the same place (row %u, column %u)", cages[j].number,
				    c->number, c->row, c->col);
			if (cages[j].has_module && c->has_module && cages[j].module == c->module)
				return dlh__extack_set(ext, -EINVAL, obj, "Faceplate: cages %u and %u on one module %u",
						       cages[j].number, c->number, c->module);
		}
	}
	return 0;
}

static int cages_copy(const char *obj, const struct dlh_cage *cages, size_t n, struct dlh_cage **out,
		      struct dlh_extack *ext)
{
	*out = NULL;
	if (!n)
		return 0;
	*out = malloc(n * sizeof(**out));
	if (!*out)
		return dlh__extack_set(ext, -ENOMEM, obj, "Out of memory");
	memcpy(*out, cages, n * sizeof(**out));
	return 0;
}

DLH_EXPORT int dlh_sdk_dev_cages_set(struct dlh_dev *dev, const struct dlh_cage *cages, size_t n,
				     struct dlh_extack *ext)
{
	struct dlh_cage *copy;
	int err = cages_check(dev->handle, cages, n, ext);

	if (!err)
		err = cages_copy(dev->handle, cages, n, &copy, ext);
	if (err)
		return err;
	free(dev->cages);
	dev->cages = copy;
	dev->ncages = n;
	return 0;
}

DLH_EXPORT const char *dlh_dev_card(const struct dlh_dev *dev)
{
	/* a kernel device's card is its board's, known once recognised (an E810's PFs) */
	dlh__dev_rules((struct dlh_dev *)dev);
	return dev->card;
}

static int card_name_check(const char *obj, const char *card, struct dlh_extack *ext)
{
	size_t n = strnlen(card, DLH_CARD_NAME_MAX);

	if (!n || n == DLH_CARD_NAME_MAX)
		return dlh__extack_set(ext, -EINVAL, obj, "Card name: 1 to %d characters", DLH_CARD_NAME_MAX - 1);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)card[i] < 0x21 || card[i] == 0x7f)
			return dlh__extack_set(ext, -EINVAL, obj, "Card name: a blank or control character");
	return 0;
}

DLH_EXPORT int dlh_sdk_dev_card_set(struct dlh_dev *dev, const char *card, struct dlh_extack *ext)
{
	char *copy = NULL;

	if (card) {
		int err = card_name_check(dev->handle, card, ext);

		if (err)
			return err;
		copy = strdup(card);
		if (!copy)
			return dlh__extack_set(ext, -ENOMEM, dev->handle, "Out of memory");
	}
	free(dev->card);
	dev->card = copy;
	return 0;
}

/* A card's faceplate and name into @to_*: all of it, or nothing on failure. */
static int card_copy(const char *obj, const struct dlh_cage *cages, size_t n, const char *card,
		     struct dlh_cage **to_cages, size_t *to_n, char **to_card, struct dlh_extack *ext)
{
	struct dlh_cage *copy;
	char *name;
	int err = cages_copy(obj, cages, n, &copy, ext);

	if (err)
		return err;
	name = strdup(card);
	if (!name) {
		free(copy);
		return dlh__extack_set(ext, -ENOMEM, obj, "Out of memory");
	}
	*to_cages = copy;
	*to_n = n;
	*to_card = name;
	return 0;
}

int dlh__dev_card_copy(struct dlh_dev *dev, const struct dlh_sdk_bus *bus, struct dlh_extack *ext)
{
	if (!bus->card)
		return 0;
	return card_copy(dev->handle, bus->cages, bus->ncages, bus->card, &dev->cages, &dev->ncages, &dev->card, ext);
}

int dlh__bus_card_set(struct dlh_sdk_bus *bus, const struct dlh__card *card, struct dlh_extack *ext)
{
	int err = card_name_check(card->name, card->name, ext);

	if (!err)
		err = cages_check(card->name, card->cages, card->n, ext);
	if (err) {
		char why[DLH_EXTACK_MSG_MAX];

		if (!ext)
			return err;
		snprintf(why, sizeof(why), "%s", ext->msg);
		return dlh__extack_set(ext, err, NULL, "%s: field \"faceplate\": %s", card->src, why);
	}
	return card_copy(card->name, card->cages, card->n, card->name, &bus->cages, &bus->ncages, &bus->card, ext);
}

/*
 * Every port of the card's devices has a cage: by module where the port
 * reports one and a cage has it, else by number. A cage may be empty (the
 * option in use gives its lanes no port), so cages are not checked against
 * ports: the ports after any reset are.
 */
int dlh__bus_card_check(const struct dlh_sdk_bus *bus, const char *src, struct dlh_extack *ext)
{
	for (struct dlh__list *it = bus->ctx->devs.next; it != &bus->ctx->devs; it = it->next) {
		struct dlh_dev *dev = dlh__container_of(it, struct dlh_dev, node);

		if (dev->sdk_bus != bus)
			continue;
		for (struct dlh_port *p = dlh_port_first(dev); p; p = dlh_port_next(p)) {
			bool found = false;

			for (size_t i = 0; i < bus->ncages && !found; i++)
				found = bus->cages[i].has_module
					    ? p->attrs.has_module && p->attrs.module == bus->cages[i].module
					    : p->attrs.number == bus->cages[i].number;
			if (found)
				continue;
			if (p->attrs.has_module)
				return dlh__extack_set(ext, -EINVAL, NULL,
						       "%s: field \"faceplate\": no cage for module %u (port %s)", src,
						       p->attrs.module, dlh_port_handle(p));
			return dlh__extack_set(ext, -EINVAL, NULL,
					       "%s: field \"faceplate\": no cage for number %u (port %s)", src,
					       p->attrs.number, dlh_port_handle(p));
		}
	}
	return 0;
}
