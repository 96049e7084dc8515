/* SPDX-License-Identifier: MIT */
/*
 * dl panel: each device's front panel as a picture (docs/panel.md): its
 * cages where the faceplate puts them (the profile's, or one laid out from
 * the port numbers), inside each the ports a split made, their types and
 * netdevs; cages whose lanes a neighbour's split took; what waits for a
 * reset; the emulated cable. The devices of one card (an E810's PCI
 * functions) are one picture: the card's faceplate, each port in the cage
 * of the module it reports. As text (80 columns, colour on a terminal,
 * --ascii), SVG (--svg), JSON (-j), and redrawn on each change (--follow).
 */
#include "dl.h"
#include "evhost.h"

#include <errno.h>
#include <ev.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CELLS	  4 /* lines inside a cage at least: a split by 4 shows each port */
#define INNER	  8 /* characters inside a cage */
#define BOX	  (INNER + 2)
#define COLS	  80 /* the width the picture fits */
#define PORTS_MAX 8  /* ports of one cage kept, and lines inside a cage at most: a split by 8 shows each port */

enum color_mode { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };

struct cage {
	struct dlh_cage c;
	bool by_index; /* a port without a number: a cage of its own, by index */
	uint32_t index;
	bool unused; /* found by module, and no port uses its lanes now */
	struct dlh_port *ports[PORTS_MAX];
	size_t nports, more;
	char cable[16]; /* the emulated cable of its first port, or "" */
};

/* What one picture is of: a device, or the devices of a card (dlh_dev_card()). */
struct unit {
	struct dlh_dev **devs;
	size_t ndevs;
	const char *card; /* NULL for a device of its own */
	const char *name; /* the card's name, or the device's handle */
};

struct panel {
	struct dl *dl;
	/* DEV, or NULL for all, and its card if it is one of a card's devices: copies, as --follow sees
	 * devices go (a card's at each reset) */
	const char *dev, *card;
	char dev_buf[DLH_HANDLE_MAX], card_buf[DLH_CARD_NAME_MAX];
	bool ascii, svg, follow, color;
	int svg_y;  /* where the next device goes in the SVG */
	char *last; /* --follow: the picture drawn last */
	size_t last_lines;
	bool drawing, again; /* an event while drawing (a lazy fill's) asks for another picture after */
	char lost[200];	     /* --follow: why the backend went away (the picture would never change) */
	struct ev_loop *loop;
};

void panel_usage(FILE *f)
{
	fprintf(f, "Usage: dl panel [ DEV ] [ --ascii ] [ --color={auto|always|never} ] [ --svg | --follow ]\n"
		   "Draws each device's front panel: cages where its faceplate puts them, the ports a split made in\n"
		   "each (type: E eth, I ib, e/i auto sensed as eth/ib), cages whose lanes a neighbour's split took,\n"
		   "what waits for a reset, the emulated cable; a card's devices (an E810's functions) as one card.\n"
		   "-j: the layout with places and states. --svg: an SVG\n"
		   "of it. --follow: redrawn in place on every change until interrupted. Colour only on a terminal\n"
		   "(NO_COLOR honoured).\n");
}

/* A cage with no port: a neighbour's split took its lanes, or (found by module) nothing uses them now. */
static bool cage_unused(const struct cage *cg)
{
	return cg->unused;
}

/*
 * The unit's cages, each with the ports core lays out in it (dlh_layout_new(): the faceplate's, a
 * card's devices together, or cages made from the port numbers), the first PORTS_MAX of each kept.
 */
static struct cage *cages_of(const struct unit *u, size_t *n, bool *generic)
{
	const struct dlh_layout_cage *lc;
	struct dlh_layout *l;
	struct cage *v;

	*n = 0;
	*generic = true;
	if (dlh_layout_new(u->devs[0], &l))
		return NULL;
	*generic = dlh_layout_generic(l);
	*n = dlh_layout_cages(l, &lc);
	v = calloc(*n ? *n : 1, sizeof(*v));
	for (size_t i = 0; v && i < *n; i++) {
		v[i].c = lc[i].cage;
		v[i].by_index = lc[i].by_index;
		v[i].index = lc[i].index;
		v[i].unused = lc[i].unused;
		v[i].nports = lc[i].nports < PORTS_MAX ? lc[i].nports : PORTS_MAX;
		v[i].more = lc[i].nports - v[i].nports;
		if (v[i].nports) /* an empty cage has no port array */
			memcpy(v[i].ports, lc[i].ports, v[i].nports * sizeof(v[i].ports[0]));
		if (v[i].nports && dlh_dev_sim_get(dlh_port_dev(v[i].ports[0]), v[i].ports[0], "cable", v[i].cable,
						   sizeof(v[i].cable), NULL))
			v[i].cable[0] = '\0';
	}
	dlh_layout_free(l);
	return v;
}

/* A port's type as the panel shows it: E, I, e/i (auto, sensed), - (none). */
static char type_letter(const struct dlh_port *p)
{
	enum dlh_port_type t = dlh_port_type(p);
	bool autot = dlh_port_desired_type(p) == DLH_PORT_TYPE_AUTO;

	if (t == DLH_PORT_TYPE_ETH)
		return autot ? 'e' : 'E';
	if (t == DLH_PORT_TYPE_IB)
		return autot ? 'i' : 'I';
	return '-';
}

/* Each type letter's colour: on a terminal, and in the SVG; the last for none ('-'). */
static const struct {
	char letter;
	const char *ansi, *fill;
} styles[] = {{'E', "\033[1;32m", "#2e7d32"},
	      {'e', "\033[32m", "#66bb6a"},
	      {'I', "\033[1;34m", "#1565c0"},
	      {'i', "\033[34m", "#42a5f5"},
	      {'-', "", "#9e9e9e"}};

static size_t style_of(char letter)
{
	size_t i = 0;

	while (i < sizeof(styles) / sizeof(styles[0]) - 1 && styles[i].letter != letter)
		i++;
	return i;
}

static const char *type_color(char letter)
{
	return styles[style_of(letter)].ansi;
}

/* A text buffer that grows. */
struct text {
	char *s;
	size_t len, cap;
	size_t lines;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if (t->s && t->len + (size_t)n < t->cap)
			break;
		{
			size_t cap = t->cap ? t->cap * 2 : 4096;
			char *ns;

			while (cap <= t->len + (size_t)n)
				cap *= 2;
			ns = realloc(t->s, cap);
			if (!ns)
				return;
			t->s = ns;
			t->cap = cap;
		}
	}
	for (const char *c = t->s + t->len; *c; c++)
		t->lines += *c == '\n';
	t->len += (size_t)n;
}

/* The cage's pending split or type, "reset:4" (what waits for the next reset), or "". */
static void pending_word(const struct cage *cg, char *buf, size_t len)
{
	struct dlh_pending p;

	buf[0] = '\0';
	for (size_t i = 0; i < cg->nports; i++)
		if (dlh_port_pending(cg->ports[i], &p) && p.type) {
			snprintf(buf, len, "reset:%c", dlh_port_type_name(p.type)[0]);
			return;
		}
	if (cg->nports && dlh_port_splittable(cg->ports[0]) && dlh_dev_pending(dlh_port_dev(cg->ports[0]), &p) &&
	    p.split)
		snprintf(buf, len, "reset:%u", p.split);
}

/*
 * A netdev in @w columns: whole, or its first character and its end ("e~16f0" for ens16f0): the end is
 * what tells a card's functions or a split's ports apart.
 */
static void name_fit(const char *name, int w, bool ascii, char *buf, size_t len)
{
	size_t n = strlen(name);

	if (n <= (size_t)w)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "%c%s%s", name[0], ascii ? "~" : "…", name + n - (size_t)(w - 2));
}

/* One of the @cells lines inside a cage, @line from 0, INNER characters wide (colour codes aside). */
static void cage_line(struct panel *pn, struct text *t, const struct cage *cg, int line, int cells)
{
	char cell[64], pend[16]; /* UTF-8: a hatch character is 3 bytes */
	const char *col = "", *reset = pn->color ? "\033[0m" : "";

	pending_word(cg, pend, sizeof(pend));
	if (cage_unused(cg)) {
		/* found by module, and the option in use gives its lanes no port */
		put(t, "%s%-*s%s", pn->color ? "\033[2m" : "", INNER, line == 1 ? " unused" : "",
		    pn->color ? reset : "");
		return;
	}
	if (!cg->nports) {
		/* lanes taken by a neighbour's split: hatched, "taken" in the middle */
		snprintf(cell, sizeof(cell), line == 1 ? " taken  " : "%s", pn->ascii ? "////////" : "░░░░░░░░");
		put(t, "%s%s%s", pn->color ? "\033[2m" : "", cell, pn->color ? reset : "");
		return;
	}
	if ((size_t)line < cg->nports && (line < cells - 1 || cg->nports + cg->more <= (size_t)cells)) {
		const struct dlh_port *p = cg->ports[line];
		const char *name = dlh_port_netdev(p) ? dlh_port_netdev(p) : dlh_port_ibdev(p) ? dlh_port_ibdev(p) : "";
		char letter = type_letter(p);

		name_fit(name, INNER - 2, pn->ascii, cell, sizeof(cell));
		if (pn->color)
			col = type_color(letter);
		put(t, "%s%c%s %-*s", col, letter, *col ? reset : "", INNER - 2, cell);
		return;
	}
	if (line == cells - 1 && cg->nports + cg->more > (size_t)cells) {
		put(t, "+%-*zu", INNER - 1, cg->nports + cg->more - (size_t)(cells - 1));
		return;
	}
	/* the last free line: what waits for a reset, else the cable */
	if (line == cells - 1 && pend[0]) {
		put(t, "%s%-*s%s", pn->color ? "\033[33m" : "", INNER, pend, pn->color ? reset : "");
		return;
	}
	if (line == cells - 1 && cg->cable[0]) {
		snprintf(cell, sizeof(cell), "~%s", cg->cable);
		put(t, "%-*s", INNER, cell);
		return;
	}
	put(t, "%*s", INNER, "");
}

/* A box edge: ┌17──────┐ with the cage's label (and '*' when something waits for a reset). */
static void cage_edge(struct panel *pn, struct text *t, const struct cage *cg, bool top)
{
	const char *h = pn->ascii ? "-" : "─";
	char pend[16];
	int used = 0;

	pending_word(cg, pend, sizeof(pend));
	put(t, "%s", top ? (pn->ascii ? "+" : "┌") : (pn->ascii ? "+" : "└"));
	if (top) {
		put(t, "%s", cg->c.label);
		used = (int)strlen(cg->c.label);
		if (pend[0]) {
			put(t, "%s*%s", pn->color ? "\033[33m" : "", pn->color ? "\033[0m" : "");
			used++;
		}
	}
	for (int i = used; i < INNER; i++)
		put(t, "%s", h);
	put(t, "%s", top ? (pn->ascii ? "+" : "┐") : (pn->ascii ? "+" : "┘"));
}

/* "pci/0000:16:00.0: ice, card of 4 devices, 2 cages" */
static void unit_header(const struct unit *u, size_t n, bool generic, char *buf, size_t len)
{
	char devs[48] = "";

	if (u->card)
		snprintf(devs, sizeof(devs), ", card of %zu device%s", u->ndevs, u->ndevs == 1 ? "" : "s");
	snprintf(buf, len, "%s: %s%s, %zu cage%s%s", u->name, dlh_dev_driver(u->devs[0]), devs, n, n == 1 ? "" : "s",
		 generic ? " (laid out from the port numbers)" : "");
}

/* A unit: a header line, then each faceplate row, wrapped to fit COLS. */
static void unit_text(struct panel *pn, struct text *t, const struct unit *u)
{
	bool generic;
	size_t n, per = COLS / BOX;
	struct cage *cg = cages_of(u, &n, &generic);
	const char *v = pn->ascii ? "|" : "│";
	char head[256];

	unit_header(u, n, generic, head, sizeof(head));
	put(t, "%s\n", head);
	/* a line a port, 4 at least: a QSFP-DD or OSFP cage split by 8 shows every port */
	int cells = CELLS;

	for (size_t i = 0; cg && i < n; i++)
		if (cg[i].nports + cg[i].more > (size_t)cells)
			cells = (int)(cg[i].nports + cg[i].more);
	if (cells > PORTS_MAX)
		cells = PORTS_MAX;
	for (size_t i = 0; cg && i < n;) {
		size_t j = i;
		unsigned int row = cg[i].c.row;

		while (j < n && cg[j].c.row == row)
			j++;
		/* cages i..j-1 are this row, by column: lines of at most @per boxes, gaps kept */
		for (size_t k = i; k < j;) {
			unsigned int first_col = cg[k].c.col;
			size_t end = k;

			while (end < j && cg[end].c.col < first_col + per)
				end++;
			for (int line = -1; line <= cells; line++) {
				unsigned int col = first_col;

				for (size_t c = k; c < end; c++, col++) {
					for (; col < cg[c].c.col; col++)
						put(t, "%*s", BOX, "");
					if (line < 0 || line == cells) {
						cage_edge(pn, t, &cg[c], line < 0);
					} else {
						put(t, "%s", v);
						cage_line(pn, t, &cg[c], line, cells);
						put(t, "%s", v);
					}
				}
				put(t, "\n");
			}
			k = end;
		}
		i = j;
	}
	free(cg);
}

static void legend_text(struct panel *pn, struct text *t)
{
	/* one line, within COLS */
	put(t, "E eth  I ib  e/i auto: sensed eth/ib  %s lanes taken  *reset:N pending  ~cable\n",
	    pn->ascii ? "//" : "░░");
}

/*
 * The unit @dev begins, if it is to be drawn: the device, or its card's devices when it is the first of
 * them (the others are drawn with it). 0 with @u filled; 1 to skip it; -ENOMEM.
 */
static int unit_at(const struct panel *pn, struct dlh_dev *dev, struct unit *u)
{
	const char *card = dlh_dev_card(dev);
	size_t cap = 0;

	memset(u, 0, sizeof(*u));
	if (pn->dev && (pn->card ? !card || strcmp(card, pn->card) : strcmp(pn->dev, dlh_dev_handle(dev))))
		return 1;
	for (struct dlh_dev *d = dlh_dev_first(pn->dl->ctx); card && d != dev; d = dlh_dev_next(d))
		if (dlh_dev_card(d) && !strcmp(dlh_dev_card(d), card))
			return 1;
	for (struct dlh_dev *d = dev; d; d = card ? dlh_dev_next(d) : NULL) {
		if (d != dev && (!dlh_dev_card(d) || strcmp(dlh_dev_card(d), card)))
			continue;
		if (u->ndevs == cap) {
			struct dlh_dev **nv = realloc(u->devs, (cap = cap ? cap * 2 : 8) * sizeof(*nv));

			if (!nv) {
				free(u->devs);
				return -ENOMEM;
			}
			u->devs = nv;
		}
		u->devs[u->ndevs++] = d;
	}
	u->card = card;
	u->name = card ? card : dlh_dev_handle(dev);
	return 0;
}

/* Each unit to draw, in the model's order: @fn(@pn, unit, its number, @arg). */
static void units_each(struct panel *pn, void (*fn)(struct panel *, const struct unit *, int, void *), void *arg)
{
	int k = 0;

	for (struct dlh_dev *dev = dlh_dev_first(pn->dl->ctx); dev; dev = dlh_dev_next(dev)) {
		struct unit u;

		if (unit_at(pn, dev, &u))
			continue;
		fn(pn, &u, k++, arg);
		free(u.devs);
	}
}

static void unit_text_each(struct panel *pn, const struct unit *u, int k, void *arg)
{
	(void)k;
	unit_text(pn, arg, u);
}

static char *picture(struct panel *pn, size_t *lines)
{
	struct text t = {0};

	units_each(pn, unit_text_each, &t);
	legend_text(pn, &t);
	*lines = t.lines;
	return t.s;
}

/* ---- JSON: the layout, for programs that draw it themselves ------------------------------------ */

static void unit_json(struct panel *pn, const struct unit *u, int k, void *arg)
{
	struct jsonw *w = &pn->dl->jw;
	struct dlh_pending pd;
	bool generic, pending = false;
	size_t n;
	struct cage *cg = cages_of(u, &n, &generic);
	char pend[16];

	(void)k;
	(void)arg;
	jsonw_obj_open(w, u->name);
	jsonw_str(w, "driver", dlh_dev_driver(u->devs[0]));
	jsonw_str(w, "faceplate", generic ? "generic" : u->card ? "card" : "profile");
	if (u->card) {
		jsonw_arr_open(w, "devices");
		for (size_t d = 0; d < u->ndevs; d++)
			jsonw_str(w, NULL, dlh_dev_handle(u->devs[d]));
		jsonw_arr_close(w);
	}
	/* a card's devices share what waits: its first device says it (ice's PF 0) */
	for (size_t d = 0; d < u->ndevs && !pending; d++)
		pending = dlh_dev_pending(u->devs[d], &pd);
	if (pending) {
		jsonw_obj_open(w, "pending");
		if (pd.split)
			jsonw_uint(w, "split", pd.split);
		if (pd.type)
			jsonw_str(w, "type", dlh_port_type_name(pd.type));
		jsonw_obj_close(w);
	}
	jsonw_arr_open(w, "cages");
	for (size_t i = 0; cg && i < n; i++) {
		jsonw_obj_open(w, NULL);
		if (cg[i].by_index)
			jsonw_uint(w, "index", cg[i].index);
		else
			jsonw_uint(w, "number", cg[i].c.number);
		jsonw_str(w, "label", cg[i].c.label);
		jsonw_str(w, "form", cg[i].c.form);
		jsonw_uint(w, "row", cg[i].c.row);
		jsonw_uint(w, "col", cg[i].c.col);
		if (cg[i].c.has_module)
			jsonw_uint(w, "module", cg[i].c.module);
		jsonw_bool(w, "taken", !cg[i].nports && !cage_unused(&cg[i]));
		if (cage_unused(&cg[i]))
			jsonw_bool(w, "unused", true);
		pending_word(&cg[i], pend, sizeof(pend));
		if (pend[0])
			jsonw_str(w, "pending", pend + strlen("reset:"));
		if (cg[i].cable[0])
			jsonw_str(w, "cable", cg[i].cable);
		jsonw_arr_open(w, "ports");
		for (size_t j = 0; j < cg[i].nports; j++) {
			const struct dlh_port *p = cg[i].ports[j];
			uint32_t module, lane;

			jsonw_obj_open(w, NULL);
			jsonw_str(w, "port", dlh_port_handle(p));
			jsonw_str(w, "type", dlh_port_type_name(dlh_port_type(p)));
			if (dlh_port_desired_type(p))
				jsonw_str(w, "desired_type", dlh_port_type_name(dlh_port_desired_type(p)));
			if (dlh_port_netdev(p))
				jsonw_str(w, "netdev", dlh_port_netdev(p));
			if (dlh_port_ibdev(p))
				jsonw_str(w, "ibdev", dlh_port_ibdev(p));
			if (dlh_port_lanes(p))
				jsonw_uint(w, "lanes", dlh_port_lanes(p));
			if (cg[i].c.has_module && dlh_port_module(p, &module, &lane))
				jsonw_uint(w, "lane", lane);
			if (dlh_port_is_split(p))
				jsonw_uint(w, "subport", dlh_port_split_subport(p));
			jsonw_obj_close(w);
		}
		jsonw_arr_close(w);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_obj_close(w);
	free(cg);
}

/* ---- SVG: the same picture for reports and docs ------------------------------------------------ */

#define SVG_CAGE_W 92
#define SVG_CAGE_H 84
#define SVG_GAP	   6
#define SVG_MARGIN 10

/* XML text: &, <, > and quotes escaped. */
static void xml(const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", stdout);
			break;
		case '<':
			fputs("&lt;", stdout);
			break;
		case '>':
			fputs("&gt;", stdout);
			break;
		case '"':
			fputs("&quot;", stdout);
			break;
		default:
			putchar(*s);
		}
	}
}

static const char *svg_fill(char letter)
{
	return styles[style_of(letter)].fill;
}

/* A port's dl port show line, for the cage's <title>. */
static void svg_port_line(const struct dlh_port *p)
{
	enum dlh_port_type t = dlh_port_type(p), d = dlh_port_desired_type(p);

	xml(dlh_port_handle(p));
	printf(": type %s", dlh_port_type_name(t));
	if (d != DLH_PORT_TYPE_NOTSET && d != t)
		printf("(%s)", dlh_port_type_name(d));
	if (dlh_port_netdev(p)) {
		fputs(" netdev ", stdout);
		xml(dlh_port_netdev(p));
	}
	if (dlh_port_ibdev(p)) {
		fputs(" ibdev ", stdout);
		xml(dlh_port_ibdev(p));
	}
	if (dlh_port_is_split(p))
		printf(" split_group %u", dlh_port_split_group(p));
}

static void svg_unit(struct panel *pn, const struct unit *u, int di, void *arg)
{
	bool generic;
	size_t n;
	struct cage *cg = cages_of(u, &n, &generic);
	unsigned int rows = 0, cols = 0;
	int y0 = pn->svg_y, *width = arg;
	char pend[16], head[256];

	for (size_t i = 0; cg && i < n; i++) {
		rows = cg[i].c.row + 1 > rows ? cg[i].c.row + 1 : rows;
		cols = cg[i].c.col + 1 > cols ? cg[i].c.col + 1 : cols;
	}
	printf("<text x=\"%d\" y=\"%d\" class=\"dev\">", SVG_MARGIN, y0 + 16);
	unit_header(u, n, generic, head, sizeof(head));
	xml(head);
	printf("</text>\n");
	y0 += 24;
	for (size_t i = 0; cg && i < n; i++) {
		int x = SVG_MARGIN + (int)cg[i].c.col * (SVG_CAGE_W + SVG_GAP);
		int y = y0 + (int)cg[i].c.row * (SVG_CAGE_H + SVG_GAP);
		size_t k = cg[i].nports < PORTS_MAX ? cg[i].nports : PORTS_MAX;

		printf("<g id=\"d%d-cage-", di);
		if (cg[i].by_index)
			printf("i%u", cg[i].index);
		else
			printf("%u", cg[i].c.number);
		printf("\" class=\"cage%s\">\n<title>cage ", cage_unused(&cg[i]) ? " unused"
							     : cg[i].nports	 ? ""
										 : " taken");
		xml(cg[i].c.label);
		printf(" (");
		xml(cg[i].c.form);
		printf(")");
		for (size_t j = 0; j < cg[i].nports; j++) {
			printf("\n");
			svg_port_line(cg[i].ports[j]);
		}
		if (cage_unused(&cg[i]))
			printf("\nno port: the option in use gives its lanes none");
		else if (!cg[i].nports)
			printf("\nlanes taken by a neighbour's split");
		printf("</title>\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"4\" fill=\"%s\" "
		       "stroke=\"#212121\"/>\n",
		       x, y, SVG_CAGE_W, SVG_CAGE_H, cg[i].nports || cage_unused(&cg[i]) ? "#fafafa" : "#bdbdbd");
		printf("<text x=\"%d\" y=\"%d\" class=\"label\">", x + 4, y + 13);
		xml(cg[i].c.label);
		pending_word(&cg[i], pend, sizeof(pend));
		if (pend[0])
			printf(" * %s", pend);
		else if (cg[i].cable[0])
			printf(" ~%s", cg[i].cable);
		printf("</text>\n");
		for (size_t j = 0; j < k; j++) {
			const struct dlh_port *p = cg[i].ports[j];
			int ch = (SVG_CAGE_H - 22) / (int)k, cy = y + 18 + (int)j * ch;
			const char *name = dlh_port_netdev(p)  ? dlh_port_netdev(p)
					   : dlh_port_ibdev(p) ? dlh_port_ibdev(p)
							       : "";

			printf("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", x + 4, cy,
			       SVG_CAGE_W - 8, ch - 2, svg_fill(type_letter(p)));
			printf("<text x=\"%d\" y=\"%d\" class=\"cell\">%c ", x + 8, cy + ch / 2 + 3, type_letter(p));
			xml(name);
			printf("</text>\n");
		}
		if (!cg[i].nports)
			printf("<text x=\"%d\" y=\"%d\" class=\"%s\">%s</text>\n", x + 8, y + SVG_CAGE_H / 2 + 6,
			       cage_unused(&cg[i]) ? "label" : "cell", cage_unused(&cg[i]) ? "unused" : "taken");
		printf("</g>\n");
	}
	pn->svg_y = y0 + (int)rows * (SVG_CAGE_H + SVG_GAP) + 10;
	if (SVG_MARGIN * 2 + (int)cols * (SVG_CAGE_W + SVG_GAP) > *width)
		*width = SVG_MARGIN * 2 + (int)cols * (SVG_CAGE_W + SVG_GAP);
	free(cg);
}

static int svg_write(struct panel *pn)
{
	int width = 520, height;
	char *body = NULL;
	size_t blen = 0;
	FILE *mem = open_memstream(&body, &blen), *out = stdout;

	if (!mem) {
		fprintf(stderr, "Error: out of memory\n");
		return DL_EOP;
	}
	/* the body first (the size depends on it), then the document around it */
	stdout = mem;
	units_each(pn, svg_unit, &width);
	fclose(mem);
	stdout = out;
	height = pn->svg_y + 44;
	printf("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	       "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
	       "font-family=\"DejaVu Sans Mono, monospace\">\n"
	       "<title>dl panel</title>\n"
	       "<style>.dev{font-size:14px;font-weight:bold}.label{font-size:11px;fill:#212121}"
	       ".cell{font-size:11px;fill:#ffffff}.legend{font-size:11px;fill:#212121}</style>\n"
	       "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
	       width, height, width, height);
	fwrite(body, 1, blen, stdout);
	free(body);
	/* the legend: a swatch and a word each */
	{
		static const struct {
			char letter;
			const char *word;
		} keys[] = {{'E', "eth"}, {'I', "ib"}, {'e', "auto: eth"}, {'i', "auto: ib"}, {'-', "taken"}};
		int x = SVG_MARGIN, y = pn->svg_y + 8;

		printf("<g id=\"legend\">\n");
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			printf("<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\" stroke=\"#212121\"/>"
			       "<text x=\"%d\" y=\"%d\" class=\"legend\">%s</text>\n",
			       x, y, keys[i].letter == '-' ? "#bdbdbd" : svg_fill(keys[i].letter), x + 18, y + 11,
			       keys[i].word);
			x += 100;
		}
		printf("<text x=\"%d\" y=\"%d\" class=\"legend\">* waits for a reset   ~ cable</text>\n</g>\n",
		       SVG_MARGIN, y + 30);
	}
	printf("</svg>\n");
	return DL_OK;
}

/* ---- --follow: redrawn in place on each change ------------------------------------------------- */

static void redraw_once(struct panel *pn)
{
	size_t lines;
	char *pic;

	pn->drawing = true;
	pic = picture(pn, &lines);
	pn->drawing = false;
	if (!pic || (pn->last && !strcmp(pic, pn->last))) {
		free(pic);
		return;
	}
	/* back to where the last picture began, and clear below */
	if (pn->last)
		printf("\033[%zuA\r\033[J", pn->last_lines);
	fputs(pic, stdout);
	fflush(stdout);
	free(pn->last);
	pn->last = pic;
	pn->last_lines = lines;
}

/* Drawn again until no event came while drawing: the picture is of a model at rest. */
static void redraw(struct panel *pn)
{
	do {
		pn->again = false;
		redraw_once(pn);
	} while (pn->again);
}

static void on_event(const struct dlh_event *ev, void *arg)
{
	struct panel *pn = arg;

	if (ev->type == DLH_EVENT_LOST) {
		snprintf(pn->lost, sizeof(pn->lost), "%s", ev->msg);
		ev_break(pn->loop, EVBREAK_ALL);
		return;
	}
	if (pn->drawing) {
		pn->again = true;
		return;
	}
	redraw(pn);
}

static int follow(struct panel *pn)
{
	struct evhost host;
	struct dlh_sub *sub;

	pn->loop = ev_default_loop(EVFLAG_AUTO);
	if (!pn->loop) {
		fprintf(stderr, "dl panel: cannot start an event loop\n");
		return DL_EOP;
	}
	/* the model whole before watching it: its fill is no change to draw */
	for (struct dlh_dev *dev = dlh_dev_first(pn->dl->ctx); dev; dev = dlh_dev_next(dev))
		dlh_port_first(dev);
	if (dlh_ctx_subscribe(pn->dl->ctx, on_event, pn, &sub)) {
		fprintf(stderr, "dl panel: out of memory\n");
		return DL_EOP;
	}
	evhost_start(&host, pn->loop, pn->dl->ctx);
	evhost_stop_on_signals(&host);
	/* the cursor hidden while drawing, shown again on the way out */
	if (isatty(STDOUT_FILENO))
		fputs("\033[?25l", stdout);
	redraw(pn);
	ev_run(pn->loop, 0);
	evhost_stop(&host);
	dlh_ctx_unsubscribe(sub);
	if (isatty(STDOUT_FILENO))
		fputs("\033[?25h", stdout);
	fflush(stdout);
	free(pn->last);
	if (pn->lost[0]) {
		fprintf(stderr, "dl panel: %s: stopped (run it again once it is back)\n", pn->lost);
		return DL_EOP;
	}
	return DL_OK;
}

int cmd_panel(struct dl *dl)
{
	struct panel pn = {.dl = dl};
	enum color_mode mode = COLOR_AUTO;
	struct dlh_ctx *ctx;
	const char *a;
	int err;

	for (; (a = dl_arg(dl)); dl_shift(dl)) {
		if (dl_match(a, "help")) {
			panel_usage(stdout);
			return DL_OK;
		} else if (!strcmp(a, "--ascii")) {
			pn.ascii = true;
		} else if (!strcmp(a, "--svg")) {
			pn.svg = true;
		} else if (!strcmp(a, "--follow")) {
			pn.follow = true;
		} else if (!strncmp(a, "--color=", 8) || !strcmp(a, "--color")) {
			const char *m = a[7] ? a + 8 : "always";

			if (!strcmp(m, "auto"))
				mode = COLOR_AUTO;
			else if (!strcmp(m, "always"))
				mode = COLOR_ALWAYS;
			else if (!strcmp(m, "never"))
				mode = COLOR_NEVER;
			else
				return dl_usage_err(panel_usage, "--color=%s: expected auto, always or never", m);
		} else if (*a == '-') {
			return dl_usage_err(panel_usage, "Unknown option \"%s\"", a);
		} else if (!pn.dev) {
			pn.dev = a;
		} else {
			return dl_usage_err(panel_usage, "Unexpected argument \"%s\"", a);
		}
	}
	if (pn.svg && pn.follow)
		return dl_usage_err(panel_usage, "--svg and --follow: choose one");
	/* a batch's lines run one after another: one that never ends would stop the rest */
	if (pn.follow && dl->in_batch)
		return dl_usage_err(panel_usage, "--follow runs until interrupted: not in a batch");
	if (dl->json && (pn.svg || pn.follow))
		return dl_usage_err(panel_usage, "-j draws nothing: it prints the layout, without --svg or --follow");
	err = dl_ctx(dl, &ctx);
	if (err)
		return err;
	if (pn.dev) {
		struct dlh_dev *dev;
		struct dlh_extack ext;

		err = dlh_dev_lookup(ctx, pn.dev, &dev, &ext);
		if (err)
			return dl_lookup_err(err, &ext, panel_usage);
		snprintf(pn.dev_buf, sizeof(pn.dev_buf), "%s", dlh_dev_handle(dev));
		pn.dev = pn.dev_buf;
		if (dlh_dev_card(dev)) { /* one of a card's devices: the card is drawn */
			snprintf(pn.card_buf, sizeof(pn.card_buf), "%s", dlh_dev_card(dev));
			pn.card = pn.card_buf;
		}
	}
	pn.color = mode == COLOR_ALWAYS ||
		   (mode == COLOR_AUTO && isatty(STDOUT_FILENO) && !(getenv("NO_COLOR") && *getenv("NO_COLOR")));
	if (pn.svg)
		return svg_write(&pn);
	if (dl->json) {
		out_begin(dl, "panel");
		units_each(&pn, unit_json, NULL);
		out_end(dl);
		return DL_OK;
	}
	if (pn.follow)
		return follow(&pn);
	{
		size_t lines;
		char *pic = picture(&pn, &lines);

		if (pic)
			fputs(pic, stdout);
		free(pic);
		return pic ? DL_OK : DL_EOP;
	}
}
