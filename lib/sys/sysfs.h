/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sysfs: small-file reads and writes under the sysfs root. The root is
 * /sys, or $WAKEBENCH_SYSFS when set: tests point it at a fake tree, so
 * everything that reads or changes CPU idle settings runs the same code
 * on a synthetic machine.
 */
#ifndef WB_SYSFS_H
#define WB_SYSFS_H

#include <stddef.h>
#include <stdint.h>

/* "/sys" or $WAKEBENCH_SYSFS. */
const char *sysfs_root(void);
/* 1 when the root is the real /sys. */
int sysfs_is_real(void);
/*
 * Read the file at root/rel (printf-style) into buf, trailing newline
 * stripped. Returns the length or -errno.
 */
__attribute__((format(printf, 3, 4)))
int sysfs_read(char *buf, size_t len, const char *fmt, ...);
__attribute__((format(printf, 2, 3)))
int sysfs_read_u64(uint64_t *v, const char *fmt, ...);
/* Write val to root/rel; 0 or -errno. */
__attribute__((format(printf, 2, 3)))
int sysfs_write(const char *val, const char *fmt, ...);
/*
 * The kernel's sysctls: /proc/sys, or $WAKEBENCH_PROCSYS when set (a
 * fake tree, as $WAKEBENCH_SYSFS for /sys). REL is "net/core/busy_read".
 */
const char *procsys_root(void);
/* 1 when the root is the real /proc/sys. */
int procsys_is_real(void);
/* As sysfs_read and sysfs_write, under the sysctl root. */
int procsys_read(char *buf, size_t len, const char *rel);
int procsys_write(const char *val, const char *rel);
/* Read any file (not under the root) the same way. */
int file_read(const char *path, char *buf, size_t len);

#endif
