/* SPDX-License-Identifier: MIT */
/* Desired state: the steps to it, planned whole, and applying them. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* dlh_desired_where() into @buf, returned: for a message's arguments. */
static const char *where(const struct dlh_desired *d, size_t i, int line, char *buf, size_t len)
{
	dlh_desired_where(d, i, line, buf, len);
	return buf;
}

/* The device an entry means and its front-panel number (a netdev entry: its port's now); NULL if none. */
static struct dlh_dev *entry_dev(const struct dlh_desired_entry *e, struct dlh_ctx *ctx, unsigned int *number)
{
	struct dlh_port *p;

	if (e->netdev[0]) {
		p = dlh_port_find_netdev(ctx, e->netdev);
		if (!p)
			return NULL;
		*number = dlh_port_number(p);
		return dlh_port_dev(p);
	}
	*number = e->number;
	return dlh_dev_find(ctx, e->device);
}

/*
 * The ports of front-panel port @number: how many, how many split, and the
 * first; in @seq's view, or (@seq NULL) in the model as it is.
 */
static unsigned int group(struct dlh_seq *seq, struct dlh_dev *dev, unsigned int number, unsigned int *nsplit,
			  struct dlh_port **first)
{
	unsigned int n = 0;

	*nsplit = 0;
	*first = NULL;
	/* in a sequence, through its table by number (a whole board's file is linear in its ports) */
	for (struct dlh_port *p = seq ? dlh_seq_port_find_number(seq, dev, number) : NULL; p;
	     p = dlh_seq_port_next_number(p)) {
		if (!n++ || dlh_port_index(p) < dlh_port_index(*first))
			*first = p;
		*nsplit += dlh_port_is_split(p);
	}
	if (seq)
		return n;
	for (struct dlh_port *p = dlh_port_first(dev); p; p = dlh_port_next(p)) {
		if (dlh_port_number(p) != number)
			continue;
		if (!n++)
			*first = p;
		*nsplit += dlh_port_is_split(p);
	}
	return n;
}

/*
 * A port whose split is a firmware option of its device (ice: the splittable
 * port of a device with options): the count it has now is the active
 * option's, or the pending one's once one is stored. False for any other port.
 */
static bool option_split(struct dlh_dev *dev, struct dlh_port *first, unsigned int *now, bool *pending)
{
	struct dlh_fw_option opts[16];
	struct dlh_pending p;
	size_t n = 0;

	if (!first || !dlh_port_splittable(first) || dlh_dev_fw_options(dev, opts, 16, &n, NULL))
		return false;
	*now = 1;
	for (size_t i = 0; i < n && i < 16; i++)
		if (opts[i].active)
			*now = opts[i].split;
	*pending = dlh_dev_pending(dev, &p) && p.split;
	if (*pending)
		*now = p.split;
	return true;
}

/* The device and number of a step's "BUS/DEV#NUMBER", or of its port handle (an unsplit's). */
static struct dlh_dev *step_dev(struct dlh_ctx *ctx, const struct dlh_desired_step *s, unsigned int *number,
				uint32_t *index)
{
	char handle[DLH_HANDLE_MAX];
	const char *hash = strchr(s->port, '#'), *slash = strrchr(s->port, '/');

	if (hash) {
		snprintf(handle, sizeof(handle), "%.*s", (int)(hash - s->port), s->port);
		*number = (unsigned int)strtoul(hash + 1, NULL, 10);
		*index = UINT32_MAX;
	} else {
		snprintf(handle, sizeof(handle), "%.*s", (int)(slash - s->port), s->port);
		*index = (uint32_t)strtoul(slash + 1, NULL, 10);
		*number = 0;
	}
	return dlh_dev_find(ctx, handle);
}

/* As step_dev(), with @ext cleared, or saying the device is gone. */
static struct dlh_dev *step_target(struct dlh_ctx *ctx, const struct dlh_desired_step *s, unsigned int *number,
				   uint32_t *index, struct dlh_extack *ext)
{
	struct dlh_dev *dev = step_dev(ctx, s, number, index);

	memset(ext, 0, sizeof(*ext));
	if (!dev)
		dlh_extack_set(ext, -ENODEV, NULL, "Device is gone");
	return dev;
}

/*
 * Appends @item (@size bytes) to the array of *@n items whose pointer is at
 * @parr (a struct dlh_desired_step **, ...: read and written with memcpy, not through a
 * void **); -ENOMEM leaves it as it was.
 */
static int append(void *parr, size_t *n, size_t size, const void *item)
{
	char *arr, *nv;

	memcpy(&arr, parr, sizeof(arr));
	nv = realloc(arr, (*n + 1) * size);
	if (!nv)
		return -ENOMEM;
	memcpy(nv + *n * size, item, size);
	memcpy(parr, &nv, sizeof(nv));
	(*n)++;
	return 0;
}

static int plan_keep(struct dlh_desired_step *s, const struct dlh_plan *plan)
{
	return append(&s->plans, &s->nplans, sizeof(*plan), plan);
}

static int gone(struct dlh_extack *ext, struct dlh_dev *dev, const char *fmt, unsigned int n)
{
	return dlh_extack_set(ext, -ENODEV, dlh_dev_handle(dev), fmt, n);
}

/*
 * Plans step @s in @seq, on the ports the steps planned before leave; keeps
 * its plans in @s when @keep. A device whose ports are not known there (the
 * kernel relays) makes the step partial.
 */
static int step_plan(struct dlh_seq *seq, struct dlh_ctx *ctx, struct dlh_desired_step *s, bool keep,
		     struct dlh_extack *ext)
{
	unsigned int number, nsplit;
	struct dlh_port *first, *p;
	struct dlh_plan plan;
	uint32_t index;
	struct dlh_dev *dev = step_target(ctx, s, &number, &index, ext);
	int err = 0;

	if (!dev)
		return -ENODEV;
	if (!dlh_seq_known(seq, dev)) {
		s->partial = true;
		return 0;
	}
	if (s->kind == DLH_CHANGE_UNSPLIT) {
		for (p = dlh_seq_port_first(seq, dev); p && dlh_port_index(p) != index; p = dlh_seq_port_next(p))
			;
		if (!p)
			return gone(ext, dev, "Port %u would be gone", index);
		err = dlh_seq_unsplit(seq, p, &plan, ext);
	} else if (s->kind == DLH_CHANGE_SPLIT) {
		if (!group(seq, dev, number, &nsplit, &first))
			return gone(ext, dev, "Port %u would be gone", number);
		if (nsplit)
			return gone(ext, dev, "No whole port %u to split", number);
		err = dlh_seq_split(seq, first, s->count, &plan, ext);
	} else {
		/* each port of the front-panel port whose type differs, found again after each (a plan replaces it) */
		if (!group(seq, dev, number, &nsplit, &first))
			return gone(ext, dev, "Port %u would be gone", number);
		for (int again = 1, rounds = 0; again && !err && rounds < 64; rounds++) {
			again = 0;
			for (p = dlh_seq_port_first(seq, dev); p; p = dlh_seq_port_next(p)) {
				if (dlh_port_number(p) != number || dlh_port_desired_type(p) == s->type)
					continue;
				err = dlh_seq_type_set(seq, p, s->type, &plan, ext);
				if (!err && keep)
					err = plan_keep(s, &plan);
				s->partial |= !err && plan.partial;
				/* stored for the next reset (ConnectX-4..7): the view stays, on to the next port */
				s->staged |= !err && plan.staged;
				if (!err && plan.staged)
					continue;
				again = !err && !plan.partial;
				break;
			}
		}
		return err;
	}
	if (!err && keep)
		err = plan_keep(s, &plan);
	s->partial |= !err && plan.partial;
	if (!err && plan.partial && !s->why[0])
		snprintf(s->why, sizeof(s->why), "%s", ext->msg);
	s->staged |= !err && plan.staged; /* a relay's device may stage what it plans */
	return err;
}

static int step_add(struct dlh_desired_plan *p, const struct dlh_desired_step *s)
{
	return append(&p->steps, &p->nsteps, sizeof(*s), s);
}

DLH_EXPORT void dlh_desired_plan_free(struct dlh_desired_plan *p)
{
	for (size_t i = 0; i < p->nsteps; i++) {
		free(p->steps[i].plans);
		free(p->steps[i].was);
	}
	free(p->steps);
	free(p->unmet);
	free(p->deferred);
	memset(p, 0, sizeof(*p));
}

/* Whether step @k is refused after step @j alone (-1: on its own), each planned afresh. */
static bool refused_after(struct dlh_ctx *ctx, const struct dlh_desired_plan *p, ssize_t j, size_t k)
{
	struct dlh_desired_step a, b;
	struct dlh_extack ext;
	struct dlh_seq *seq;
	bool refused;

	if (dlh_seq_new(ctx, &seq))
		return false;
	a = j >= 0 ? p->steps[j] : (struct dlh_desired_step){0};
	b = p->steps[k];
	refused = (j >= 0 && step_plan(seq, ctx, &a, false, &ext)) ? false : step_plan(seq, ctx, &b, false, &ext) != 0;
	dlh_seq_free(seq);
	return refused;
}

/* Step @k was refused in the sequence: on its own, or after which other step. */
static void refusal(const struct dlh_desired *d, struct dlh_ctx *ctx, struct dlh_desired_plan *p, size_t k,
		    const struct dlh_extack *ext)
{
	char what[DLH_HANDLE_MAX + 600], other[DLH_HANDLE_MAX + 600], buf[DLH_EXTACK_MSG_MAX + DLH_HANDLE_MAX + 8];
	const struct dlh_desired_step *s = &p->steps[k];
	ssize_t culprit = -1;
	char at[DLH_DESIRED_ORIGIN_MAX + 520], at2[DLH_DESIRED_ORIGIN_MAX + 520];

	dlh_desired_step_describe(d, s, what, sizeof(what));
	dlh_extack_str(ext, buf, sizeof(buf));
	p->entry = s->entry;
	p->line = s->line;
	if (!refused_after(ctx, p, -1, k)) {
		for (size_t j = 0; j < k && culprit < 0; j++)
			if (p->steps[j].entry != s->entry && refused_after(ctx, p, (ssize_t)j, k))
				culprit = (ssize_t)j;
		/* refused only after several: name the last step of another entry before it */
		for (size_t j = k; j-- > 0 && culprit < 0;)
			if (p->steps[j].entry != s->entry)
				culprit = (ssize_t)j;
	}
	if (culprit < 0) {
		p->status = DLH_DESIRED_REFUSED;
		snprintf(p->why, sizeof(p->why), "%s: %s", what, buf);
		return;
	}
	dlh_desired_step_describe(d, &p->steps[culprit], other, sizeof(other));
	p->status = DLH_DESIRED_CONFLICT;
	p->other = p->steps[culprit].entry;
	p->other_line = p->steps[culprit].line;
	dlh_desired_where(d, s->entry, s->line, at, sizeof(at));
	dlh_desired_where(d, p->other, p->other_line, at2, sizeof(at2));
	snprintf(p->why, sizeof(p->why), "%s conflicts with %s: %s cannot follow %s: %s", at, at2, what, other, buf);
}

static int unmet_add(struct dlh_desired_plan *p, size_t entry, const char *why)
{
	struct dlh_desired_unmet u = {.entry = entry};

	snprintf(u.why, sizeof(u.why), "%s", why);
	return append(&p->unmet, &p->nunmet, sizeof(u), &u);
}

/* Whether @e is met by the ports of @number in the view: its split count and its type. */
static bool entry_met(struct dlh_seq *seq, struct dlh_dev *dev, unsigned int number, const struct dlh_desired_entry *e)
{
	unsigned int nsplit, n = 0, now;
	struct dlh_port *first;
	bool pend;

	if (!group(seq, dev, number, &nsplit, &first))
		return false;
	/* a split that is a firmware option (ice): the active or pending option's count */
	if (e->split && option_split(dev, first, &now, &pend) ? now != e->split
							      : e->split && (nsplit ? nsplit : 1) != e->split)
		return false;
	for (struct dlh_port *p = dlh_seq_port_first(seq, dev); p && e->type; p = dlh_seq_port_next(p))
		n += dlh_port_number(p) == number && dlh_port_desired_type(p) != e->type;
	return !n;
}

/* An entry planned only once the steps before it ran, noted once. */
static int deferred_add(struct dlh_desired_plan *p, size_t entry)
{
	for (size_t i = 0; i < p->ndeferred; i++)
		if (p->deferred[i] == entry)
			return 0;
	return append(&p->deferred, &p->ndeferred, sizeof(entry), &entry);
}

/* The steps one phase adds, each planned at once; a refusal ends the planning. */
enum phase { PHASE_UNSPLIT, PHASE_SPLIT, PHASE_TYPE };

static int phase_run(const struct dlh_desired *d, struct dlh_ctx *ctx, struct dlh_seq *seq, struct dlh_desired_plan *p,
		     enum phase phase, bool *pend, FILE *notes)
{
	char at[DLH_DESIRED_ORIGIN_MAX + 520];
	struct dlh_extack ext;
	int err = 0;

	for (size_t i = 0; i < d->n && !err && p->status == DLH_DESIRED_OK; i++) {
		const struct dlh_desired_entry *e = &d->e[i];
		unsigned int number, nsplit, now;
		struct dlh_port *first;
		struct dlh_dev *dev = entry_dev(e, ctx, &number);
		struct dlh_desired_step s = {.entry = i};
		bool staged_pend, add = false;

		if (dev && !dlh_seq_known(seq, dev)) {
			bool stepped = false;

			/* an entry whose own step left the device unknown is deferred only for what is left of
			 * it (its type, after its split) */
			for (size_t j = 0; j < p->nsteps; j++)
				stepped |= p->steps[j].entry == i;
			if (!stepped || (phase == PHASE_TYPE && e->type))
				err = deferred_add(p, i);
			continue;
		}
		if (!dev || !group(seq, dev, number, &nsplit, &first))
			continue;
		if (e->split && phase != PHASE_TYPE && option_split(dev, first, &now, &staged_pend)) {
			if (now != e->split && (phase == PHASE_UNSPLIT) == (e->split == 1)) {
				s = (struct dlh_desired_step){.kind =
								  e->split == 1 ? DLH_CHANGE_UNSPLIT : DLH_CHANGE_SPLIT,
							      .count = e->split,
							      .line = e->split_line,
							      .entry = i,
							      .staged = true};
				if (e->split == 1)
					snprintf(s.port, sizeof(s.port), "%s", dlh_port_handle(first));
				else
					snprintf(s.port, sizeof(s.port), "%s#%u", dlh_dev_handle(dev), number);
				add = true;
			} else if (now == e->split && staged_pend && phase == PHASE_UNSPLIT) {
				pend[i] = true;
				if (notes)
					fprintf(notes, "%s: pending until a reset of %s: split into %u\n",
						where(d, i, e->split_line, at, sizeof(at)), dlh_dev_handle(dev),
						e->split);
				p->npending++;
			}
		} else if (e->split && phase == PHASE_UNSPLIT && nsplit && nsplit != e->split) {
			s = (struct dlh_desired_step){.kind = DLH_CHANGE_UNSPLIT, .line = e->split_line, .entry = i};
			snprintf(s.port, sizeof(s.port), "%s", dlh_port_handle(first));
			add = true;
		} else if (e->split > 1 && phase == PHASE_SPLIT && !nsplit) {
			s = (struct dlh_desired_step){
			    .kind = DLH_CHANGE_SPLIT, .count = e->split, .line = e->split_line, .entry = i};
			snprintf(s.port, sizeof(s.port), "%s#%u", dlh_dev_handle(dev), number);
			add = true;
		} else if (e->type && phase == PHASE_TYPE) {
			struct dlh_pending pt;
			bool type_pend = false;

			for (struct dlh_port *q = dlh_seq_port_first(seq, dev); q && !add; q = dlh_seq_port_next(q)) {
				struct dlh_port *m;

				if (dlh_port_number(q) != number)
					continue;
				add = dlh_port_desired_type(q) != e->type;
				/* a type the card stores for its next reset (ConnectX-4..7): met, and pending (the
				 * model's port says so: a view copies no pending) */
				m = dlh_port_find(dev, dlh_port_index(q));
				type_pend |= m && dlh_port_pending(m, &pt) && pt.type == e->type;
			}
			s = (struct dlh_desired_step){
			    .kind = DLH_CHANGE_TYPE, .type = e->type, .line = e->type_line, .entry = i};
			snprintf(s.port, sizeof(s.port), "%s#%u", dlh_dev_handle(dev), number);
			if (!add && type_pend && !pend[i]) {
				pend[i] = true;
				if (notes)
					fprintf(notes, "%s: pending until a reset of %s: type %s\n",
						where(d, i, e->type_line, at, sizeof(at)), dlh_dev_handle(dev),
						dlh_port_type_name(e->type));
				p->npending++;
			}
		}
		if (!add)
			continue;
		err = step_add(p, &s);
		if (err)
			break;
		err = step_plan(seq, ctx, &p->steps[p->nsteps - 1], true, &ext);
		if (err == -ENOMEM && !ext.msg[0])
			break;
		if (err) {
			refusal(d, ctx, p, p->nsteps - 1, &ext);
			err = 0;
		}
		p->partial |= p->steps[p->nsteps - 1].partial;
	}
	return err;
}

/*
 * The device and number entry @i names as the planned steps leave the ports:
 * a netdev entry names the port holding its name in the model, or the one a
 * step gives it (a type set to Ethernet names the port anew).
 */
static struct dlh_dev *entry_dev_planned(const struct dlh_desired_entry *e, struct dlh_ctx *ctx, struct dlh_seq *seq,
					 unsigned int *number)
{
	struct dlh_dev *dev = entry_dev(e, ctx, number);
	struct dlh_port *p;

	if (dev || !e->netdev[0] || !(p = dlh_seq_port_find_netdev(seq, e->netdev)))
		return dev;
	*number = dlh_port_number(p);
	return dlh_port_dev(p);
}

/*
 * Two entries that name one port, by its device and number or by a netdev it
 * has or will have, and ask different things of it: a conflict, refused
 * before anything runs, whatever the ports are now.
 */
static bool same_port(const struct dlh_desired *d, struct dlh_ctx *ctx, struct dlh_seq *seq, struct dlh_desired_plan *p)
{
	struct dlh_dev **devs = calloc(d->n ? d->n : 1, sizeof(*devs));
	unsigned int *nums = calloc(d->n ? d->n : 1, sizeof(*nums));
	bool found = false;

	if (!devs || !nums)
		goto out_free;
	for (size_t i = 0; i < d->n && !found; i++) {
		const struct dlh_desired_entry *e = &d->e[i];
		char at[DLH_DESIRED_ORIGIN_MAX + 520], at2[DLH_DESIRED_ORIGIN_MAX + 520];

		devs[i] = entry_dev_planned(e, ctx, seq, &nums[i]);
		for (size_t j = 0; j < i && devs[i] && !found; j++) {
			const struct dlh_desired_entry *o = &d->e[j];
			bool split = e->split && o->split && e->split != o->split;

			if (devs[j] != devs[i] || nums[j] != nums[i] ||
			    (!split && !(e->type && o->type && e->type != o->type)))
				continue;
			found = true;
			p->status = DLH_DESIRED_CONFLICT;
			p->entry = i;
			p->line = split ? e->split_line : e->type_line;
			p->other = j;
			p->other_line = split ? o->split_line : o->type_line;
			snprintf(p->why, sizeof(p->why), "%s conflicts with %s: both name %s port %u%s%s",
				 where(d, i, p->line, at, sizeof(at)), where(d, j, p->other_line, at2, sizeof(at2)),
				 dlh_dev_handle(devs[i]), nums[i], e->netdev[0] || o->netdev[0] ? ", netdev " : "",
				 e->netdev[0] ? e->netdev : o->netdev);
		}
	}
out_free:
	free(devs);
	free(nums);
	return found;
}

/* The step of another entry that takes the ports @e names away in the plan (its gone, none of them back). */
static const struct dlh_desired_step *taker(const struct dlh_desired_plan *p, size_t entry, const char *dev,
					    unsigned int number, struct dlh_ctx *ctx, const char **port)
{
	for (size_t j = 0; j < p->nsteps; j++) {
		const struct dlh_desired_step *s = &p->steps[j];
		unsigned int num;
		uint32_t index;
		struct dlh_dev *sdev = step_dev(ctx, s, &num, &index);

		if (s->entry == entry || !sdev || strcmp(dlh_dev_handle(sdev), dev))
			continue;
		for (size_t k = 0; k < s->nplans; k++)
			for (unsigned int c = 0; c < s->plans[k].ngone; c++) {
				struct dlh_port *was = dlh_port_find(sdev, s->plans[k].gone[c]);

				if (was && dlh_port_number(was) == number) {
					*port = dlh_port_handle(was);
					return s;
				}
			}
	}
	return NULL;
}

/*
 * The ports of each device a step acts on, as the steps leave them: @seq's
 * view where it is known, the device as it is where it is not (a partial plan).
 */
static void ports_walk(struct dlh_seq *seq, struct dlh_ctx *ctx, const struct dlh_desired_plan *p,
		       dlh_desired_port_fn fn, void *arg)
{
	for (size_t i = 0; i < p->nsteps; i++) {
		unsigned int number;
		uint32_t index;
		struct dlh_dev *dev = step_dev(ctx, &p->steps[i], &number, &index);
		bool seen = false, known;

		for (size_t j = 0; j < i && dev && !seen; j++)
			seen = step_dev(ctx, &p->steps[j], &number, &index) == dev;
		if (!dev || seen)
			continue;
		known = dlh_seq_known(seq, dev);
		for (struct dlh_port *q = known ? dlh_seq_port_first(seq, dev) : dlh_port_first(dev); q;
		     q = known ? dlh_seq_port_next(q) : dlh_port_next(q))
			fn(arg, q);
	}
}

static int plan_whole(const struct dlh_desired *d, struct dlh_ctx *ctx, struct dlh_desired_plan *p, FILE *notes,
		      dlh_desired_port_fn fn, void *arg)
{
	struct dlh_seq *seq;
	bool *pend;
	int err = 0;

	memset(p, 0, sizeof(*p));
	pend = calloc(d->n ? d->n : 1, sizeof(*pend));
	if (!pend || dlh_seq_new(ctx, &seq)) {
		free(pend);
		return -ENOMEM;
	}
	for (enum phase ph = PHASE_UNSPLIT; ph <= PHASE_TYPE && !err && p->status == DLH_DESIRED_OK; ph++)
		err = phase_run(d, ctx, seq, p, ph, pend, notes);
	if (!err && p->status == DLH_DESIRED_OK)
		same_port(d, ctx, seq, p);
	/* every entry, in the ports the steps leave: one that matches nothing or is not met is named */
	for (size_t i = 0; i < d->n && !err && p->status != DLH_DESIRED_REFUSED && p->status != DLH_DESIRED_CONFLICT;
	     i++) {
		const struct dlh_desired_entry *e = &d->e[i];
		char at[DLH_DESIRED_ORIGIN_MAX + 520], at2[DLH_DESIRED_ORIGIN_MAX + 520];
		unsigned int number = 0, nsplit;
		struct dlh_port *first;
		struct dlh_dev *dev = entry_dev(e, ctx, &number);
		const struct dlh_desired_step *by;
		const char *taken = "";
		char what[DLH_HANDLE_MAX + 600];

		bool staged = false;

		/* a change stored for the next reset meets its entry then (the view's ports stay as they are) */
		for (size_t j = 0; j < p->nsteps; j++)
			staged |= p->steps[j].entry == i && p->steps[j].staged;
		if (pend[i] || staged || (dev && !dlh_seq_known(seq, dev)) || (dev && entry_met(seq, dev, number, e)))
			continue;
		by = dev ? taker(p, i, dlh_dev_handle(dev), number, ctx, &taken) : NULL;
		if (by) {
			dlh_desired_step_describe(d, by, what, sizeof(what));
			p->status = DLH_DESIRED_CONFLICT;
			p->entry = i;
			p->line = e->split ? e->split_line : e->type_line; /* the line that asks for the port */
			p->other = by->entry;
			p->other_line = by->line;
			snprintf(p->why, sizeof(p->why), "%s conflicts with %s: %s would remove %s, port %u",
				 where(d, i, p->line, at, sizeof(at)), where(d, by->entry, by->line, at2, sizeof(at2)),
				 what, taken, number);
			break;
		}
		if (!dev || !group(seq, dev, number, &nsplit, &first))
			snprintf(what, sizeof(what), "matches no port%s%s", dev || e->netdev[0] ? "" : ": no device ",
				 dev || e->netdev[0] ? "" : e->device);
		else
			snprintf(what, sizeof(what), "would not be met by the steps");
		err = unmet_add(p, i, what);
		if (err)
			break;
		if (p->status == DLH_DESIRED_OK) {
			p->status = DLH_DESIRED_UNMET;
			p->entry = i;
			p->line = e->match_line;
		}
		if (p->nunmet == 1)
			snprintf(p->why, sizeof(p->why), "%s: %s", where(d, i, e->match_line, at, sizeof(at)), what);
		if (notes)
			fprintf(notes, "%s: %s\n", where(d, i, e->match_line, at, sizeof(at)), what);
	}
	if (fn && !err)
		ports_walk(seq, ctx, p, fn, arg);
	dlh_seq_free(seq);
	free(pend);
	return err;
}

DLH_EXPORT int dlh_desired_plan(const struct dlh_desired *d, struct dlh_ctx *ctx, struct dlh_desired_plan *p,
				FILE *notes)
{
	return plan_whole(d, ctx, p, notes, NULL, NULL);
}

DLH_EXPORT int dlh_desired_plan_ports(const struct dlh_desired *d, struct dlh_ctx *ctx, struct dlh_desired_plan *p,
				      FILE *notes, dlh_desired_port_fn fn, void *arg)
{
	return plan_whole(d, ctx, p, notes, fn, arg);
}

DLH_EXPORT void dlh_desired_step_describe(const struct dlh_desired *d, const struct dlh_desired_step *s, char *buf,
					  size_t len)
{
	const char *hash = strchr(s->port, '#');
	char where[DLH_HANDLE_MAX + 32], at[DLH_DESIRED_ORIGIN_MAX + 520];

	if (hash)
		snprintf(where, sizeof(where), "%.*s port %s", (int)(hash - s->port), s->port, hash + 1);
	else
		snprintf(where, sizeof(where), "%s", s->port);
	dlh_desired_where(d, s->entry, s->line, at, sizeof(at));
	switch (s->kind) {
	case DLH_CHANGE_UNSPLIT:
		snprintf(buf, len, "unsplit %s (%s)", where, at);
		break;
	case DLH_CHANGE_SPLIT:
		snprintf(buf, len, "split %s into %u (%s)", where, s->count, at);
		break;
	case DLH_CHANGE_TYPE:
		snprintf(buf, len, "type %s on %s (%s)", dlh_port_type_name(s->type), where, at);
		break;
	}
}

DLH_EXPORT void dlh_desired_entry_describe(const struct dlh_desired *d, size_t i, char *buf, size_t len)
{
	const struct dlh_desired_entry *e = &d->e[i];
	char split[32] = "", at[DLH_DESIRED_ORIGIN_MAX + 520];

	if (e->split == 1)
		snprintf(split, sizeof(split), "whole");
	else if (e->split)
		snprintf(split, sizeof(split), "split into %u", e->split);
	dlh_desired_where(d, i, e->split ? e->split_line : e->type_line, at, sizeof(at));
	if (e->netdev[0])
		snprintf(buf, len, "%s: %s%s%s%s (%s)", e->netdev, split, e->split && e->type ? ", " : "",
			 e->type ? "type " : "", e->type ? dlh_port_type_name(e->type) : "", at);
	else
		snprintf(buf, len, "%s port %u: %s%s%s%s (%s)", e->device, e->number, split,
			 e->split && e->type ? ", " : "", e->type ? "type " : "",
			 e->type ? dlh_port_type_name(e->type) : "", at);
}

/*
 * A staged change of entry @e's port away from what it asks: the split an E810 stores for its next
 * reset, to another count; the type a ConnectX-4..7 stores, to another type.
 */
static bool staged_undoes(struct dlh_seq *seq, struct dlh_dev *dev, unsigned int number,
			  const struct dlh_desired_entry *e, const struct dlh_change_req *req)
{
	unsigned int count = req->kind == DLH_CHANGE_SPLIT ? req->count : 1;

	if (req->kind == DLH_CHANGE_TYPE ? !e->type : !e->split)
		return false;
	for (struct dlh_port *p = dlh_seq_port_first(seq, dev); p; p = dlh_seq_port_next(p))
		if (dlh_port_index(p) == req->index)
			return dlh_port_number(p) == number &&
			       (req->kind == DLH_CHANGE_TYPE ? req->type != e->type : count != e->split);
	return false;
}

/*
 * What a daemon that keeps @d owns: the split and type of each port an entry
 * names. A change that would leave an entry unmet that it meets before it is
 * what the daemon would undo at once, so it is refused first, naming the
 * entry: the way to change such a port is to edit the file.
 */
DLH_EXPORT int dlh_desired_seq_change(const struct dlh_desired *d, struct dlh_ctx *ctx, struct dlh_seq *seq,
				      struct dlh_dev *dev, const struct dlh_change_req *req, struct dlh_plan *plan,
				      struct dlh_extack *ext)
{
	unsigned int *nums = NULL;
	bool *met = NULL;
	size_t n = d ? d->n : 0;
	int err;

	if (n && (!(met = calloc(n, sizeof(*met))) || !(nums = calloc(n, sizeof(*nums))))) {
		free(met);
		return dlh_extack_set(ext, -ENOMEM, NULL, "Out of memory");
	}
	/* each entry's port as it is now: the plan below may read a removal, and its netdev go with it */
	for (size_t i = 0; i < n; i++)
		met[i] = entry_dev(&d->e[i], ctx, &nums[i]) == dev && dlh_seq_known(seq, dev) &&
			 entry_met(seq, dev, nums[i], &d->e[i]);
	err = dlh_seq_change(seq, dev, req, plan, ext);
	for (size_t i = 0; !err && !plan->partial && i < n; i++) {
		const struct dlh_desired_entry *e = &d->e[i];
		char what[DLH_DESIRED_ORIGIN_MAX + 600];

		if (!met[i] || !dlh_seq_known(seq, dev))
			continue;
		/* (a netdev entry names the port it named before the change) */
		if (plan->staged ? !staged_undoes(seq, dev, nums[i], e, req) : entry_met(seq, dev, nums[i], e))
			continue;
		dlh_desired_entry_describe(d, i, what, sizeof(what));
		memset(plan, 0, sizeof(*plan));
		err = dlh_extack_set(ext, -EBUSY, dlh_dev_handle(dev),
				     "Would undo %s, which dlhald keeps (--desired %s): change the file and reload "
				     "dlhald (SIGHUP)",
				     what, d->path);
	}
	free(met);
	free(nums);
	return err;
}

/* Sets the ports of @number to @type each (NOTSET: to what @was says), looked up again after each. */
static int types_set(struct dlh_dev *dev, unsigned int number, enum dlh_port_type type,
		     const struct dlh_desired_step_was *was, size_t nwas, struct dlh_extack *ext)
{
	for (int again = 1, rounds = 0; again && rounds < 64; rounds++) {
		again = 0;
		for (struct dlh_port *p = dlh_port_first(dev); p; p = dlh_port_next(p)) {
			enum dlh_port_type want = type;
			int err;

			for (size_t i = 0; !type && i < nwas; i++)
				if (was[i].index == dlh_port_index(p))
					want = was[i].type;
			if (dlh_port_number(p) != number || !want || dlh_port_desired_type(p) == want)
				continue;
			err = dlh_port_type_set(p, want, ext);
			if (err)
				return err;
			again = 1;
			break;
		}
	}
	return 0;
}

/* Runs @s, first noting what undoes it. */
static int step_run(struct dlh_ctx *ctx, struct dlh_desired_step *s, struct dlh_extack *ext)
{
	struct dlh_port *p, *first;
	struct dlh_dev *dev;
	unsigned int number, nsplit;
	uint32_t index;
	int err;

	dev = step_target(ctx, s, &number, &index, ext);
	if (!dev)
		return -ENODEV;
	if (s->kind == DLH_CHANGE_UNSPLIT) {
		err = dlh_port_lookup(ctx, s->port, &p, ext);
		if (err)
			return err;
		group(NULL, dev, dlh_port_number(p), &s->was_count, &first);
		return dlh_port_unsplit(p, ext);
	}
	if (s->kind == DLH_CHANGE_SPLIT) {
		if (!group(NULL, dev, number, &nsplit, &first) || nsplit)
			return dlh_extack_set(ext, -ENODEV, NULL, "No whole port %u to split", number);
		s->was_count = 1;
		return dlh_port_split(first, s->count, ext);
	}
	free(s->was);
	s->was = NULL;
	s->nwas = 0;
	for (p = dlh_port_first(dev); p; p = dlh_port_next(p)) {
		struct dlh_desired_step_was w = {dlh_port_index(p), dlh_port_desired_type(p) ? dlh_port_desired_type(p)
											     : dlh_port_type(p)};

		if (dlh_port_number(p) != number)
			continue;
		if (append(&s->was, &s->nwas, sizeof(w), &w))
			return dlh_extack_set(ext, -ENOMEM, NULL, "Out of memory");
	}
	return types_set(dev, number, s->type, NULL, 0, ext);
}

/* Undoes @s, done: the split count and types it found put back. */
static int step_undo(struct dlh_ctx *ctx, const struct dlh_desired_step *s, struct dlh_extack *ext)
{
	struct dlh_port *first;
	struct dlh_dev *dev;
	unsigned int number, nsplit;
	uint32_t index;
	int err;

	dev = step_target(ctx, s, &number, &index, ext);
	if (!dev)
		return -ENODEV;
	if (s->kind == DLH_CHANGE_TYPE)
		return types_set(dev, number, DLH_PORT_TYPE_NOTSET, s->was, s->nwas, ext);
	if (s->kind == DLH_CHANGE_UNSPLIT) {
		struct dlh_port *p = NULL;

		/* the port it unsplit, found by index: its number is the same */
		err = dlh_port_lookup(ctx, s->port, &p, ext);
		if (err)
			return err;
		number = dlh_port_number(p);
	}
	if (!group(NULL, dev, number, &nsplit, &first))
		return dlh_extack_set(ext, -ENODEV, NULL, "Port %u is gone", number);
	if (s->was_count > 1)
		return nsplit ? 0 : dlh_port_split(first, s->was_count, ext);
	return nsplit ? dlh_port_unsplit(first, ext) : 0;
}

/* Runs steps @from.. of @p; stops at the first refusal, whose index goes in *@failed. */
static int steps_run(const struct dlh_desired *d, struct dlh_ctx *ctx, struct dlh_desired_plan *p, size_t from,
		     FILE *out, char *why, size_t whylen, size_t *failed)
{
	char what[DLH_HANDLE_MAX + 600];
	struct dlh_extack ext = {0};
	int err = 0;

	for (*failed = from; *failed < p->nsteps; (*failed)++) {
		struct dlh_desired_step *s = &p->steps[*failed];
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		err = step_run(ctx, s, &ext);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		s->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		dlh_desired_step_describe(d, s, what, sizeof(what));
		if (err) {
			s->result = DLH_DESIRED_STEP_REFUSED;
			if (ext.msg[0])
				dlh_extack_str(&ext, s->msg, sizeof(s->msg));
			else
				snprintf(s->msg, sizeof(s->msg), "%s", strerror(-err));
			snprintf(why, whylen, "%s: %s", what, s->msg);
			return err;
		}
		s->result = ext.msg[0] ? DLH_DESIRED_STEP_PENDING : DLH_DESIRED_STEP_DONE;
		snprintf(s->msg, sizeof(s->msg), "%s", ext.msg);
		if (out && ext.msg[0])
			fprintf(out, "pending: %s: %s\n", what, ext.msg);
		else if (out)
			fprintf(out, "done: %s\n", what);
	}
	return 0;
}

/*
 * After a plan that was not whole ran: the file planned again on what the
 * backend now reports. Its steps are added to @p (run next); none left, its
 * unmet entries become @p's. Returns 1 while there are steps to run, 0 when
 * done, or a negative errno with @why (a refusal or conflict found now).
 */
static int replan(const struct dlh_desired *d, struct dlh_ctx *ctx, struct dlh_desired_plan *p, bool last, char *why,
		  size_t whylen)
{
	struct dlh_desired_plan next;
	int ret;

	if (dlh_desired_plan(d, ctx, &next, NULL)) {
		dlh_desired_plan_free(&next);
		snprintf(why, whylen, "%s: out of memory", d->path);
		return -ENOMEM;
	}
	if (next.status == DLH_DESIRED_REFUSED || next.status == DLH_DESIRED_CONFLICT) {
		snprintf(why, whylen, "%s (found once the steps before it ran)", next.why);
		dlh_desired_plan_free(&next);
		return -EINVAL;
	}
	/*
	 * Steps now are run only for the entries deferred before (never planned:
	 * their device was unknown). An entry whose steps ran and that still
	 * needs one is not acted on again (what the backend reports may still be
	 * on its way, and acting on it would fight the steps just done): it is
	 * unmet, named with what is still to do. So is every step after as many
	 * rounds as entries.
	 */
	{
		size_t nkeep = 0;

		for (size_t i = 0; i < next.nsteps; i++) {
			struct dlh_desired_step *s = &next.steps[i];
			char what[DLH_HANDLE_MAX + 600], u[160], at[DLH_DESIRED_ORIGIN_MAX + 520];
			bool deferred = false, noted = false;

			for (size_t k = 0; k < p->ndeferred; k++)
				deferred |= p->deferred[k] == s->entry;
			if (deferred && !last) {
				next.steps[nkeep++] = *s;
				continue;
			}
			for (size_t k = 0; k < next.nunmet; k++)
				noted |= next.unmet[k].entry == s->entry;
			dlh_desired_step_describe(d, s, what, sizeof(what));
			free(s->plans);
			free(s->was);
			if (noted)
				continue;
			snprintf(u, sizeof(u), "not met once its steps ran: %.120s is still to do", what);
			if (unmet_add(&next, s->entry, u))
				continue;
			if (next.status == DLH_DESIRED_OK) {
				next.status = DLH_DESIRED_UNMET;
				snprintf(next.why, sizeof(next.why), "%s: %s",
					 where(d, s->entry, d->e[s->entry].match_line, at, sizeof(at)), u);
			}
		}
		next.nsteps = nkeep;
	}
	p->replanned = true;
	ret = next.nsteps && !last;
	if (ret) {
		struct dlh_desired_step *all = realloc(p->steps, (p->nsteps + next.nsteps) * sizeof(*all));

		if (!all) {
			dlh_desired_plan_free(&next);
			snprintf(why, whylen, "%s: out of memory", d->path);
			return -ENOMEM;
		}
		memcpy(all + p->nsteps, next.steps, next.nsteps * sizeof(*all));
		p->steps = all;
		p->nsteps += next.nsteps;
		free(next.steps);
		next.steps = NULL;
		next.nsteps = 0;
	}
	free(p->unmet);
	free(p->deferred);
	p->unmet = next.unmet;
	p->nunmet = next.nunmet;
	p->deferred = next.deferred;
	p->ndeferred = next.ndeferred;
	p->partial = next.partial;
	next.unmet = NULL;
	next.deferred = NULL;
	if (next.status == DLH_DESIRED_UNMET) {
		p->status = DLH_DESIRED_UNMET;
		p->entry = next.entry;
		p->line = next.line;
		memcpy(p->why, next.why, sizeof(p->why));
	} else if (p->status == DLH_DESIRED_UNMET && !p->nunmet) {
		p->status = DLH_DESIRED_OK;
	}
	dlh_desired_plan_free(&next);
	return ret;
}

DLH_EXPORT int dlh_desired_apply(const struct dlh_desired *d, struct dlh_ctx *ctx, struct dlh_desired_plan *p,
				 bool atomic, FILE *out, char *why, size_t whylen)
{
	char what[DLH_HANDLE_MAX + 600];
	struct dlh_extack ext = {0};
	size_t i = 0, from = 0;
	int err;

	for (size_t round = 0;; round++) {
		bool whole = !p->partial && !p->ndeferred;
		int more;

		err = steps_run(d, ctx, p, from, out, why, whylen, &i);
		if (err || whole)
			break;
		from = p->nsteps;
		more = replan(d, ctx, p, round >= d->n, why, whylen);
		if (more <= 0) {
			err = more;
			i = p->nsteps; /* every step ran: all are undone */
			break;
		}
	}
	if (!err || !atomic)
		return err;
	/* --atomic: back in reverse order; a step whose undo fails is named, the others are still undone */
	while (i-- > 0) {
		struct dlh_desired_step *s = &p->steps[i];
		int uerr = step_undo(ctx, s, &ext);

		dlh_desired_step_describe(d, s, what, sizeof(what));
		if (uerr) {
			s->result = DLH_DESIRED_STEP_UNDO_FAILED;
			if (ext.msg[0])
				dlh_extack_str(&ext, s->msg, sizeof(s->msg));
			else
				snprintf(s->msg, sizeof(s->msg), "%s", strerror(-uerr));
			if (out)
				fprintf(out, "undo failed: %s: %s: left as it is\n", what, s->msg);
			continue;
		}
		s->result = DLH_DESIRED_STEP_UNDONE;
		if (out)
			fprintf(out, "undone: %s\n", what);
	}
	return err;
}

DLH_EXPORT bool dlh_desired_plan_drifts(const struct dlh_desired_plan *p, size_t i)
{
	bool drift = p->status == DLH_DESIRED_CONFLICT || p->status == DLH_DESIRED_REFUSED;

	for (size_t j = 0; j < p->nsteps; j++)
		drift |= p->steps[j].entry == i && !p->steps[j].staged;
	for (size_t j = 0; j < p->nunmet; j++)
		drift |= p->unmet[j].entry == i;
	return drift;
}

DLH_EXPORT void dlh_desired_plan_unmet_str(const struct dlh_desired *d, const struct dlh_desired_plan *p, char *buf,
					   size_t len)
{
	char at[DLH_DESIRED_ORIGIN_MAX + 520], item[sizeof(at) + sizeof(p->unmet->why) + 4];
	size_t n = 0, i;

	if (!len)
		return;
	buf[0] = '\0';
	/* an entry goes in whole, with room left for the count of the rest ("; and 1000 more") */
	for (i = 0; i < p->nunmet; i++) {
		size_t k = p->unmet[i].entry;
		int m = snprintf(item, sizeof(item), "%s%s: %s", i ? "; " : "",
				 where(d, k, k < d->n ? d->e[k].match_line : 0, at, sizeof(at)), p->unmet[i].why);

		if (n + (size_t)m + (i + 1 < p->nunmet ? 20 : 0) >= len)
			break;
		memcpy(buf + n, item, (size_t)m + 1);
		n += (size_t)m;
	}
	if (i < p->nunmet)
		snprintf(buf + n, len - n, "%sand %zu more", i ? "; " : "", p->nunmet - i);
}

DLH_EXPORT bool dlh_desired_plan_undone(const struct dlh_desired_plan *p)
{
	for (size_t i = 0; i < p->nsteps; i++)
		if (p->steps[i].result == DLH_DESIRED_STEP_UNDO_FAILED)
			return false;
	return true;
}
