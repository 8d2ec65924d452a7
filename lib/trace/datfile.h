/* SPDX-License-Identifier: GPL-2.0 */
/*
 * datfile: trace-cmd's data file (trace.dat, what trace-cmd report and
 * KernelShark open), version 6, written and read by wakebench's own code.
 *
 * The layout (trace-cmd.dat.v6(5)): magic, "6", endianness, long size,
 * page size; header_page and header_event; the ftrace formats, then the
 * other events' formats by system; kallsyms and printk formats (written
 * empty); saved_cmdlines; the CPU count; options (the trace clock);
 * "flyrecord" and a table of each CPU's offset and size; then each CPU's
 * ring-buffer pages, page-aligned, exactly as the kernel wrote them: the
 * pages wakebench's own decoder reads (lib/tracefile).
 *
 * A CPU left out of a recording has offset 0 and size 0; a CPU recorded
 * without events has its offset set and size 0. Files of version 7
 * (trace-cmd's default) are read when their sections are not compressed.
 */
#ifndef WB_DATFILE_H
#define WB_DATFILE_H

#include <stddef.h>
#include <stdint.h>

#define DATFILE_MAX_CPUS 8192
#define DATFILE_MAX_FORMATS 4096

struct datfile_fmt {
	char sys[64], name[64];
	char *text;
	size_t len;
};

/* What a trace.dat holds besides its pages. */
struct datfile_hdr {
	uint32_t page_size;	/* the ring buffer's sub-buffer size */
	uint32_t ncpus;
	char clock[16];		/* "" when the file names none */
	char *header_page, *header_event, *cmdlines;
	size_t header_page_len, header_event_len, cmdlines_len;
	struct datfile_fmt *fmts;
	size_t nfmts;
};

/*
 * Fills h's formats from a directory laid out as tracefs' events/ or an
 * older trace's formats/ (header_page, header_event when there,
 * SYS/EVENT/format), only the events named "SYS:NAME" in only (NULL-
 * terminated; NULL: all), and cmdlines from file cmdlines (NULL or
 * missing: none). Each text at most 1 MiB. Returns 0 or -errno with a
 * message in err.
 */
int datfile_hdr_load(struct datfile_hdr *h, const char *formats_dir,
		     const char *cmdlines, const char *const *only, char *err,
		     size_t errlen);
/* The sub-buffer size h's header_page declares, or 0. */
int datfile_hdr_subbuf(const struct datfile_hdr *h);
void datfile_hdr_free(struct datfile_hdr *h);
/* h's format of SYS/NAME, or NULL. */
const struct datfile_fmt *datfile_hdr_find(const struct datfile_hdr *h,
					   const char *sys, const char *name);

/*
 * Writing to fd (positioned at 0): datfile_write_header writes everything
 * up to the CPU table (left zero, its offset in *table) and pads to the
 * page size; datfile_append_cpu copies len bytes of src_fd from where it
 * stands (UINT64_MAX: up to its end; src_fd -1: a CPU not recorded) to
 * the end and gives their offset and size; datfile_write_table
 * fills the table. Each returns 0 or -errno with a message in err naming
 * name (the file being written).
 */
int datfile_write_header(int fd, const struct datfile_hdr *h, uint64_t *table,
			 const char *name, char *err, size_t errlen);
int datfile_append_cpu(int fd, int src_fd, uint64_t len, uint64_t *off,
		       uint64_t *size, const char *name, char *err, size_t errlen);
int datfile_write_table(int fd, uint64_t table, uint32_t ncpus,
			const uint64_t *off, const uint64_t *size,
			const char *name, char *err, size_t errlen);

/*
 * The three steps for CPUs whose pages are in files: cpu_fds[cpu] (-1: not
 * recorded), h->ncpus of them, cpu_lens[cpu] bytes of each (cpu_lens
 * NULL: up to its end) read from where they stand.
 */
int datfile_write(int fd, const struct datfile_hdr *h, const int *cpu_fds,
		  const uint64_t *cpu_lens, const char *name, char *err,
		  size_t errlen);

/* A file read: its header and each CPU's offset and size of pages. */
struct datfile {
	struct datfile_hdr h;
	uint32_t version, long_size;
	uint64_t file_size;
	uint64_t *off, *size;	/* per CPU */
};

/*
 * Reads path's header and CPU table, every length checked against the
 * file (a truncated or corrupt file names the byte). The pages are not
 * read. Returns 0 or -errno with a message in err.
 */
int datfile_open(const char *path, struct datfile *d, char *err,
		 size_t errlen);
void datfile_free(struct datfile *d);

#endif
