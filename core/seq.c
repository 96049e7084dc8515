/* SPDX-License-Identifier: MIT */
/*
 * Sequences of planned changes. A desired-state file is a sequence: an
 * unsplit frees the lanes a later split needs, a split takes a neighbour a
 * later entry names. Each change is planned by the driver's plan op on the
 * ports the changes before it leave, kept here as a view of each device
 * touched: phantom ports, never in the model, read with the accessors.
 */
#include "core.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct dlh_seq {
	struct dlh_ctx *ctx;
	struct dlh__view **views;
	size_t nviews;
	/* every phantom's netdev name (its netdev_node): a name is looked up once, not by a walk of every view */
	struct dlh__htab names;
	/*
	 * The numbers of one pattern in use (dlh__seq_name_bits()). A model name
	 * that comes or goes on a device of no view while the sequence lives is
	 * not followed: a pick tries each number the bits say free with the
	 * exact check, so a name is never picked taken, at worst one higher.
	 */
	struct dlh__name_bits bits;
};

static int name_match(const struct dlh__hnode *n, const void *key)
{
	return !strcmp(dlh__container_of(n, struct dlh_port, netdev_node)->netdev, key);
}

static int index_match(const struct dlh__hnode *n, const void *key)
{
	return dlh__container_of(n, struct dlh_port, index_node)->index == *(const uint32_t *)key;
}

static int number_match(const struct dlh__hnode *n, const void *key)
{
	return dlh__container_of(n, struct dlh_port, number_node)->attrs.number == *(const uint32_t *)key;
}

DLH_EXPORT int dlh_seq_new(struct dlh_ctx *ctx, struct dlh_seq **seq)
{
	*seq = calloc(1, sizeof(**seq));
	if (!*seq)
		return -ENOMEM;
	(*seq)->ctx = ctx;
	return 0;
}

/* A phantom of the view's first copy lives in the view's block (view->pool), freed with it. */
static bool phantom_pooled(const struct dlh_port *p)
{
	const struct dlh__view *v = p->view;

	return (const unsigned char *)p >= v->pool && (const unsigned char *)p < v->pool + v->pool_size;
}

/* A phantom's name comes (@in) or goes: the sequence's bits of its pattern follow. */
static void bits_note(struct dlh_seq *seq, const char *name, bool in)
{
	int n = seq->bits.pattern[0] ? dlh__netdev_name_number(seq->bits.pattern, name) : -1;

	if (n >= 0)
		dlh__name_bits_set(&seq->bits, n, in);
}

static void phantom_free(struct dlh_port *p)
{
	if (p->netdev[0]) {
		dlh__htab_remove(&p->view->seq->names, &p->netdev_node);
		bits_note(p->view->seq, p->netdev, false);
	}
	dlh__htab_remove(&p->view->by_index, &p->index_node);
	dlh__htab_remove(&p->view->by_number, &p->number_node);
	dlh__list_del(&p->node);
	if (!phantom_pooled(p))
		free(p);
}

static void view_free(struct dlh__view *v)
{
	while (!dlh__list_empty(&v->ports))
		phantom_free(dlh__container_of(v->ports.next, struct dlh_port, node));
	dlh__htab_fini(&v->by_index);
	dlh__htab_fini(&v->by_number);
	free(v->pool);
	free(v->steps);
	free(v);
}

/* A phantom's names, its netdev in the sequence's table. */
static int phantom_names_set(struct dlh_port *p, const char *netdev, const char *ibdev)
{
	int err;

	memcpy(p->netdev, netdev, sizeof(p->netdev));
	memcpy(p->ibdev, ibdev, sizeof(p->ibdev));
	if (!p->netdev[0])
		return 0;
	err = dlh__htab_insert(&p->view->seq->names, &p->netdev_node, dlh__hash_str(p->netdev));
	if (!err)
		bits_note(p->view->seq, p->netdev, true);
	return err;
}

DLH_EXPORT void dlh_seq_free(struct dlh_seq *seq)
{
	if (!seq)
		return;
	for (size_t i = 0; i < seq->nviews; i++)
		view_free(seq->views[i]);
	dlh__htab_fini(&seq->names);
	dlh__name_bits_fini(&seq->bits);
	free(seq->views);
	free(seq);
}

/* A phantom's size: its handle after the (zeroed) driver's private area. */
static size_t phantom_size(const struct dlh_dev *dev)
{
	size_t n = sizeof(struct dlh_port) + dev->drv->port_priv_size + strlen(dev->handle) + 12;

	return (n + alignof(struct dlh_port) - 1) / alignof(struct dlh_port) * alignof(struct dlh_port);
}

/* A phantom at its place by index, in @mem (zeroed, phantom_size()) or allocated when NULL. */
static struct dlh_port *phantom_new(struct dlh__view *v, void *mem, uint32_t index,
				    const struct dlh_sdk_port_attrs *attrs)
{
	const struct dlh_dev *dev = v->dev;
	struct dlh_port *p = mem ? mem : calloc(1, phantom_size(dev));
	struct dlh__list *at = &v->ports;

	if (!p)
		return NULL;
	p->dev = v->dev;
	p->index = index;
	p->life = DLH__PORT_PHANTOM;
	p->view = v;
	p->attrs = *attrs;
	p->handle = (char *)p->priv + dev->drv->port_priv_size;
	dlh__port_handle_format(p->handle, dev->handle, index);
	if (dlh__htab_insert(&v->by_index, &p->index_node, dlh__hash_u64(index))) {
		if (!mem)
			free(p);
		return NULL;
	}
	if (dlh__htab_insert(&v->by_number, &p->number_node, dlh__hash_u64(attrs->number))) {
		dlh__htab_remove(&v->by_index, &p->index_node);
		if (!mem)
			free(p);
		return NULL;
	}
	dlh__list_init(&p->node);
	/* a view is made in index order: the end is the place, unless a higher index is there already */
	if (!dlh__list_empty(&v->ports) && dlh__container_of(v->ports.prev, struct dlh_port, node)->index > index)
		for (struct dlh__list *n = v->ports.next; n != &v->ports; n = n->next)
			if (dlh__container_of(n, struct dlh_port, node)->index > index) {
				at = n;
				break;
			}
	dlh__list_add_tail(at, &p->node); /* before @at */
	return p;
}

static struct dlh__view *view_find(const struct dlh_seq *seq, const struct dlh_dev *dev)
{
	for (size_t i = 0; i < seq->nviews; i++)
		if (seq->views[i]->dev == dev)
			return seq->views[i];
	return NULL;
}

/* The view of @dev, made from its ports now the first time it is asked for. */
static struct dlh__view *view_get(struct dlh_seq *seq, struct dlh_dev *dev)
{
	struct dlh__view *v = view_find(seq, dev), **nv;

	if (v || dev->gone)
		return v;
	nv = realloc(seq->views, (seq->nviews + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	seq->views = nv;
	v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	v->seq = seq;
	v->dev = dev;
	dlh__list_init(&v->ports);
	/* the first copy in one block: a dry run copies every port of the device, and changes few */
	for (struct dlh_port *p = dlh_port_first(dev); p; p = dlh_port_next(p))
		v->pool_size += phantom_size(dev);
	if (v->pool_size && !(v->pool = calloc(1, v->pool_size))) {
		free(v);
		return NULL;
	}
	size_t at = 0;

	for (struct dlh_port *p = dlh_port_first(dev); p && at < v->pool_size; p = dlh_port_next(p)) {
		struct dlh_port *ph = phantom_new(v, v->pool + at, p->index, &p->attrs);

		at += phantom_size(dev);

		if (!ph)
			goto err_phantom;
		ph->type = p->type;
		ph->desired_type = p->desired_type;
		ph->said_counts = p->said_counts;
		if (phantom_names_set(ph, p->netdev, p->ibdev))
			goto err_phantom;
	}
	seq->views[seq->nviews++] = v;
	return v;

err_phantom:
	view_free(v);
	return NULL;
}

struct dlh_port *dlh__view_port(const struct dlh__view *v, uint32_t index)
{
	struct dlh__hnode *n = dlh__htab_find(&v->by_index, dlh__hash_u64(index), index_match, &index);

	return n ? dlh__container_of(n, struct dlh_port, index_node) : NULL;
}

DLH_EXPORT struct dlh_port *dlh_seq_port_first(struct dlh_seq *seq, struct dlh_dev *dev)
{
	struct dlh__view *v = view_get(seq, dev);

	if (!v || v->unknown || dlh__list_empty(&v->ports))
		return NULL;
	return dlh__container_of(v->ports.next, struct dlh_port, node);
}

DLH_EXPORT struct dlh_port *dlh_seq_port_next(const struct dlh_port *port)
{
	if (port->life != DLH__PORT_PHANTOM || port->node.next == &port->view->ports)
		return NULL;
	return dlh__container_of(port->node.next, struct dlh_port, node);
}

DLH_EXPORT struct dlh_port *dlh_seq_port_find_number(struct dlh_seq *seq, struct dlh_dev *dev, uint32_t number)
{
	struct dlh__view *v = view_get(seq, dev);
	struct dlh__hnode *n;

	if (!v || v->unknown)
		return NULL;
	n = dlh__htab_find(&v->by_number, dlh__hash_u64(number), number_match, &number);
	return n ? dlh__container_of(n, struct dlh_port, number_node) : NULL;
}

DLH_EXPORT struct dlh_port *dlh_seq_port_find(struct dlh_seq *seq, struct dlh_dev *dev, uint32_t index)
{
	struct dlh__view *v = view_get(seq, dev);

	return v && !v->unknown ? dlh__view_port(v, index) : NULL;
}

DLH_EXPORT struct dlh_port *dlh_seq_port_next_number(const struct dlh_port *port)
{
	struct dlh__hnode *n;

	if (port->life != DLH__PORT_PHANTOM)
		return NULL;
	n = dlh__htab_find_next(port->number_node.next, port->number_node.hash, number_match, &port->attrs.number);
	return n ? dlh__container_of(n, struct dlh_port, number_node) : NULL;
}

DLH_EXPORT struct dlh_port *dlh_seq_port_find_netdev(struct dlh_seq *seq, const char *netdev)
{
	struct dlh_port *holder;
	struct dlh__hnode *n;
	uint64_t hash;

	if (!seq || !netdev)
		return NULL;
	hash = dlh__hash_str(netdev);
	for (n = dlh__htab_find(&seq->names, hash, name_match, netdev); n;
	     n = dlh__htab_find_next(n->next, hash, name_match, netdev)) {
		struct dlh_port *p = dlh__container_of(n, struct dlh_port, netdev_node);

		/* a phantom's netdev is its name only while it runs Ethernet */
		if (dlh_port_netdev(p))
			return p;
	}
	holder = dlh_port_find_netdev(seq->ctx, netdev);
	return holder && !view_find(seq, holder->dev) ? holder : NULL;
}

DLH_EXPORT bool dlh_seq_known(struct dlh_seq *seq, struct dlh_dev *dev)
{
	const struct dlh__view *v = view_find(seq, dev);

	return !v || !v->unknown;
}

static bool plan_gone_has(const struct dlh_plan *plan, uint32_t index)
{
	for (unsigned int i = 0; i < plan->ngone; i++)
		if (plan->gone[i] == index)
			return true;
	return false;
}

bool dlh__seq_name_taken(const struct dlh_seq *seq, const char *name, const struct dlh_sdk_plan *except)
{
	const struct dlh_port *holder = dlh__port_find_netdev(seq->ctx, name);

	/* a port of the model on a device the sequence has not touched keeps its name */
	if (holder && !view_find(seq, holder->dev))
		return true;
	uint64_t hash = dlh__hash_str(name);
	struct dlh__hnode *n = dlh__htab_find(&seq->names, hash, name_match, name);

	/* a phantom holds it, unless the plan being filled takes that phantom away */
	for (; n; n = dlh__htab_find_next(n->next, hash, name_match, name)) {
		const struct dlh_port *p = dlh__container_of(n, struct dlh_port, netdev_node);

		if (!(except && except->view == p->view && plan_gone_has(except->out, p->index)))
			return true;
	}
	return false;
}

struct seq_fill {
	const struct dlh_seq *seq;
	bool phantoms; /* filling from the sequence's names: else from the model's */
	bool failed;
};

static void seq_bits_one(struct dlh__hnode *node, void *arg)
{
	struct seq_fill *f = arg;
	struct dlh_seq *seq = (struct dlh_seq *)f->seq;
	const struct dlh_port *p = dlh__container_of(node, struct dlh_port, netdev_node);
	int n = dlh__netdev_name_number(seq->bits.pattern, p->netdev);

	/* a model port on a device the sequence has a view of is its phantom's now */
	if (n < 0 || f->failed || (!f->phantoms && view_find(seq, p->dev)))
		return;
	if (!dlh__name_bits_set(&seq->bits, n, true))
		f->failed = true;
}

const struct dlh__name_bits *dlh__seq_name_bits(struct dlh_seq *seq, const char *pattern)
{
	struct seq_fill f = {seq, false, false};

	if (!strcmp(seq->bits.pattern, pattern))
		return &seq->bits;
	if (strlen(pattern) >= sizeof(seq->bits.pattern))
		return NULL;
	dlh__name_bits_fini(&seq->bits);
	memcpy(seq->bits.pattern, pattern, strlen(pattern) + 1);
	dlh__htab_each(&seq->ctx->port_by_netdev, seq_bits_one, &f);
	f.phantoms = true;
	dlh__htab_each(&seq->names, seq_bits_one, &f);
	if (f.failed) {
		dlh__name_bits_fini(&seq->bits);
		return NULL;
	}
	return &seq->bits;
}

static int step_add(struct dlh__view *v, const struct dlh_change_req *req)
{
	if (v->nsteps == v->steps_cap) {
		size_t cap = v->steps_cap ? v->steps_cap * 2 : 8;
		struct dlh_change_req *ns = realloc(v->steps, cap * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		v->steps = ns;
		v->steps_cap = cap;
	}
	v->steps[v->nsteps++] = *req;
	return 0;
}

/*
 * The view takes a plan: its ports gone, those that come. A partial plan
 * leaves the device unknown; a staged one changes no port now.
 */
static int view_take(struct dlh__view *v, const struct dlh_change_req *req, const struct dlh_plan *plan,
		     const struct dlh_sdk_port_attrs *come_attrs, struct dlh_extack *ext)
{
	enum dlh_port_type desired[DLH_PLAN_PORTS_MAX];

	if (step_add(v, req))
		return dlh__extack_set(ext, -ENOMEM, v->dev->handle, "Out of memory");
	if (plan->partial) {
		v->unknown = true;
		return 0;
	}
	if (plan->staged)
		return 0;
	/* a port coming back at its index keeps its desired type, but for the one a type set asks for */
	for (unsigned int i = 0; i < plan->ncome; i++) {
		const struct dlh_port *was = dlh__view_port(v, plan->come[i].index);

		desired[i] = was && plan_gone_has(plan, was->index) && plan->come[i].lanes == was->attrs.lanes
				 ? was->desired_type
				 : DLH_PORT_TYPE_NOTSET;
		if (req->kind == DLH_CHANGE_TYPE && plan->come[i].index == req->index)
			desired[i] = req->type;
	}
	for (unsigned int i = 0; i < plan->ngone; i++) {
		struct dlh_port *p = dlh__view_port(v, plan->gone[i]);

		if (p)
			phantom_free(p);
	}
	for (unsigned int i = 0; i < plan->ncome; i++) {
		const struct dlh_plan_port *c = &plan->come[i];
		struct dlh_port *p = phantom_new(v, NULL, c->index, &come_attrs[i]);

		if (!p) {
			v->unknown = true;
			return dlh__extack_set(ext, -ENOMEM, v->dev->handle, "Out of memory");
		}
		p->type = c->type;
		p->desired_type = desired[i];
		if (phantom_names_set(p, c->netdev, c->ibdev)) {
			v->unknown = true;
			return dlh__extack_set(ext, -ENOMEM, v->dev->handle, "Out of memory");
		}
	}
	return 0;
}

static int seq_plan(struct dlh_seq *seq, struct dlh_port *port, const struct dlh_change_req *req, struct dlh_plan *plan,
		    struct dlh_extack *ext)
{
	struct dlh_sdk_port_attrs come_attrs[DLH_PLAN_PORTS_MAX];
	int err;

	memset(plan, 0, sizeof(*plan));
	dlh__extack_clear(ext);
	if (port->life != DLH__PORT_PHANTOM || port->view->seq != seq)
		return dlh__extack_set(ext, -EINVAL, port->handle, "Port is not of this plan sequence");
	err = dlh__port_plan(port, req, plan, come_attrs, ext);
	return err ? err : view_take(port->view, req, plan, come_attrs, ext);
}

DLH_EXPORT int dlh_seq_split(struct dlh_seq *seq, struct dlh_port *port, unsigned int count, struct dlh_plan *plan,
			     struct dlh_extack *ext)
{
	return seq_plan(seq, port, &(struct dlh_change_req){DLH_CHANGE_SPLIT, port->index, count, 0}, plan, ext);
}

DLH_EXPORT int dlh_seq_unsplit(struct dlh_seq *seq, struct dlh_port *port, struct dlh_plan *plan,
			       struct dlh_extack *ext)
{
	return seq_plan(seq, port, &(struct dlh_change_req){DLH_CHANGE_UNSPLIT, port->index, 0, 0}, plan, ext);
}

DLH_EXPORT int dlh_seq_type_set(struct dlh_seq *seq, struct dlh_port *port, enum dlh_port_type type,
				struct dlh_plan *plan, struct dlh_extack *ext)
{
	return seq_plan(seq, port, &(struct dlh_change_req){DLH_CHANGE_TYPE, port->index, 0, type}, plan, ext);
}

DLH_EXPORT int dlh_seq_change(struct dlh_seq *seq, struct dlh_dev *dev, const struct dlh_change_req *req,
			      struct dlh_plan *plan, struct dlh_extack *ext)
{
	struct dlh_port *p;

	memset(plan, 0, sizeof(*plan));
	dlh__extack_clear(ext);
	if (!seq || !dev || !req)
		return dlh__extack_set(ext, -EINVAL, NULL, "No sequence, device or change");
	if (dev->gone)
		return dlh__dev_live(dev, ext);
	if (req->kind != DLH_CHANGE_SPLIT && req->kind != DLH_CHANGE_UNSPLIT && req->kind != DLH_CHANGE_TYPE)
		return dlh__extack_set(ext, -EINVAL, dev->handle, "Unknown change %u", (unsigned int)req->kind);
	/* after a change planned partially, nothing is known of the device: so is this one */
	if (!dlh_seq_known(seq, dev)) {
		plan->partial = true;
		return 0;
	}
	p = dlh_seq_port_find(seq, dev, req->index);
	if (!p)
		return dlh__extack_set(ext, -ENODEV, dev->handle, "Port %u would not exist", req->index);
	return seq_plan(seq, p, &(struct dlh_change_req){req->kind, p->index, req->count, req->type}, plan, ext);
}
