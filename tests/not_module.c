/* SPDX-License-Identifier: MIT */
/* A shared object that is not a dlhal module. */
int not_a_driver(void);

int not_a_driver(void)
{
	return 42;
}
