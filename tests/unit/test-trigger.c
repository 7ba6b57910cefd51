/* SPDX-License-Identifier: MIT */
#include "tap.h"

static void test_placeholder(void) { SKIP("not written yet"); }

int main(void)
{
	return tap_run((struct tap_test[]){ TAP(test_placeholder), { 0 } });
}
