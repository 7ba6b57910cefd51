/* SPDX-License-Identifier: MIT */
#pragma once

/* Shared by the readers: open flags and reusable read buffers. */

#include <fcntl.h>
#include <stddef.h>

#include "cgfs.h"

#define CGOOM_CGROUP2_MAGIC 0x63677270
#define CGOOM_PROC_MAGIC 0x9fa0
#define CGOOM_CGROUP1_MAGIC 0x27e0eb
#define CGOOM_TMPFS_MAGIC 0x01021994

#define DIR_FLAGS CGFS_DIR_FLAGS
#define FILE_FLAGS CGFS_FILE_FLAGS

#include <stdbool.h>

/* cgoom needs the unified hierarchy (SPEC 6 "Hosts"). A cgroup root of
 * filesystem type f_type is refused (-EMEDIUMTYPE, the reason and how to
 * boot with cgroup v2 in err) when it is a cgroup v1 hierarchy, or when
 * it is the host's /sys/fs/cgroup (is_host_mount) and not cgroup2 (a
 * tmpfs of v1 mounts: legacy or hybrid). Any other directory is a
 * fixture and passes. cgoom_roots_open() applies it, so every verb and
 * the daemon do. */
int cgoom_roots_check_v2(const char *path, unsigned long f_type, bool is_host_mount, char *err,
			 size_t errcap);
