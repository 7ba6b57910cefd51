/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cgoom/select.h"
#include "cgoom/types.h"

static const char *const pref_names[] = { "omit", "avoid", "none", "prefer" };
static const char *const source_names[] = {
	[CGOOM_SRC_DEFAULT] = "default",
	[CGOOM_SRC_TRUSTED_XATTR] = "trusted.cgoom xattr",
	[CGOOM_SRC_CONFIG] = "config",
	[CGOOM_SRC_SYSTEMD] = "systemd user.oomd_* xattr",
	[CGOOM_SRC_USER_XATTR] = "user.cgoom xattr (delegated)",
};

#define NAME_OF(table, i) ((unsigned)(i) < sizeof(table) / sizeof((table)[0]) ? (table)[i] : NULL)

const char *cgoom_policy_name(enum cgoom_policy p)
{
	const struct cgoom_policy_ops *ops = cgoom_policy_ops(p);
	return ops ? ops->name : NULL;
}

const char *cgoom_policy_name_list(void)
{
	static char list[128];
	if (!list[0]) {
		size_t n = 0;
		for (int p = 0; p < CGOOM_POLICY_MAX; p++)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s",
					      p == 0 ? "" : p + 1 == CGOOM_POLICY_MAX ? " or " : ", ",
					      cgoom_policy_name((enum cgoom_policy)p));
	}
	return list;
}

const char *cgoom_pref_name(enum cgoom_pref p)
{
	return NAME_OF(pref_names, p);
}

const char *cgoom_source_name(enum cgoom_source s)
{
	return NAME_OF(source_names, s);
}

/* Index of buf (minus one trailing '\n' or NUL) in table, or -EINVAL. */
static int lookup(const char *const *table, size_t n, const char *buf, size_t len)
{
	if (!buf)
		return -EINVAL;
	if (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\0'))
		len--;
	for (size_t i = 0; i < n; i++)
		if (strlen(table[i]) == len && memcmp(table[i], buf, len) == 0)
			return (int)i;
	return -EINVAL;
}

int cgoom_policy_from_string(const char *buf, size_t len, enum cgoom_policy *ret)
{
	if (!buf)
		return -EINVAL;
	if (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\0'))
		len--;
	for (int p = 0; p < CGOOM_POLICY_MAX; p++) {
		const char *name = cgoom_policy_name((enum cgoom_policy)p);
		if (strlen(name) == len && memcmp(name, buf, len) == 0) {
			*ret = (enum cgoom_policy)p;
			return 0;
		}
	}
	return -EINVAL;
}

int cgoom_pref_from_string(const char *buf, size_t len, enum cgoom_pref *ret)
{
	int r = lookup(pref_names, sizeof(pref_names) / sizeof(pref_names[0]), buf, len);
	if (r < 0)
		return r;
	*ret = (enum cgoom_pref)r;
	return 0;
}
