/* SPDX-License-Identifier: MIT */
/*
 * Which port sits in which cage: a device's, or a card's devices' together
 * (an E810's PCI functions), on the faceplate or on cages made from the port
 * numbers. Front ends draw it (dl panel: text, SVG, JSON); none places.
 */
#include "core.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAGES_SOFT 1024 /* cages made from port numbers at most: a panel past that is no picture */

struct dlh_layout {
	struct dlh_dev **devs;
	size_t ndevs;
	struct dlh_layout_cage *cages;
	size_t ncages, cap;
	bool generic;
};

static int cage_cmp(const void *a, const void *b)
{
	const struct dlh_layout_cage *x = a, *y = b;

	if (x->cage.row != y->cage.row)
		return x->cage.row < y->cage.row ? -1 : 1;
	return x->cage.col < y->cage.col ? -1 : x->cage.col > y->cage.col;
}

/* In a cage: by lane where the ports report one (a card's functions), then by device and index. */
static int port_cmp(const void *a, const void *b)
{
	const struct dlh_port *p = *(struct dlh_port *const *)a, *q = *(struct dlh_port *const *)b;
	uint32_t mp, mq, lp, lq, x = p->index, y = q->index;
	int c;

	if (dlh_port_module(p, &mp, &lp) && dlh_port_module(q, &mq, &lq) && lp != lq)
		return lp < lq ? -1 : 1;
	c = strcmp(p->dev->handle, q->dev->handle);
	if (c)
		return c;
	return x < y ? -1 : x > y;
}

/* Whether cage @cg carries port @p: by module for a cage found by module, else by number (or index). */
static bool cage_has(const struct dlh_layout_cage *cg, const struct dlh_port *p)
{
	uint32_t module, lane;
	bool has = dlh_port_has_number(p);

	if (cg->cage.has_module)
		return dlh_port_module(p, &module, &lane) && module == cg->cage.module;
	if (cg->by_index)
		return !has && cg->index == p->index;
	return has && cg->cage.number == dlh_port_number(p);
}

static int cage_add_port(struct dlh_layout_cage *cg, struct dlh_port *p)
{
	struct dlh_port **v;

	/* ports come one at a time: room for 4 (a split by 4 is the common case), then doubled when full */
	if (!cg->nports || (cg->nports >= 4 && !(cg->nports & (cg->nports - 1)))) {
		v = realloc(cg->ports, (cg->nports ? cg->nports * 2 : 4) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		cg->ports = v;
	}
	cg->ports[cg->nports++] = p;
	return 0;
}

/* Port @p into its cage: the faceplate's, or (generic) one made for its number. */
static int cage_place(struct dlh_layout *l, struct dlh_port *p)
{
	struct dlh_layout_cage *cg;
	size_t i;

	for (i = 0; i < l->ncages; i++)
		if (cage_has(&l->cages[i], p))
			break;
	if (i == l->ncages) {
		if (!l->generic || l->ncages == CAGES_SOFT)
			return 0;
		if (l->ncages == l->cap) {
			struct dlh_layout_cage *nv = realloc(l->cages, l->cap * 2 * sizeof(*nv));

			if (!nv)
				return -ENOMEM;
			l->cages = nv;
			l->cap *= 2;
		}
		cg = &l->cages[i];
		memset(cg, 0, sizeof(*cg));
		cg->cage.number = dlh_port_number(p);
		cg->by_index = !dlh_port_has_number(p);
		cg->index = p->index;
		snprintf(cg->cage.form, sizeof(cg->cage.form), "port");
		if (!cg->by_index)
			snprintf(cg->cage.label, sizeof(cg->cage.label), "%u", cg->cage.number);
		else
			snprintf(cg->cage.label, sizeof(cg->cage.label), "#%u", p->index);
		l->ncages++;
	}
	return cage_add_port(&l->cages[i], p);
}

/* Made from the port numbers: by number, then the numberless by index; one row of 16, else two. */
static void generic_places(struct dlh_layout *l)
{
	struct dlh_layout_cage *v = l->cages;
	size_t n = l->ncages;

	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			bool swap =
			    v[j].by_index != v[i].by_index
				? v[i].by_index
				: (v[j].by_index ? v[j].index < v[i].index : v[j].cage.number < v[i].cage.number);

			if (swap) {
				struct dlh_layout_cage t = v[i];

				v[i] = v[j];
				v[j] = t;
			}
		}
	for (size_t i = 0; i < n; i++) {
		v[i].cage.row = n <= 16 ? 0 : (unsigned int)(i % 2);
		v[i].cage.col = n <= 16 ? (unsigned int)i : (unsigned int)(i / 2);
	}
}

/* @dev, or every device of its card, in the model's order. */
static int devs_of(struct dlh_layout *l, struct dlh_dev *dev)
{
	const char *card = dlh_dev_card(dev);
	size_t cap = 0;

	for (struct dlh_dev *d = card ? dlh_dev_first(dev->ctx) : dev; d; d = card ? dlh_dev_next(d) : NULL) {
		if (card && (!dlh_dev_card(d) || strcmp(dlh_dev_card(d), card)))
			continue;
		if (l->ndevs == cap) {
			struct dlh_dev **nv = realloc(l->devs, (cap = cap ? cap * 2 : 8) * sizeof(*nv));

			if (!nv)
				return -ENOMEM;
			l->devs = nv;
		}
		l->devs[l->ndevs++] = d;
	}
	return 0;
}

DLH_EXPORT int dlh_layout_new(struct dlh_dev *dev, struct dlh_layout **out)
{
	struct dlh_layout *l = calloc(1, sizeof(*l));
	const struct dlh_cage *fc;
	size_t nf;
	int err;

	*out = NULL;
	if (!l)
		return -ENOMEM;
	err = devs_of(l, dev);
	if (err)
		goto err_free;
	nf = dlh_dev_cages(l->devs[0], &fc);
	l->generic = !nf;
	l->cap = nf ? nf : 16;
	l->cages = calloc(l->cap, sizeof(*l->cages));
	if (!l->cages) {
		err = -ENOMEM;
		goto err_free;
	}
	for (size_t i = 0; i < nf; i++)
		l->cages[l->ncages++].cage = fc[i];
	for (size_t d = 0; d < l->ndevs; d++)
		for (struct dlh_port *p = dlh_port_first(l->devs[d]); p; p = dlh_port_next(p)) {
			err = cage_place(l, p);
			if (err)
				goto err_free;
		}
	for (size_t i = 0; i < l->ncages; i++) {
		struct dlh_layout_cage *cg = &l->cages[i];

		if (cg->nports)
			qsort(cg->ports, cg->nports, sizeof(cg->ports[0]), port_cmp);
		cg->unused = !cg->nports && cg->cage.has_module;
	}
	if (l->generic)
		generic_places(l);
	qsort(l->cages, l->ncages, sizeof(*l->cages), cage_cmp);
	*out = l;
	return 0;

err_free:
	dlh_layout_free(l);
	return err;
}

DLH_EXPORT size_t dlh_layout_devs(const struct dlh_layout *layout, struct dlh_dev *const **devs)
{
	*devs = layout->devs;
	return layout->ndevs;
}

DLH_EXPORT bool dlh_layout_generic(const struct dlh_layout *layout)
{
	return layout->generic;
}

DLH_EXPORT size_t dlh_layout_cages(const struct dlh_layout *layout, const struct dlh_layout_cage **cages)
{
	*cages = layout->cages;
	return layout->ncages;
}

DLH_EXPORT void dlh_layout_free(struct dlh_layout *layout)
{
	if (!layout)
		return;
	for (size_t i = 0; i < layout->ncages; i++)
		free(layout->cages[i].ports);
	free(layout->cages);
	free(layout->devs);
	free(layout);
}
