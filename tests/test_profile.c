/* SPDX-License-Identifier: MIT */
/* Board profiles: a malformed one is refused with its file, the field and the reason. */
#include "helpers.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct bad {
	const char *json;
	int err;
	const char *msg;
};

#define SW(hw)	       "{\"driver\": \"mlxsw\", \"handle\": \"pci/0000:03:00.0\", \"hw\": " hw "}"
#define P(lp, m, w)    "{\"local_port\": " #lp ", \"module\": " #m ", \"width\": " #w "}"
#define HCA(hw)	       "{\"driver\": \"mlx4\", \"handle\": \"pci/0000:01:00.0\", \"hw\": " hw "}"
#define HP(sup, t, nd) "{\"supported\": " sup ", \"type\": \"" t "\", \"netdev\": \"" nd "\"}"
/* a Spectrum of two ports (numbers 17 and 1: modules 16 and 0) with faceplate @fp */
#define FP(fp)                                                                                               \
	"{\"driver\": \"mlxsw\", \"handle\": \"pci/0000:03:00.0\", \"hw\": {\"ports\": [" P(1, 16, 4) "," P( \
	    3, 0, 4) "]}, \"faceplate\": " fp "}"
#define CAGE(n, r, c) "{\"number\": " #n ", \"row\": " #r ", \"col\": " #c "}"
/* an E810 card of two functions (100G on each quad: PF 0 on module 0, PF 1 on module 1) with faceplate @fp */
#define CARD(fp)                                                                                                      \
	"{\"driver\": \"ice\", \"handle\": \"pci/0000:16:00.0\", \"faceplate\": " fp ", \"hw\": {\"netdev_prefix\": " \
	"\"e\", \"options\": [{\"split\": 2, \"lanes\": [100, 0, 0, 0, 100, 0, 0, 0]}]}}"
#define MCAGE(n, m, c) "{\"number\": " #n ", \"module\": " #m ", \"row\": 0, \"col\": " #c "}"

static const struct bad cases[] = {
    {"{\"driver\": ", -EINVAL, ":1:"},
    {"[1, 2]", -EINVAL, "expected a JSON object"},
    {"{\"handle\": \"pci/x\"}", -EINVAL, "field \"driver\": expected a driver name"},
    {"{\"driver\": \"mlxsw\"}", -EINVAL, "field \"handle\": expected a string \"bus/dev\""},
    {"{\"driver\": \"mlxsw\", \"handle\": \"pci\", \"hw\": {}}", -EINVAL, "is not of the form bus/dev"},
    {"{\"driver\": \"mlxsw\", \"handle\": \"pci/a\", \"hw\": 3}", -EINVAL, "field \"hw\": expected an object"},
    {"{\"driver\": \"nosuch\", \"handle\": \"pci/a\"}", -ENOENT, "No driver \"nosuch\""},
    /* a name, not a path: it becomes NAME.so on the module path */
    {"{\"driver\": \"../../tmp/evil\", \"handle\": \"pci/a\"}", -EINVAL,
     "field \"driver\": expected a driver name (a-z, 0-9, '_', '-')"},
    {"{\"driver\": \"mlxsw\", \"handle\": \"pci/a\", \"driver\": \"mlx4\"}", -EINVAL, "duplicate object key"},
    {SW("{\"ports\": []}"), -EINVAL, "field \"hw.ports\": expected a non-empty array"},
    {SW("{\"ports\": [" P(0, 1, 4) "]}"), -EINVAL,
     "field \"hw.ports[0].local_port\": expected an integer from 1 to 64"},
    {SW("{\"ports\": [" P(1, 64, 4) "]}"), -EINVAL, "field \"hw.ports[0].module\": expected an integer from 0 to 63"},
    {SW("{\"ports\": [" P(1, 1, 4) "," P(5, 2, 3) "]}"), -EINVAL, "field \"hw.ports[1].width\": expected 1, 2 or 4"},
    {SW("{\"ports\": [" P(2, 1, 4) "]}"), -EINVAL, "field \"hw.ports[0].local_port\": a 4-lane port must be"},
    {SW("{\"ports\": [" P(1, 1, 4) "," P(3, 1, 4) "]}"), -EINVAL,
     "field \"hw.ports[1]\": local port 3 or lanes of module 1"},
    {SW("{\"ports\": [\"x\"]}"), -EINVAL, "field \"hw.ports[0]\": expected an object"},
    /* the later generations (issue 43): hw.asic, 8-lane modules, local ports a split takes, a cage's speed */
    {SW("{\"asic\": \"spectrum5\", \"ports\": [" P(1, 1, 4) "]}"), -EINVAL,
     "field \"hw.asic\": expected \"spectrum\", \"spectrum2\", \"spectrum3\" or \"spectrum4\""},
    {SW("{\"asic\": 2, \"ports\": [" P(1, 1, 4) "]}"), -EINVAL, "field \"hw.asic\": expected"},
    {SW("{\"ports\": [" P(1, 1, 8) "]}"), -EINVAL, "field \"hw.ports[0].width\": expected 1, 2 or 4"},
    {SW("{\"asic\": \"spectrum3\", \"ports\": [" P(1, 1, 8) "," P(5, 2, 4) "]}"), -EINVAL,
     "field \"hw.ports[0]\": its split into 8 would take local port 5, another module's"},
    {SW("{\"asic\": \"spectrum3\", \"ports\": [" P(1, 1, 6) "]}"), -EINVAL,
     "field \"hw.ports[0].width\": expected 1, 2, 4 or 8"},
    {SW("{\"asic\": \"spectrum4\", \"ports\": [" P(1020, 1, 8) "]}"), -EINVAL,
     "field \"hw.ports[0]\": no local ports for a split into 8"},
    {SW("{\"asic\": \"spectrum4\", \"ports\": [" P(1, 128, 8) "]}"), -EINVAL,
     "field \"hw.ports[0].module\": expected an integer from 0 to 127"},
    {SW("{\"asic\": \"spectrum4\", \"ports\": [{\"local_port\": 1, \"module\": 0, \"width\": 1, \"lane_speed\": 5}]}"),
     -EINVAL, "field \"hw.ports[0].lane_speed\": expected an integer from 1000 to 400000"},
    {SW("{\"netdev\": \"swp\", \"ports\": [" P(1, 1, 4) "]}"), -EINVAL,
     "field \"hw.netdev\": expected a pattern with %d"},
    {SW("{\"fail_nth\": -1, \"ports\": [" P(1, 1, 4) "]}"), -EINVAL, "field \"hw.fail_nth\""},
    /* hw.mgir: what the ASIC says of itself (dl dev info) */
    {SW("{\"mgir\": {\"hw_revision\": 161, \"psid\": \"MT_1\"}, \"ports\": [" P(1, 1, 4) "]}"), -EINVAL,
     "field \"hw.mgir\": expected {\"hw_revision\": 0 to 65535, \"psid\""},
    {SW("{\"mgir\": {\"hw_revision\": 65536, \"psid\": \"MT_1\", \"fw_version\": \"1.2.3\"}, \"ports\": [" P(1, 1,
													     4) "]}"),
     -EINVAL, "field \"hw.mgir\": expected"},
    {SW("{\"mgir\": {\"hw_revision\": 1, \"psid\": \"MT_12345678901234\", \"fw_version\": \"1.2.3\"}, "
	"\"ports\": [" P(1, 1, 4) "]}"),
     -EINVAL, "field \"hw.mgir.psid\": expected 1 to 16 characters"},
    {SW("{\"mgir\": {\"hw_revision\": 1, \"psid\": \"MT\\u0000X\", \"fw_version\": \"1.2.3\"}, \"ports\": [" P(1, 1,
													       4) "]}"),
     -EINVAL, "\\u0000 is not allowed"},
    {SW("{\"mgir\": {\"hw_revision\": 1, \"psid\": \"MT_1\", \"fw_version\": \"13.2010\"}, \"ports\": [" P(1, 1,
													   4) "]}"),
     -EINVAL, "field \"hw.mgir.fw_version\": expected \"major.minor.subminor\""},
    {SW("{\"mgir\": {\"hw_revision\": 1, \"psid\": \"MT_1\", \"fw_version\": \"1.2.70000\"}, \"ports\": [" P(1, 1,
													     4) "]}"),
     -EINVAL, "field \"hw.mgir.fw_version\""},
    {"{\"driver\": \"mlxsw\", \"handle\": \"pci/a\"}", -EINVAL, "field \"hw\": missing"},
    {HCA("{\"ports\": [" HP("[\"eth\"]", "eth", "a") "]}"), -EINVAL, "field \"hw.ibdev\""},
    {HCA("{\"ibdev\": \"m\", \"dpdp\": 1, \"ports\": []}"), -EINVAL, "field \"hw.dpdp\": expected true or false"},
    {HCA("{\"ibdev\": \"m\", \"ports\": []}"), -EINVAL, "field \"hw.ports\": expected an array of 1 or 2 ports"},
    {HCA("{\"ibdev\": \"m\", \"ports\": [" HP("[\"eth\", \"fc\"]", "eth", "a") "]}"), -EINVAL,
     "field \"hw.ports[0].supported[1]\": expected \"eth\" or \"ib\""},
    {HCA("{\"ibdev\": \"m\", \"ports\": [" HP("[\"eth\"]", "ib", "a") "]}"), -EINVAL,
     "field \"hw.ports[0].type\": expected a supported type"},
    {HCA("{\"ibdev\": \"m\", \"ports\": [" HP("[\"eth\"]", "eth", "a-very-long-netdev") "]}"), -EINVAL,
     "field \"hw.ports[0].netdev\""},
    {HCA("{\"ibdev\": \"m\", \"ports\": [{\"supported\": [\"ib\"], \"type\": \"ib\", \"netdev\": \"a\", \"cable\": "
	 "\"fc\"}]}"),
     -EINVAL, "field \"hw.ports[0].cable\": expected \"eth\", \"ib\" or \"none\""},
    /* faceplates (dl panel): refused whole, and the device with them */
    {FP("{\"form\": \"QSFP28\", \"cages\": [" CAGE(17, 0, 0) "," CAGE(1, 0, 0) "]}"), -EINVAL,
     "field \"faceplate\": Faceplate: cages 17 and 1 at the same place (row 0, column 0)"},
    {FP("{\"form\": \"QSFP28\", \"cages\": [" CAGE(17, 0, 0) "," CAGE(2, 0, 1) "]}"), -EINVAL,
     "field \"faceplate.cages[1].number\": no port of pci/0000:03:00.0 has number 2"},
    {FP("{\"form\": \"QSFP28\", \"cages\": [" CAGE(17, 0, 0) "," CAGE(17, 1, 0) "]}"), -EINVAL,
     "Faceplate: cage 17 twice"},
    {FP("{\"form\": \"QSFP28\", \"cages\": [" CAGE(17, -1, 0) "]}"), -EINVAL,
     "field \"faceplate.cages[0]\": expected {\"number\": 0 to 4294967295, \"row\": 0 to 63"},
    {FP("{\"form\": \"QSFP28\", \"cages\": [{\"number\": 17, \"row\": 0, \"col\": 0, \"colour\": 1}]}"), -EINVAL,
     "field \"faceplate.cages[0]\": expected"},
    {FP("{\"cages\": [" CAGE(17, 0, 0) "]}"), -EINVAL,
     "field \"faceplate.cages[0]\": form and label are 1 to 15 characters (no form, and none for the faceplate)"},
    {FP("{\"form\": \"QSFP28\", \"cages\": []}"), -EINVAL, "field \"faceplate\": expected {\"form\": ..."},
    {FP("{\"form\": \"QSFP28\", \"rows\": 2, \"cages\": [" CAGE(17, 0, 0) "]}"), -EINVAL,
     "field \"faceplate.rows\": unknown"},
    {FP("{\"form\": \"QSFP28\", \"cages\": [" MCAGE(17, 5, 0) "]}"), -EINVAL,
     "field \"faceplate.cages[0].module\": no port of pci/0000:03:00.0 is on module 5"},
    {FP("{\"form\": \"QSFP28\", \"cages\": [{\"number\": 17, \"module\": -1, \"row\": 0, \"col\": 0}]}"), -EINVAL,
     "field \"faceplate.cages[0]\": expected {\"number\": 0 to 4294967295, \"row\": 0 to 63, \"col\": 0 to 63, "
     "\"form\", \"label\" and \"module\" optional}"},
    /* a card's: each port of its devices in a cage, no module twice; the card refused whole */
    {CARD("{\"form\": \"QSFP28\", \"cages\": [" MCAGE(0, 0, 0) "]}"), -EINVAL,
     "field \"faceplate\": no cage for module 1 (port pci/0000:16:00.1/0)"},
    {CARD("{\"form\": \"QSFP28\", \"cages\": [" MCAGE(0, 0, 0) "," MCAGE(1, 0, 1) "]}"), -EINVAL,
     "field \"faceplate\": Faceplate: cages 0 and 1 on one module 0"},
    {CARD("{\"form\": \"QSFP28\", \"cages\": [" MCAGE(0, 0, 0) "," MCAGE(1, 1, 0) "]}"), -EINVAL,
     "field \"faceplate\": Faceplate: cages 0 and 1 at the same place (row 0, column 0)"},
};

Test(profile, malformed_profiles_name_file_field_and_reason)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dlh_ctx *ctx = ctx_with("");
		char *path = profile_tmp(cases[i].json);
		struct dlh_extack ext;
		int err = dlh_ctx_sim_load(ctx, path, &ext);

		cr_expect_eq(err, cases[i].err, "case %zu: %d %s", i, err, ext.msg);
		cr_expect_not_null(strstr(ext.msg, path), "case %zu names the file: %s", i, ext.msg);
		cr_expect_not_null(strstr(ext.msg, cases[i].msg), "case %zu: \"%s\" lacks \"%s\"", i, ext.msg,
				   cases[i].msg);
		cr_expect_null(dlh_dev_first(ctx), "case %zu: nothing left behind", i);
		unlink(path);
		free(path);
		dlh_ctx_free(ctx);
	}
}

/* A card refused for its faceplate is gone whole: the same card with a good one is the context's first. */
Test(profile, a_card_refused_for_its_faceplate_leaves_room_for_it)
{
	struct dlh_ctx *ctx = ctx_with("");
	char *path = profile_tmp(CARD("{\"form\": \"QSFP28\", \"cages\": [" MCAGE(0, 0, 0) "]}"));
	struct dlh_extack ext;
	const struct dlh_cage *c;

	cr_expect_eq(dlh_ctx_sim_load(ctx, path, &ext), -EINVAL);
	unlink(path);
	free(path);
	path = profile_tmp(CARD("{\"form\": \"QSFP28\", \"cages\": [" MCAGE(0, 0, 0) "," MCAGE(1, 1, 1) "]}"));
	cr_assert_eq(dlh_ctx_sim_load(ctx, path, &ext), 0, "%s", ext.msg);
	for (struct dlh_dev *d = dlh_dev_first(ctx); d; d = dlh_dev_next(d)) {
		cr_expect_str_eq(dlh_dev_card(d), "pci/0000:16:00.0");
		cr_expect_eq(dlh_dev_cages(d, &c), 2);
		cr_expect(c[1].has_module && c[1].module == 1);
	}
	unlink(path);
	free(path);
	dlh_ctx_free(ctx);
}

Test(profile, missing_file)
{
	struct dlh_ctx *ctx = ctx_with("");
	struct dlh_extack ext;

	cr_expect_eq(dlh_ctx_sim_load(ctx, "/nonexistent/board.json", &ext), -ENOENT);
	cr_expect_not_null(strstr(ext.msg, "/nonexistent/board.json"), "%s", ext.msg);
	dlh_ctx_free(ctx);
}

Test(profile, search_path_before_built_ins)
{
	char dir[] = "/tmp/dlhal-profiles-XXXXXX", path[64];
	struct dlh_ctx *ctx;
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sn2700.json", dir);
	f = fopen(path, "w");
	fputs(SW("{\"ports\": [" P(1, 16, 4) "]}"), f);
	fclose(f);
	setenv("DLHAL_PROFILE_PATH", dir, 1);
	ctx = ctx_with("sn2700");
	cr_expect_eq(dlh_dev_port_count(dlh_dev_first(ctx)), 1, "the file on the path wins");
	dlh_ctx_free(ctx);
	unsetenv("DLHAL_PROFILE_PATH");
	unlink(path);
	rmdir(dir);
}

Test(profile, same_device_twice_and_name_clashes)
{
	struct dlh_ctx *ctx = ctx_with("sn2700");
	struct dlh_extack ext;
	char *path;

	cr_expect_eq(dlh_ctx_sim_load(ctx, "sn2700", &ext), -EEXIST);
	cr_expect_str_eq(ext.obj, "pci/0000:03:00.0");
	cr_expect_not_null(strstr(ext.msg, "Device already exists"));
	cr_expect_eq(dlh_dev_port_count(dlh_dev_first(ctx)), 32, "the first device is untouched");
	/* A ConnectX-3 whose port wants a netdev name the switch already uses. */
	path = profile_tmp(HCA("{\"ibdev\": \"m\", \"ports\": [" HP("[\"eth\"]", "eth", "eth0") "]}"));
	cr_expect_eq(dlh_ctx_sim_load(ctx, path, &ext), -EEXIST);
	cr_expect_not_null(strstr(ext.msg, "Netdev name \"eth0\" is in use by pci/0000:03:00.0/1"), "%s", ext.msg);
	cr_expect_null(dlh_dev_find(ctx, "pci/0000:01:00.0"));
	unlink(path);
	free(path);
	dlh_ctx_free(ctx);
}

Test(profile, built_in_names)
{
	const char *const *p = dlh_sim_profiles();

	cr_expect_str_eq(p[0], "sn2700");
	cr_expect_str_eq(p[1], "cx3-vpi");
	cr_expect_str_eq(p[2], "e810-cqda2");
	cr_expect_str_eq(p[3], "sn3700");
	cr_expect_str_eq(p[4], "sn4700");
	cr_expect_str_eq(p[5], "sn5600");
	cr_expect_str_eq(p[6], "cx6-vpi");
	cr_expect_null(p[7]);
}
