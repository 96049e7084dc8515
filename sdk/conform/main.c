/* SPDX-License-Identifier: MIT */
/* dlhal-conform: run the conformance kit against a driver module and a profile. */
#include <dlhal/conform.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fputs("Usage: dlhal-conform --profile PROFILE [--module MODULE.so] [--dlhald PATH]\n"
	      "                     [--cycles N] [--format tap|criterion]\n"
	      "       dlhal-conform --kernel DEV [--steps N] [--seed S] [--format tap|criterion]\n"
	      "Checks that a dlhal driver behaves as devlink requires; exit 1 if a check fails.\n"
	      "  -p, --profile PROFILE  board profile of the device under test (file or name)\n"
	      "  -m, --module FILE      driver module to load (else found by the profile's driver name)\n"
	      "  -d, --dlhald PATH      run the driver inside this dlhald instead of in this process\n"
	      "  -c, --cycles N         split/unsplit cycles of the cycle check (default 20)\n"
	      "  -k, --kernel DEV       a kernel device instead: recognised by a vendor's rules, and each of\n"
	      "                         N random splits and unsplits as planned (it changes the device)\n"
	      "  -n, --steps N          changes of --kernel (default 200)\n"
	      "  -s, --seed S           seed of their random choice (default 1): the same seed, the same run\n"
	      "  -f, --format FORMAT    tap (default) or criterion\n"
	      "  -h, --help             this text\n",
	      f);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"profile", required_argument, NULL, 'p'}, {"module", required_argument, NULL, 'm'},
	    {"dlhald", required_argument, NULL, 'd'},  {"cycles", required_argument, NULL, 'c'},
	    {"kernel", required_argument, NULL, 'k'},  {"steps", required_argument, NULL, 'n'},
	    {"seed", required_argument, NULL, 's'},    {"format", required_argument, NULL, 'f'},
	    {"help", no_argument, NULL, 'h'},	       {NULL, 0, NULL, 0},
	};
	struct dlh_conform_opts o = {0};
	struct dlh_extack ext;
	char *end;
	long v;
	int c, err;

	while ((c = getopt_long(argc, argv, "p:m:d:c:k:n:s:f:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			o.profile = optarg;
			break;
		case 'm':
			o.module = optarg;
			break;
		case 'd':
			o.dlhald = optarg;
			break;
		case 'c':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || v < 1 || v > 100000) {
				fprintf(stderr, "dlhal-conform: --cycles \"%s\": expected 1 to 100000\n", optarg);
				return 2;
			}
			o.cycles = (unsigned int)v;
			break;
		case 'k':
			o.kernel_dev = optarg;
			break;
		case 'n':
		case 's':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || v < 1 || v > (c == 'n' ? 100000 : 2147483647L)) {
				fprintf(stderr, "dlhal-conform: --%s \"%s\": expected 1 to %ld\n",
					c == 'n' ? "steps" : "seed", optarg, c == 'n' ? 100000L : 2147483647L);
				return 2;
			}
			*(c == 'n' ? &o.steps : &o.seed) = (unsigned int)v;
			break;
		case 'f':
			if (!strcmp(optarg, "tap"))
				o.format = DLH_CONFORM_TAP;
			else if (!strcmp(optarg, "criterion"))
				o.format = DLH_CONFORM_CRITERION;
			else {
				fprintf(stderr, "dlhal-conform: --format \"%s\": expected tap or criterion\n", optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!o.profile == !o.kernel_dev || optind != argc) {
		usage(stderr);
		return 2;
	}
	err = dlh_conform_run(&o, NULL, &ext);
	if (err < 0) {
		char buf[1024];

		fprintf(stderr, "dlhal-conform: %s\n", dlh_extack_str(&ext, buf, sizeof(buf)));
		return 2;
	}
	return err;
}
