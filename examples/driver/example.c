/* SPDX-License-Identifier: MIT */
/*
 * A minimal out-of-tree dlhal driver: a NIC with a configurable number of
 * Ethernet ports that only ever runs Ethernet. Build it against an installed
 * dlhal with the Makefile beside it, then point a profile at it:
 *
 *   {"driver": "example", "handle": "pci/0000:05:00.0", "hw": {"ports": 2}}
 *
 *   DLHAL_MODULE_PATH=. dl --sim ./example.json port
 */
#include <dlhal/sdk.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct example_priv {
	unsigned int nports;
};

static int example_probe(struct dlh_dev *dev, const char *config, struct dlh_extack *ext)
{
	struct example_priv *priv = dlh_sdk_dev_priv(dev);
	const char *n = config ? strstr(config, "\"ports\":") : NULL;
	struct dlh_port *port;
	int err;

	/* A real driver would parse its profile with a JSON library. */
	priv->nports = n ? (unsigned int)strtoul(n + 8, NULL, 10) : 0;
	if (priv->nports < 1 || priv->nports > 8)
		return dlh_sdk_extack(ext, -EINVAL, "field \"hw.ports\": expected 1 to 8");
	for (unsigned int i = 0; i < priv->nports; i++) {
		struct dlh_sdk_port_attrs attrs = {.flavour = DLH_PORT_FLAVOUR_PHYSICAL, .number = i + 1};

		err = dlh_sdk_port_register(dev, i, &attrs, &port, ext);
		if (!err)
			err = dlh_sdk_port_type_eth(port, "enp5s0f%d", ext);
		if (err)
			return err; /* core removes the ports registered so far */
	}
	return 0;
}

static int example_port_type_set(struct dlh_port *port, enum dlh_port_type type, struct dlh_extack *ext)
{
	(void)port;
	if (type != DLH_PORT_TYPE_ETH)
		return dlh_sdk_extack(ext, -EOPNOTSUPP, "This NIC runs Ethernet only");
	return 0;
}

static const struct dlh_sdk_ops example_ops = {
    .probe = example_probe,
    .port_type_set = example_port_type_set,
};

static const struct dlh_sdk_driver example_driver = {
    DLH_SDK_DRIVER_INIT("example", &example_ops),
    .dev_priv_size = sizeof(struct example_priv),
};

DLH_SDK_MODULE(example_driver);
