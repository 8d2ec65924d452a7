// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>

#include "datfile.h"
#include "errmsg.h"
#include "rfile.h"
#include "wfile.h"

#define TEXT_MAX (1u << 20)		/* a format, header_page, header_event */
#define CMDLINES_MAX (16u << 20)	/* saved_cmdlines */
#define SYSTEMS_MAX 4096

static const char magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

/* trace-cmd's option ids (trace-cmd-private.h: enum tracecmd_option_id) */
#define OPT_DONE 0
#define OPT_BUFFER 3
#define OPT_TRACECLOCK 4
#define OPT_HEADER_INFO 16
#define OPT_FTRACE_EVENTS 17
#define OPT_EVENT_FORMATS 18

/* A message, and -EINVAL: a file that is not what it says. */
#define fail(err, len, ...) (errmsg_set(err, len, __VA_ARGS__), -EINVAL)

/* ---- formats ---------------------------------------------------------- */

/* The "name: X" line of a format text into out; -1 without one. */
static int format_name(const char *text, size_t len, char *out, size_t outlen)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		if (n > 6 && !strncmp(p, "name: ", 6)) {
			if (n - 6 >= outlen || n == 6)
				return -1;
			memcpy(out, p + 6, n - 6);
			out[n - 6] = '\0';
			return 0;
		}
		p = nl ? nl + 1 : end;
	}
	return -1;
}

static int add_fmt(struct datfile_hdr *h, const char *sys, char *text,
		   size_t len, char *err, size_t errlen)
{
	struct datfile_fmt *f;

	if (h->nfmts == DATFILE_MAX_FORMATS) {
		free(text);
		return fail(err, errlen, "more than %d event formats", DATFILE_MAX_FORMATS);
	}
	if (!(h->nfmts & (h->nfmts - 1)) || !h->fmts) {
		size_t cap = h->nfmts ? h->nfmts * 2 : 16;
		void *p = realloc(h->fmts, cap * sizeof(*h->fmts));

		if (!p) {
			free(text);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		h->fmts = p;
	}
	f = &h->fmts[h->nfmts++];
	memset(f, 0, sizeof(*f));
	snprintf(f->sys, sizeof(f->sys), "%s", sys);
	f->text = text;
	f->len = len;
	if (format_name(text, len, f->name, sizeof(f->name)))
		f->name[0] = '\0';	/* unnamed: never found, still written */
	return 0;
}

int datfile_hdr_subbuf(const struct datfile_hdr *h)
{
	struct tep_handle *tep = tep_alloc();
	int size = 0;

	if (!tep || !h->header_page)
		goto out;
	if (!tep_parse_header_page(tep, h->header_page,
				   (unsigned long)h->header_page_len, (int)sizeof(long)))
		size = tep_get_sub_buffer_size(tep);
out:
	if (tep)
		tep_free(tep);
	return size > 0 ? size : 0;
}

const struct datfile_fmt *datfile_hdr_find(const struct datfile_hdr *h,
					   const char *sys, const char *name)
{
	for (size_t i = 0; i < h->nfmts; i++)
		if (!strcmp(h->fmts[i].sys, sys) && !strcmp(h->fmts[i].name, name))
			return &h->fmts[i];
	return NULL;
}

void datfile_hdr_free(struct datfile_hdr *h)
{
	for (size_t i = 0; i < h->nfmts; i++)
		free(h->fmts[i].text);
	free(h->fmts);
	free(h->header_page);
	free(h->header_event);
	free(h->cmdlines);
	memset(h, 0, sizeof(*h));
}

/*
 * A text file read to its end, at most max bytes: tracefs' files say 0
 * bytes in stat (rfile_slurp reads what stat says), a trace's copies the
 * truth. NUL-terminated. 0 or -errno with a message in err.
 */
static int slurp(const char *path, size_t max, char **buf, size_t *len,
		 char *err, size_t errlen)
{
	int fd = rfile_open(path, err, errlen);
	size_t cap = 4096, n = 0;
	char *b = NULL;
	ssize_t got;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return fd == -EISDIR ? -EINVAL : fd;
	for (;;) {
		char *p = n + 1 >= cap || !b ? realloc(b, cap *= 2) : b;

		if (!p) {
			free(b);
			close(fd);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		b = p;
		got = rfile_read_full(fd, b + n, cap - n - 1);
		if (got <= 0)
			break;
		n += (size_t)got;
		if (n > max) {
			got = -EFBIG;
			break;
		}
	}
	close(fd);
	if (got < 0) {
		snprintf(err, errlen, "%s: %s", path, got == -EFBIG ?
			 "larger than a format may be" : strerror((int)-got));
		free(b);
		return (int)got;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

/* 1 when SYS:NAME is in only (NULL-terminated; NULL: every event). */
static int wanted(const char *const *only, const char *sys, const char *name)
{
	size_t n = strlen(sys);

	for (; only && *only; only++)
		if (!strncmp(*only, sys, n) && (*only)[n] == ':' &&
		    !strcmp(*only + n + 1, name))
			return 1;
	return !only;
}

/* A system's events, in name order (the file is the same each time). */
static int load_system(struct datfile_hdr *h, const char *dir, const char *sys,
		       const char *const *only, char *err, size_t errlen)
{
	char path[4096];
	struct dirent **ev;
	int n, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, sys);
	n = scandir(path, &ev, NULL, alphasort);
	if (n < 0)
		return 0;	/* not a system directory */
	for (int i = 0; i < n; i++) {
		char *text;
		size_t len;

		if (!ret && ev[i]->d_name[0] != '.' && strlen(ev[i]->d_name) < 64 &&
		    wanted(only, sys, ev[i]->d_name)) {
			snprintf(path, sizeof(path), "%s/%s/%s/format", dir, sys,
				 ev[i]->d_name);
			if (!slurp(path, TEXT_MAX, &text, &len, err, errlen) &&
			    !(ret = add_fmt(h, sys, text, len, err, errlen)) &&
			    strcmp(h->fmts[h->nfmts - 1].name, ev[i]->d_name))
				/* it would be found under another name */
				ret = fail(err, errlen, "%s: names the event '%s', not %s",
					   path, h->fmts[h->nfmts - 1].name, ev[i]->d_name);
		}
		free(ev[i]);
	}
	free(ev);
	return ret;
}

int datfile_hdr_load(struct datfile_hdr *h, const char *formats_dir,
		     const char *cmdlines, const char *const *only, char *err,
		     size_t errlen)
{
	char path[4096];
	struct dirent **se;
	int n, ret;

	snprintf(path, sizeof(path), "%s/header_page", formats_dir);
	ret = slurp(path, TEXT_MAX, &h->header_page, &h->header_page_len,
			  err, errlen);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/header_event", formats_dir);
	if (slurp(path, TEXT_MAX, &h->header_event, &h->header_event_len,
			err, errlen)) {
		h->header_event = NULL;	/* older traces have none */
		h->header_event_len = 0;
	}
	if (cmdlines && slurp(cmdlines, CMDLINES_MAX, &h->cmdlines,
				    &h->cmdlines_len, err, errlen)) {
		h->cmdlines = NULL;
		h->cmdlines_len = 0;
	}
	n = scandir(formats_dir, &se, NULL, alphasort);
	if (n < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", formats_dir, strerror(errno));
		return ret;
	}
	for (int i = 0; i < n; i++) {
		if (!ret && se[i]->d_name[0] != '.' && strlen(se[i]->d_name) < 64)
			ret = load_system(h, formats_dir, se[i]->d_name, only, err,
					  errlen);
		free(se[i]);
	}
	free(se);
	return ret;
}

/* ---- writing ------------------------------------------------------------ */

/* The header in memory, written by one checked write. */
struct obuf {
	char *p;
	size_t len, cap;
	int oom;
};

static void put(struct obuf *b, const void *data, size_t len)
{
	/* nothing to add (an empty section, whose data may be NULL) */
	if (b->oom || !len)
		return;
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 65536;
		char *p;

		while (cap < b->len + len)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->oom = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

/* Numbers in the file's byte order: little-endian, as this host's. */
static void put2(struct obuf *b, uint16_t v) { put(b, &v, 2); }
static void put4(struct obuf *b, uint32_t v) { put(b, &v, 4); }
static void put8(struct obuf *b, uint64_t v) { put(b, &v, 8); }

static void put_formats(struct obuf *b, const struct datfile_hdr *h)
{
	uint32_t nftrace = 0, nsys = 0;

	for (size_t i = 0; i < h->nfmts; i++)
		nftrace += !strcmp(h->fmts[i].sys, "ftrace");
	put4(b, nftrace);
	for (size_t i = 0; i < h->nfmts; i++) {
		if (strcmp(h->fmts[i].sys, "ftrace"))
			continue;
		put8(b, h->fmts[i].len);
		put(b, h->fmts[i].text, h->fmts[i].len);
	}
	/* the others by system: formats of one system are adjacent */
	for (size_t i = 0; i < h->nfmts; i++)
		nsys += strcmp(h->fmts[i].sys, "ftrace") &&
			(!i || strcmp(h->fmts[i].sys, h->fmts[i - 1].sys));
	put4(b, nsys);
	for (size_t i = 0, j; i < h->nfmts; i = j) {
		for (j = i + 1; j < h->nfmts && !strcmp(h->fmts[j].sys, h->fmts[i].sys); j++)
			;
		if (!strcmp(h->fmts[i].sys, "ftrace"))
			continue;
		put(b, h->fmts[i].sys, strlen(h->fmts[i].sys) + 1);
		put4(b, (uint32_t)(j - i));
		for (size_t k = i; k < j; k++) {
			put8(b, h->fmts[k].len);
			put(b, h->fmts[k].text, h->fmts[k].len);
		}
	}
}

int datfile_write_header(int fd, const struct datfile_hdr *h, uint64_t *table,
			 const char *name, char *err, size_t errlen)
{
	struct obuf b = { 0 };
	char clock[32];
	uint64_t pad;
	int ret;

	if (h->page_size < 64 || h->page_size > (16u << 20) || !h->ncpus ||
	    h->ncpus > DATFILE_MAX_CPUS)
		return fail(err, errlen, "%s: page size %u or %u CPUs out of range",
			    name, h->page_size, h->ncpus);
	put(&b, magic, sizeof(magic));
	put(&b, "6", 2);
	put(&b, "\0\010", 2);		/* little-endian, 8-byte longs */
	put4(&b, h->page_size);
	put(&b, "header_page", 12);
	put8(&b, h->header_page_len);
	put(&b, h->header_page, h->header_page_len);
	put(&b, "header_event", 13);
	put8(&b, h->header_event_len);
	put(&b, h->header_event, h->header_event_len);
	put_formats(&b, h);
	put4(&b, 0);			/* kallsyms: this machine's are not the trace's */
	put4(&b, 0);			/* printk formats */
	put8(&b, h->cmdlines_len);
	put(&b, h->cmdlines, h->cmdlines_len);
	put4(&b, h->ncpus);
	put(&b, "options  ", 10);
	if (h->clock[0]) {
		/* as the kernel's trace_clock file shows the one in use */
		snprintf(clock, sizeof(clock), "[%s]", h->clock);
		put2(&b, OPT_TRACECLOCK);
		put4(&b, (uint32_t)strlen(clock) + 1);
		put(&b, clock, strlen(clock) + 1);
	}
	put2(&b, OPT_DONE);
	put(&b, "flyrecord", 10);
	*table = b.len;
	for (uint32_t i = 0; i < h->ncpus; i++) {
		put8(&b, 0);
		put8(&b, 0);
	}
	pad = (h->page_size - b.len % h->page_size) % h->page_size;
	for (; pad >= 8; pad -= 8)
		put8(&b, 0);
	put(&b, "\0\0\0\0\0\0\0", pad);
	if (b.oom) {
		free(b.p);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = wfile_write_all(fd, b.p, b.len);
	free(b.p);
	if (ret)
		snprintf(err, errlen, "%s: %s", name, strerror(-ret));
	return ret;
}

/*
 * The kernel copies (copy_file_range: no pass through user memory, a
 * reflink where the file system has them): a recording's pages are GBs.
 * 1 when done (to len or the end), 0 to copy by hand from *size on
 * (the file systems cannot), -errno.
 */
static int kernel_copy(int fd, int src_fd, uint64_t len, uint64_t *size)
{
	for (;;) {
		uint64_t want = len - *size < (1u << 30) ? len - *size : (1u << 30);
		ssize_t n;

		if (!want)
			return 1;
		n = copy_file_range(src_fd, NULL, fd, NULL, (size_t)want, 0);
		if (n == 0)
			return 1;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
			       errno == EOPNOTSUPP || errno == EBADF ? 0 : -errno;
		*size += (uint64_t)n;
	}
}

int datfile_append_cpu(int fd, int src_fd, uint64_t len, uint64_t *off,
		       uint64_t *size, const char *name, char *err, size_t errlen)
{
	off_t at = lseek(fd, 0, SEEK_END);
	static __thread char buf[1 << 16];
	ssize_t n = 0;
	int done;

	*size = 0;
	*off = 0;
	if (at < 0) {
		snprintf(err, errlen, "%s: %s", name, strerror(errno));
		return -errno;
	}
	if (src_fd < 0)
		return 0;	/* not recorded: offset 0 */
	*off = (uint64_t)at;
	done = kernel_copy(fd, src_fd, len, size);
	if (done < 0) {
		snprintf(err, errlen, "%s: %s", name, strerror(-done));
		return done;
	}
	while (!done && *size < len &&
	       (n = rfile_read_full(src_fd, buf, len - *size < sizeof(buf) ?
				    (size_t)(len - *size) : sizeof(buf))) > 0) {
		int ret = wfile_write_all(fd, buf, (size_t)n);

		if (ret) {
			snprintf(err, errlen, "%s: %s", name, strerror(-ret));
			return ret;
		}
		*size += (uint64_t)n;
	}
	if (*size < len && len != UINT64_MAX)
		return fail(err, errlen, "%s: a CPU's pages ended after %llu of %llu bytes",
			    name, (unsigned long long)*size, (unsigned long long)len);
	if (n < 0) {	/* the fallback's read */
		snprintf(err, errlen, "%s: reading a CPU's pages: %s", name,
			 strerror((int)-n));
		return (int)n;
	}
	return 0;
}

int datfile_write_table(int fd, uint64_t table, uint32_t ncpus,
			const uint64_t *off, const uint64_t *size,
			const char *name, char *err, size_t errlen)
{
	size_t len = (size_t)ncpus * 16;
	uint64_t *t = malloc(len);
	ssize_t n;

	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < ncpus; i++) {
		t[2 * i] = off[i];
		t[2 * i + 1] = size[i];
	}
	n = pwrite(fd, t, len, (off_t)table);
	free(t);
	if (n == (ssize_t)len)
		return 0;
	snprintf(err, errlen, "%s: %s", name, n < 0 ? strerror(errno) : "short write");
	return n < 0 ? -errno : -EIO;
}

int datfile_write(int fd, const struct datfile_hdr *h, const int *cpu_fds,
		  const uint64_t *cpu_lens, const char *name, char *err,
		  size_t errlen)
{
	uint64_t table, *off = calloc(h->ncpus ? h->ncpus : 1, 16);
	int ret;

	if (!off) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = datfile_write_header(fd, h, &table, name, err, errlen);
	for (uint32_t cpu = 0; !ret && cpu < h->ncpus; cpu++)
		ret = datfile_append_cpu(fd, cpu_fds[cpu],
					 cpu_lens ? cpu_lens[cpu] : UINT64_MAX, &off[cpu],
					 &off[h->ncpus + cpu], name, err, errlen);
	if (!ret)
		ret = datfile_write_table(fd, table, h->ncpus, off, off + h->ncpus,
					  name, err, errlen);
	free(off);
	return ret;
}

/* ---- reading ------------------------------------------------------------ */

/* The header is read through a window onto the file, every length checked
 * against the file's size before anything is allocated. */
struct rd {
	int fd;
	uint64_t pos, size;
	const char *path;
	char *err;
	size_t errlen;
};

static int rd_bytes(struct rd *r, void *out, uint64_t len, const char *what)
{
	ssize_t n;

	if (len > r->size || r->pos > r->size - len)
		return fail(r->err, r->errlen, "%s: %s at byte %llu runs past the end of the file (%llu bytes): truncated or corrupt",
			    r->path, what, (unsigned long long)r->pos,
			    (unsigned long long)r->size);
	n = pread(r->fd, out, (size_t)len, (off_t)r->pos);
	if (n != (ssize_t)len) {
		snprintf(r->err, r->errlen, "%s: %s", r->path,
			 n < 0 ? strerror(errno) : "short read");
		return n < 0 ? -errno : -EIO;
	}
	r->pos += len;
	return 0;
}

static int rd_skip(struct rd *r, uint64_t len, const char *what)
{
	if (len > r->size || r->pos > r->size - len)
		return fail(r->err, r->errlen, "%s: %s at byte %llu runs past the end of the file: truncated or corrupt",
			    r->path, what, (unsigned long long)r->pos);
	r->pos += len;
	return 0;
}

static int rd4(struct rd *r, uint32_t *v, const char *what) { return rd_bytes(r, v, 4, what); }
static int rd8(struct rd *r, uint64_t *v, const char *what) { return rd_bytes(r, v, 8, what); }

/* A NUL-terminated string of at most len - 1 characters. */
static int rd_str(struct rd *r, char *out, size_t len, const char *what)
{
	for (size_t i = 0; i < len; i++) {
		int ret = rd_bytes(r, &out[i], 1, what);

		if (ret)
			return ret;
		if (!out[i])
			return 0;
	}
	return fail(r->err, r->errlen, "%s: %s at byte %llu: longer than %zu characters",
		    r->path, what, (unsigned long long)r->pos, len - 1);
}

/* A text of a u64 (or u32 with small) length, at most max bytes. */
static int rd_text(struct rd *r, int small, uint64_t max, char **out,
		   size_t *outlen, const char *what)
{
	uint64_t len = 0;
	uint32_t len4;
	int ret = small ? rd4(r, &len4, what) : rd8(r, &len, what);

	if (ret)
		return ret;
	if (small)
		len = len4;
	if (len > max)
		return fail(r->err, r->errlen, "%s: %s at byte %llu: %llu bytes, more than %llu",
			    r->path, what, (unsigned long long)r->pos,
			    (unsigned long long)len, (unsigned long long)max);
	*out = malloc(len + 1);
	if (!*out) {
		snprintf(r->err, r->errlen, "out of memory");
		return -ENOMEM;
	}
	ret = rd_bytes(r, *out, len, what);
	if (ret) {
		free(*out);
		*out = NULL;
		return ret;
	}
	(*out)[len] = '\0';
	*outlen = (size_t)len;
	return 0;
}

static int rd_tag(struct rd *r, const char *tag, size_t len)
{
	char buf[16];
	uint64_t at = r->pos;
	int ret = rd_bytes(r, buf, len, tag);

	if (ret)
		return ret;
	if (memcmp(buf, tag, len))
		return fail(r->err, r->errlen, "%s: byte %llu: no \"%s\" section where the format has one",
			    r->path, (unsigned long long)at, tag);
	return 0;
}

static int rd_headers(struct rd *r, struct datfile_hdr *h)
{
	int ret = rd_tag(r, "header_page", 12);

	if (!ret)
		ret = rd_text(r, 0, TEXT_MAX, &h->header_page, &h->header_page_len,
			      "header_page");
	if (!ret)
		ret = rd_tag(r, "header_event", 13);
	if (!ret)
		ret = rd_text(r, 0, TEXT_MAX, &h->header_event, &h->header_event_len,
			      "header_event");
	return ret;
}

static int rd_events(struct rd *r, struct datfile_hdr *h, const char *sys)
{
	uint32_t n;
	int ret = rd4(r, &n, "an event count");

	if (!ret && n > DATFILE_MAX_FORMATS)
		ret = fail(r->err, r->errlen, "%s: byte %llu: %u event formats, more than %d",
			   r->path, (unsigned long long)r->pos, n, DATFILE_MAX_FORMATS);
	for (uint32_t i = 0; !ret && i < n; i++) {
		char *text;
		size_t len;

		ret = rd_text(r, 0, TEXT_MAX, &text, &len, "an event format");
		if (!ret)
			ret = add_fmt(h, sys, text, len, r->err, r->errlen);
	}
	return ret;
}

static int rd_systems(struct rd *r, struct datfile_hdr *h)
{
	uint32_t n;
	int ret = rd4(r, &n, "the event system count");

	if (!ret && n > SYSTEMS_MAX)
		ret = fail(r->err, r->errlen, "%s: %u event systems, more than %d",
			   r->path, n, SYSTEMS_MAX);
	for (uint32_t i = 0; !ret && i < n; i++) {
		char sys[64];

		ret = rd_str(r, sys, sizeof(sys), "an event system's name");
		if (!ret)
			ret = rd_events(r, h, sys);
	}
	return ret;
}

/* The clock a TRACECLOCK option names: the one in brackets. */
static void parse_clock(char *text, char *clock, size_t len)
{
	char *a = strchr(text, '['), *b = a ? strchr(a, ']') : NULL;

	if (a && b && (size_t)(b - a - 1) < len) {
		memcpy(clock, a + 1, (size_t)(b - a - 1));
		clock[b - a - 1] = '\0';
	}
}

/* One option of v6's list: 1 at DONE, 0 for another, -errno. */
static int rd_option6(struct rd *r, struct datfile_hdr *h)
{
	uint16_t id;
	uint32_t size;
	char *text;
	int ret = rd_bytes(r, &id, 2, "an option");

	if (ret || id == OPT_DONE)
		return ret ? ret : 1;
	ret = rd4(r, &size, "an option's size");
	if (ret)
		return ret;
	if (id != OPT_TRACECLOCK || size > 4096)
		return rd_skip(r, size, "an option");
	text = calloc(1, size + 1);
	if (!text) {
		snprintf(r->err, r->errlen, "out of memory");
		return -ENOMEM;
	}
	ret = rd_bytes(r, text, size, "the trace clock option");
	if (!ret)
		parse_clock(text, h->clock, sizeof(h->clock));
	free(text);
	return ret;
}

static int cpus_alloc(struct datfile *d, uint32_t ncpus, struct rd *r)
{
	if (!ncpus || ncpus > DATFILE_MAX_CPUS)
		return fail(r->err, r->errlen, "%s: %u CPUs (1-%d)", r->path, ncpus,
			    DATFILE_MAX_CPUS);
	d->h.ncpus = ncpus;
	d->off = calloc(ncpus, sizeof(*d->off));
	d->size = calloc(ncpus, sizeof(*d->size));
	if (!d->off || !d->size) {
		snprintf(r->err, r->errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* A CPU's pages lie inside the file. */
static int cpu_check(struct datfile *d, struct rd *r, uint32_t cpu)
{
	if (d->size[cpu] && (d->off[cpu] > d->file_size ||
			     d->size[cpu] > d->file_size - d->off[cpu]))
		return fail(r->err, r->errlen, "%s: CPU %u's data (%llu bytes at %llu) runs past the end of the file (%llu bytes): truncated",
			    r->path, cpu, (unsigned long long)d->size[cpu],
			    (unsigned long long)d->off[cpu],
			    (unsigned long long)d->file_size);
	return 0;
}

static int rd_v6(struct rd *r, struct datfile *d)
{
	uint32_t ncpus;
	char tag[10];
	int ret = rd_headers(r, &d->h);

	if (!ret)
		ret = rd_events(r, &d->h, "ftrace");
	if (!ret)
		ret = rd_systems(r, &d->h);
	if (!ret)	/* kallsyms, printk formats */
		ret = rd4(r, &ncpus, "kallsyms") ?: rd_skip(r, ncpus, "kallsyms") ?:
		      rd4(r, &ncpus, "printk formats") ?: rd_skip(r, ncpus, "printk formats");
	if (!ret)
		ret = rd_text(r, 0, CMDLINES_MAX, &d->h.cmdlines, &d->h.cmdlines_len,
			      "saved_cmdlines");
	if (!ret)
		ret = rd4(r, &ncpus, "the CPU count") ?: cpus_alloc(d, ncpus, r);
	if (!ret)
		ret = rd_bytes(r, tag, 10, "the options");
	if (!ret && !memcmp(tag, "options  ", 10)) {
		while (!(ret = rd_option6(r, &d->h)))
			;
		ret = ret < 0 ? ret : rd_bytes(r, tag, 10, "flyrecord");
	}
	if (!ret && memcmp(tag, "flyrecord", 10))
		ret = fail(r->err, r->errlen, "%s: no \"flyrecord\" section (a latency trace is not one of CPU pages)",
			   r->path);
	for (uint32_t cpu = 0; !ret && cpu < d->h.ncpus; cpu++)
		ret = rd8(r, &d->off[cpu], "the CPU table") ?:
		      rd8(r, &d->size[cpu], "the CPU table") ?: cpu_check(d, r, cpu);
	return ret;
}

/* ---- version 7: sections found through options ------------------------- */

/* Moves to the contents of the section at off, which must not be
 * compressed. */
static int rd_section(struct rd *r, uint64_t off, uint16_t want, const char *what)
{
	uint16_t id, flags;
	uint32_t str;
	uint64_t size;
	int ret;

	r->pos = off;
	ret = rd_bytes(r, &id, 2, what) ?: rd_bytes(r, &flags, 2, what) ?:
	      rd4(r, &str, what) ?: rd8(r, &size, what);
	if (ret)
		return ret;
	if (id != want)
		return fail(r->err, r->errlen, "%s: byte %llu: section %u where %s (%u) should be",
			    r->path, (unsigned long long)off, id, what, want);
	if (flags & 1)
		return fail(r->err, r->errlen, "%s: %s is compressed: wakebench reads uncompressed files (trace-cmd convert --compression none, or trace-cmd record --file-version 6)",
			    r->path, what);
	return 0;
}

/* The top instance's BUFFER option: its clock, page size and CPUs. */
static int rd_buffer7(struct rd *r, struct datfile *d, uint32_t size)
{
	uint64_t end = r->pos + size, sec;
	char name[256], clock[64];
	uint32_t page, n;
	int ret = rd8(r, &sec, "a BUFFER option") ?:
		  rd_str(r, name, sizeof(name), "a BUFFER option's instance");

	if (ret || name[0]) {	/* another instance's: not read */
		r->pos = end;
		return ret;
	}
	ret = rd_str(r, clock, sizeof(clock), "a BUFFER option's clock") ?:
	      rd4(r, &page, "a BUFFER option's page size") ?:
	      rd4(r, &n, "a BUFFER option's CPU count");
	if (ret)
		return ret;
	snprintf(d->h.clock, sizeof(d->h.clock), "%.15s", clock);
	d->h.page_size = page;
	for (uint32_t i = 0; !ret && i < n; i++) {
		uint32_t cpu;
		uint64_t off, sz;

		ret = rd4(r, &cpu, "a BUFFER CPU") ?: rd8(r, &off, "a BUFFER CPU") ?:
		      rd8(r, &sz, "a BUFFER CPU");
		if (!ret && cpu >= d->h.ncpus)
			ret = fail(r->err, r->errlen, "%s: BUFFER option: CPU %u of %u",
				   r->path, cpu, d->h.ncpus);
		if (!ret) {
			d->off[cpu] = off;
			d->size[cpu] = sz;
			ret = cpu_check(d, r, cpu);
		}
	}
	r->pos = end;
	return ret;
}

/* Walks the options sections: where the others are, and the buffer. */
static int rd_options7(struct rd *r, struct datfile *d, uint64_t off,
		       uint64_t *where)
{
	int ret = 0, hops = 0;

	while (!ret && off) {
		if (++hops > 64)
			return fail(r->err, r->errlen, "%s: options sections loop", r->path);
		ret = rd_section(r, off, OPT_DONE, "an options section");
		for (off = 0; !ret;) {
			uint16_t id;
			uint32_t size;
			uint64_t at;

			ret = rd_bytes(r, &id, 2, "an option") ?: rd4(r, &size, "an option");
			if (ret)
				break;
			at = r->pos;
			if (id == OPT_DONE) {
				ret = rd8(r, &off, "the next options section");
				break;
			}
			if (id == OPT_BUFFER) {
				ret = rd_buffer7(r, d, size);
			} else if (id >= OPT_HEADER_INFO && id <= OPT_EVENT_FORMATS &&
				   size == 8) {
				ret = rd8(r, &where[id - OPT_HEADER_INFO], "an option");
			}
			if (!ret) {
				r->pos = at;
				ret = rd_skip(r, size, "an option");
			}
		}
	}
	return ret;
}

static int rd_v7(struct rd *r, struct datfile *d)
{
	char comp[64], ver[64];
	uint64_t opts, where[3] = { 0 };
	int ret = rd_str(r, comp, sizeof(comp), "the compression name") ?:
		  rd_str(r, ver, sizeof(ver), "the compression version") ?:
		  rd8(r, &opts, "the options offset") ?:
		  cpus_alloc(d, DATFILE_MAX_CPUS, r);

	if (ret)
		return ret;
	ret = rd_options7(r, d, opts, where);
	if (!ret && (!where[0] || !where[2]))
		return fail(r->err, r->errlen, "%s: no header or event formats section",
			    r->path);
	if (!ret)
		ret = rd_section(r, where[0], OPT_HEADER_INFO, "the header section") ?:
		      rd_headers(r, &d->h);
	if (!ret && where[1])
		ret = rd_section(r, where[1], OPT_FTRACE_EVENTS, "the ftrace formats") ?:
		      rd_events(r, &d->h, "ftrace");
	if (!ret)
		ret = rd_section(r, where[2], OPT_EVENT_FORMATS, "the event formats") ?:
		      rd_systems(r, &d->h);
	/* the CPUs: up to the last with data */
	while (!ret && d->h.ncpus > 1 && !d->off[d->h.ncpus - 1])
		d->h.ncpus--;
	return ret;
}

int datfile_open(const char *path, struct datfile *d, char *err, size_t errlen)
{
	struct rd r = { .path = path, .err = err, .errlen = errlen };
	char head[10], ver[8];
	uint8_t el[2];
	uint32_t page;
	struct stat sb;
	int ret;

	memset(d, 0, sizeof(*d));
	r.fd = rfile_open(path, err, errlen);
	if (r.fd < 0)
		return r.fd;
	if (fstat(r.fd, &sb)) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	r.size = d->file_size = (uint64_t)sb.st_size;
	ret = rd_bytes(&r, head, 10, "the magic");
	if (!ret && memcmp(head, magic, 10))
		ret = fail(err, errlen, "%s: not a trace-cmd data file (no trace.dat magic)", path);
	if (!ret)
		ret = rd_str(&r, ver, sizeof(ver), "the version") ?:
		      rd_bytes(&r, el, 2, "the endianness") ?: rd4(&r, &page, "the page size");
	if (ret)
		goto out;
	if (el[0] != 0 || (el[1] != 4 && el[1] != 8)) {
		ret = fail(err, errlen, "%s: a big-endian or %u-byte-long file: wakebench reads little-endian ones",
			   path, el[1]);
		goto out;
	}
	d->long_size = el[1];
	d->h.page_size = page;
	d->version = (uint32_t)atoi(ver);
	if (d->version == 6)
		ret = rd_v6(&r, d);
	else if (d->version == 7)
		ret = rd_v7(&r, d);
	else
		ret = fail(err, errlen, "%s: trace.dat version '%s' (wakebench reads 6 and 7)",
			   path, ver);
	if (!ret && (d->h.page_size < 64 || d->h.page_size > (16u << 20)))
		ret = fail(err, errlen, "%s: page size %u out of range", path, d->h.page_size);
out:
	close(r.fd);
	if (ret)
		datfile_free(d);
	return ret;
}

void datfile_free(struct datfile *d)
{
	datfile_hdr_free(&d->h);
	free(d->off);
	free(d->size);
	memset(d, 0, sizeof(*d));
}
