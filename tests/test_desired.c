/* SPDX-License-Identifier: MIT */
/*
 * libdlhal-desired called directly (include/dlhal/desired.h): the engine
 * that dl apply, dlhald --desired and the Lua binding share. Entries with an
 * origin the caller gives, files, plans, conflicts, refusals, atomic undo and
 * the drift query, on an emulated SN2700 (port 17 is local port 1, port 1 is
 * local port 3: a split of 17 by 4 takes port 1's lanes).
 */
#include "helpers.h"

#include <criterion/criterion.h>
#include <dlhal/desired.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SW "pci/0000:03:00.0"

/* A set of entries "NUMBER:SPLIT" on the switch, each named ports[I]. */
static struct dlh_desired *set_of(const char *const *specs)
{
	struct dlh_desired *d;
	struct dlh_extack ext;

	cr_assert_eq(dlh_desired_new("ports", &d), 0);
	for (size_t i = 0; specs[i]; i++) {
		struct dlh_desired_entry e = {.device = SW, .has_number = true};
		char origin[32];

		cr_assert_eq(sscanf(specs[i], "%u:%u", &e.number, &e.split), 2);
		snprintf(origin, sizeof(origin), "ports[%zu]", i);
		cr_assert_eq(dlh_desired_entry_add(d, &e, origin, &ext), 0, "%s", ext.msg);
	}
	return d;
}

static unsigned int split_of(struct dlh_ctx *ctx, const char *handle)
{
	struct dlh_extack ext;
	struct dlh_port *p;

	cr_assert_eq(dlh_port_lookup(ctx, handle, &p, &ext), 0, "%s: %s", handle, ext.msg);
	return dlh_port_split_group(p);
}

Test(desired, entries_from_the_caller_are_planned_and_named_by_their_origin)
{
	struct dlh_ctx *ctx = ctx_with("sn2700");
	struct dlh_desired *d = set_of((const char *const[]){"17:2", "1:2", NULL});
	struct dlh_desired_plan p;
	char what[512], why[512];

	cr_assert_eq(dlh_desired_plan(d, ctx, &p, NULL), 0);
	cr_expect_eq(p.status, DLH_DESIRED_OK, "%s", p.why);
	cr_assert_eq(p.nsteps, 2);
	dlh_desired_step_describe(d, &p.steps[0], what, sizeof(what));
	cr_expect_str_eq(what, "split " SW " port 17 into 2 (ports[0])");
	dlh_desired_step_describe(d, &p.steps[1], what, sizeof(what));
	cr_expect_str_eq(what, "split " SW " port 1 into 2 (ports[1])");
	cr_expect_eq(p.steps[1].entry, 1);
	cr_expect_eq(p.steps[0].line, 0, "no file line for an entry with an origin");
	cr_expect_eq(p.steps[0].nplans, 1, "the step carries its plan");
	dlh_desired_entry_describe(d, 0, what, sizeof(what));
	cr_expect_str_eq(what, SW " port 17: split into 2 (ports[0])");
	cr_expect(dlh_desired_plan_drifts(&p, 0) && dlh_desired_plan_drifts(&p, 1));
	cr_expect_eq(split_of(ctx, SW "/1"), 0, "planning changes nothing");
	cr_expect_eq(dlh_desired_apply(d, ctx, &p, false, NULL, why, sizeof(why)), 0, "%s", why);
	cr_expect_eq(p.steps[0].result, DLH_DESIRED_STEP_DONE);
	cr_expect_eq(p.steps[1].result, DLH_DESIRED_STEP_DONE);
	cr_expect_eq(split_of(ctx, SW "/1"), 16);
	dlh_desired_plan_free(&p);
	/* met: nothing to do, no drift */
	cr_assert_eq(dlh_desired_plan(d, ctx, &p, NULL), 0);
	cr_expect_eq(p.nsteps, 0);
	cr_expect_eq(p.status, DLH_DESIRED_OK);
	cr_expect(!dlh_desired_plan_drifts(&p, 0) && !dlh_desired_plan_drifts(&p, 1));
	dlh_desired_plan_free(&p);
	dlh_desired_free(d);
	dlh_ctx_free(ctx);
}

/* Port 17 by 4 takes port 1's lanes: refused before anything runs, both origins named. */
Test(desired, a_conflict_names_both_entries_and_changes_nothing)
{
	struct dlh_ctx *ctx = ctx_with("sn2700");
	struct dlh_desired *d = set_of((const char *const[]){"17:4", "1:2", NULL});
	struct dlh_desired_plan p;

	cr_assert_eq(dlh_desired_plan(d, ctx, &p, NULL), 0);
	cr_expect_eq(p.status, DLH_DESIRED_CONFLICT);
	cr_expect_eq(p.entry, 1);
	cr_expect_eq(p.other, 0);
	cr_expect_str_eq(p.why, "ports[1] conflicts with ports[0]: split " SW
				" port 17 into 4 (ports[0]) would remove " SW "/3, port 1");
	cr_expect(dlh_desired_plan_drifts(&p, 0) && dlh_desired_plan_drifts(&p, 1), "a set refused whole drifts whole");
	dlh_desired_plan_free(&p);
	dlh_desired_free(d);
	/* the other order: the driver refuses the split by 4 after port 1's split */
	d = set_of((const char *const[]){"1:2", "17:4", NULL});
	cr_assert_eq(dlh_desired_plan(d, ctx, &p, NULL), 0);
	cr_expect_eq(p.status, DLH_DESIRED_CONFLICT);
	cr_expect_str_eq(p.why, "ports[1] conflicts with ports[0]: split " SW
				" port 17 into 4 (ports[1]) cannot follow split " SW " port 1 into 2 (ports[0]): " SW
				"/1: Invalid split configuration");
	cr_expect_eq(split_of(ctx, SW "/1"), 0);
	cr_expect_eq(split_of(ctx, SW "/3"), 0);
	dlh_desired_plan_free(&p);
	dlh_desired_free(d);
	dlh_ctx_free(ctx);
}

Test(desired, a_step_the_driver_refuses_on_its_own_is_a_refusal)
{
	struct dlh_ctx *ctx = ctx_with("sn2700");
	struct dlh_desired *d = set_of((const char *const[]){"17:2", "18:3", NULL});
	struct dlh_desired_plan p;

	cr_assert_eq(dlh_desired_plan(d, ctx, &p, NULL), 0);
	cr_expect_eq(p.status, DLH_DESIRED_REFUSED);
	cr_expect_eq(p.entry, 1);
	cr_expect_str_eq(p.why,
			 "split " SW " port 18 into 3 (ports[1]): " SW "/5: Port can only be split into 2 or 4 ports");
	dlh_desired_plan_free(&p);
	dlh_desired_free(d);
	dlh_ctx_free(ctx);
}

/* What no plan foresees (the hardware fails half way): the run stops; atomic undoes what it did. */
Test(desired, a_step_failing_while_running_stops_and_atomic_undoes)
{
	for (int atomic = 0; atomic < 2; atomic++) {
		struct dlh_ctx *ctx = ctx_with("sn2700");
		struct dlh_desired *d = set_of((const char *const[]){"17:2", "18:2", NULL});
		struct dlh_desired_plan p;
		struct dlh_extack ext;
		char why[1200];

		cr_assert_eq(dlh_desired_plan(d, ctx, &p, NULL), 0);
		cr_assert_eq(p.status, DLH_DESIRED_OK);
		/* the 10th register access from now is the second split's */
		cr_assert_eq(dlh_dev_sim_set(dlh_dev_find(ctx, SW), NULL, "fail_nth", "10", &ext), 0, "%s", ext.msg);
		cr_expect_lt(dlh_desired_apply(d, ctx, &p, atomic, NULL, why, sizeof(why)), 0);
		cr_expect_eq(strncmp(why, "split " SW " port 18 into 2 (ports[1]): ", 41), 0, "%s", why);
		cr_expect_eq(p.steps[0].result, atomic ? DLH_DESIRED_STEP_UNDONE : DLH_DESIRED_STEP_DONE);
		cr_expect_eq(p.steps[1].result, DLH_DESIRED_STEP_REFUSED);
		cr_expect_eq(split_of(ctx, SW "/1"), atomic ? 0 : 16, "atomic: whole again");
		cr_expect(dlh_desired_plan_undone(&p), "no undo failed");
		dlh_desired_plan_free(&p);
		dlh_desired_free(d);
		dlh_ctx_free(ctx);
	}
}

Test(desired, an_entry_matching_no_port_is_unmet_and_drifts)
{
	struct dlh_ctx *ctx = ctx_with("sn2700");
	struct dlh_desired_entry e = {.netdev = "nosuch0", .type = DLH_PORT_TYPE_ETH};
	struct dlh_desired *d = set_of((const char *const[]){"17:1", NULL});
	struct dlh_desired_plan p;
	struct dlh_extack ext;
	char at[128];

	cr_assert_eq(dlh_desired_entry_add(d, &e, "site.yml: ports[7]", &ext), 0, "%s", ext.msg);
	cr_assert_eq(dlh_desired_plan(d, ctx, &p, NULL), 0);
	cr_expect_eq(p.status, DLH_DESIRED_UNMET);
	cr_assert_eq(p.nunmet, 1);
	cr_expect_eq(p.unmet[0].entry, 1);
	cr_expect_str_eq(p.why, "site.yml: ports[7]: matches no port");
	cr_expect(!dlh_desired_plan_drifts(&p, 0), "port 17 is whole already");
	cr_expect(dlh_desired_plan_drifts(&p, 1));
	dlh_desired_where(d, 1, 99, at, sizeof(at));
	cr_expect_str_eq(at, "site.yml: ports[7]", "an origin stands for every line");
	dlh_desired_plan_unmet_str(d, &p, at, sizeof(at));
	cr_expect_str_eq(at, "site.yml: ports[7]: matches no port");
	dlh_desired_plan_free(&p);
	/* many: as many as the line holds, the rest counted */
	for (int i = 0; i < 20; i++) {
		char origin[16];

		snprintf(e.netdev, sizeof(e.netdev), "gone%d", i);
		snprintf(origin, sizeof(origin), "gone[%d]", i);
		cr_assert_eq(dlh_desired_entry_add(d, &e, origin, &ext), 0, "%s", ext.msg);
	}
	cr_assert_eq(dlh_desired_plan(d, ctx, &p, NULL), 0);
	cr_expect_eq(p.nunmet, 21);
	{
		char line[300];
		const char *head;

		dlh_desired_plan_unmet_str(d, &p, line, sizeof(line));
		head = "site.yml: ports[7]: matches no port; gone[0]: matches no port; ";
		cr_expect_eq(strncmp(line, head, strlen(head)), 0, "%s", line);
		cr_expect_not_null(strstr(line, "gone[8]: matches no port; and 11 more"), "entries whole: %s", line);
		cr_expect_lt(strlen(line), sizeof(line) - 1, "%s", line);
		/* a line too short for any entry: the count alone */
		dlh_desired_plan_unmet_str(d, &p, line, 40);
		cr_expect_str_eq(line, "and 21 more");
	}
	dlh_desired_plan_free(&p);
	dlh_desired_free(d);
	dlh_ctx_free(ctx);
}

/* What a file's reader refuses, refused for entries from the caller too, naming the entry and field. */
Test(desired, entries_are_checked_for_what_a_file_reader_refuses_too)
{
	struct dlh_desired *d;
	struct dlh_extack ext;
	char buf[400];
	struct {
		struct dlh_desired_entry e;
		const char *origin;
		int err;
		const char *msg; /* dlh_extack_str(): "OBJECT: reason" */
	} cases[] = {
	    {{.device = SW, .has_number = true, .number = 1, .netdev = "eth0", .split = 2},
	     "a",
	     -EINVAL,
	     "a: give device and number, or netdev, not both"},
	    {{.device = SW, .split = 2}, "a", -EINVAL, "a: give device and number, or netdev"},
	    {{.netdev = "eth0"}, "a", -EINVAL, "a: says nothing: give split and/or type"},
	    {{.netdev = "eth0", .split = 65}, "ports[0]", -EINVAL, "ports[0].split: 65: expected 1 (whole) to 64"},
	    {{.device = SW, .has_number = true, .number = 65536, .split = 2},
	     "b",
	     -EINVAL,
	     "b.number: 65536 is not a front-panel port number, 0 to 65535"},
	    {{.netdev = "eth0", .type = (enum dlh_port_type)9}, "a", -EINVAL, "a.type: expected eth, ib or auto"},
	    {{.device = "pci", .has_number = true, .number = 1, .split = 2},
	     "a",
	     -EINVAL,
	     "a.device: \"pci\": expected BUS/DEV, as pci/0000:03:00.0"},
	    {{.device = SW "\n", .has_number = true, .number = 1, .split = 2},
	     "a",
	     -EINVAL,
	     "a.device: \"" SW "?\": expected BUS/DEV, as pci/0000:03:00.0"},
	    {{.netdev = "a/b", .split = 2}, "a", -EINVAL, "a.netdev: \"a/b\" is not a netdev name"},
	    {{.netdev = "eth0", .split = 2}, "", -EINVAL, "An origin is printable and shorter than 64 bytes"},
	    {{.netdev = "eth0", .split = 2}, "two\nlines", -EINVAL, "An origin is printable and shorter than 64 bytes"},
	    {{.netdev = "eth0", .split = 2}, "ports[0]", 0, ""},
	};
	const size_t good = sizeof(cases) / sizeof(cases[0]) - 1;

	cr_assert_eq(dlh_desired_new("t", &d), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&ext, 0, sizeof(ext));
		cr_expect_eq(dlh_desired_entry_add(d, &cases[i].e, cases[i].origin, &ext), cases[i].err, "case %zu", i);
		cr_expect_str_eq(dlh_extack_str(&ext, buf, sizeof(buf)), cases[i].msg, "case %zu", i);
	}
	cr_expect_eq(dlh_desired_count(d), 1, "only the good entry was added");
	cr_expect_eq(dlh_desired_entry_add(d, &cases[good].e, NULL, &ext), -EINVAL);
	for (size_t i = 1; i < DLH_DESIRED_ENTRIES_MAX; i++)
		cr_assert_eq(dlh_desired_entry_add(d, &cases[good].e, "x", &ext), 0);
	cr_expect_eq(dlh_desired_entry_add(d, &cases[good].e, "x", &ext), -ENOSPC);
	cr_expect_str_eq(ext.msg, "more than 1024 entries");
	cr_expect_null(dlh_desired_entry(d, DLH_DESIRED_ENTRIES_MAX));
	cr_expect_str_eq(dlh_desired_name(d), "t");
	dlh_desired_free(d);
	/* no set: nothing to free, name or place */
	dlh_desired_free(NULL);
	cr_expect_str_eq(dlh_desired_name(NULL), "");
	dlh_desired_where(NULL, 0, 5, buf, sizeof(buf));
	cr_expect_str_eq(buf, "");
	cr_expect_eq(dlh_desired_count(NULL), 0);
	cr_expect_null(dlh_desired_entry(NULL, 0));
}

/* @text in a temporary file, read as JSON: 0 or the error, @why the message. */
static int json_of(const char *text, struct dlh_desired **d, char *why, size_t len)
{
	char path[] = "/tmp/test_desired_XXXXXX";
	int fd = mkstemp(path), err;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	err = dlh_desired_load_json(path, d, why, len);
	if (err && !strncmp(why, path, strlen(path))) /* the path is the test's: "FILE" in what is compared */
		memmove(why + 4, why + strlen(path), strlen(why + strlen(path)) + 1), memcpy(why, "FILE", 4);
	unlink(path);
	return err;
}

/*
 * A JSON set (what the Ansible module hands dl): each entry named NAME[I],
 * a refusal naming the field, as a playbook's author reads it.
 */
Test(desired, a_json_set_names_each_entry_and_field_it_refuses)
{
	static const struct {
		const char *entry; /* the one entry of {"ports": [ENTRY]} */
		const char *why;
	} bad[] = {
	    {"{\"device\": \"" SW "\"}", "ports[0]: give device and number, or netdev"},
	    {"{\"netdev\": \"eth0\", \"device\": \"" SW "\", \"number\": 1, \"split\": 2}",
	     "ports[0]: give device and number, or netdev, not both"},
	    {"{\"device\": \"" SW "\", \"number\": 17}", "ports[0]: says nothing: give split and/or type"},
	    {"{\"device\": \"" SW "\", \"number\": -1, \"split\": 2}",
	     "ports[0].number: -1 is not a front-panel port number, 0 to 65535"},
	    {"{\"device\": \"" SW "\", \"number\": 17, \"split\": true}",
	     "ports[0].split: true is a boolean: expected a whole number"},
	    {"{\"device\": \"" SW "\", \"number\": true, \"split\": 2}",
	     "ports[0].number: true is a boolean: expected a whole number"},
	    {"{\"device\": \"" SW "\", \"number\": 17, \"split\": \"two\"}", "ports[0].split: \"two\" is not a number"},
	    {"{\"device\": \"" SW "\", \"number\": 17, \"split\": 1.5}",
	     "ports[0].split: 1.5: expected a whole number"},
	    {"{\"device\": \"" SW "\\n\", \"number\": 17, \"split\": 2}",
	     "ports[0].device: \"" SW "?\": expected BUS/DEV, as pci/0000:03:00.0"},
	    {"{\"netdev\": \"eth0\\n\", \"split\": 2}", "ports[0].netdev: \"eth0?\" is not a netdev name"},
	    {"{\"device\": \"" SW "\", \"number\": 17, \"split\": 65}", "ports[0].split: 65: expected 1 (whole) to 64"},
	    {"{\"device\": \"" SW "\", \"number\": 17, \"split\": 0}", "ports[0].split: 0: expected 1 (whole) to 64"},
	    {"{\"device\": \"pci\", \"number\": 17, \"split\": 2}",
	     "ports[0].device: \"pci\": expected BUS/DEV, as pci/0000:03:00.0"},
	    {"{\"netdev\": \"a/b\", \"split\": 2}", "ports[0].netdev: \"a/b\" is not a netdev name"},
	    {"{\"netdev\": \"a\", \"type\": \"fc\"}", "ports[0].type: expected eth, ib or auto"},
	    {"{\"netdev\": 7, \"type\": \"eth\"}", "ports[0].netdev: expected a string"},
	    {"{\"netdev\": \"abcdefghijklmnop\", \"type\": \"eth\"}",
	     "ports[0].netdev: \"abcdefghijklmnop...\": too long (15 bytes at most)"},
	    {"{\"device\": \"" SW "\", \"nmber\": 17, \"split\": 2}",
	     "ports[0]: unknown field \"nmber\": expected device, number, netdev, split, type"},
	    {"17", "ports[0]: expected an object"},
	};
	static const struct {
		const char *text, *why;
	} bad_sets[] = {
	    {"[]", "FILE: expected one object with one member, {\"NAME\": [entries]}"},
	    {"{\"a\": [], \"b\": []}", "FILE: expected one object with one member, {\"NAME\": [entries]}"},
	    {"{\"ports\": {}}", "FILE: ports: expected an array of entries"},
	    {"{\"a b\": []}", "FILE: \"a b\": expected a name of 1 to 32 letters, digits, '-' or '_'"},
	    {"{\"ports\": [}", "FILE:1:12: unexpected token near '}'"},
	    {"{\"ports\": [], \"ports\": []}", "FILE:1:21: duplicate object key near '\"ports\"'"},
	};
	char text[512], why[512];
	struct dlh_desired *d;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "{\"ports\": [%s]}", bad[i].entry);
		cr_expect_eq(json_of(text, &d, why, sizeof(why)), -EINVAL, "%s", bad[i].entry);
		cr_expect_str_eq(why, bad[i].why, "%s", bad[i].entry);
		cr_expect_null(d);
	}
	for (size_t i = 0; i < sizeof(bad_sets) / sizeof(bad_sets[0]); i++) {
		cr_expect_eq(json_of(bad_sets[i].text, &d, why, sizeof(why)), -EINVAL, "%s", bad_sets[i].text);
		cr_expect_str_eq(why, bad_sets[i].why, "%s", bad_sets[i].text);
	}
	/* a float that is a whole number is one (YAML's 4.0, through Ansible) */
	cr_assert_eq(
	    json_of("{\"ports\": [{\"device\": \"" SW "\", \"number\": 17, \"split\": 4.0}]}", &d, why, sizeof(why)), 0,
	    "%s", why);
	cr_expect_eq(dlh_desired_entry(d, 0)->split, 4);
	dlh_desired_free(d);
	cr_expect_eq(dlh_desired_load_json("/nonexistent/x.json", &d, why, sizeof(why)), -ENOENT);
	cr_expect_str_eq(why, "/nonexistent/x.json: No such file or directory");
	/* the second entry is named by its place; numbers as strings of digits, nulls not said */
	cr_assert_eq(json_of("{\"site\": [{\"device\": \"" SW "\", \"number\": 17, \"split\": 4, \"netdev\": null},"
			     " {\"device\": \"" SW "\", \"number\": \"1\", \"split\": \"2\"}]}",
			     &d, why, sizeof(why)),
		     0, "%s", why);
	cr_expect_str_eq(dlh_desired_name(d), "site");
	cr_assert_eq(dlh_desired_count(d), 2);
	cr_expect_eq(dlh_desired_entry(d, 1)->number, 1);
	cr_expect_eq(dlh_desired_entry(d, 1)->split, 2);
	{
		struct dlh_ctx *ctx = ctx_with("sn2700");
		struct dlh_desired_plan p;

		cr_assert_eq(dlh_desired_plan(d, ctx, &p, NULL), 0);
		cr_expect_eq(p.status, DLH_DESIRED_CONFLICT);
		cr_expect_str_eq(p.why, "site[1] conflicts with site[0]: split " SW
					" port 17 into 4 (site[0]) would remove " SW "/3, port 1");
		dlh_desired_plan_free(&p);
		dlh_ctx_free(ctx);
	}
	dlh_desired_free(d);
}

/* One port as a line: "HANDLE lanes N group G" (group only when split). */
static void port_line(void *arg, const struct dlh_port *port)
{
	char *buf = arg;
	size_t n = strlen(buf);

	snprintf(buf + n, 2048 - n, "%s lanes %u%s%.0u%s\n", dlh_port_handle(port), dlh_port_lanes(port),
		 dlh_port_is_split(port) ? " group " : "", dlh_port_is_split(port) ? dlh_port_split_group(port) : 0,
		 dlh_port_is_split(port) && !dlh_port_split_group(port) ? "0" : "");
}

/* What a dry run predicts: the ports of the devices the steps act on, as the steps leave them. */
Test(desired, the_ports_a_plan_leaves_are_walked_before_anything_changes)
{
	struct dlh_ctx *ctx = ctx_with("sn2700,cx3-vpi");
	struct dlh_desired *d = set_of((const char *const[]){"17:4", "18:2", NULL});
	struct dlh_desired_plan p;
	char lines[2048] = "", *head;

	cr_assert_eq(dlh_desired_plan_ports(d, ctx, &p, NULL, port_line, lines), 0);
	cr_expect_eq(p.status, DLH_DESIRED_OK, "%s", p.why);
	head = SW "/1 lanes 1 group 16\n" SW "/2 lanes 1 group 16\n" SW "/3 lanes 1 group 16\n" SW
		  "/4 lanes 1 group 16\n" SW "/5 lanes 2 group 17\n" SW "/6 lanes 2 group 17\n" SW "/7 lanes 4\n";
	cr_expect_eq(strncmp(lines, head, strlen(head)), 0, "%s", lines);
	cr_expect_null(strstr(lines, "pci/0000:01:00.0"), "the ConnectX-3 has no step: not walked");
	cr_expect_eq(split_of(ctx, SW "/1"), 0, "nothing changed");
	dlh_desired_plan_free(&p);
	/* a refusal walks nothing */
	dlh_desired_free(d);
	d = set_of((const char *const[]){"17:3", NULL});
	lines[0] = '\0';
	cr_assert_eq(dlh_desired_plan_ports(d, ctx, &p, NULL, port_line, lines), 0);
	cr_expect_eq(p.status, DLH_DESIRED_REFUSED);
	dlh_desired_plan_free(&p);
	dlh_desired_free(d);
	dlh_ctx_free(ctx);
}

/* A file's entries are named FILE:LINE, the line of the key that asks. */
Test(desired, a_files_entries_are_named_by_file_and_line)
{
	char path[] = "/tmp/test_desired_XXXXXX", why[1024], want[1200], what[512];
	const char text[] = "# switch\n[Match]\nDevice=" SW "\nNumber=17\n[Port]\nSplit=2\n";
	struct dlh_ctx *ctx = ctx_with("sn2700");
	struct dlh_desired_plan p;
	struct dlh_desired *d;
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	cr_assert_eq(dlh_desired_load(path, &d, why, sizeof(why)), 0, "%s", why);
	cr_expect_str_eq(dlh_desired_name(d), path);
	cr_assert_eq(dlh_desired_count(d), 1);
	cr_expect_eq(dlh_desired_entry(d, 0)->match_line, 3, "its first key's line");
	cr_expect_eq(dlh_desired_entry(d, 0)->split_line, 6);
	cr_assert_eq(dlh_desired_plan(d, ctx, &p, NULL), 0);
	dlh_desired_step_describe(d, &p.steps[0], what, sizeof(what));
	snprintf(want, sizeof(want), "split " SW " port 17 into 2 (%s:6)", path);
	cr_expect_str_eq(what, want);
	dlh_desired_plan_free(&p);
	dlh_desired_free(d);
	/* errors: the first, with its line; a missing file with errno's word */
	fd = open(path, O_WRONLY | O_TRUNC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "[Match]\nNumber=x\n", 17), 17);
	close(fd);
	cr_expect_eq(dlh_desired_load(path, &d, why, sizeof(why)), -EINVAL);
	cr_expect_null(d);
	snprintf(want, sizeof(want), "%s:2: Number=x: expected one front-panel port number, 0 to 65535", path);
	cr_expect_str_eq(why, want);
	unlink(path);
	cr_expect_eq(dlh_desired_load(path, &d, why, sizeof(why)), -ENOENT);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	cr_expect_str_eq(why, want);
	dlh_ctx_free(ctx);
}

/* A change by port index, as a peer asks for one (dlhald's dry runs): planned on the sequence's view. */
Test(desired, a_change_by_index_plans_on_the_ports_the_changes_before_leave)
{
	struct dlh_ctx *ctx = ctx_with("sn2700");
	struct dlh_dev *dev = dlh_dev_find(ctx, SW);
	struct dlh_extack ext;
	struct dlh_plan plan;
	struct dlh_seq *seq;

	cr_assert_eq(dlh_seq_new(ctx, &seq), 0);
	/* port 17 (local port 1) by 4 takes local port 3 (port 1) */
	cr_expect_eq(dlh_seq_change(seq, dev, &(struct dlh_change_req){DLH_CHANGE_SPLIT, 1, 4, 0}, &plan, &ext), 0,
		     "%s", ext.msg);
	cr_expect_eq(plan.ngone, 2);
	/* local port 3 is whole port 1 on the device, and the split's third port in the view */
	cr_expect_eq(dlh_seq_change(seq, dev, &(struct dlh_change_req){DLH_CHANGE_SPLIT, 3, 2, 0}, &plan, &ext),
		     -EINVAL);
	cr_expect_str_eq(ext.msg, "Port cannot be split further");
	cr_expect_eq(dlh_seq_change(seq, dev, &(struct dlh_change_req){DLH_CHANGE_UNSPLIT, 3, 0, 0}, &plan, &ext), 0,
		     "%s", ext.msg);
	cr_expect_eq(
	    dlh_seq_change(seq, dev, &(struct dlh_change_req){DLH_CHANGE_TYPE, 200, 0, DLH_PORT_TYPE_IB}, &plan, &ext),
	    -ENODEV);
	cr_expect_str_eq(ext.msg, "Port 200 would not exist");
	cr_expect_eq(dlh_seq_change(seq, dev, &(struct dlh_change_req){(enum dlh_change)7, 1, 0, 0}, &plan, &ext),
		     -EINVAL);
	cr_expect_str_eq(ext.msg, "Unknown change 7");
	cr_expect_eq(split_of(ctx, SW "/1"), 0, "planning changes nothing");
	dlh_seq_free(seq);
	dlh_ctx_free(ctx);
}

/* A writer that spells what it is given: "{", "}", "[", "]", "key=value", comma-separated. */
struct spell {
	char buf[4096];
};

static void sp_add(void *a, const char *key, const char *val)
{
	struct spell *s = a;
	size_t n = strlen(s->buf);

	snprintf(s->buf + n, sizeof(s->buf) - n, "%s%s%s%s", n ? "," : "", key ? key : "", key ? "=" : "", val);
}

static void sp_obj_open(void *a, const char *key)
{
	sp_add(a, key, "{");
}

static void sp_obj_close(void *a)
{
	sp_add(a, NULL, "}");
}

static void sp_arr_open(void *a, const char *key)
{
	sp_add(a, key, "[");
}

static void sp_arr_close(void *a)
{
	sp_add(a, NULL, "]");
}

static void sp_str(void *a, const char *key, const char *val)
{
	sp_add(a, key, val);
}

static void sp_uint(void *a, const char *key, uint64_t val)
{
	char v[24];

	snprintf(v, sizeof(v), "%llu", (unsigned long long)val);
	sp_add(a, key, v);
}

static void sp_bool(void *a, const char *key, bool val)
{
	sp_add(a, key, val ? "true" : "false");
}

/* The report of a run is the library's: each step and the outcome, through any writer. */
Test(desired, a_plans_steps_and_outcome_are_written_through_the_callers_writer)
{
	struct dlh_ctx *ctx = ctx_with("sn2700");
	struct dlh_desired *d = set_of((const char *const[]){"17:2", "1:4", NULL});
	struct dlh_desired_plan p;
	struct spell s = {""};
	const struct dlh_writer w = {sp_obj_open, sp_obj_close, sp_arr_open, sp_arr_close,
				     sp_str,	  sp_uint,	sp_bool,     &s};
	struct dlh_desired_outcome o = {.result = "conflict"};

	cr_assert_eq(dlh_desired_plan(d, ctx, &p, NULL), 0);
	cr_assert_eq(p.status, DLH_DESIRED_CONFLICT, "%s", p.why);
	cr_assert_geq(p.nsteps, 1);
	dlh_desired_step_write(d, &p.steps[0], true, &w);
	cr_expect_str_eq(s.buf,
			 "{,change=split,device=" SW ",number=17,count=2,line=0,entry=0,staged=false,partial=false,"
			 "result=would,plans=[,{,partial=false,del=[," SW "/1,],new=[,{,port=" SW "/1,type=eth,"
			 "netdev=eth0,lanes=2,split=true,split_group=16,subport=0,},{,port=" SW "/2,type=eth,"
			 "netdev=eth32,lanes=2,split=true,split_group=16,subport=1,},],},],}");
	s.buf[0] = '\0';
	o.failed = &p;
	o.error = p.why;
	dlh_desired_outcome_write(d, &o, &w);
	cr_expect_eq(
	    strncmp(s.buf,
		    "result=conflict,changed=false,partial=false,pending=0,reloaded=0,unmet=[,],deferred=[,],"
		    "conflict={,entries=[,1,0,],lines=[,0,0,],},error=ports[1] conflicts with ports[0]: ",
		    strlen("result=conflict,changed=false,partial=false,pending=0,reloaded=0,unmet=[,],deferred=[,],"
			   "conflict={,entries=[,1,0,],lines=[,0,0,],},error=ports[1] conflicts with ports[0]: ")),
	    0, "%s", s.buf);
	/* a set that could not be read: the outcome alone */
	s.buf[0] = '\0';
	dlh_desired_outcome_write(NULL, &(struct dlh_desired_outcome){.result = "error", .error = "x: bad"}, &w);
	cr_expect_str_eq(s.buf, "result=error,changed=false,partial=false,pending=0,reloaded=0,unmet=[,],deferred=[,],"
				"error=x: bad");
	dlh_desired_plan_free(&p);
	dlh_desired_free(d);
	dlh_ctx_free(ctx);
}

/* One port named two ways (its device and number, the netdev it gets as Ethernet): a conflict before anything runs. */
Test(desired, one_port_named_by_number_and_by_the_netdev_a_change_gives_it_conflicts)
{
	static const char *const orders[2][2] = {{"num", "netdev"}, {"netdev", "num"}};

	for (int o = 0; o < 2; o++) {
		struct dlh_ctx *ctx = ctx_with("cx3-vpi");
		struct dlh_desired *d;
		struct dlh_desired_plan p;
		struct dlh_extack ext;
		char *before = model_dump(ctx), *after, want[256];

		cr_assert_eq(dlh_desired_new("ports", &d), 0);
		for (int k = 0; k < 2; k++) {
			struct dlh_desired_entry e = {0};
			char origin[32];

			if (!strcmp(orders[o][k], "num")) {
				snprintf(e.device, sizeof(e.device), "pci/0000:01:00.0");
				e.number = 1;
				e.has_number = true;
				e.type = DLH_PORT_TYPE_ETH;
			} else {
				snprintf(e.netdev, sizeof(e.netdev), "ens4");
				e.type = DLH_PORT_TYPE_IB;
			}
			snprintf(origin, sizeof(origin), "ports[%d]", k);
			cr_assert_eq(dlh_desired_entry_add(d, &e, origin, &ext), 0, "%s", ext.msg);
		}
		cr_assert_eq(dlh_desired_plan(d, ctx, &p, NULL), 0);
		cr_expect_eq(p.status, DLH_DESIRED_CONFLICT, "order %d: %s", o, p.why);
		snprintf(want, sizeof(want),
			 "ports[1] conflicts with ports[0]: both name pci/0000:01:00.0 port 1, netdev ens4");
		cr_expect_str_eq(p.why, want);
		after = model_dump(ctx);
		cr_expect_str_eq(after, before, "nothing ran");
		free(before);
		free(after);
		dlh_desired_plan_free(&p);
		dlh_desired_free(d);
		dlh_ctx_free(ctx);
	}
}

/* Two entries asking one port for different types: named as both naming it, not as one removing it. */
Test(desired, two_entries_asking_one_port_different_things_both_name_it)
{
	struct dlh_ctx *ctx = ctx_with("sn2700");
	struct dlh_desired *d = set_of((const char *const[]){"17:2", "17:4", NULL});
	struct dlh_desired_plan p;

	cr_assert_eq(dlh_desired_plan(d, ctx, &p, NULL), 0);
	cr_expect_eq(p.status, DLH_DESIRED_CONFLICT);
	cr_expect_str_eq(p.why, "ports[1] conflicts with ports[0]: both name " SW " port 17");
	dlh_desired_plan_free(&p);
	dlh_desired_free(d);
	dlh_ctx_free(ctx);
}
