/* SPDX-License-Identifier: MIT */
/* dl, run as a program: seed outputs, JSON, usage errors, batch mode. */
#include "helpers.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SW "pci/0000:03:00.0"

/* The seed's walkthroughs (seed 001), with its "..." written out. */
static const char seed_cx3_batch[] = "dev show\n"
				     "port show\n"
				     "port set pci/0000:01:00.0/1 type eth\n"
				     "port show\n"
				     "port set ens4 type auto\n"
				     "port show\n";
static const char seed_cx3_out[] = "pci/0000:01:00.0\n"
				   "pci/0000:01:00.0/1: type ib ibdev mlx4_0\n"
				   "pci/0000:01:00.0/2: type ib ibdev mlx4_0\n"
				   "pci/0000:01:00.0/1: type eth netdev ens4\n"
				   "pci/0000:01:00.0/2: type ib ibdev mlx4_0\n"
				   "pci/0000:01:00.0/1: type eth(auto) netdev ens4\n"
				   "pci/0000:01:00.0/2: type ib ibdev mlx4_0\n";

static void sw_ports(char *buf, int from_lp, int to_lp)
{
	for (int lp = from_lp; lp <= to_lp; lp += 2)
		sprintf(buf + strlen(buf), SW "/%d: type eth netdev eth%d\n", lp, (lp - 1) / 2);
}

static char *seed_sw_out(void)
{
	static char buf[8192];

	buf[0] = '\0';
	sw_ports(buf, 1, 63);
	sw_ports(buf, 3, 63);
	strcat(buf, SW "/1: type eth netdev eth0 split_group 16\n" SW "/2: type eth netdev eth32 split_group 16\n");
	sw_ports(buf, 3, 63);
	strcat(buf, SW "/1: type eth netdev eth0\n");
	return buf;
}

static const char seed_sw_batch[] = "port\nport split " SW "/1 2\nport\nport unsplit " SW "/1\nport\n";

Test(golden, seed_port_type_walkthrough)
{
	struct run_result r;

	run_dl(&r, "--sim cx3-vpi -b -", seed_cx3_batch);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, seed_cx3_out);
	cr_expect_str_eq(r.err, "");
	run_free(&r);
}

Test(golden, seed_split_walkthrough)
{
	struct run_result r;

	run_dl(&r, "--sim sn2700 -b -", seed_sw_batch);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, seed_sw_out());
	run_free(&r);
	/* The seed's other spelling: the netdev name, and iproute2's "count". */
	run_dl(&r, "--sim sn2700 -b -", "port\nport split eth0 count 2\nport\nport unsplit eth32\nport\n");
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, seed_sw_out());
	run_free(&r);
}

Test(golden, the_tour_runs)
{
	char path[512];
	const char *argv[8];
	struct run_result r;

	snprintf(path, sizeof(path), "%s/tools/dl/tour.dl", getenv("SRCDIR"));
	argv[0] = dl_path();
	argv[1] = "-v";
	argv[2] = "--sim";
	argv[3] = "cx3-vpi,sn2700";
	argv[4] = "-b";
	argv[5] = path;
	argv[6] = NULL;
	run_argv(&r, argv, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_not_null(strstr(r.out, "$ dl port set ens4 type auto\n"));
	cr_expect_not_null(strstr(r.out, "pci/0000:01:00.0/1: type eth(auto) netdev ens4\n"));
	cr_expect_not_null(strstr(r.out, SW "/2: type eth netdev eth32 split_group 16\n"));
	run_free(&r);
}

Test(help, seed_usage_texts)
{
	struct run_result r;

	run_dl(&r, "help", NULL);
	cr_expect_eq(r.status, 0);
	{
		/* the seed's form, listing every object and option as iproute2's devlink grew to */
		static const char seed[] =
		    "Usage: dl [ OPTIONS ] OBJECT { COMMAND | help }\n"
		    "       dl [ OPTIONS ] -b/--batch FILE\n"
		    "where  OBJECT := { dev | port | monitor | sim | apply | panel }\n"
		    "       OPTIONS := { -v/--verbose | -d/--details | -j/--json | -p/--pretty |\n";

		cr_expect_eq(strncmp(r.out, seed, strlen(seed)), 0, "%s", r.out);
	}
	cr_expect_not_null(strstr(r.out, "--sim PROFILE"), "extended with dlhal's options");
	cr_expect_not_null(
	    strstr(r.out,
		   "Built-in profiles for --sim: sn2700, cx3-vpi, e810-cqda2, sn3700, sn4700, sn5600, cx6-vpi\n"),
	    "%s", r.out);
	run_free(&r);
	/* --help anywhere after an object: that object's usage, exit 0 */
	run_dl(&r, "apply --help", NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_eq(strncmp(r.out, "Usage: dl apply FILE", 20), 0, "%s", r.out);
	run_free(&r);
	run_dl(&r, "port split --help", NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_eq(strncmp(r.out, "Usage: dl port show", 19), 0, "%s", r.out);
	run_free(&r);
	run_dl(&r, "--sim sn2700 panel pci/0000:03:00.0 --ascii --help", NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_eq(strncmp(r.out, "Usage: dl panel", 15), 0, "%s", r.out);
	run_free(&r);
	run_dl(&r, "dev help", NULL);
	cr_expect_eq(strncmp(r.out, "Usage: dl dev show [DEV]\n", strlen("Usage: dl dev show [DEV]\n")), 0,
		     "the seed's line first: %s", r.out);
	cr_expect_not_null(strstr(r.out, "Usage: dl dev reload DEV [ action { driver_reinit | fw_activate } ]"),
			   "then iproute2 6.1's reload: %s", r.out);
	run_free(&r);
	run_dl(&r, "port help", NULL);
	cr_expect_eq(strncmp(r.out,
			     "Usage: dl port show [DEV/PORT_INDEX]\n"
			     "Usage: dl port set DEV/PORT_INDEX [ type { eth | ib | auto} ]\n"
			     "Usage: dl port split DEV/PORT_INDEX count\n"
			     "Usage: dl port unsplit DEV/PORT_INDEX\n",
			     strlen("Usage: dl port show [DEV/PORT_INDEX]\n"
				    "Usage: dl port set DEV/PORT_INDEX [ type { eth | ib | auto} ]\n"
				    "Usage: dl port split DEV/PORT_INDEX count\n"
				    "Usage: dl port unsplit DEV/PORT_INDEX\n")),
		     0, "%s", r.out);
	run_free(&r);
	run_dl(&r, "-V", NULL);
	cr_expect_str_eq(r.out, "dl utility, dlhal-" DLH_VERSION "\n");
	run_free(&r);
	run_dl(&r, "", NULL);
	cr_expect_eq(r.status, 2, "no object");
	cr_expect_not_null(strstr(r.err, "Usage: dl"));
	run_free(&r);
}

/* dl(8) says what the usage says: every object, every long option, every built-in profile. */
Test(help, the_man_page_lists_what_the_usage_lists)
{
	char path[512], *man = NULL, *p, word[128];
	size_t len = 0;
	struct run_result r;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tools/dl/dl.8", getenv("SRCDIR"));
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	cr_assert_gt(getdelim(&man, &len, '\0', f), 0);
	fclose(f);
	run_dl(&r, "help", NULL);
	/* the objects: each in the man page's OBJECT line */
	p = strstr(r.out, "OBJECT := {");
	cr_assert_not_null(p);
	for (p += 11; sscanf(p, " %127[a-z]", word) == 1 && *word;
	     p = strchr(p + 1, '|') ? strchr(p + 1, '|') + 1 : "") {
		char want[160];

		snprintf(want, sizeof(want), " \" %s \"", word);
		cr_expect_not_null(strstr(strstr(man, ".IR OBJECT \" := {"), want), "dl.8's OBJECT lacks %s", word);
	}
	/* the long options, as \-\-NAME */
	for (p = strstr(r.out, "OPTIONS := {"); p && (p = strstr(p, "--")) && p < strstr(r.out, " }\n  -");) {
		char want[160];

		sscanf(p + 2, "%127[a-z]", word);
		snprintf(want, sizeof(want), "\\-\\-%s", word);
		cr_expect_not_null(strstr(man, want), "dl.8 does not describe --%s", word);
		p += 2;
	}
	/* the built-in profiles, '-' escaped */
	p = strstr(r.out, "Built-in profiles for --sim: ");
	cr_assert_not_null(p);
	for (p += 29; sscanf(p, "%127[a-z0-9-]", word) == 1; p += strlen(word) + (p[strlen(word)] == ',' ? 2 : 0)) {
		char want[160], *q = want;

		for (const char *c = word; *c && q < want + sizeof(want) - 3; c++) {
			if (*c == '-')
				*q++ = '\\';
			*q++ = *c;
		}
		*q = '\0';
		cr_expect_not_null(strstr(man, want), "dl.8 does not name the profile %s", word);
		if (p[strlen(word)] != ',')
			break;
	}
	run_free(&r);
	free(man);
}

Test(prefix, objects_and_commands)
{
	struct run_result r;

	run_dl(&r, "--sim sn2700 -b -", "p sp eth0 2\np s eth32\nd s\nport u eth0\np s " SW "/2\n");
	cr_expect_eq(r.status, 2, "the last show names a port that unsplit removed");
	cr_expect_str_eq(r.out, SW "/2: type eth netdev eth32 split_group 16\n" SW "\n");
	cr_expect_not_null(strstr(r.err, SW "/2: Port does not exist"), "%s", r.err);
	cr_expect_not_null(strstr(r.err, "Command failed stdin:5"), "%s", r.err);
	run_free(&r);
}

/* ---- JSON carries the same facts as text ----------------------------------------------------- */

/* Parses "H: type T[(D)] k v k v" into a JSON object keyed like iproute2. */
static json_t *text_port(const char *line, char *handle)
{
	json_t *o = json_object();
	char *copy = strdup(line), *save = NULL, *colon = strstr(copy, ": ");
	char *k, *v;

	cr_assert_not_null(colon, "%s", line);
	*colon = '\0';
	strcpy(handle, copy);
	for (k = strtok_r(colon + 2, " ", &save); k; k = strtok_r(NULL, " ", &save)) {
		char *paren;

		v = strtok_r(NULL, " ", &save);
		cr_assert_not_null(v, "%s", line);
		if (!strcmp(k, "type") && (paren = strchr(v, '('))) {
			*paren = '\0';
			paren[strlen(paren + 1)] = '\0';
			json_object_set_new(o, "des_type", json_string(paren + 1));
		}
		if (!strcmp(v, "true") || !strcmp(v, "false"))
			json_object_set_new(o, k, json_boolean(!strcmp(v, "true")));
		else if (strspn(v, "0123456789") == strlen(v))
			json_object_set_new(o, k, json_integer(atoll(v)));
		else
			json_object_set_new(o, k, json_string(v));
	}
	free(copy);
	return o;
}

static void compare_json_text(const char *opts, const char *profile, const char *batch)
{
	char args[256], *text, *save = NULL;
	struct run_result t, j;
	json_error_t jerr;
	size_t off = 0;

	/* Text with -d has every fact; JSON has iproute2's keys, and dlhal's under "dlhal" with -d. */
	bool details = strstr(opts, "-d") != NULL;

	snprintf(args, sizeof(args), "-d %s --sim %s -b -", opts, profile);
	run_dl(&t, args, batch);
	snprintf(args, sizeof(args), "-j %s --sim %s -b -", opts, profile);
	run_dl(&j, args, batch);
	cr_assert_eq(t.status, 0, "%s", t.err);
	cr_assert_eq(j.status, 0, "%s", j.err);
	text = strdup(t.out);
	/* One JSON document per show command, in order; text lines follow the same order. */
	char *line = strtok_r(text, "\n", &save);
	while (off < strlen(j.out)) {
		json_t *doc = json_loadb(j.out + off, strlen(j.out) - off, JSON_DISABLE_EOF_CHECK, &jerr);
		const char *key;
		json_t *ports;

		cr_assert_not_null(doc, "JSON: %s in %s", jerr.text, j.out + off);
		off += jerr.position;
		while (j.out[off] == '\n')
			off++;
		ports = json_object_get(doc, "port");
		cr_assert(json_is_object(ports), "iproute2 layout {\"port\": {...}}");
		json_object_foreach(ports, key, (json_t *){0})
		{
			char handle[128];
			json_t *want;

			json_t *got = json_deep_copy(json_object_get(ports, key)),
			       *extra = json_object_get(got, "dlhal");

			cr_assert_not_null(line, "more JSON ports than text lines");
			want = text_port(line, handle);
			cr_assert_str_eq(key, handle, "same order");
			/* text "split_counts 2,4" (or "2", or "none") is JSON's [2, 4] (or [2], or []) */
			if (json_is_integer(json_object_get(want, "split_counts")))
				json_object_set_new(
				    want, "split_counts",
				    json_pack("[I]", json_integer_value(json_object_get(want, "split_counts"))));
			if (json_is_string(json_object_get(want, "split_counts"))) {
				char *counts = strdup(json_string_value(json_object_get(want, "split_counts"))),
				     *s2 = NULL;
				json_t *a = json_array();

				for (char *c = strtok_r(counts, ",", &s2); c; c = strtok_r(NULL, ",", &s2))
					if (strcmp(c, "none"))
						json_array_append_new(a, json_integer(atoi(c)));
				json_object_set_new(want, "split_counts", a);
				free(counts);
			}
			cr_assert(details || !extra, "%s: \"dlhal\" only with -d", key);
			if (extra) {
				json_object_update(got, extra);
				json_object_del(got, "dlhal");
			}
			if (!details)
				for (const char *const *k = (const char *const[]){"split_subport", "speed", "module",
										  "lane", "split_counts", NULL};
				     *k; k++)
					json_object_del(want, *k);
			cr_assert(json_equal(got, want), "%s: json %s vs text %s", key, json_dumps(got, JSON_COMPACT),
				  json_dumps(want, JSON_COMPACT));
			json_decref(want);
			json_decref(got);
			line = strtok_r(NULL, "\n", &save);
		}
		json_decref(doc);
	}
	cr_assert_null(line, "text lines left over: %s", line);
	free(text);
	run_free(&t);
	run_free(&j);
}

Test(json, same_facts_as_text_in_every_scenario)
{
	static const char sw[] = "port\nport split eth0 2\nport\nport split eth2 4\nport\nport unsplit eth0\nport\n"
				 "port unsplit " SW "/8\nport\nport show eth3\n";
	static const char cx3[] = "port\nport set pci/0000:01:00.0/2 type eth\nport show ens4d1\n"
				  "port set pci/0000:01:00.0/1 type eth\nport\nport set ens4 type auto\nport\n";

	compare_json_text("", "sn2700", sw);
	compare_json_text("-d", "sn2700", sw);
	compare_json_text("-p", "sn2700", sw);
	compare_json_text("-p -d", "sn2700", sw);
	compare_json_text("", "cx3-vpi", cx3);
	compare_json_text("-d", "cx3-vpi", cx3);
	compare_json_text("-p", "cx3-vpi,sn2700", "port\n");
}

Test(json, layout_and_keys)
{
	struct run_result r;

	/* iproute2 6.1's keys, in its order, without -d */
	run_dl(&r, "-j --sim cx3-vpi -b -", "port set pci/0000:01:00.0/1 type auto\nport show ens4\ndev\n");
	cr_expect_str_eq(r.out, "{\"port\":{\"pci/0000:01:00.0/1\":{\"type\":\"eth\",\"des_type\":\"auto\","
				"\"netdev\":\"ens4\",\"flavour\":\"physical\",\"port\":1,\"splittable\":false}}}\n"
				"{\"dev\":{\"pci/0000:01:00.0\":{}}}\n");
	run_free(&r);
	run_dl(&r, "-j --sim sn2700 -b -", "port split eth0 2\nport show eth32\n");
	cr_expect_str_eq(r.out, "{\"port\":{\"" SW "/2\":{\"type\":\"eth\",\"netdev\":\"eth32\",\"flavour\":"
				"\"physical\",\"port\":17,\"split_group\":16,\"splittable\":false,\"lanes\":2}}}\n");
	run_free(&r);
	/* -d: dlhal's own facts under "dlhal", nowhere else */
	run_dl(&r, "-j -d --sim sn2700 port show eth0", NULL);
	cr_expect_str_eq(r.out, "{\"port\":{\"" SW "/1\":{\"type\":\"eth\",\"netdev\":\"eth0\",\"flavour\":"
				"\"physical\",\"port\":17,\"splittable\":true,\"lanes\":4,\"dlhal\":{\"speed\":100000,"
				"\"module\":16,\"lane\":0,\"split_counts\":[2,4]}}}}\n");
	run_free(&r);
	run_dl(&r, "-jp --sim sn2700 dev", NULL);
	cr_expect_str_eq(r.out, "{\n    \"dev\": {\n        \"" SW "\": {}\n    }\n}\n");
	run_free(&r);
	run_dl(&r, "-j -d --sim sn2700 dev", NULL);
	cr_expect_str_eq(r.out, "{\"dev\":{\"" SW "\":{\"dlhal\":{\"driver\":\"mlxsw\"}}}}\n");
	run_free(&r);
}

/* Every command honours -j: the emulator's values too. */
Test(json, sim_show)
{
	struct run_result r;
	json_t *doc, *pmlp;

	run_dl(&r, "-j --sim sn2700,cx3-vpi -b -",
	       "sim show " SW " pmlp\nsim show pci/0000:01:00.0/2 cable\nsim show pci/0000:01:00.0 state\n");
	cr_expect_eq(r.status, 0, "%s", r.err);
	doc = json_loadb(r.out, strlen(r.out), JSON_DISABLE_EOF_CHECK, NULL);
	pmlp = json_object_get(json_object_get(json_object_get(doc, "sim"), SW), "pmlp");
	cr_expect(json_is_string(pmlp) && !strncmp(json_string_value(pmlp), "1:4:16:0:e 3:4:0:0:e", 20), "%s", r.out);
	cr_expect_not_null(strstr(r.out, "\n{\"sim\":{\"pci/0000:01:00.0/2\":{\"cable\":\"ib\"}}}\n"
					 "{\"sim\":{\"pci/0000:01:00.0\":{\"state\":{\"types\":[\"ib\",\"ib\"],"
					 "\"cables\":[\"eth\",\"ib\"]}}}}\n"),
			   "%s", r.out);
	json_decref(doc);
	run_free(&r);
	run_dl(&r, "-j --sim sn2700 sim show " SW " accesses", NULL);
	cr_expect_eq(r.status, 0);
	cr_expect(r.out[0] == '{' && strstr(r.out, "\"accesses\":") && !strstr(r.out, "\"accesses\":\""), "%s", r.out);
	run_free(&r);
}

/* What iproute2 prints after the names of ConnectX-3 port 2. */
#define P2 "\"flavour\":\"physical\",\"port\":2,\"splittable\":false"

/* -d: the counts a port takes now; a neighbour in the way takes a count out. */
Test(details, split_counts_valid_now)
{
	struct run_result r;

	run_dl(&r, "-d --sim sn2700 -b -", "port show eth1\nport split eth0 2\nport show eth1\nport show eth32\n");
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(
	    r.out, SW "/3: type eth netdev eth1 flavour physical port 1 splittable true lanes 4 speed 100000 module 0 "
		      "lane 0 split_counts 2,4\n" SW "/3: type eth netdev eth1 flavour physical port 1 splittable true "
		      "lanes 4 speed 100000 module 0 lane 0 split_counts 2\n" SW
		      "/2: type eth netdev eth32 flavour physical port 17 split_group 16 split_subport 1 splittable "
		      "false lanes 2 speed 50000 module 16 lane 2\n");
	run_free(&r);
	run_dl(&r, "-d -j --sim sn2700 -b -", "port split eth0 2\nport show eth1\n");
	cr_expect_not_null(strstr(r.out, "\"split_counts\":[2]"), "%s", r.out);
	run_free(&r);
}

Test(details, iproute2_order_and_words)
{
	struct run_result r;

	run_dl(&r, "-d --sim sn2700 -b -", "port split eth0 2\nport show eth32\n");
	cr_expect_str_eq(r.out, SW "/2: type eth netdev eth32 flavour physical port 17 split_group 16 split_subport 1 "
				   "splittable false lanes 2 speed 50000 module 16 lane 2\n");
	run_free(&r);
}

/* ---- bad input: message, exit code, state unchanged ------------------------------------------ */

struct bad {
	const char *cmd;
	int status;
	const char *err;
};

Test(bad_input, each_class_is_named_and_changes_nothing)
{
	static const struct bad cases[] = {
	    {"frob", 2, "Object \"frob\" not found"},
	    {"port frob", 2, "Command \"frob\" not found"},
	    {"dev frob", 2, "Command \"frob\" not found"},
	    {"port set eth0 tpye eth", 2, "unknown option \"tpye\""},
	    {"port set eth0", 2, "nothing to set"},
	    {"port set eth0 type", 2, "type expects eth, ib or auto"},
	    {"port set eth0 type fc", 2, "Unknown port type \"fc\""},
	    {"port set eth0 type notset", 2, "Unknown port type \"notset\""},
	    {"port split eth0", 2, "count expected"},
	    {"port split", 2, "DEV/PORT_INDEX expected"},
	    {"port split eth0 two", 2, "Split count \"two\" is not a number"},
	    {"port split eth0 count", 2, "count expected"},
	    {"port split eth0 -2", 2, "is not a number"},
	    {"port split eth0 1", 2, "out of range"},
	    {"port split eth0 0", 2, "out of range"},
	    {"port split eth0 99999999999", 2, "out of range"},
	    {"port split eth0 2 extra", 2, "Unexpected argument \"extra\""},
	    {"port split pci/ 2", 2, "is not of the form bus/dev/index"},
	    {"port split pci/0000:03:00.0/x 2", 2, "Port index \"x\" is not a number"},
	    {"port split /1 2", 2, "is not of the form bus/dev/index"},
	    {"port split pci/0000:03:00.0/2 2", 2, "pci/0000:03:00.0/2: Port does not exist"},
	    {"port split pci/0000:09:00.0/1 2", 2, "pci/0000:09:00.0: Device does not exist"},
	    {"port split eth99 2", 2, "eth99: No port has this netdev"},
	    {"port show eth99", 2, "No port has this netdev"},
	    {"port unsplit eth77 x", 2, "No port has this netdev"},
	    {"port show averyveryverylongname", 2, "neither DEV/PORT_INDEX nor a netdev name"},
	    {"dev show pci/0000:03:00.1", 2, "Device does not exist"},
	    {"dev show pci", 2, "not of the form bus/dev"},
	    {"port split eth0 3", 1,
	     "Error: " SW "/1: Port can only be split into 2 or 4 ports.\ndl answers: Invalid argument"},
	    {"port split eth0 8", 1, "Port can only be split into 2 or 4 ports."},
	    {"port unsplit eth0", 1, "Error: " SW "/1: Port wasn't split.\ndl answers: Invalid argument"},
	    {"port set eth0 type ib", 1, "Port type setting is not supported.\ndl answers: Operation not supported"},
	    {"monitor bogus", 2, "Unknown monitor object \"bogus\""},
	    {"monitor port pci/0000:03:00.0 extra", 2, "Unexpected argument \"extra\""},
	    {"monitor port extra", 2, "Device handle \"extra\" is not BUS/NAME"},
	    {"monitor pci/", 2, "Device handle \"pci/\" is not BUS/NAME"},
	    {"monitor dev a/b/c", 2, "Device handle \"a/b/c\" is not BUS/NAME"},
	};
	struct run_result before, r;
	char input[512];

	run_dl(&before, "--sim sn2700 port", NULL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char args[600];

		/* Alone: exit code and message. */
		snprintf(args, sizeof(args), "--sim sn2700 %s", cases[i].cmd);
		run_dl(&r, args, NULL);
		cr_expect_eq(r.status, cases[i].status, "%s: exit %d: %s", cases[i].cmd, r.status, r.err);
		cr_expect_not_null(strstr(r.err, cases[i].err), "%s: stderr \"%s\"", cases[i].cmd, r.err);
		cr_expect_str_eq(r.out, "", "%s", cases[i].cmd);
		run_free(&r);
		/* In a batch, followed by a listing: nothing changed. */
		snprintf(input, sizeof(input), "%s\nport\n", cases[i].cmd);
		run_dl(&r, "-f --sim sn2700 -b -", input);
		cr_expect_str_eq(r.out, before.out, "%s changed state", cases[i].cmd);
		run_free(&r);
	}
	run_free(&before);
}

static char *conf_tmp(const char *text);

/* What a first hour of real use found: each answered as the user means it, or refused naming the part. */
Test(bad_input, first_hour_misuse)
{
	struct run_result r;
	char *conf;
	char cmd[512];

	/* a batch file an editor began with a byte order mark */
	run_dl(&r, "--sim sn2700 -b -", "\xef\xbb\xbfport show pci/0000:03:00.0/1\n");
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, SW "/1: type eth netdev eth0\n");
	run_free(&r);
	/* a port handle with a trailing slash is a port handle with one part too many, not a device's */
	run_dl(&r, "--sim sn2700 port show " SW "/1/", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(
	    strstr(r.err, "Port handle \"" SW "/1/\" is not of the form bus/dev/index: it has more than two"), "%s",
	    r.err);
	run_free(&r);
	/* a port where a device is asked for */
	run_dl(&r, "--sim sn2700 panel " SW "/1", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "\"" SW "/1\" is a port (BUS/DEV/PORT_INDEX): expected a device, BUS/DEV"),
			   "%s", r.err);
	run_free(&r);
	/* -j: a refused dry run is a document too, as an accepted one is */
	run_dl(&r, "--sim sn2700 -j port split eth0 3 --dry-run", NULL);
	cr_expect_eq(r.status, 1);
	cr_expect_str_eq(r.out, "{\"plan\":{\"change\":\"split\",\"port\":\"" SW "/1\",\"count\":3,\"accepted\":false,"
				"\"error\":\"" SW "/1: Port can only be split into 2 or 4 ports\"}}\n");
	run_free(&r);
	/* -j: a malformed file, too; and options before FILE */
	conf = conf_tmp("[Match]\nNetdev=eth0\n[Port]\nSplit=two\n");
	snprintf(cmd, sizeof(cmd), "--sim sn2700 -j apply --dry-run %s", conf);
	run_dl(&r, cmd, NULL);
	cr_expect_eq(r.status, 1);
	cr_expect_not_null(strstr(r.out, "\"dry_run\":true,"), "--dry-run before FILE: %s", r.out);
	cr_expect_not_null(strstr(r.out, "\"result\":\"error\""), "%s", r.out);
	cr_expect_not_null(strstr(r.out, ":4: Split=two: expected 1"), "%s", r.out);
	run_free(&r);
	unlink(conf);
	free(conf);
	run_dl(&r, "--sim sn2700 apply --dry-run", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "apply: FILE expected"), "%s", r.err);
	run_free(&r);
	run_dl(&r, "--sim sn2700 apply a b", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "Unexpected argument \"b\" (one FILE)"), "%s", r.err);
	run_free(&r);
	run_dl(&r, "--sim sn2700 apply --dryrun a", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "Unknown option \"--dryrun\""), "%s", r.err);
	run_free(&r);
	/* a backend that is not there: every line of a batch says so, none answers for an empty machine */
	run_dl(&r, "-s /nonexistent.sock -j -f -b -", "port show\napply /dev/null\nport show\n");
	cr_expect_eq(r.status, 2);
	cr_expect_str_eq(r.out, "");
	cr_expect_not_null(strstr(r.err, "Command failed stdin:3"), "%s", r.err);
	{
		int n = 0;

		for (const char *p = r.err; (p = strstr(p, "Cannot connect to dlhald at /nonexistent.sock")); p++)
			n++;
		cr_expect_eq(n, 3, "each line: %s", r.err);
	}
	run_free(&r);
}

Test(bad_input, long_handle_is_refused_not_truncated)
{
	char args[1200] = "--sim sn2700 port split pci/";
	struct run_result r;

	memset(args + strlen(args), '0', 900);
	strcat(args, "/1 2");
	run_dl(&r, args, NULL);
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "Device name is longer than 63 characters"), "%s", r.err);
	run_free(&r);
}

Test(bad_input, backends_and_options)
{
	struct run_result r;

	run_dl(&r, "port", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "--sim PROFILE"), "%s", r.err);
	run_free(&r);
	run_dl(&r, "--sim nosuch port", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "Unknown profile \"nosuch\""), "%s", r.err);
	run_free(&r);
	run_dl(&r, "-x port", NULL);
	cr_expect_eq(r.status, 2);
	run_free(&r);
	run_dl(&r, "--sim sn2700 -b /nonexistent/file", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "Cannot open file \"/nonexistent/file\""), "%s", r.err);
	run_free(&r);
	run_dl(&r, "--sim sn2700 -b - port", NULL);
	cr_expect_eq(r.status, 2, "batch takes no command words");
	run_free(&r);
}

Test(bad_input, garbage_never_crashes)
{
	static const char *words[] = {"port", "dev",   "p",	  "d",	"show", "set",	"split", "unsplit",
				      "type", "count", "eth",	  "ib", "auto", "eth0", "eth32", "pci/0000:03:00.0/1",
				      "2",    "4",     "0",	  "-1", "x",	"/",	"//",	 "pci//",
				      "%s%n", "help",  "monitor", "-j", "-d"};
	unsigned seed = 7;

	for (int i = 0; i < 150; i++) {
		char args[256] = "-f --sim sn2700 -b -", input[256] = "";
		struct run_result r;
		int n = 1 + (int)(rand_r(&seed) % 6);

		for (int w = 0; w < n; w++) {
			strcat(input, words[rand_r(&seed) % (sizeof(words) / sizeof(words[0]))]);
			strcat(input, " ");
		}
		strcat(input, "\n");
		run_dl(&r, args, input);
		cr_expect(r.status == 0 || r.status == 1 || r.status == 2, "\"%s\" exited %d: %s", input, r.status,
			  r.err);
		run_free(&r);
	}
}

/* ---- batch ------------------------------------------------------------------------------------- */

Test(batch, stops_at_the_failing_line_unless_forced)
{
	static const char in[] = "# a comment\n\nport show eth1\nport split eth1 3\nport show eth2\n";
	struct run_result r;

	run_dl(&r, "--sim sn2700 -b -", in);
	cr_expect_eq(r.status, 1);
	cr_expect_str_eq(r.out, SW "/3: type eth netdev eth1\n");
	cr_expect_not_null(strstr(r.err, "Command failed stdin:4"), "%s", r.err);
	run_free(&r);
	run_dl(&r, "--force --sim sn2700 -b -", in);
	cr_expect_eq(r.status, 1, "a forced batch still reports the failure");
	cr_expect_str_eq(r.out, SW "/3: type eth netdev eth1\n" SW "/5: type eth netdev eth2\n");
	run_free(&r);
	run_dl(&r, "--sim sn2700 -b -", "port show \"eth1\" # quoted\nport show 'eth2\n");
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "stdin:2: unterminated quote"), "%s", r.err);
	run_free(&r);
}

/* ---- monitor and backends ------------------------------------------------------------------------ */

/* -j monitor of "port set pci/0000:01:00.0/2 type eth" on cx3-vpi */
#define CX3_TYPE_ETH_EVENTS                                                                                       \
	"{\"event\":\"new\",\"port\":{\"pci/0000:01:00.0/2\":{\"type\":\"notset\"," P2 "}}}\n"                    \
	"{\"event\":\"new\",\"port\":{\"pci/0000:01:00.0/2\":{\"type\":\"eth\",\"netdev\":\"ens4d1\"," P2 "}}}\n" \
	"{\"event\":\"new\",\"port\":{\"pci/0000:01:00.0/2\":{\"type\":\"eth\",\"netdev\":\"ens4d1\"," P2 "}}}\n"

Test(monitor, batch_prints_the_events_of_later_lines)
{
	struct run_result r;

	run_dl(&r, "--sim sn2700 -b -", "port show eth0\nmonitor port\nport split eth0 2\nport unsplit eth32\n");
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, SW "/1: type eth netdev eth0\n" SPLIT_UNSPLIT_EVENTS,
			 "no events for the devices going away at exit");
	run_free(&r);
	run_dl(&r, "-j --sim cx3-vpi -b -", "monitor\nport set pci/0000:01:00.0/2 type eth\n");
	cr_expect_str_eq(r.out, CX3_TYPE_ETH_EVENTS);
	run_free(&r);
	run_dl(&r, "--sim sn2700 -b -", "monitor dev\nport split eth0 2\n");
	cr_expect_str_eq(r.out, "", "dev only");
	run_free(&r);
	/* one device's: the other's events are not printed */
	run_dl(&r, "-j --sim sn2700,cx3-vpi -b -",
	       "monitor port pci/0000:01:00.0\nport split eth0 2\nport set pci/0000:01:00.0/2 type eth\n");
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, CX3_TYPE_ETH_EVENTS);
	run_free(&r);
	run_dl(&r, "--sim sn2700,cx3-vpi -b -",
	       "monitor " SW "\nport split eth0 2\nport unsplit eth32\nport set pci/0000:01:00.0/2 type eth\n");
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, SPLIT_UNSPLIT_EVENTS, "the switch's events alone");
	run_free(&r);
	run_dl(&r, "--sim sn2700 monitor bogus", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "Unknown monitor object \"bogus\""));
	run_free(&r);
}

Test(monitor, exits_cleanly_on_sigterm)
{
	const char *args[] = {"--sim", "cx3-vpi", NULL};
	char buf[128];
	int out, st;
	pid_t pid = monitor_spawn(args, &out);

	cr_assert_eq(kill(pid, SIGTERM), 0);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	cr_expect_eq(read(out, buf, sizeof(buf)), 0, "no output: nothing changed");
	close(out);
}

Test(backends, kernel_without_a_devlink_family)
{
	struct run_result r;

	run_dl(&r, "--kernel dev", NULL);
	if (r.status == 0) {
		run_free(&r);
		cr_skip_test("this kernel has a devlink family: the VM tests cover it");
	}
	cr_expect_eq(r.status, 2);
	cr_expect_str_eq(r.err,
			 "dl --kernel: The kernel has no devlink family (not built with CONFIG_NET_DEVLINK?).\n");
	run_free(&r);
	run_dl(&r, "dev", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "Backends:"), "%s", r.err);
	run_free(&r);
}

Test(sim, emulator_controls_in_process)
{
	struct run_result r;

	run_dl(&r, "--sim cx3-vpi,sn2700 -b -",
	       "sim show pci/0000:01:00.0/1 cable\nsim cable pci/0000:01:00.0/1 ib\n"
	       "sim show pci/0000:01:00.0/1 cable\nsim fail " SW " 1\n"
	       "port split eth0 2\n");
	cr_expect_eq(r.status, 1, "the injected failure fails the split");
	cr_expect_str_eq(r.out, "eth\nib\n");
	cr_expect_not_null(
	    strstr(r.err, "Error: " SW "/1: Failed to get port's width.\ndl answers: Input/output error"), "%s", r.err);
	run_free(&r);
	static const struct bad cases[] = {
	    {"sim", 2, "Usage: dl sim cable"},
	    {"sim bogus " SW, 2, "Command \"bogus\" not found"},
	    {"sim cable pci/0000:01:00.0/1 fc", 2, "Unknown link partner \"fc\""},
	    {"sim cable pci/0000:01:00.0/1", 2, "missing argument"},
	    {"sim cable pci/0000:01:00.0/9 ib", 2, "Port does not exist"},
	    {"sim fail " SW " x", 1, "fail_nth: expected a number of register accesses, got \"x\""},
	    {"sim show " SW " nonsense", 1, "Unknown emulator control \"nonsense\""},
	    {"sim set " SW " a b c", 2, "Unexpected argument \"c\""},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char args[256];

		snprintf(args, sizeof(args), "--sim cx3-vpi,sn2700 %s", cases[i].cmd);
		run_dl(&r, args, NULL);
		cr_expect_eq(r.status, cases[i].status, "%s: %d %s", cases[i].cmd, r.status, r.err);
		cr_expect_not_null(strstr(r.err, cases[i].err), "%s: %s", cases[i].cmd, r.err);
		run_free(&r);
	}
}

/* --dry-run says what the op then does, changes nothing (no port, no event, no register access). */
Test(plan, dry_run_says_what_the_op_does_and_touches_nothing)
{
	struct run_result r;

	run_dl(&r, "--sim sn2700 -b -",
	       "sim show " SW " accesses\nport split eth0 2 --dry-run\nsim show " SW " accesses\nport show eth0\n"
	       "port split eth0 2\nport show " SW "/1\nport show " SW "/2\n");
	cr_expect_eq(r.status, 0, "%s", r.err);
	{
		char a0[32], a1[32];
		const char *plan = strchr(r.out, '\n') + 1;

		sscanf(r.out, "%31s", a0);
		static const char last[] = "\nnew " SW "/2: type eth netdev eth32 split_group 16\n";
		const char *after = strstr(plan, last);

		cr_assert_not_null(after, "%s", r.out);
		sscanf(after + strlen(last), "%31s", a1);
		cr_expect_str_eq(a1, a0, "the plan accessed no register: %s", r.out);
	}
	cr_expect_not_null(strstr(r.out, "split " SW "/1 into 2: would be done\n"
					 "del " SW "/1: type eth netdev eth0\n"
					 "new " SW "/1: type eth netdev eth0 split_group 16\n"
					 "new " SW "/2: type eth netdev eth32 split_group 16\n"),
			   "%s", r.out);
	cr_expect_not_null(strstr(r.out, "\n" SW "/1: type eth netdev eth0\n"), "nothing changed: %s", r.out);
	cr_expect_not_null(strstr(r.out, SW "/1: type eth netdev eth0 split_group 16\n" SW
					    "/2: type eth netdev eth32 split_group 16\n"),
			   "then the op does what the plan said: %s", r.out);
	run_free(&r);

	/* Refusals: exit 1 with the op's message, for each seed rule, and nothing changes. */
	static const struct bad cases[] = {
	    {"port split eth0 3 --dry-run", 1, "Error: " SW "/1: Port can only be split into 2 or 4 ports."},
	    {"port split eth0 8 --dry-run", 1, "Port can only be split into 2 or 4 ports."},
	    {"port unsplit eth0 --dry-run", 1, "Error: " SW "/1: Port wasn't split."},
	    {"port split eth0 2 --dry-ru", 2, "Unexpected argument \"--dry-ru\""},
	    {"port split eth0 --dry-run", 2, "count expected"},
	    {"port unsplit eth0 --dry-run x", 2, "Unexpected argument \"x\""},
	    {"port split pci/0000:01:00.0/1 2 --dry-run", 1, "Port splitting is not supported"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char args[256];

		snprintf(args, sizeof(args), "--sim cx3-vpi,sn2700 %s", cases[i].cmd);
		run_dl(&r, args, NULL);
		cr_expect_eq(r.status, cases[i].status, "%s: %d %s", cases[i].cmd, r.status, r.err);
		cr_expect_not_null(strstr(r.err, cases[i].err), "%s: %s", cases[i].cmd, r.err);
		run_free(&r);
	}
	/* A neighbour blocks a split by 4; a split port cannot be split; unsplit from any member. */
	run_dl(&r, "--sim sn2700 -b -", "port split eth0 2\nport split " SW "/3 4 --dry-run\n");
	cr_expect_eq(r.status, 1);
	cr_expect_not_null(strstr(r.err, "Error: " SW "/3: Invalid split configuration."), "%s", r.err);
	run_free(&r);
	run_dl(&r, "--sim sn2700 -j -b -", "port split eth0 4\nport unsplit eth33 --dry-run\n");
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(
	    r.out, "{\"plan\":{\"change\":\"unsplit\",\"port\":\"" SW "/4\",\"accepted\":true,\"partial\":false,"
		   "\"del\":[\"" SW "/1\",\"" SW "/2\",\"" SW "/3\",\"" SW "/4\"],"
		   "\"new\":[{\"port\":\"" SW "/1\",\"type\":\"eth\",\"netdev\":\"eth0\",\"lanes\":4,\"split\":false},"
		   "{\"port\":\"" SW "/3\",\"type\":\"eth\",\"netdev\":\"eth1\",\"lanes\":4,\"split\":false}]}}\n");
	run_free(&r);
}

/* ---- apply: desired state ---------------------------------------------------------------------- */

static char *conf_tmp(const char *text)
{
	char *path = strdup("/tmp/dlhal-desired-XXXXXX.conf");
	int fd = mkstemps(path, 5);

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

Test(apply, each_step_is_planned_on_what_the_steps_before_leave_and_a_second_run_does_nothing)
{
	/*
	 * Port 17 (local port 1) split by 4 took port 1 (local port 3, same cluster): port 1 matches
	 * nothing now. The unsplit of port 17 brings it back, so the plan finds it after that step and
	 * splits it: each step is planned on the ports the ones before leave, not on today's.
	 */
	char *conf = conf_tmp("[Match]\nDevice=" SW "\nNumber=17\n[Port]\nSplit=2\n\n"
			      "[Match]\nDevice=" SW "\nNumber=1\n[Port]\nSplit=2\n\n"
			      "[Match]\nDevice=pci/0000:01:00.0\nNumber=2\n[Port]\nType=auto\n");
	char batch[1024];
	struct run_result r;

	snprintf(batch, sizeof(batch),
		 "port split eth0 4\napply %s --dry-run\nport show " SW "/2\napply %s\napply %s\n"
		 "port show " SW "/4\nport show pci/0000:01:00.0/2\n",
		 conf, conf, conf);
	run_dl(&r, "--sim sn2700,cx3-vpi -b -", batch);
	cr_expect_eq(r.status, 0, "%s", r.err);
	{
		char want[2048];

		snprintf(want, sizeof(want),
			 "would: unsplit " SW "/1 (%s:5)\n"
			 "would: split " SW " port 17 into 2 (%s:5)\n"
			 "would: split " SW " port 1 into 2 (%s:11)\n"
			 "would: type auto on pci/0000:01:00.0 port 2 (%s:17)\n" SW
			 "/2: type eth netdev eth1 split_group 16\n"
			 "done: unsplit " SW "/1 (%s:5)\n"
			 "done: split " SW " port 17 into 2 (%s:5)\n"
			 "done: split " SW " port 1 into 2 (%s:11)\n"
			 "done: type auto on pci/0000:01:00.0 port 2 (%s:17)\n"
			 "nothing to do: the devices are as %s says\n" SW "/4: type eth netdev eth33 split_group 0\n"
			 "pci/0000:01:00.0/2: type ib(auto) ibdev mlx4_0\n",
			 conf, conf, conf, conf, conf, conf, conf, conf, conf);
		cr_expect_str_eq(r.out, want);
	}
	run_free(&r);
	unlink(conf);
	free(conf);
}

/* One port named two ways, by Number= and by the Netdev= it gets as Ethernet: refused first, in either order. */
Test(apply, a_port_named_by_number_and_by_its_coming_netdev_is_refused_first)
{
	const char *num = "[Match]\nDevice=pci/0000:01:00.0\nNumber=1\n[Port]\nType=eth\n\n";
	const char *net = "[Match]\nNetdev=ens4\n[Port]\nType=ib\n\n";
	char text[256], cmd[512], want[512];
	struct run_result r;

	for (int o = 0; o < 2; o++) {
		char *f;

		snprintf(text, sizeof(text), "%s%s", o ? net : num, o ? num : net);
		f = conf_tmp(text);
		snprintf(cmd, sizeof(cmd), "--sim cx3-vpi apply %s\nport show pci/0000:01:00.0/1\n", f);
		run_dl(&r, "--sim cx3-vpi -f -b -", cmd + strlen("--sim cx3-vpi "));
		cr_expect_eq(r.status, 1, "%s", r.err);
		snprintf(want, sizeof(want),
			 "Error: %s:%d conflicts with %s:%d: both name pci/0000:01:00.0 port 1, netdev ens4", f, 10, f,
			 o ? 4 : 5);
		cr_expect_not_null(strstr(r.err, want), "%s", r.err);
		cr_expect_str_eq(r.out, "pci/0000:01:00.0/1: type ib ibdev mlx4_0\n", "nothing ran");
		run_free(&r);
		unlink(f);
		free(f);
	}
}

/*
 * The file: port 17 by 4 takes port 1's lanes, so "port 1 by 2" can never be met with it.
 * Refused before anything runs, both lines named, in either order (the other order is the driver's
 * refusal of the split by 4 after port 1's split), by dry run and run alike; never "as the file says".
 */
Test(apply, entries_that_conflict_are_refused_before_anything_runs_naming_both_lines)
{
	char *a = conf_tmp("[Match]\nDevice=" SW "\nNumber=17\n[Port]\nSplit=4\n\n"
			   "[Match]\nDevice=" SW "\nNumber=1\n[Port]\nSplit=2\n");
	char *b = conf_tmp("[Match]\nDevice=" SW "\nNumber=1\n[Port]\nSplit=2\n\n"
			   "[Match]\nDevice=" SW "\nNumber=17\n[Port]\nSplit=4\n");
	char cmd[512], want[1024];
	struct run_result r;

	for (int dry = 0; dry < 2; dry++) {
		snprintf(cmd, sizeof(cmd), "--sim sn2700 apply %s%s", a, dry ? " --dry-run" : "");
		run_dl(&r, cmd, NULL);
		cr_expect_eq(r.status, 1, "%s", r.err);
		cr_expect_str_eq(r.out, "", "nothing was done: %s", r.out);
		snprintf(want, sizeof(want),
			 "Error: %s:11 conflicts with %s:5: split " SW " port 17 into 4 (%s:5) would remove " SW
			 "/3, port 1 (nothing was changed)\n",
			 a, a, a);
		cr_expect_str_eq(r.err, want);
		run_free(&r);
		snprintf(cmd, sizeof(cmd), "--sim sn2700 apply %s%s", b, dry ? " --dry-run" : "");
		run_dl(&r, cmd, NULL);
		cr_expect_eq(r.status, 1, "%s", r.err);
		snprintf(want, sizeof(want),
			 "Error: %s:11 conflicts with %s:5: split " SW " port 17 into 4 (%s:11) cannot follow split " SW
			 " port 1 into 2 (%s:5): " SW "/1: Invalid split configuration (nothing was changed)\n",
			 b, b, b, b);
		cr_expect_str_eq(r.err, want);
		run_free(&r);
	}
	/* Port 1 gone (an earlier split by 4): an entry naming it is unmet, exit 1, never "nothing to do". */
	snprintf(cmd, sizeof(cmd), "port split eth0 4\napply %s\n", b);
	run_dl(&r, "--sim sn2700 -b -", cmd);
	cr_expect_eq(r.status, 1);
	cr_expect_null(strstr(r.out, "nothing to do"), "%s", r.out);
	snprintf(want, sizeof(want), "%s:2: matches no port\nError: 1 entry of %s unmet (listed above)\n", b, b);
	cr_expect_not_null(strstr(r.err, want), "%s", r.err);
	run_free(&r);
	/* In JSON, for scripts (the Ansible module): the entries and lines, and the plans. */
	snprintf(cmd, sizeof(cmd), "--sim sn2700 -j apply %s --dry-run", a);
	run_dl(&r, cmd, NULL);
	cr_expect_eq(r.status, 1);
	cr_expect_not_null(strstr(r.out, "\"result\":\"conflict\",\"changed\":false,\"partial\":false,\"pending\":0,"
					 "\"reloaded\":0,\"unmet\":[],\"deferred\":[],\"conflict\":{\"entries\":[1,0],"
					 "\"lines\":[11,5]},\"error\":"),
			   "%s", r.out);
	cr_expect_not_null(strstr(r.out, "\"del\":[\"" SW "/1\",\"" SW "/3\"]"), "%s", r.out);
	run_free(&r);
	unlink(a);
	unlink(b);
	free(a);
	free(b);
}

/* A program's entries as JSON (the Ansible module's): named NAME[I]; a dry run's -j says the ports after. */
Test(apply, json_entries_are_named_by_their_place_and_a_dry_run_says_the_ports_after)
{
	char *a = conf_tmp("{\"ports\": [{\"device\": \"" SW "\", \"number\": 17, \"split\": 2},"
			   " {\"netdev\": \"eth1\", \"split\": 1, \"type\": null}]}\n");
	char *b = conf_tmp("{\"ports\": [{\"device\": \"" SW "\", \"number\": 17, \"split\": 4},"
			   " {\"device\": \"" SW "\", \"number\": \"1\", \"split\": 2}]}\n");
	char *c = conf_tmp("{\"ports\": [{\"device\": \"" SW "\", \"number\": 17, \"split\": true}]}\n");
	char cmd[512];
	struct run_result r;

	snprintf(cmd, sizeof(cmd), "--sim sn2700 apply --format json %s --dry-run", a);
	run_dl(&r, cmd, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, "would: split " SW " port 17 into 2 (ports[0])\n");
	run_free(&r);
	snprintf(cmd, sizeof(cmd), "--sim sn2700 -j apply --format json %s --dry-run", a);
	run_dl(&r, cmd, NULL);
	cr_expect_not_null(strstr(r.out,
				  "\"after\":{\"" SW "/1\":{\"type\":\"eth\",\"netdev\":\"eth0\",\"flavour\":"
				  "\"physical\",\"port\":17,\"split_group\":16,\"splittable\":false,\"lanes\":2},"
				  "\"" SW "/2\":{\"type\":\"eth\",\"netdev\":\"eth32\","),
			   "%s", r.out);
	run_free(&r);
	snprintf(cmd, sizeof(cmd), "--sim sn2700 apply %s --format json", b);
	run_dl(&r, cmd, NULL);
	cr_expect_eq(r.status, 1);
	cr_expect_str_eq(r.err, "Error: ports[1] conflicts with ports[0]: split " SW " port 17 into 4 (ports[0]) would "
				"remove " SW "/3, port 1 (nothing was changed)\n");
	run_free(&r);
	snprintf(cmd, sizeof(cmd), "--sim sn2700 -j apply --format json %s", c);
	run_dl(&r, cmd, NULL);
	cr_expect_eq(r.status, 1);
	cr_expect_not_null(strstr(r.out, "\"result\":\"error\""), "%s", r.out);
	cr_expect_not_null(strstr(r.out, "\"error\":\"ports[0].split: true is a boolean: expected a whole number\""),
			   "%s", r.out);
	run_free(&r);
	/* the same file read as INI is not one */
	snprintf(cmd, sizeof(cmd), "--sim sn2700 apply %s", c);
	run_dl(&r, cmd, NULL);
	cr_expect_eq(r.status, 1);
	run_free(&r);
	run_dl(&r, "--sim sn2700 apply x --format yaml", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "--format: expected ini or json"), "%s", r.err);
	run_free(&r);
	unlink(a);
	unlink(b);
	unlink(c);
	free(a);
	free(b);
	free(c);
}

Test(apply, a_refused_step_is_found_before_anything_runs)
{
	char *conf = conf_tmp("[Match]\nDevice=" SW "\nNumber=17\n[Port]\nSplit=2\n"
			      "[Match]\nDevice=" SW "\nNumber=18\n[Port]\nSplit=3\n"
			      "[Match]\nDevice=" SW "\nNumber=19\n[Port]\nSplit=2\n");
	char cmd[512], want[512];
	struct run_result r;

	snprintf(cmd, sizeof(cmd), "apply %s\nport show " SW "/1\nport show " SW "/7\n", conf);
	run_dl(&r, "--sim sn2700 -f -b -", cmd);
	cr_expect_eq(r.status, 1);
	snprintf(want, sizeof(want),
		 "Error: split " SW " port 18 into 3 (%s:10): " SW
		 "/5: Port can only be split into 2 or 4 ports (nothing was changed)\n",
		 conf);
	cr_expect_not_null(strstr(r.err, want), "%s", r.err);
	cr_expect_str_eq(r.out, SW "/1: type eth netdev eth0\n" SW "/7: type eth netdev eth3\n",
			 "the step before did not run either");
	run_free(&r);
	unlink(conf);
	free(conf);
}

/*
 * What the plan cannot foresee (the hardware fails half way): the run stops there, the steps done
 * stay; with --atomic they are undone in reverse order and the report says so.
 */
Test(apply, a_step_failing_while_running_stops_the_run_and_atomic_undoes_the_steps_done)
{
	char *conf = conf_tmp("[Match]\nDevice=" SW "\nNumber=17\n[Port]\nSplit=2\n"
			      "[Match]\nDevice=" SW "\nNumber=18\n[Port]\nSplit=2\n");
	char cmd[512], want[1024];
	struct run_result r;

	for (int atomic = 0; atomic < 2; atomic++) {
		/* the 10th register access from now is the second split's */
		snprintf(cmd, sizeof(cmd), "sim fail " SW " 10\napply %s%s\n", conf, atomic ? " --atomic" : "");
		run_dl(&r, "--sim sn2700 -f -b -", cmd);
		cr_expect_eq(r.status, 1);
		snprintf(want, sizeof(want),
			 "done: split " SW " port 17 into 2 (%s:5)\n%s" SW "/1: type eth netdev eth0%s\n" SW
			 "/5: type eth netdev eth2\n",
			 conf, atomic ? "undone: split " SW " port 17 into 2 (" : "", atomic ? "" : " split_group 16");
		snprintf(cmd, sizeof(cmd), "sim fail " SW " 10\napply %s%s\nport show " SW "/1\nport show " SW "/5\n",
			 conf, atomic ? " --atomic" : "");
		run_free(&r);
		run_dl(&r, "--sim sn2700 -f -b -", cmd);
		cr_expect_not_null(strstr(r.out, "done: split " SW " port 17 into 2"), "%s", r.out);
		cr_expect_not_null(strstr(r.err, "Error: split " SW " port 18 into 2"), "%s", r.err);
		if (atomic) {
			cr_expect_not_null(strstr(r.out, "undone: split " SW " port 17 into 2"), "%s", r.out);
			cr_expect_not_null(strstr(r.out, SW "/1: type eth netdev eth0\n"), "whole again: %s", r.out);
			cr_expect_not_null(strstr(r.err, "(the steps done were undone)"), "%s", r.err);
		} else {
			cr_expect_not_null(strstr(r.out, SW "/1: type eth netdev eth0 split_group 16\n"),
					   "the step done stays: %s", r.out);
		}
		cr_expect_not_null(strstr(r.out, SW "/5: type eth netdev eth2\n"), "%s", r.out);
		run_free(&r);
	}
	(void)want;
	unlink(conf);
	free(conf);
}

Test(apply, malformed_files_are_refused_with_file_line_and_reason)
{
	static const struct {
		const char *text, *line, *why;
	} cases[] = {
	    {"[Match]\nDevice=" SW "\nNumber=17\n[Port]\nSplit=3x\n", ":5:", "Split=3x: expected 1 (whole)"},
	    {"[Match]\nDevice=" SW "\nNumber=65536\n", ":3:", "Number=65536: expected one front-panel port number"},
	    {"[Match]\nDevice=pci\n", ":2:", "Device=pci: expected one BUS/DEV handle"},
	    {"[Port]\nSplit=2\n", ":1:", "[Port] before any [Match]"},
	    {"[Match]\nNetdev=eth0\n[Port]\nType=fc\n", ":4:", "Type=fc: expected eth, ib or auto"},
	    {"[Match]\nNetdev=eth0\n[Port]\nSpeed=100\n", ":4:", "unknown key Speed in [Port]"},
	    {"[Links]\nx=1\n", ":1:", "unknown section [Links]"},
	    {"[Match]\nNetdev=eth0\n[Port]\n[Match]\nDevice=" SW "\nNumber=17\n[Port]\nSplit=2\n",
	     ":3:", "[Port] says nothing"},
	    {"[Match]\nDevice=" SW "\nNumber=17\n[Port]\nSplit=2\n[Match]\n[Port]\nType=eth\n",
	     ":6:", "[Match] needs Device= and Number=, or Netdev="},
	    {"[Match]\nDevice=/\nNumber=1\n[Port]\nSplit=2\n", ":2:", "Device=/: expected one BUS/DEV handle"},
	    {"[Match]\nDevice=pci/\nNumber=1\n[Port]\nSplit=2\n", ":2:", "Device=pci/: expected one BUS/DEV"},
	    {"[Match]\nDevice=/0000:03:00.0\nNumber=1\n[Port]\nSplit=2\n", ":2:", "expected one BUS/DEV"},
	    /* two errors: the first, with its own line and reason */
	    {"[Match]\nDevice=" SW "\nNumber=-1\n[Port]\nType=foo\n", ":3:", "Number=-1: expected one front-panel"},
	    {"[Match]\nDevice=" SW "\ngarbage\nNumber=-1\n", ":3:", "not a line of an INI file"},
	    {"[Match]\nDevice=" SW "\nNumber=-1\ngarbage\n", ":3:", "Number=-1: expected"},
	    {"[Match]\nDevice=" SW "\nNumber=17\n[Port]\nSplit=2\nNumber=3\n", ":6:", "unknown key Number in [Port]"},
	    {"[Match]\nNetdev=eth0\nDevice=" SW "\nNumber=1\n[Port]\nSplit=2\n", ":2:", "not both"},
	    /* no [Port] at all: the [Match] that lacks it, not its first key (issue 42) */
	    {"# ports\n[Match]\nNetdev=eth0\n",
	     ":2:", "[Match] has no [Port]: expected a [Port] with Split= and/or Type="},
	    {"[Match]\nDevice=" SW "\nNumber=17\n[Port]\nSplit=2\n\n[Match]\nDevice=" SW "\nNumber=1\n",
	     ":7:", "[Match] has no [Port]"},
	    /* a key said twice: named as repeated, with the line of the first */
	    {"[Match]\nNetdev=eth0\n[Port]\nSplit=2\nSplit=4\n", ":5:", "Split= repeated: the first is on line 4"},
	    {"[Match]\nNetdev=eth0\n[Port]\nType=eth\nSplit=2\nType=eth\n",
	     ":6:", "Type= repeated: the first is on line 4"},
	    {"[Match]\nDevice=" SW "\nNumber=1\nDevice=" SW "\n", ":4:", "Device= repeated: the first is on line 2"},
	    {"[Match]\nDevice=" SW "\nNumber=1\nNumber=1\n", ":4:", "Number= repeated: the first is on line 3"},
	    /* one rule for comments: ';' or '#' after a blank; glued to the value, it is the value's */
	    {"[Match]\nNetdev=eth0\n[Port]\nSplit=2;halves\n", ":4:", "Split=2;halves: expected 1"},
	    {"[Match]\nNetdev=a:b\n[Port]\nSplit=2\n", ":2:", "Netdev=a:b: expected one netdev"},
	    {"garbage\n", ":1:", "not a line of an INI file"},
	};
	struct run_result r;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *conf = conf_tmp(cases[i].text), cmd[512];

		snprintf(cmd, sizeof(cmd), "--sim sn2700 apply %s", conf);
		run_dl(&r, cmd, NULL);
		cr_expect_eq(r.status, 1, "case %zu: %s", i, r.err);
		cr_expect_not_null(strstr(r.err, conf), "case %zu names the file: %s", i, r.err);
		cr_expect_not_null(strstr(r.err, cases[i].line), "case %zu: the line: %s", i, r.err);
		cr_expect_not_null(strstr(r.err, cases[i].why), "case %zu: %s", i, r.err);
		cr_expect_str_eq(r.out, "", "case %zu: nothing done", i);
		run_free(&r);
		unlink(conf);
		free(conf);
	}
	run_dl(&r, "--sim sn2700 apply /nonexistent.conf", NULL);
	cr_expect_eq(r.status, 1);
	cr_expect_not_null(strstr(r.err, "/nonexistent.conf: No such file or directory"), "%s", r.err);
	run_free(&r);
	run_dl(&r, "--sim sn2700 apply", NULL);
	cr_expect_eq(r.status, 2);
	run_free(&r);
}

/* A comment of any length is a comment (libinih's 200-byte buffer once parsed a long one's tail as a key),
 * the lines after it keep their numbers, and any other line too long for the parser is refused. */
/* People indent INI files and comment values: neither changes what a line means. */
Test(apply, indentation_and_comments_after_a_blank_mean_nothing)
{
	char *conf = conf_tmp("[Match]\n  Device=" SW "   # the switch\n\tNumber=17 ; front\n  [Port]\n"
			      "    Split=2 # halves\n"),
	     cmd[512], want[1024];
	struct run_result r;

	snprintf(cmd, sizeof(cmd), "--sim sn2700 apply %s --dry-run", conf);
	run_dl(&r, cmd, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	snprintf(want, sizeof(want), "would: split " SW " port 17 into 2 (%s:5)\n", conf);
	cr_expect_str_eq(r.out, want);
	run_free(&r);
	unlink(conf);
	free(conf);
	/* a folder is no file: refused as a missing one is, not "nothing to do" */
	run_dl(&r, "--sim sn2700 apply /etc", NULL);
	cr_expect_eq(r.status, 1);
	cr_expect_str_eq(r.err, "Error: /etc: Is a directory\n");
	cr_expect_str_eq(r.out, "");
	run_free(&r);
	/* an E810's PF 0 is port 0, as dl port show -d prints it */
	conf = conf_tmp("[Match]\nDevice=pci/0000:16:00.0\nNumber=0\n[Port]\nSplit=4\n");
	snprintf(cmd, sizeof(cmd), "--sim e810-cqda2 apply %s --dry-run", conf);
	run_dl(&r, cmd, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_not_null(strstr(r.out, "would: split pci/0000:16:00.0 port 0 into 4"), "%s", r.out);
	run_free(&r);
	unlink(conf);
	free(conf);
}

Test(apply, long_lines_whole_comments_and_a_refused_long_key_line)
{
	char text[4096], x[400], cmd[512];
	struct run_result r;
	char *conf;

	memset(x, 'x', 397);
	x[397] = '\0';
	snprintf(text, sizeof(text),
		 "# %sSplit=4\n[Match]\n; %sDevice=pci/0000:01:00.0\nDevice=" SW "\nNumber=17\n[Port]\n"
		 "#%sSplit=4\nSplit=2\n   # %s\nType=foo\n",
		 x, x, x, x);
	conf = conf_tmp(text);
	snprintf(cmd, sizeof(cmd), "--sim sn2700 apply %s --dry-run", conf);
	run_dl(&r, cmd, NULL);
	cr_expect_eq(r.status, 1, "%s", r.err);
	cr_expect_not_null(strstr(r.err, ":10: Type=foo: expected eth, ib or auto"), "numbered as written: %s", r.err);
	run_free(&r);
	unlink(conf);
	free(conf);

	/* the same without the bad key: only the Split=2 of line 8 applies */
	snprintf(text, sizeof(text), "# %sSplit=4\n[Match]\nDevice=" SW "\nNumber=17\n[Port]\n#%sSplit=4\nSplit=2\n", x,
		 x);
	conf = conf_tmp(text);
	snprintf(cmd, sizeof(cmd), "--sim sn2700 apply %s --dry-run", conf);
	run_dl(&r, cmd, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	{
		char want[1024];

		snprintf(want, sizeof(want), "would: split " SW " port 17 into 2 (%s:7)\n", conf);
		cr_expect_str_eq(r.out, want);
	}
	run_free(&r);
	unlink(conf);
	free(conf);

	/* a key line longer than the parser's buffer */
	snprintf(text, sizeof(text), "[Match]\nDevice=" SW "\nNetdev=%s\n[Port]\nSplit=2\n", x);
	conf = conf_tmp(text);
	snprintf(cmd, sizeof(cmd), "--sim sn2700 apply %s", conf);
	run_dl(&r, cmd, NULL);
	cr_expect_eq(r.status, 1, "%s", r.err);
	cr_expect_not_null(strstr(r.err, ":3: line too long"), "%s", r.err);
	cr_expect_str_eq(r.out, "");
	run_free(&r);
	unlink(conf);
	free(conf);
}

/* 1025 entries: the error is the count, on the line of the 1025th [Match]. */
Test(apply, more_than_1024_entries_names_the_entry_that_is_one_too_many)
{
	size_t cap = 1100 * 64, len = 0;
	char *text = malloc(cap), cmd[512];
	struct run_result r;
	char *conf;

	cr_assert_not_null(text);
	for (int i = 0; i < 1025; i++)
		len += (size_t)snprintf(text + len, cap - len, "[Match]\nDevice=" SW "\nNumber=%d\n[Port]\nSplit=1\n",
					i % 32 + 1);
	conf = conf_tmp(text);
	free(text);
	snprintf(cmd, sizeof(cmd), "--sim sn2700 apply %s --dry-run", conf);
	run_dl(&r, cmd, NULL);
	cr_expect_eq(r.status, 1, "%s", r.err);
	cr_expect_not_null(strstr(r.err, ":5121: more than 1024 entries"), "%s", r.err);
	run_free(&r);
	unlink(conf);
	free(conf);
}

/* Type set plans: mlx4 decides op and plan in one place; auto is left to the link sensed at the op. */
Test(plan, dry_run_of_a_type_set)
{
	struct run_result r;

	run_dl(&r, "--sim cx3-vpi -b -",
	       "sim show pci/0000:01:00.0 accesses\nport set pci/0000:01:00.0/1 type eth --dry-run\n"
	       "sim show pci/0000:01:00.0 accesses\nport set pci/0000:01:00.0/1 type eth\n"
	       "port show pci/0000:01:00.0/1\nport set pci/0000:01:00.0/2 type auto --dry-run\n"
	       "port set pci/0000:01:00.0/1 type eth --dry-run\n");
	cr_expect_eq(r.status, 0, "%s", r.err);
	{
		char a0[32] = "", want[1024];

		sscanf(r.out, "%31s", a0);
		snprintf(want, sizeof(want),
			 "%s\nset pci/0000:01:00.0/1 type eth: would be done\n"
			 "del pci/0000:01:00.0/1: type ib ibdev mlx4_0\n"
			 "new pci/0000:01:00.0/1: type eth netdev ens4\n"
			 "%s\npci/0000:01:00.0/1: type eth netdev ens4\n"
			 "set pci/0000:01:00.0/2 type auto: would be done\n"
			 "del pci/0000:01:00.0/2: type ib ibdev mlx4_0\n"
			 "new pci/0000:01:00.0/2: type auto\n"
			 "set pci/0000:01:00.0/1 type eth: would be done\n",
			 a0, a0);
		cr_expect_str_eq(r.out, want,
				 "the plan, no access, then the op as planned; the same type plans nothing");
	}
	run_free(&r);
	run_dl(&r, "--sim sn2700 port set eth0 type ib --dry-run", NULL);
	cr_expect_eq(r.status, 1);
	cr_expect_not_null(strstr(r.err, "Error: " SW "/1: Port type setting is not supported."), "%s", r.err);
	run_free(&r);
	run_dl(&r, "--sim cx3-vpi port set pci/0000:01:00.0/1 --dry-run", NULL);
	cr_expect_eq(r.status, 2, "nothing to set: %s", r.err);
	run_free(&r);
}

/* ---- a staged driver (ice, profile e810-cqda2) ------------------------------------------------ */

#define ICE0 "pci/0000:16:00.0"
#define ICE_TABLE                                           \
	"  Status  Split      Quad 0          Quad 1\n"     \
	"          count  L0  L1  L2  L3  L4  L5  L6  L7\n" \
	"  Active  2     100   -   -   - 100   -   -   -\n" \
	"          2      50   -  50   -   -   -   -   -\n" \
	"  Pending 4      25  25  25  25   -   -   -   -\n" \
	"          4      25  25   -   -  25  25   -   -\n" \
	"          8      10  10  10  10  10  10  10  10\n" \
	"          1     100   -   -   -   -   -   -   -\n"

Test(staged, a_stored_split_is_a_warning_and_shows_as_pending)
{
	struct run_result r;

	run_dl(&r, "--sim e810-cqda2 port split " ICE0 "/0 4", NULL);
	cr_expect_eq(r.status, 0);
	cr_expect_str_eq(r.out, "");
	cr_expect_str_eq(r.err, "Warning: " ICE0 "/0: Reboot required to finish port split.\n");
	run_free(&r);
	run_dl(&r, "--sim e810-cqda2 -d -b -", "port split " ICE0 "/0 4\ndev show " ICE0 "\nport show\n");
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, ICE0
			 ": driver ice pending split 4\n" ICE_TABLE ICE0
			 /* PF 0's number is 0, and a number all the same: devlink sends it for a physical port */
			 "/0: type eth netdev ens16f0 flavour physical port 0 splittable true lanes 8 speed 100000 "
			 "module 0 lane 0 split_counts 2,4,8\n"
			 /* PF 1 on quad 1's first lane, at its speed (0 until PF i took the option's i-th lane
			  * in use rather than lane i) */
			 "pci/0000:16:00.1/0: type eth netdev ens16f1 flavour physical port 1 splittable false "
			 "speed 100000 module 1 lane 0\n");
	run_free(&r);
	run_dl(&r, "--sim e810-cqda2 -d -j -b -", "port split " ICE0 "/0 8\ndev show " ICE0 "\n");
	cr_expect_not_null(strstr(r.out,
				  "\"dlhal\":{\"driver\":\"ice\",\"pending\":{\"split\":8,\"message\":\"Reboot "
				  "required to finish port split\"},\"options\":[{\"split\":2,\"lanes\":[100000,"),
			   "%s", r.out);
	run_free(&r);
	/* Devices with nothing pending and no options print as before. */
	run_dl(&r, "--sim sn2700 -d dev show", NULL);
	cr_expect_str_eq(r.out, "pci/0000:03:00.0: driver mlxsw\n");
	run_free(&r);
}

Test(staged, reload_applies_what_is_pending)
{
	struct run_result r;

	run_dl(&r, "--sim e810-cqda2 -b -",
	       "port split " ICE0 "/0 4\ndev reload pci/0000:16:00.1 action fw_activate\nport show\ndev show -d\n");
	cr_expect_str_eq(r.out,
			 "reload_actions_performed:\n"
			 "    fw_activate\n"
			 "pci/0000:16:00.0/0: type eth netdev ens16f0\n"
			 "pci/0000:16:00.1/0: type eth netdev ens16f1\n"
			 "pci/0000:16:00.2/0: type eth netdev ens16f2\n"
			 "pci/0000:16:00.3/0: type eth netdev ens16f3\n",
			 "%s", r.err);
	run_free(&r);
	/* Without an action (driver_reinit, which ice has not): devlink's words. */
	run_dl(&r, "--sim e810-cqda2 dev reload " ICE0, NULL);
	cr_expect_eq(r.status, 1);
	cr_expect_str_eq(r.err, "Error: " ICE0 ": Requested reload action is not supported by the driver.\n"
				"dl answers: Operation not supported\n");
	run_free(&r);
	run_dl(&r, "--sim e810-cqda2 dev reload " ICE0 " action fw_activate", NULL);
	cr_expect_eq(r.status, 1);
	cr_expect_str_eq(r.err, "Error: " ICE0 ": No pending firmware update.\ndl answers: Operation canceled\n");
	run_free(&r);
	run_dl(&r, "--sim e810-cqda2 -j -b -", "port unsplit " ICE0 "/0\ndev reload " ICE0 " action fw_activate\n");
	cr_expect_str_eq(r.out, "{\"reload\":{\"reload_actions_performed\":[\"fw_activate\"]}}\n");
	run_free(&r);
	/* A power cycle, for a driver without reload or a card without EMP reset. */
	run_dl(&r, "--sim e810-cqda2 -b -", "port unsplit " ICE0 "/0\nsim reset pci/0000:16:00.1\ndev show\n");
	cr_expect_str_eq(r.out, ICE0 "\n", "%s", r.err);
	run_free(&r);
}

Test(staged, reload_and_reset_usage)
{
	static const char *const bad[][2] = {
	    {"dev reload " ICE0 " action reboot", "Unknown reload action \"reboot\""},
	    {"dev reload " ICE0 " limit unspec", "Unknown reload limit \"unspec\""},
	    {"dev reload " ICE0 " action", "Unknown reload action \"\""},
	    {"dev reload " ICE0 " netns 1", "netns: dl moves no device between network namespaces"},
	    {"dev reload " ICE0 " now", "Unknown option \"now\""},
	    {"dev reload pci/0000:99:00.0 action fw_activate", "pci/0000:99:00.0"},
	    {"sim reset " ICE0 "/0", "sim reset: expected a device, got port " ICE0 "/0"},
	    {"sim reset", "sim reset: missing argument"},
	};
	struct run_result r;
	char args[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(args, sizeof(args), "--sim e810-cqda2 %s", bad[i][0]);
		run_dl(&r, args, NULL);
		cr_expect_eq(r.status, 2, "%s: %s", bad[i][0], r.err);
		cr_expect_not_null(strstr(r.err, bad[i][1]), "%s: %s", bad[i][0], r.err);
		run_free(&r);
	}
	run_dl(&r, "--sim sn2700 dev reload pci/0000:03:00.0 action fw_activate", NULL);
	cr_expect_eq(r.status, 1);
	cr_expect_str_eq(r.err,
			 "Error: pci/0000:03:00.0: Reload is not supported.\ndl answers: Operation not supported\n");
	run_free(&r);
	run_dl(&r, "--sim sn2700 sim reset pci/0000:03:00.0", NULL);
	cr_expect_eq(r.status, 1);
	cr_expect_str_eq(
	    r.err,
	    "Error: pci/0000:03:00.0: Device has no emulated power cycle.\ndl answers: Operation not supported\n");
	run_free(&r);
}

/* Desired state on a staged device: staged once, then pending (no second staging, no cycling to
 * another option), satisfied after the reset; --reload resets what has something pending. */
Test(staged, desired_state_stages_once_and_is_met_after_the_reset)
{
	char *path = profile_tmp("[Match]\nNetdev=ens16f0\n\n[Port]\nSplit=4\n");
	char batch[1024], want[2048];
	struct run_result r;

	snprintf(batch, sizeof(batch), "apply %s --dry-run\napply %s\napply %s\n", path, path, path);
	run_dl(&r, "--sim e810-cqda2 -b -", batch);
	cr_expect_eq(r.status, 0, "%s", r.err);
	snprintf(want, sizeof(want),
		 "would: split " ICE0 " port 0 into 4 (%s:5), applied at the next reset\n"
		 "pending: split " ICE0 " port 0 into 4 (%s:5): Reboot required to finish port split\n"
		 "pending until a reset: 1 entry of %s (dl apply --reload %s, or dl dev reload)\n"
		 "pending until a reset: 1 entry of %s (dl apply --reload %s, or dl dev reload)\n",
		 path, path, path, path, path, path);
	cr_expect_str_eq(r.out, want);
	run_free(&r);
	/* --reload resets the card and the file is met. */
	/* Without the manual split: --reload resets the card and the file is met. */
	snprintf(batch, sizeof(batch), "apply %s\napply %s\napply %s --reload\nport show\napply %s\n", path, path, path,
		 path);
	run_dl(&r, "--sim e810-cqda2 -b -", batch);
	cr_expect_eq(r.status, 0, "%s", r.err);
	snprintf(want, sizeof(want),
		 "pending: split " ICE0 " port 0 into 4 (%s:5): Reboot required to finish port split\n"
		 "pending until a reset: 1 entry of %s (dl apply --reload %s, or dl dev reload)\n"
		 "pending until a reset: 1 entry of %s (dl apply --reload %s, or dl dev reload)\n"
		 "done: reload " ICE0 " (fw_activate)\n"
		 "pci/0000:16:00.0/0: type eth netdev ens16f0\n"
		 "pci/0000:16:00.1/0: type eth netdev ens16f1\n"
		 "pci/0000:16:00.2/0: type eth netdev ens16f2\n"
		 "pci/0000:16:00.3/0: type eth netdev ens16f3\n"
		 "nothing to do: the devices are as %s says\n",
		 path, path, path, path, path, path);
	cr_expect_str_eq(r.out, want);
	cr_expect_not_null(strstr(r.err, ":5: pending until a reset of " ICE0 ": split into 4\n"), "%s", r.err);
	run_free(&r);
	run_dl(&r, "--sim e810-cqda2 apply /dev/null --dry-run --reload", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "--dry-run and --reload: choose one"), "%s", r.err);
	run_free(&r);
	unlink(path);
	free(path);
}

Test(staged, dry_run_says_after_a_reset_and_lists_what_it_brings_up)
{
	struct run_result r;

	run_dl(&r, "--sim e810-cqda2 port split " ICE0 "/0 2 --dry-run", NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, "split " ICE0 "/0 into 2: would be done after a reset\n"
				"after " ICE0 "/0: type eth netdev ens16f0\n"
				"after pci/0000:16:00.1/0: type eth netdev ens16f1\n");
	run_free(&r);
	run_dl(&r, "--sim e810-cqda2 -j port unsplit " ICE0 "/0 --dry-run", NULL);
	cr_expect_str_eq(
	    r.out, "{\"plan\":{\"change\":\"unsplit\",\"port\":\"" ICE0 "/0\",\"accepted\":true,\"partial\":false,"
		   "\"del\":[],\"new\":[],\"staged\":true,\"after\":[{\"port\":\"" ICE0 "/0\",\"type\":\"eth\","
		   "\"netdev\":\"ens16f0\",\"lanes\":8,\"split\":false}]}}\n");
	run_free(&r);
	run_dl(&r, "--sim e810-cqda2 -b -", "port split " ICE0 "/0 8\nport split " ICE0 "/0 8 --dry-run\n");
	cr_expect_eq(r.status, 1);
	cr_expect_not_null(strstr(r.err, "Error: " ICE0 "/0: Requested split count is already set.\n"), "%s", r.err);
	run_free(&r);
}

/* ---- panel: the front panel as a picture ---------------------------------------------------------- */

#define ICE_RESET "dev reload pci/0000:16:00.0 action fw_activate\n"

static char *golden(const char *name)
{
	char path[512];
	FILE *f;
	char *text;
	long n;

	snprintf(path, sizeof(path), "%s/tests/panel/%s", getenv("SRCDIR"), name);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)n + 1);
	cr_assert_eq(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return text;
}

/*
 * The seed's states as pictures (the files in tests/panel, read and checked by eye once): the SN2700 as it
 * starts, after a split by 2 (port 17's halves), by 4 (port 1's cage taken: its lanes are port 17's),
 * back after the unsplit; the ConnectX-3 in ib, eth and auto (sensed from the cable); the E810 card
 * (its PCI functions' devices drawn as one card, each port in the cage of its lanes) as it ships, with
 * a split by 4 waiting for the reset, after it (four PFs on quad 0, quad 1 unused), after the next
 * option of 4 (two on each quad) and by 8; with colour and in ASCII.
 */
Test(panel, the_seed_states_drawn_as_the_golden_pictures)
{
	static const struct {
		const char *name, *sim, *batch;
	} cases[] = {
	    {"sn2700.txt", "sn2700", "panel\n"},
	    {"sn2700-split2.txt", "sn2700", "port split eth0 2\npanel\n"},
	    {"sn2700-split4.txt", "sn2700", "port split eth0 4\npanel\n"},
	    {"sn2700-unsplit.txt", "sn2700", "port split eth0 4\nport unsplit eth33\npanel\n"},
	    {"sn2700-split4-ascii.txt", "sn2700", "port split eth0 4\npanel --ascii\n"},
	    {"sn2700-split4-color.txt", "sn2700", "port split eth0 4\npanel --color=always\n"},
	    {"cx3-ib.txt", "cx3-vpi", "panel\n"},
	    {"cx3-eth.txt", "cx3-vpi",
	     "port set pci/0000:01:00.0/1 type eth\nport set pci/0000:01:00.0/2 type eth\npanel\n"},
	    {"cx3-auto.txt", "cx3-vpi",
	     "port set pci/0000:01:00.0/1 type auto\nport set pci/0000:01:00.0/2 type auto\npanel\n"},
	    {"cx3-auto-color.txt", "cx3-vpi",
	     "port set pci/0000:01:00.0/1 type auto\nport set pci/0000:01:00.0/2 type auto\npanel --color=always\n"},
	    {"cx3-auto-ascii.txt", "cx3-vpi",
	     "port set pci/0000:01:00.0/1 type auto\nport set pci/0000:01:00.0/2 type auto\npanel --ascii\n"},
	    {"e810.txt", "e810-cqda2", "panel\n"},
	    {"e810-pending4.txt", "e810-cqda2", "port split ens16f0 4\npanel\n"},
	    {"e810-split4.txt", "e810-cqda2", "port split ens16f0 4\n" ICE_RESET "panel pci/0000:16:00.3\n"},
	    {"e810-split4-quads-ascii.txt", "e810-cqda2",
	     "port split ens16f0 4\n" ICE_RESET "port split ens16f0 4\n" ICE_RESET "panel --ascii\n"},
	    {"e810-split8-color.txt", "e810-cqda2", "port split ens16f0 8\n" ICE_RESET "panel --color=always\n"},
	    /* 8-lane cages: a line a lane, each port of a split by 8 shown (issue 43) */
	    {"sn4700-split8.txt", "sn4700", "port split eth0 8\nport split eth1 4\nport split eth2 2\npanel\n"},
	    {"sn5600-split8-ascii.txt", "sn5600", "port split eth63 8\npanel --ascii\n"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char args[64], *want = golden(cases[i].name);
		struct run_result r;

		snprintf(args, sizeof(args), "--sim %s -b -", cases[i].sim);
		run_dl(&r, args, cases[i].batch);
		cr_expect_eq(r.status, 0, "%s: %s", cases[i].name, r.err);
		/* the reload's own lines first, if any */
		for (const char *end = "    fw_activate\n", *at; (at = strstr(r.out, end));)
			memmove(r.out, at + strlen(end), strlen(at + strlen(end)) + 1);
		cr_expect_str_eq(r.out, want, "%s", cases[i].name);
		/* 80 columns, counted in characters (the box-drawing ones are 3 bytes), colour codes aside */
		for (const char *l = r.out; *l;) {
			const char *e = strchr(l, '\n');
			size_t cols = 0;

			for (const char *c = l; c < e; c++) {
				if (*c == '\033') {
					while (c < e && *c != 'm')
						c++;
					continue;
				}
				cols += ((unsigned char)*c & 0xc0) != 0x80;
			}
			cr_expect_leq(cols, 80, "%s: a line of %zu columns", cases[i].name, cols);
			l = e + 1;
		}
		run_free(&r);
		free(want);
	}
}

Test(panel, colour_only_on_a_terminal_no_color_honoured_and_the_layout_in_json)
{
	struct run_result r;
	char *plain = golden("sn2700-split4.txt");

	/* a pipe is no terminal: no colour in auto; --color=never and NO_COLOR have none either */
	run_dl(&r, "--sim sn2700 -b -", "port split eth0 4\npanel --color=auto\npanel --color=never\n");
	cr_expect(strstr(r.out, "\033[") == NULL, "%s", r.out);
	run_free(&r);
	setenv("NO_COLOR", "1", 1);
	run_dl(&r, "--sim sn2700 -b -", "port split eth0 4\npanel\n");
	unsetenv("NO_COLOR");
	cr_expect_str_eq(r.out, plain);
	run_free(&r);
	free(plain);
	run_dl(&r, "--sim sn2700 -j -b -", "port split eth0 4\npanel pci/0000:03:00.0\n");
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_not_null(strstr(r.out,
				  "{\"panel\":{\"pci/0000:03:00.0\":{\"driver\":\"mlxsw\",\"faceplate\":\"profile\","
				  "\"cages\":[{\"number\":1,\"label\":\"1\",\"form\":\"QSFP28\",\"row\":0,\"col\":0,"
				  "\"taken\":true,\"ports\":[]},"),
			   "%s", r.out);
	cr_expect_not_null(strstr(r.out, "{\"number\":17,\"label\":\"17\",\"form\":\"QSFP28\",\"row\":0,\"col\":8,"
					 "\"taken\":false,\"ports\":[{\"port\":\"pci/0000:03:00.0/1\",\"type\":\"eth\","
					 "\"netdev\":\"eth0\",\"lanes\":1,\"subport\":0},"),
			   "%s", r.out);
	run_free(&r);
	/* a device without a faceplate: laid out from its port numbers */
	{
		char *path = profile_tmp("{\"driver\": \"mlx4\", \"handle\": \"pci/0000:05:00.0\", \"hw\": {\"ibdev\": "
					 "\"mlx4_1\", \"ports\": "
					 "[{\"supported\": [\"eth\", \"ib\"], \"type\": \"eth\", \"netdev\": "
					 "\"enp5s0\"}, {\"supported\": [\"eth\", \"ib\"], \"type\": \"ib\", "
					 "\"netdev\": \"enp5s0d1\"}]}}"),
		     args[128];

		snprintf(args, sizeof(args), "--sim %s panel", path);
		run_dl(&r, args, NULL);
		cr_expect_eq(r.status, 0, "%s", r.err);
		cr_expect_not_null(strstr(r.out, "pci/0000:05:00.0: mlx4, 2 cages (laid out from the port numbers)\n"
						 "┌1───────┐┌2───────┐\n│E enp5s0││I mlx4_1│\n"),
				   "%s", r.out);
		run_free(&r);
		unlink(path);
		free(path);
	}
	/* a card: one picture of its devices, each port where its lanes are; a cage no port uses is unused */
	run_dl(&r, "--sim e810-cqda2 -j -b -", "port split ens16f0 4\n" ICE_RESET "panel pci/0000:16:00.2\n");
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_not_null(strstr(r.out,
				  "\"panel\":{\"pci/0000:16:00.0\":{\"driver\":\"ice\",\"faceplate\":\"card\","
				  "\"devices\":[\"pci/0000:16:00.0\",\"pci/0000:16:00.1\",\"pci/0000:16:00.2\","
				  "\"pci/0000:16:00.3\"],\"cages\":[{\"number\":0,\"label\":\"0\",\"form\":\"QSFP28\","
				  "\"row\":0,\"col\":0,\"module\":0,\"taken\":false,\"ports\":[{\"port\":"
				  "\"pci/0000:16:00.0/0\",\"type\":\"eth\",\"netdev\":\"ens16f0\",\"lanes\":8,"
				  "\"lane\":0},"),
			   "%s", r.out);
	cr_expect_not_null(strstr(r.out, "{\"port\":\"pci/0000:16:00.3/0\",\"type\":\"eth\",\"netdev\":\"ens16f3\","
					 "\"lane\":3}]},{\"number\":1,\"label\":\"1\",\"form\":\"QSFP28\",\"row\":0,"
					 "\"col\":1,\"module\":1,\"taken\":false,\"unused\":true,\"ports\":[]}]}}"),
			   "%s", r.out);
	run_free(&r);
	run_dl(&r, "--sim sn2700 panel --svg --follow", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "--svg and --follow: choose one"), "%s", r.err);
	run_free(&r);
	run_dl(&r, "--sim sn2700 -b -", "panel --follow\n");
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "--follow runs until interrupted: not in a batch"), "%s", r.err);
	run_free(&r);
	run_dl(&r, "--sim sn2700 panel --color=blue", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "--color=blue: expected auto, always or never"), "%s", r.err);
	run_free(&r);
	run_dl(&r, "--sim sn2700 panel pci/0000:09:00.0", NULL);
	cr_expect_eq(r.status, 2, "%s", r.err);
	run_free(&r);
}

/* 8-lane boards in a desired file (issue 43): splits by 8, 4 and 2 of an SN4700, and a whole SN5600 by 8. */
Test(apply, eight_lane_cages_split_by_8_from_a_file_and_a_whole_sn5600)
{
	char *conf = conf_tmp("[Match]\nDevice=pci/0000:0b:00.0\nNumber=1\n[Port]\nSplit=8\n\n"
			      "[Match]\nDevice=pci/0000:0b:00.0\nNumber=2\n[Port]\nSplit=4\n\n"
			      "[Match]\nDevice=pci/0000:0b:00.0\nNumber=3\n[Port]\nSplit=2\n");
	char batch[1024], want[2048], *whole;
	struct run_result r;
	size_t len = 0, cap = 1 << 16;

	snprintf(batch, sizeof(batch),
		 "apply %s\napply %s\nport show pci/0000:0b:00.0/8\nport show pci/0000:0b:00.0/12\n", conf, conf);
	run_dl(&r, "--sim sn4700 -b -", batch);
	cr_expect_eq(r.status, 0, "%s", r.err);
	snprintf(want, sizeof(want),
		 "done: split pci/0000:0b:00.0 port 1 into 8 (%s:5)\n"
		 "done: split pci/0000:0b:00.0 port 2 into 4 (%s:11)\n"
		 "done: split pci/0000:0b:00.0 port 3 into 2 (%s:17)\n"
		 "nothing to do: the devices are as %s says\n"
		 "pci/0000:0b:00.0/8: type eth netdev eth38 split_group 0\n"
		 "pci/0000:0b:00.0/12: type eth netdev eth41 split_group 1\n",
		 conf, conf, conf, conf);
	cr_expect_str_eq(r.out, want);
	run_free(&r);
	unlink(conf);
	free(conf);

	/* 64 cages by 8 in one file: 512 ports, planned first, all or nothing */
	whole = malloc(cap);
	cr_assert_not_null(whole);
	for (unsigned int n = 1; n <= 64; n++)
		len += (size_t)snprintf(whole + len, cap - len,
					"[Match]\nDevice=pci/0000:0c:00.0\nNumber=%u\n[Port]\nSplit=8\n\n", n);
	conf = conf_tmp(whole);
	free(whole);
	snprintf(batch, sizeof(batch), "apply --atomic %s\nport show pci/0000:0c:00.0\n", conf);
	run_dl(&r, "--sim sn5600 -b -", batch);
	cr_expect_eq(r.status, 0, "%s", r.err);
	{
		size_t done = 0, ports = 0;

		for (const char *p = r.out; (p = strstr(p, "done: split")); p++)
			done++;
		for (const char *p = r.out; (p = strstr(p, "\npci/0000:0c:00.0/")); p++)
			ports++;
		cr_expect_eq(done, 64);
		cr_expect_eq(ports, 513, "512 split ports and the service port");
		cr_expect_not_null(strstr(r.out, "\npci/0000:0c:00.0/512: type eth netdev eth"));
	}
	run_free(&r);
	unlink(conf);
	free(conf);
}

/*
 * One file sets InfiniBand on a ConnectX-3 (at once, mlx4) and a ConnectX-6 (stored in its
 * configuration until a firmware reset, mlx5) alike: the dry run says which waits, the run does one
 * and stores the other, a second run has nothing to do but says what waits, --reload resets the card
 * with the stored type and the ports are then as the file says.
 */
Test(apply, one_file_switches_a_connectx3_at_once_and_a_connectx6_at_its_reset)
{
	char *conf = conf_tmp("[Match]\nDevice=pci/0000:01:00.0\nNumber=1\n[Port]\nType=eth\n\n"
			      "[Match]\nDevice=pci/0000:03:00.0\nNumber=0\n[Port]\nType=ib\n");
	char batch[1024], want[2048];
	struct run_result r;

	snprintf(batch, sizeof(batch),
		 "apply %s --dry-run\napply %s\nport show\napply %s\napply %s --reload\nport show\napply %s\n", conf,
		 conf, conf, conf, conf);
	run_dl(&r, "--sim cx3-vpi,cx6-vpi -b -", batch);
	cr_expect_eq(r.status, 0, "%s", r.err);
	snprintf(want, sizeof(want),
		 "would: type eth on pci/0000:01:00.0 port 1 (%s:5)\n"
		 "would: type ib on pci/0000:03:00.0 port 0 (%s:11), applied at the next reset\n"
		 "done: type eth on pci/0000:01:00.0 port 1 (%s:5)\n"
		 "pending: type ib on pci/0000:03:00.0 port 0 (%s:11): Please reboot machine to load new "
		 "configurations\n"
		 "pending until a reset: 1 entry of %s (dl apply --reload %s, or dl dev reload)\n"
		 "pci/0000:01:00.0/1: type eth netdev ens4\n"
		 "pci/0000:01:00.0/2: type ib ibdev mlx4_0\n"
		 "pci/0000:03:00.0/65535: type eth netdev ens1f0np0 pending type ib\n"
		 "pci/0000:03:00.1/131071: type ib ibdev mlx5_1\n"
		 "pending until a reset: 1 entry of %s (dl apply --reload %s, or dl dev reload)\n"
		 "done: reload pci/0000:03:00.0 (fw_activate)\n"
		 "pci/0000:01:00.0/1: type eth netdev ens4\n"
		 "pci/0000:01:00.0/2: type ib ibdev mlx4_0\n"
		 "pci/0000:03:00.0/65535: type ib ibdev mlx5_0\n"
		 "pci/0000:03:00.1/131071: type ib ibdev mlx5_1\n"
		 "nothing to do: the devices are as %s says\n",
		 conf, conf, conf, conf, conf, conf, conf, conf, conf);
	cr_expect_str_eq(r.out, want);
	cr_expect(strstr(r.err, "pending until a reset of pci/0000:03:00.0: type ib"), "%s", r.err);
	run_free(&r);
	unlink(conf);
	free(conf);
}
