// SPDX-License-Identifier: GPL-2.0
/*
 * Client results: the per-request CSV, the gaps used, and one summary in
 * three forms (text for people, one-row CSV for sweeps, JSON for tools).
 * Every number in a summary is computed from the same records that
 * requests.csv holds (counted as each request was done, lib/tally and
 * lib/hist), so the two always agree: exactly while the samples fit
 * --exact-samples, within HIST_REL_ERROR past it (the summary says which).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "client.h"
#include "json.h"
#include "csv.h"
#include "hist.h"
#include "qci.h"
#include "kvkey.h"
#include "runcheck.h"
#include "schedule.h"
#include "snapshot.h"
#include "spectrum.h"
#include "spool.h"
#include "stage.h"
#include "validity.h"
#include "wfile.h"
#include "wire.h"

/* With the temporary names lib/stage writes them under: a run killed
 * (SIGKILL, power loss) before its commit leaves those. */
const char *const client_out_files[] = {
	"requests.csv", "gaps.csv", "summary.txt", "summary.csv",
	"summary.json", "cmdline.txt", "prequery-trajectory.csv",
	"snapshot.json",
	".requests.csv.partial", ".gaps.csv.partial", ".summary.txt.partial",
	".summary.csv.partial", ".summary.json.partial", ".cmdline.txt.partial",
	".prequery-trajectory.csv.partial", ".snapshot.json.partial", NULL,
};

/*
 * Rows written between two looks for a stop signal: a look is one
 * sigpending() (well under a microsecond), 16384 rows a few ms.
 */
#define STOP_EVERY 16384

/*
 * A stop signal (SIGINT, SIGTERM, SIGHUP) pending while the results are
 * written: they are blocked in every thread, and the one that stopped
 * the run was taken when it ended (run_experiment), so this one came
 * after. The writing stops: no file of a run cut short in its writing
 * is a result (docs/guarantees.md: out within 1 s).
 */
static int stop_asked(void)
{
	sigset_t set;

	return !sigpending(&set) && (sigismember(&set, SIGINT) == 1 ||
				     sigismember(&set, SIGTERM) == 1 ||
				     sigismember(&set, SIGHUP) == 1);
}

static const double pcts[] = { 0.5, 0.9, 0.99, 0.999 };
static const char *const pct_names[] = { "p50", "p90", "p99", "p999" };
static const char *const pct_labels[] = { "p50", "p90", "p99", "p99.9" };
#define NPCT 4
/* The thesis' other two (stats reports them): appended to summary.csv
 * and summary.json, not to the text table. */
static const double more_pcts[] = { 0.95, 0.9999 };
static const char *const more_pct_names[] = { "p95", "p9999" };
#define NMORE 2

struct dist_summary {
	uint64_t n;
	double min, avg, max, pct[NPCT];	/* microseconds */
	double more[NMORE];
	double sd;		/* sample standard deviation */
	int exact;		/* percentiles from every sample */
	/* The exact distribution-free 95 % CI of each pct[] (lib/qci), the
	 * histogram's bucket edges past the exact samples; ok 0: n cannot
	 * bound it, cov the most any interval covers. */
	struct pct_ci {
		double lo, hi, cov;
		int ok;
	} ci[NPCT];
};

struct summary {
	uint64_t count, errors, unanswered;
	uint64_t gets, sets, misses;	/* key-value: measured, answered */
	struct dist_summary lat, svc, pace;
	double rate_target, rate_achieved;
	uint64_t late;
	uint64_t service_capped;	/* replies the server capped */
	uint64_t min_applied_ns;	/* lowest applied among those */
	struct tally meas, warm;	/* measured requests; warm-up apart */
	int behind;			/* fell behind its schedule */
	char behind_reason[256];
	int exact;			/* every percentile is exact */
	uint64_t total;			/* requests in the schedule, 0: unknown */
	uint64_t drawn;			/* of them drawn: gaps.csv's rows */
	struct validity val;		/* the workload tests (lib/validity) */
	int val_ok;			/* 0: they could not run (memory) */
};

/*
 * Messages and bytes on the wire per measured request sent (issue 35):
 * its request and reply, its pre-query and the pre-query's reply, at
 * lib/wire's sizes (msg_len); 0 without a measured request.
 */
static int wire_per_req(const struct run *r, const struct summary *s,
			double *msgs, double *bytes)
{
	const struct client_opts *o = r->o;
	struct wire_counts c = {
		.requests = s->meas.sent, .gets = s->gets, .sets = s->sets,
		.replies = s->meas.ok, .misses = s->misses, .errors = s->meas.errors,
		.prequeries = s->meas.prequeries_sent, .acked = o->prequery_ack,
		.payload = (uint32_t)o->payload, .key_size = (uint32_t)o->key_size,
		.value_size = (uint32_t)o->value_size,
	};
	uint64_t m, b;

	if (!s->meas.sent)
		return 0;
	wire_cost(o->wire, &c, &m, &b);
	*msgs = (double)m / (double)s->meas.sent;
	*bytes = (double)b / (double)s->meas.sent;
	return 1;
}

/* The schedule's mean gap: with --prequery-at sleep-after the lead adds
 * to every gap. */
static double mean_gap_ns(const struct client_opts *o)
{
	return o->interval_ns + (o->prequery &&
				 o->prequery_at == PQPLAN_AT_SLEEP_AFTER ?
				 o->lead_us * 1e3 : 0);
}

/*
 * The gap test's verdict as lib/runcheck takes it: p against alpha, or
 * for fixed gaps (no p-value) the CV against its bound.
 */
static struct runcheck_gaps runcheck_gaps_of(const struct summary *s)
{
	const struct validity_test *t = &s->val.gaps;

	if (!s->val_ok)
		return (struct runcheck_gaps){ .ran = 0 };
	return (struct runcheck_gaps){
		.ran = t->ran, .pass = t->pass, .test = t->what,
		.stat = t->stat, .p = t->p,
		.limit = isnan(t->p) ? VALIDITY_FIXED_CV : s->val.alpha,
	};
}

/*
 * lib/runcheck's verdict: the gap test fails, or a reported latency
 * percentile's CI does not hold the same percentile measured from the
 * actual send time. That latency is service latency (recv - sent, s->svc:
 * kept under the same --exact-samples bound and percentile rule as
 * latency, merged across threads the same way), so it needs no
 * histogram of its own. Called after the workload tests.
 */
static void check_behind(const struct run *r, struct summary *s)
{
	struct runcheck_pct pct[NPCT];
	struct runcheck_in in = { .pct = pct, .npct = NPCT };
	int ret;

	s->behind = 0;
	if (r->o->closed) {
		/* Each send time is set by the previous reply: no schedule. */
		snprintf(s->behind_reason, sizeof(s->behind_reason),
			 "not checked: closed loop");
		return;
	}
	in.gaps = runcheck_gaps_of(s);
	for (int i = 0; i < NPCT; i++)
		pct[i] = (struct runcheck_pct){
			.name = pct_labels[i], .lat = s->lat.pct[i],
			.sent = s->svc.pct[i], .lo = s->lat.ci[i].lo,
			.hi = s->lat.ci[i].hi,
			.ci_ok = s->lat.ci[i].ok && s->svc.n == s->lat.n,
		};
	ret = runcheck_behind(&in, s->behind_reason, sizeof(s->behind_reason));
	if (ret < 0)
		snprintf(s->behind_reason, sizeof(s->behind_reason),
			 "not checked: a percentile or test value is not a number");
	else
		s->behind = ret;
}

/* A REPLY (not an ERROR) carries the service time the server applied. */
static int replied(const struct req_rec *q)
{
	return q->recv_ns && !q->error;
}

static int keyed(const struct run *r)
{
	return r->o->wire->keyed;
}

/* "tcp", "udp", or the key-value protocol's name */
static const char *proto_label(const struct client_opts *o)
{
	return o->wire->keyed ? o->wire->name : net_proto_name(o->proto);
}

/*
 * RAPL energy of the package zones (powercap) or energy-pkg counters
 * (perf) over the measured requests: joules,
 * watts, microjoules per measured request sent. 0 when not measured
 * (no RAPL: the columns stay empty, never zero).
 */
static int energy_figures(const struct run *r, const struct summary *s,
			  double *j, double *w, double *per_uj)
{
	double secs;

	if (!r->energy_ok || !s->meas.sent)
		return 0;
	secs = (double)(r->energy.stop_ns - r->energy.start_ns) / 1e9;
	*j = energy_total_j(&r->energy);
	*w = secs > 0 ? *j / secs : 0;
	*per_uj = *j * 1e6 / (double)s->meas.sent;
	return 1;
}

static void summarize_ci(struct hist *h, struct dist_summary *d)
{
	for (int i = 0; i < NPCT; i++) {
		struct pct_ci *c = &d->ci[i];
		uint64_t lo, hi, unused;
		struct qci q;

		memset(c, 0, sizeof(*c));
		if (qci_ranks(d->n, pcts[i], QCI_LEVEL95, &q)) {
			c->cov = q.coverage;
			continue;
		}
		if (hist_rank_bounds(h, q.lo, &lo, &unused) ||
		    hist_rank_bounds(h, q.hi, &unused, &hi))
			continue;
		c->ok = 1;
		c->lo = (double)lo / 1e3;
		c->hi = (double)hi / 1e3;
		c->cov = q.coverage;
	}
}

static void summarize_hist(struct hist *h, struct dist_summary *d)
{
	d->n = hist_count(h);
	d->min = hist_min(h) / 1e3;
	d->max = hist_max(h) / 1e3;
	d->avg = hist_mean(h) / 1e3;
	for (int i = 0; i < NPCT; i++)
		d->pct[i] = hist_percentile_exact(h, pcts[i]) / 1e3;
	for (int i = 0; i < NMORE; i++)
		d->more[i] = hist_percentile_exact(h, more_pcts[i]) / 1e3;
	d->sd = hist_stddev(h) / 1e3;
	d->exact = hist_exact(h);
	summarize_ci(h, d);
}

/* What the threads counted, request by request (client/run.c finish()). */
static void summarize(const struct run *r, struct summary *s)
{
	const struct client_opts *o = r->o;
	const struct run_acc *a = &r->acc;

	memset(s, 0, sizeof(*s));
	/* What counts: lib/tally (measured requests only). */
	s->meas = a->meas;
	s->warm = a->warm;
	s->count = s->meas.ok;
	s->errors = s->meas.errors;
	s->unanswered = s->meas.unanswered;
	s->late = s->meas.late;
	s->service_capped = keyed(r) ? 0 : a->capped;
	s->min_applied_ns = s->service_capped ? a->min_applied_ns : 0;
	if (keyed(r)) {
		s->gets = a->gets;
		s->sets = a->sets;
		s->misses = a->misses;
	}
	summarize_hist(a->lat, &s->lat);
	summarize_hist(a->svc, &s->svc);
	summarize_hist(a->pace, &s->pace);
	s->exact = s->lat.exact && s->svc.exact && s->pace.exact;
	s->rate_target = o->closed ? 0 : 1e9 / mean_gap_ns(o);
	if (s->meas.sent > 1 && a->last_sent_ns > a->first_sent_ns)
		s->rate_achieved = (double)(s->meas.sent - 1) * 1e9 /
				   (double)(a->last_sent_ns - a->first_sent_ns);
	if (a->vlog) {
		struct validity_cfg vc = {
			.dist = o->dist, .mean_ns = mean_gap_ns(o),
			.varying = !arrival_law_renewal(o->dist) ||
				   o->rate_profile || o->arrivals,
			/* sleep-after adds the lead to every gap: the gaps
			 * follow no law the tests know */
			.closed = o->closed || (o->prequery &&
				  o->prequery_at == PQPLAN_AT_SLEEP_AFTER),
		};

		memcpy(vc.par, o->law.par, sizeof(vc.par));
		s->val_ok = !validity_run(a->vlog, &vc, &s->val);
	}
	check_behind(r, s);
	s->total = r->total;
	s->drawn = r->drawn;
}

/* "all", "sample:K", "none" */
static const char *raw_name(const struct client_opts *o, char *buf, size_t len)
{
	if (o->raw.mode == RAW_SAMPLE) {
		snprintf(buf, len, "sample:%llu", (unsigned long long)o->raw.every);
		return buf;
	}
	return o->raw.mode == RAW_NONE ? "none" : "all";
}

/* The bound on every percentile's relative error: 0 when exact. */
static double pct_error(const struct summary *s)
{
	return s->exact ? 0 : HIST_REL_ERROR;
}

static void print_dist(FILE *f, const char *name, const struct dist_summary *d)
{
	fprintf(f, "%-16s %10.3f %10.3f", name, d->min, d->avg);
	for (int i = 0; i < NPCT; i++)
		fprintf(f, " %10.3f", d->pct[i]);
	fprintf(f, " %10.3f\n", d->max);
}

/* The percentile rule in words, as the summaries say it. */
static const char *rule_name(const struct client_opts *o)
{
	return o->percentile_rule == HIST_FLOOR_INDEX ? "floor index" :
	       "nearest rank";
}

/* The third table: each percentile's 95 % CI, "-" where n cannot bound it. */
static void print_ci(FILE *f, const char *name, const struct dist_summary *d)
{
	fprintf(f, "%-16s", name);
	for (int i = 0; i < NPCT; i++) {
		if (d->ci[i].ok)
			fprintf(f, " %10.3f-%-10.3f", d->ci[i].lo, d->ci[i].hi);
		else
			fprintf(f, " %21s", "-");
	}
	fputc('\n', f);
}

/* Why a percentile has no interval: the first one of the latencies. */
static void print_ci_note(FILE *f, const struct dist_summary *d)
{
	for (int i = 0; i < NPCT; i++) {
		if (d->ci[i].ok)
			continue;
		fprintf(f, "CI: %llu samples cannot bound %s at 95 %% (no interval covers more than %.1f %%)\n",
			(unsigned long long)d->n, pct_labels[i],
			100 * d->ci[i].cov);
		return;
	}
}

/* One line per workload test: its verdict, what it compared, the numbers. */
static void print_validity_test(FILE *f, const char *name,
				const struct validity_test *t,
				const char *good, const char *bad)
{
	fprintf(f, "test %-13s ", name);
	if (!t->ran) {
		fprintf(f, "not run (%s)\n", t->why);
		return;
	}
	fprintf(f, "%-9s %s: %.4g", t->pass ? good : bad, t->what, t->stat);
	if (!isnan(t->p))
		fprintf(f, " (p %.3g)", t->p);
	fprintf(f, ", n %zu%s%s\n", t->n, t->detail[0] ? ", " : "", t->detail);
}

static void print_validity(FILE *f, const struct summary *s,
			   const struct client_opts *o)
{
	const struct validity *v = &s->val;

	if (!s->val_ok) {
		fprintf(f, "workload tests: not run (out of memory)\n");
		return;
	}
	fprintf(f, "workload tests (alpha %g)%s", v->alpha,
		v->left_out ? "" : ":\n");
	if (v->left_out)
		fprintf(f, " on the first %llu measured requests (--exact-samples %llu; %llu more not tested):\n",
			(unsigned long long)v->n,
			(unsigned long long)o->exact_samples,
			(unsigned long long)v->left_out);
	print_validity_test(f, "gaps", &v->gaps, "fits", "misfits");
	print_validity_test(f, "independence", &v->indep, "holds", "fails");
	print_validity_test(f, "stationarity", &v->stationary, "holds",
			    "drifts");
}

/*
 * The behind-schedule rule's verdict (lib/runcheck), after the workload
 * tests it reads; the latency from the send it compares with each CI is
 * the service latency row above.
 */
static void print_schedule(FILE *f, const struct summary *s)
{
	if (s->behind)
		fprintf(f, "schedule: behind: %s\n", s->behind_reason);
	else if (s->behind_reason[0])
		fprintf(f, "schedule: %s\n", s->behind_reason);
	else
		fprintf(f, "schedule: kept: no gap test failed, and each latency percentile's 95 %% CI holds the same percentile from the send (service latency)\n");
}

/* The second table: the thesis' other two percentiles and the spread. */
static void print_more(FILE *f, const char *name, const struct dist_summary *d)
{
	fprintf(f, "%-16s %10.3f %10.3f %10.3f\n", name, d->more[0], d->more[1],
		d->sd);
}

/* --latency-spectrum: from the exact samples, or the histogram past
 * --exact-samples (said). */
static void print_spectrum(FILE *f, const struct run *r,
			   const struct summary *s)
{
	const struct client_opts *o = r->o;

	if (!s->lat.n) {
		fprintf(f, "latency percentile spectrum: no replies\n");
		return;
	}
	if (s->lat.exact)
		fprintf(f, "latency percentile spectrum (us; exact, %s over %llu samples):\n",
			rule_name(o), (unsigned long long)s->lat.n);
	else
		fprintf(f, "latency percentile spectrum (us; from the histogram past %llu samples, within %.2f %%; %llu samples):\n",
			(unsigned long long)o->exact_samples, HIST_REL_ERROR * 100,
			(unsigned long long)s->lat.n);
	spectrum_print(f, r->acc.lat, 1e3);
}

void output_start_line(FILE *f, const struct client_opts *o)
{
	fprintf(f, "wakebench client: %s %s:%u %s interval=%.3fus",
		proto_label(o), o->server.host, o->server.port,
		client_dist_name(o), o->interval_ns / 1e3);
	if (o->closed)
		fprintf(f, " closed-loop");
	else
		fprintf(f, " rate=%.1f/s", 1e9 / mean_gap_ns(o));
	if (o->duration_s > 0)
		fprintf(f, " duration=%gs", o->duration_s);
	else
		fprintf(f, " requests=%llu", (unsigned long long)o->requests);
	if (o->warmup)
		fprintf(f, " warmup=%llu%s", (unsigned long long)o->warmup,
			o->warmup_mode == WARMUP_BURST ? "(burst)" : "");
	fprintf(f, " wait=%s seed=%llu", clock_wait_name(o->wait),
		(unsigned long long)o->seed);
	if (o->threads > 1)
		fprintf(f, " threads=%llu", (unsigned long long)o->threads);
	if (!o->prequery)
		fprintf(f, " prequery=off");
	else if (o->adaptive)
		fprintf(f, " prequery=adaptive(from %.3fus)", o->lead_us);
	else
		fprintf(f, " prequery=%s:%.3fus",
			pqplan_at_name((enum pqplan_at)o->prequery_at), o->lead_us);
	fprintf(f, " out=%s", o->out_dir ? o->out_dir : "(none)");
}

/*
 * The governor's counters over the run: per state the entries, the time,
 * and the governor's misses (above: too deep, below: too shallow) and
 * the driver's refusals; or why there are none.
 */
static void print_governor(FILE *f, const struct govstat_delta *g)
{
	char line[4096];

	if (!g->nstates) {
		fprintf(f, "governor counters: none (%s)\n", g->note);
		return;
	}
	govstat_text(g, line, sizeof(line));
	fprintf(f, "governor counters (%s, %s; %d CPUs, whole run): %s\n",
		g->driver, g->governor, g->ncpus, line);
	if (g->note[0])
		fprintf(f, "governor counters: %s\n", g->note);
}

/* The three tables of the latencies, or why there are none. */
static void print_tables(FILE *f, const struct client_opts *o,
			 const struct summary *s)
{
	if (!s->lat.n) {
		fprintf(f, "latency: no replies (%llu measured requests sent, none answered with a reply)\n",
			(unsigned long long)s->meas.sent);
		return;
	}
	fprintf(f, "%-16s %10s %10s %10s %10s %10s %10s %10s\n", "(us)", "min",
		"avg", "p50", "p90", "p99", "p99.9", "max");
	print_dist(f, "latency", &s->lat);
	print_dist(f, "service latency", &s->svc);
	print_dist(f, "pacing error", &s->pace);
	fprintf(f, "%-16s %10s %10s %10s\n", "(us)", "p95", "p99.99", "stddev");
	print_more(f, "latency", &s->lat);
	print_more(f, "service latency", &s->svc);
	print_more(f, "pacing error", &s->pace);
	fprintf(f, "%-16s %21s %21s %21s %21s\n", "95 % CI (us)", "p50",
		"p90", "p99", "p99.9");
	print_ci(f, "latency", &s->lat);
	print_ci(f, "service latency", &s->svc);
	print_ci_note(f, &s->lat);
	if (s->exact)
		fprintf(f, "percentiles: exact (%s over every sample)\n",
			rule_name(o));
	else
		fprintf(f, "percentiles: %sfrom the histogram (more than %llu samples), within %.2f %% of the exact value\n",
			s->lat.exact && s->svc.exact ?
			"latencies exact, the pacing error's " : "",
			(unsigned long long)o->exact_samples, HIST_REL_ERROR * 100);
}

/* The key-value protocol's counts, or the service time asked and capped. */
static void print_service(FILE *f, const struct run *r, const struct summary *s)
{
	const struct client_opts *o = r->o;

	if (keyed(r)) {
		char kd[32];

		keydist_name(&o->key_dist, kd, sizeof(kd));
		fprintf(f, "%s: gets %llu (misses %llu) sets %llu; get ratio %.3f, %llu keys %s, key %llu B, value %llu B",
			o->wire->name, (unsigned long long)s->gets,
			(unsigned long long)s->misses, (unsigned long long)s->sets,
			o->get_ratio, (unsigned long long)o->keys, kd,
			(unsigned long long)o->key_size,
			(unsigned long long)o->value_size);
		if (r->preloaded)
			fprintf(f, "; preloaded %llu keys in %.1f ms",
				(unsigned long long)r->preloaded, r->preload_ns / 1e6);
		fputc('\n', f);
	} else {
		fprintf(f, "service: asked %.3f us; capped by the server (applied less) in %llu replies",
			o->service_ns / 1e3, (unsigned long long)s->service_capped);
		if (s->service_capped)
			fprintf(f, " (applied down to %.3f us: raise its --max-service-us)",
				s->min_applied_ns / 1e3);
		fputc('\n', f);
	}
}

/* The pre-queries sent and their lead, and their replies dropped. */
static void print_prequeries(FILE *f, const struct run *r,
			     const struct summary *s)
{
	const struct client_opts *o = r->o;

	fprintf(f, "prequeries: sent %llu skipped %llu late %llu missed %llu",
		(unsigned long long)s->meas.prequeries_sent,
		(unsigned long long)s->meas.prequeries_skipped,
		(unsigned long long)s->meas.prequeries_late,
		(unsigned long long)s->meas.prequeries_missed);
	if (o->adaptive)
		fprintf(f, " (adaptive lead: now %.3f us, best %.3f us, %llu windows)",
			r->hc.value_us, r->hc.best_us,
			(unsigned long long)r->hc.windows);
	else if (o->prequery)
		fprintf(f, " (lead %.3f us%s%s%s)", o->lead_us,
			o->prequery_at != PQPLAN_AT_LEAD ? ", at " : "",
			o->prequery_at != PQPLAN_AT_LEAD ?
			pqplan_at_name((enum pqplan_at)o->prequery_at) : "",
			o->prequery_port ? ", pre-query port" : "");
	else
		fprintf(f, " (off)");
	fputc('\n', f);
	if (o->prequery_ack)
		fprintf(f, "pre-query replies read and dropped: %llu\n",
			(unsigned long long)r->prequery_acks);
}

/* What the run cost: energy, the governor's counters, the wire. */
static void print_costs(FILE *f, const struct run *r, const struct summary *s)
{
	double j, w, per, m, b;

	if (energy_figures(r, s, &j, &w, &per))
		fprintf(f, "energy (RAPL packages, measured requests%s): %.3f J, %.3f W, %.1f uJ per request\n",
			r->energy.source == ENERGY_PERF ?
			", perf power/energy-pkg/" : "", j, w, per);
	else
		fprintf(f, "energy: not measured (%s)\n", r->energy_note[0] ?
			r->energy_note : "no measured request");
	print_governor(f, &r->gov);
	if (wire_per_req(r, s, &m, &b))
		fprintf(f, "on the wire per request: %.3f messages, %.1f bytes (request, reply, pre-query and its reply, at the protocol's sizes)\n",
			m, b);
}

/*
 * The notes that end it: warm-up pre-queries, the rows requests.csv
 * kept, behind schedule, how the run ended, and the spectrum.
 */
static void print_notes(FILE *f, const struct run *r, const struct summary *s,
			int term)
{
	const struct client_opts *o = r->o;

	if (o->prequery && r->warmup)
		fprintf(f, "warm-up prequeries (not counted above): sent %llu skipped %llu\n",
			(unsigned long long)s->warm.prequeries_sent,
			(unsigned long long)s->warm.prequeries_skipped);
	if (o->raw.mode != RAW_ALL && o->out_dir) {
		if (o->raw.mode == RAW_NONE)
			fprintf(f, "requests.csv: not written (--raw none)\n");
		else
			fprintf(f, "requests.csv: every %llu-th measured request (--raw sample:%llu): %llu rows\n",
				(unsigned long long)o->raw.every,
				(unsigned long long)o->raw.every,
				(unsigned long long)r->acc.rows);
	}
	if (s->behind)
		fprintf(f, "WARNING: behind schedule: %s; these are not the results of the workload it claims\n",
			s->behind_reason);
	if (r->status == RUN_FAILED && !term)
		fprintf(f, "error: %s\n", r->err);
	else if (r->status == RUN_INTERRUPTED)
		fprintf(f, "interrupted: partial results (%llu requests of the schedule drawn)\n",
			(unsigned long long)s->drawn);
	if (o->latency_spectrum)
		print_spectrum(f, r, s);
}

/*
 * The text summary: summary.txt, and on the terminal (term) after the
 * start line and the lines of the run, so without the start line again
 * and without the error, which goes to stderr. Where no measured request
 * was answered there is no table of zeros: "no replies" says so; where
 * nothing was sent at all (the server unreachable) the terminal gets no
 * summary, only the error.
 */
static void print_text(FILE *f, const struct run *r, const struct summary *s,
		       int term)
{
	const struct client_opts *o = r->o;

	if (!s->meas.sent && !s->warm.sent && !r->burst_sent &&
	    r->status == RUN_FAILED) {
		if (!term) {
			output_start_line(f, o);
			fprintf(f, "\nrequests: none sent\nerror: %s\n", r->err);
		}
		return;
	}
	if (!term) {
		output_start_line(f, o);
		fputc('\n', f);
	}
	fprintf(f, "requests: %llu measured, %llu warm-up%s, %llu errors, %llu unanswered\n",
		(unsigned long long)s->count, (unsigned long long)o->warmup,
		o->warmup_mode == WARMUP_BURST ? " (a burst of pre-queries)" : "",
		(unsigned long long)s->errors,
		(unsigned long long)s->unanswered);
	print_tables(f, o, s);
	fprintf(f, "rate: target %.1f/s achieved %.1f/s; late sends (> %.1f us): %llu\n",
		s->rate_target, s->rate_achieved, o->late_ns / 1e3,
		(unsigned long long)s->late);
	print_validity(f, s, o);
	print_schedule(f, s);
	print_service(f, r, s);
	print_prequeries(f, r, s);
	print_costs(f, r, s);
	print_notes(f, r, s, term);
}

static const char *status_name(enum run_status st)
{
	return st == RUN_OK ? "ok" : st == RUN_INTERRUPTED ? "interrupted" :
	       "failed";
}

/* The columns of issue 36: the rate profile and the replayed trace. */
static void csv_arrivals(struct csv *c, const struct client_opts *o)
{
	if (o->rate_profile)
		csv_str(c, o->rate_profile);
	else
		csv_empty(c);
	if (o->arrivals) {
		csv_str(c, o->arrivals);
		csv_u64(c, (uint64_t)o->arrivals_offsets);
		csv_double(c, o->have_arrivals_scale ? o->arrivals_scale : 1, 6);
	} else {
		csv_empty(c);
		csv_empty(c);
		csv_empty(c);
	}
}

static void csv_dist_header(char *buf, size_t len, const char *p)
{
	snprintf(buf, len, "%s_min_us,%s_avg_us,%s_p50_us,%s_p90_us,%s_p99_us,"
		 "%s_p999_us,%s_max_us", p, p, p, p, p, p, p);
}

/* Appended (issue 31): lat_p50_lo_us,lat_p50_hi_us,...,lat_p999_hi_us. */
static void csv_ci_header(char *buf, size_t len, const char *p)
{
	size_t used = 0;

	buf[0] = 0;
	for (int i = 0; i < NPCT && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used,
					 "%s%s_%s_lo_us,%s_%s_hi_us",
					 i ? "," : "", p, pct_names[i], p,
					 pct_names[i]);
}

static void csv_ci(struct csv *c, const struct dist_summary *d)
{
	for (int i = 0; i < NPCT; i++) {
		if (d->ci[i].ok) {
			csv_double(c, d->ci[i].lo, 3);
			csv_double(c, d->ci[i].hi, 3);
		} else {
			csv_empty(c);
			csv_empty(c);
		}
	}
}

static void csv_dist(struct csv *c, const struct dist_summary *d)
{
	csv_double(c, d->min, 3);
	csv_double(c, d->avg, 3);
	for (int i = 0; i < NPCT; i++)
		csv_double(c, d->pct[i], 3);
	csv_double(c, d->max, 3);
}

/*
 * summary.csv's header; GOV (LEN bytes) the governor's columns, "" where
 * there are none.
 */
static void csv_summary_header(struct csv *c, const struct run *r, char *gov,
			       size_t len)
{
	char lat[256], svc[256], pace[256], lat_ci[256], svc_ci[256];
	char hdr[2560 + 4096];

	/* appended (issue 33): the governor's counters, where there are
	 * idle states (none without a cpuidle driver) */
	if (govstat_csv_header(&r->gov, gov, len))
		gov[0] = '\0';
	csv_ci_header(lat_ci, sizeof(lat_ci), "lat");
	csv_ci_header(svc_ci, sizeof(svc_ci), "svc");
	csv_dist_header(lat, sizeof(lat), "lat");
	csv_dist_header(svc, sizeof(svc), "svc");
	csv_dist_header(pace, sizeof(pace), "pace");
	snprintf(hdr, sizeof(hdr),
		 "status,count,errors,unanswered,%s,%s,%s,rate_target,"
		 "rate_achieved,late_sends,prequeries_sent,prequeries_skipped,"
		 "dist,interval_us,wait,seed,warmup,service_us,payload,"
		 "connections,proto,closed,cstates,prequery,prequery_lead_us,"
		 "prequery_port,prequeries_late,warmup_prequeries_sent,"
		 "warmup_prequeries_skipped,behind_schedule,behind_reason,"
		 "service_capped,lat_p95_us,lat_p9999_us,gets,sets,misses,"
		 "get_ratio,keys,key_size,value_size,key_dist,energy_j,power_w,"
		 "energy_per_request_uj,threads,raw,raw_rows,percentiles_exact,"
		 "percentile_rel_error,lat_stddev_us,svc_p95_us,svc_p9999_us,"
		 "svc_stddev_us,pace_p95_us,pace_p9999_us,pace_stddev_us,%s,%s%s"
		 /* appended (issue 36) */
		 ",rate_profile,arrivals,arrivals_offsets,arrivals_scale"
		 ",msgs_per_req,bytes_per_req",
		 lat, svc, pace, lat_ci, svc_ci, gov);
	csv_header(c, hdr);
}

/* The run's configuration: dist to prequery_port. */
static void csv_config(struct csv *c, const struct run *r)
{
	const struct client_opts *o = r->o;

	csv_str(c, client_dist_name(o));
	csv_double(c, o->interval_ns / 1e3, 3);
	csv_str(c, clock_wait_name(o->wait));
	csv_u64(c, o->seed);
	csv_u64(c, o->warmup);
	csv_double(c, o->service_ns / 1e3, 3);
	csv_u64(c, o->payload);
	csv_u64(c, o->connections);
	csv_str(c, proto_label(o));
	csv_u64(c, (uint64_t)o->closed);
	if (o->have_cstates) {
		char cs[64];

		csv_str(c, cstate_spec_name(&o->cstates, cs, sizeof(cs)));
	} else {
		csv_empty(c);
	}
	csv_str(c, !o->prequery ? "off" : o->adaptive ? "adaptive" : "fixed");
	if (o->prequery)
		csv_double(c, o->adaptive ? r->hc.best_us : o->lead_us, 3);
	else
		csv_empty(c);
	if (o->prequery_port)
		csv_u64(c, o->prequery_port);
	else
		csv_empty(c);
}

/* gets to key_dist: empty without a key-value protocol. */
static void csv_keyed(struct csv *c, const struct run *r, const struct summary *s)
{
	const struct client_opts *o = r->o;
	char kd[32];

	if (!keyed(r)) {
		for (int i = 0; i < 8; i++)
			csv_empty(c);
		return;
	}
	csv_u64(c, s->gets);
	csv_u64(c, s->sets);
	csv_u64(c, s->misses);
	csv_double(c, o->get_ratio, 3);
	csv_u64(c, o->keys);
	csv_u64(c, o->key_size);
	csv_u64(c, o->value_size);
	keydist_name(&o->key_dist, kd, sizeof(kd));
	csv_str(c, kd);
}

/* energy_j, power_w, energy_per_request_uj: empty when not measured. */
static void csv_energy(struct csv *c, const struct run *r, const struct summary *s)
{
	double j, w, per;

	if (energy_figures(r, s, &j, &w, &per)) {
		csv_double(c, j, 6);
		csv_double(c, w, 3);
		csv_double(c, per, 3);
	} else {
		csv_empty(c);
		csv_empty(c);
		csv_empty(c);
	}
}

/* msgs_per_req, bytes_per_req: empty without a measured request. */
static void csv_wire(struct csv *c, const struct run *r, const struct summary *s)
{
	double m, b;

	if (wire_per_req(r, s, &m, &b)) {
		csv_double(c, m, 3);
		csv_double(c, b, 3);
	} else {
		csv_empty(c);
		csv_empty(c);
	}
}

static int write_summary_csv(const char *path, const struct run *r,
			     const struct summary *s)
{
	const struct client_opts *o = r->o;
	struct csv *c = csv_open(path);
	char gov[4096], raw[32];

	if (!c)
		return -errno;
	csv_summary_header(c, r, gov, sizeof(gov));
	csv_str(c, status_name(r->status));
	csv_u64(c, s->count);
	csv_u64(c, s->errors);
	csv_u64(c, s->unanswered);
	csv_dist(c, &s->lat);
	csv_dist(c, &s->svc);
	csv_dist(c, &s->pace);
	csv_double(c, s->rate_target, 3);
	csv_double(c, s->rate_achieved, 3);
	csv_u64(c, s->late);
	csv_u64(c, s->meas.prequeries_sent);
	csv_u64(c, s->meas.prequeries_skipped);
	csv_config(c, r);
	csv_u64(c, s->meas.prequeries_late);
	csv_u64(c, s->warm.prequeries_sent);
	csv_u64(c, s->warm.prequeries_skipped);
	csv_u64(c, (uint64_t)s->behind);
	csv_str(c, s->behind_reason);
	csv_u64(c, s->service_capped);
	for (int i = 0; i < NMORE; i++)
		csv_double(c, s->lat.more[i], 3);
	csv_keyed(c, r, s);
	csv_energy(c, r, s);
	csv_u64(c, o->threads);
	csv_str(c, raw_name(o, raw, sizeof(raw)));
	csv_u64(c, r->acc.rows);
	csv_u64(c, (uint64_t)s->exact);
	csv_double(c, pct_error(s), 8);
	/* appended (issue 18): the spread of each, and service latency's
	 * and pacing error's p95 and p99.99 as latency's above */
	csv_double(c, s->lat.sd, 3);
	for (int i = 0; i < NMORE; i++)
		csv_double(c, s->svc.more[i], 3);
	csv_double(c, s->svc.sd, 3);
	for (int i = 0; i < NMORE; i++)
		csv_double(c, s->pace.more[i], 3);
	csv_double(c, s->pace.sd, 3);
	csv_ci(c, &s->lat);
	csv_ci(c, &s->svc);
	if (gov[0])
		govstat_csv_row(c, &r->gov);
	csv_arrivals(c, o);
	csv_wire(c, r, s);
	csv_end_row(c);
	return csv_close(c);
}

static void json_dist(struct json *j, const char *key,
		      const struct dist_summary *d)
{
	json_obj_begin(j, key);
	json_double(j, "min", d->min);
	json_double(j, "avg", d->avg);
	for (int i = 0; i < NPCT; i++)
		json_double(j, pct_names[i], d->pct[i]);
	for (int i = 0; i < NMORE; i++)
		json_double(j, more_pct_names[i], d->more[i]);
	json_double(j, "max", d->max);
	json_bool(j, "exact", d->exact);
	json_double(j, "stddev", d->sd);
	json_obj_begin(j, "ci95");
	for (int i = 0; i < NPCT; i++) {
		const struct pct_ci *c = &d->ci[i];

		json_obj_begin(j, pct_names[i]);
		json_double(j, "lo", c->ok ? c->lo : NAN);
		json_double(j, "hi", c->ok ? c->hi : NAN);
		json_double(j, "coverage", c->cov);
		json_str(j, "reason", c->ok ? NULL :
			 "too few samples to bound it at 95 %");
		json_obj_end(j);
	}
	json_obj_end(j);
	json_obj_end(j);
}

static void json_validity_test(struct json *j, const char *key,
			       const struct validity_test *t)
{
	json_obj_begin(j, key);
	json_str(j, "test", t->ran ? t->what : NULL);
	json_bool(j, "ran", t->ran);
	json_bool(j, "pass", t->pass);
	json_double(j, "stat", t->ran ? t->stat : NAN);
	json_double(j, "p", t->ran ? t->p : NAN);
	json_u64(j, "n", t->ran ? t->n : 0);
	json_str(j, "why", t->ran ? NULL : t->why);
	json_str(j, "detail", t->detail[0] ? t->detail : NULL);
	json_obj_end(j);
}

/* Appended (issue 31): the tests of the workload the run really sent. */
static void json_validity(struct json *j, const struct summary *s)
{
	json_obj_begin(j, "validity");
	json_bool(j, "ran", s->val_ok);
	if (s->val_ok) {
		json_double(j, "alpha", s->val.alpha);
		json_bool(j, "pass", s->val.pass);
		json_u64(j, "requests", s->val.n);
		json_u64(j, "left_out", s->val.left_out);
		json_validity_test(j, "gaps", &s->val.gaps);
		json_validity_test(j, "independence", &s->val.indep);
		json_validity_test(j, "stationarity", &s->val.stationary);
	}
	json_obj_end(j);
}

/* The key-value protocol's settings in "config". */
static void json_config_keyed(struct json *j, const struct client_opts *o)
{
	char kd[32];

	keydist_name(&o->key_dist, kd, sizeof(kd));
	json_double(j, "get_ratio", o->get_ratio);
	json_u64(j, "keys", o->keys);
	json_u64(j, "key_size", o->key_size);
	json_u64(j, "value_size", o->value_size);
	json_str(j, "key_dist", kd);
	json_bool(j, "preload", o->preload);
}

/* "config"'s threads and their CPUs, the rows kept and the start time. */
static void json_config_threads(struct json *j, const struct client_opts *o)
{
	char raw[32], cpus[CLIENT_MAX_THREADS * 6] = "";
	size_t off = 0;

	json_u64(j, "threads", o->threads);
	for (int i = 0; i < o->cpus.n && off < sizeof(cpus); i++)
		off += (size_t)snprintf(cpus + off, sizeof(cpus) - off,
					"%s%d", i ? "," : "", o->cpus.cpu[i]);
	json_str(j, "cpus", o->cpus.n ? cpus : NULL);
	json_str(j, "raw", raw_name(o, raw, sizeof(raw)));
	json_u64(j, "exact_samples", o->exact_samples);
	if (o->start_at_ns)
		json_u64(j, "start_at_ns", o->start_at_ns);
	else
		json_str(j, "start_at_ns", NULL);
}

/* "config": the run as it was asked for. */
static void json_config(struct json *j, const struct run *r,
			const struct summary *s)
{
	const struct client_opts *o = r->o;

	json_obj_begin(j, "config");
	json_str(j, "server", o->server.host);
	json_u64(j, "port", o->server.port);
	json_str(j, "proto", proto_label(o));
	if (keyed(r))
		json_config_keyed(j, o);
	json_str(j, "dist", client_dist_name(o));
	json_double(j, "interval_us", o->interval_ns / 1e3);
	/* a duration's schedule is known once drawn to its end: one cut
	 * short is not counted through (a billion gaps take seconds) */
	if (s->total)
		json_u64(j, "requests", s->total - r->warmup);
	else
		json_str(j, "requests", NULL);
	json_u64(j, "warmup", o->warmup);
	json_str(j, "warmup_mode", o->warmup_mode == WARMUP_BURST ? "burst" :
		 "schedule");
	json_double(j, "warmup_interval_us", o->warmup_interval_ns > 0 ?
		    o->warmup_interval_ns / 1e3 : NAN);
	json_str(j, "warmup_dist", o->warmup_interval_ns > 0 ?
		 arrival_dist_name((enum arrival_dist)o->warmup_dist) : NULL);
	json_u64(j, "timer_slack_ns", o->timer_slack_ns);
	json_str(j, "percentile_rule", o->percentile_rule == HIST_FLOOR_INDEX ?
		 "floor-index" : "nearest-rank");
	json_u64(j, "seed", o->seed);
	json_str(j, "wait", clock_wait_name(o->wait));
	json_u64(j, "connections", o->connections);
	json_double(j, "service_us", o->service_ns / 1e3);
	json_u64(j, "payload", o->payload);
	json_bool(j, "closed", o->closed);
	json_i64(j, "cpu", o->cpu);
	if (o->have_cstates) {
		char cs[64];

		json_str(j, "cstates", cstate_spec_name(&o->cstates, cs,
							sizeof(cs)));
	} else {
		json_str(j, "cstates", NULL);
	}
	json_config_threads(j, o);
	/* appended (issue 36) */
	json_str(j, "rate_profile", o->rate_profile);
	json_str(j, "arrivals", o->arrivals);
	json_bool(j, "arrivals_offsets", o->arrivals_offsets);
	json_double(j, "arrivals_scale", o->arrivals ? (o->have_arrivals_scale ?
		    o->arrivals_scale : 1) : NAN);
	json_obj_end(j);
}

/* "energy": RAPL's figures and zones, or why there are none. */
static void json_energy(struct json *j, const struct run *r,
			const struct summary *s)
{
	double ej = NAN, w = NAN, per = NAN;
	int ok = energy_figures(r, s, &ej, &w, &per);

	json_obj_begin(j, "energy");
	json_str(j, "source", ok ? energy_source_name(&r->energy) : "none");
	json_str(j, "note", ok ? NULL : r->energy_note);
	json_double(j, "energy_j", ok ? ej : NAN);
	json_double(j, "power_w", ok ? w : NAN);
	json_double(j, "energy_per_request_uj", ok ? per : NAN);
	json_obj_begin(j, "zones_j");
	for (unsigned i = 0; ok && i < r->energy.n; i++)
		json_double(j, r->energy.z[i].path, r->energy.z[i].joules);
	json_obj_end(j);
	json_obj_end(j);
}

/* "prequery": the policy, and the adaptive lead's climb. */
static void json_prequery(struct json *j, const struct run *r)
{
	const struct client_opts *o = r->o;

	json_obj_begin(j, "prequery");
	json_str(j, "policy", !o->prequery ? "off" : o->adaptive ? "adaptive" :
		 "fixed");
	json_double(j, "lead_us", o->prequery ? o->lead_us : NAN);
	json_u64(j, "port", o->prequery_port);
	json_str(j, "at", pqplan_at_name((enum pqplan_at)o->prequery_at));
	json_bool(j, "ack", o->prequery_ack);
	if (o->adaptive) {
		json_u64(j, "window", o->hc.window);
		json_double(j, "step_us", o->hc.step_us);
		json_double(j, "min_step_us", o->hc.min_step_us);
		json_double(j, "max_lead_us", o->hc.max_us);
		json_u64(j, "windows", r->hc.windows);
		json_double(j, "final_lead_us", r->hc.value_us);
		json_double(j, "best_lead_us", r->hc.best_us);
	}
	json_obj_end(j);
}

static int write_summary_json(const char *path, const struct run *r,
			      const struct summary *s)
{
	const struct client_opts *o = r->o;
	struct json *j = json_open(path);

	if (!j)
		return -errno;
	json_obj_begin(j, NULL);
	json_str(j, "status", status_name(r->status));
	json_str(j, "error", r->status == RUN_FAILED ? r->err : NULL);
	json_str(j, "version", WB_VERSION);
	json_str(j, "command", o->cmdline);
	json_config(j, r, s);
	json_u64(j, "count", s->count);
	json_u64(j, "errors", s->errors);
	json_u64(j, "unanswered", s->unanswered);
	json_u64(j, "drawn", s->drawn);
	json_dist(j, "latency_us", &s->lat);
	json_dist(j, "service_latency_us", &s->svc);
	json_dist(j, "pacing_error_us", &s->pace);
	json_double(j, "rate_target", s->rate_target);
	json_double(j, "rate_achieved", s->rate_achieved);
	json_u64(j, "late_sends", s->late);
	json_double(j, "late_threshold_us", o->late_ns / 1e3);
	json_u64(j, "prequeries_sent", s->meas.prequeries_sent);
	json_u64(j, "prequeries_skipped", s->meas.prequeries_skipped);
	json_u64(j, "prequeries_late", s->meas.prequeries_late);
	json_u64(j, "prequeries_missed", s->meas.prequeries_missed);
	json_u64(j, "warmup_prequeries_sent", s->warm.prequeries_sent);
	json_u64(j, "warmup_prequeries_skipped", s->warm.prequeries_skipped);
	json_u64(j, "warmup_burst_sent", r->burst_sent);
	json_u64(j, "prequery_acks", r->prequery_acks);
	json_u64(j, "behind_schedule", (uint64_t)s->behind);
	json_str(j, "behind_reason", s->behind_reason);
	json_u64(j, "service_capped", s->service_capped);
	json_energy(j, r, s);
	if (keyed(r)) {
		json_u64(j, "gets", s->gets);
		json_u64(j, "sets", s->sets);
		json_u64(j, "misses", s->misses);
		json_u64(j, "preloaded", r->preloaded);
	}
	json_prequery(j, r);
	json_obj_begin(j, "percentiles");
	json_bool(j, "exact", s->exact);
	json_double(j, "rel_error", pct_error(s));
	json_str(j, "rule", o->percentile_rule == HIST_FLOOR_INDEX ?
		 "floor-index" : "nearest-rank");
	json_obj_end(j);
	json_u64(j, "raw_rows", r->acc.rows);
	json_validity(j, s);
	govstat_json(j, "governor_counters", &r->gov, "all");
	json_obj_end(j);
	return json_close(j);
}

static void write_row(struct csv *c, const struct run *r,
		      const struct req_rec *q)
{
	csv_u64(c, q->seq);
	csv_u64(c, q->intended_ns);
	csv_u64(c, q->sent_ns);
	if (q->recv_ns) {
		csv_u64(c, q->recv_ns);
		csv_u64(c, q->recv_ns - q->intended_ns);
		csv_u64(c, q->recv_ns - q->sent_ns);
		/* a real server says nothing of its times */
		if (q->server_recv_ns || q->server_send_ns) {
			csv_u64(c, q->server_recv_ns);
			csv_u64(c, q->server_send_ns);
		} else {
			csv_empty(c);
			csv_empty(c);
		}
	} else {
		for (int k = 0; k < 5; k++)
			csv_empty(c);
	}
	if (q->prequery_sent_ns)
		csv_u64(c, q->prequery_sent_ns);
	else
		csv_empty(c);
	csv_str(c, !q->recv_ns ? "unanswered" : q->error ? "error" : "ok");
	if (r->o->prequery)
		csv_double(c, q->lead_us, 3);
	else
		csv_empty(c);
	if (q->pq == REQ_PQ_SENT) {
		csv_u64(c, pqplan_effective_lead(q->prequery_sent_ns, q->sent_ns));
		csv_u64(c, q->prequery_plan_ns);
	} else {
		csv_empty(c);
		csv_empty(c);
	}
	if (replied(q) && !keyed(r))
		csv_u64(c, q->applied_ns);
	else
		csv_empty(c);
	if (keyed(r)) {
		char key[KVKEY_MAX + 1];

		csv_str(c, q->op == PROTO_OP_GET ? "get" : "set");
		kvkey_text(q->key, (unsigned)r->o->key_size, key);
		csv_str(c, key);
		if (replied(q) && q->op == PROTO_OP_GET)
			csv_u64(c, q->miss);
		else
			csv_empty(c);
	} else {
		csv_empty(c);
		csv_empty(c);
		csv_empty(c);
	}
	csv_end_row(c);
}

/*
 * requests.csv from the threads' spools: each holds its thread's rows in
 * seq order, so taking the lowest seq of the threads' next rows each time
 * puts the file in seq order, one row of each thread in memory.
 */
static int write_requests(const char *path, const struct run *r)
{
	unsigned int n = r->nthreads;
	struct req_rec *head = calloc(n, sizeof(*head));
	int *have = calloc(n, sizeof(*have));
	struct csv *c = NULL;
	int ret = 0, wret;

	if (!head || !have) {
		ret = -ENOMEM;
		goto out;
	}
	for (unsigned int k = 0; k < n && !ret; k++) {
		if (!r->spools || !r->spools[k]) {
			/* the spool could not be made: the run said why */
			ret = r->spool_err ? r->spool_err : -EIO;
			goto out;
		}
		ret = spool_rewind(r->spools[k]);
		if (!ret) {
			ret = spool_next(r->spools[k], &head[k]);
			have[k] = ret > 0;
			ret = ret < 0 ? ret : 0;
		}
	}
	if (ret)
		goto out;
	c = csv_open(path);
	if (!c) {
		ret = -errno;
		goto out;
	}
	csv_header(c, "seq,intended_ns,sent_ns,recv_ns,latency_ns,service_ns,"
		   "server_recv_ns,server_send_ns,prequery_sent_ns,status,"
		   "prequery_lead_us,prequery_lead_ns,prequery_planned_ns,"
		   "applied_service_ns,op,key,miss");
	for (uint64_t rows = 0;; rows++) {
		unsigned int best = n;

		if (!(rows % STOP_EVERY) && stop_asked()) {
			ret = -EINTR;
			break;
		}
		for (unsigned int k = 0; k < n; k++)
			if (have[k] && (best == n || head[k].seq < head[best].seq))
				best = k;
		if (best == n)
			break;
		write_row(c, r, &head[best]);
		ret = spool_next(r->spools[best], &head[best]);
		if (ret < 0)
			break;
		have[best] = ret > 0;
		ret = 0;
	}
out:
	wret = c ? csv_close(c) : 0;
	free(head);
	free(have);
	return ret ? ret : wret;
}

/*
 * The schedule drawn again (the same configuration gives the same gaps),
 * as far as the run drew it: a run stopped early has the gaps of its
 * requests, not those of the whole plan (a --duration of hours is
 * billions of rows).
 */
static int write_gaps(const char *path, const struct run *r)
{
	struct schedule_gen g;
	struct schedule_req q;
	struct schedule_cfg cfg = r->sched;
	struct csv *c;
	int ret = 0, cret;

	cfg.keyed = 0;	/* gaps only */
	if (schedule_gen_init(&g, &cfg))
		return -EINVAL;
	c = csv_open(path);
	if (!c)
		return -errno;
	csv_header(c, "seq,gap_ns,warmup");
	for (uint64_t i = 0; i < r->drawn && schedule_gen_next(&g, &q); i++) {
		if (!(i % STOP_EVERY) && stop_asked()) {
			ret = -EINTR;
			break;
		}
		csv_u64(c, q.seq);
		csv_u64(c, q.gap_ns);
		csv_u64(c, q.seq < r->warmup);
		csv_end_row(c);
	}
	cret = csv_close(c);
	return ret ? ret : cret;
}

static int write_trajectory(const char *path, const struct run *r)
{
	struct csv *c = csv_open(path);

	if (!c)
		return -errno;
	csv_header(c, HILLCLIMB_CSV_HEADER);
	for (uint64_t i = 0; i < r->ntraj; i++)
		hillclimb_row_write(c, &r->traj[i]);
	return csv_close(c);
}

static int write_text(const char *path, const struct run *r,
		      const struct summary *s)
{
	FILE *f = wfile_open(path);

	if (!f)
		return -errno;
	print_text(f, r, s, 0);
	return wfile_close(f);
}

/* One result file: its name and how it is written (to a path). */
struct out_file {
	const char *name;
	int (*write)(const char *path, const struct run *r,
		     const struct summary *s);
};

static int out_requests(const char *path, const struct run *r,
			const struct summary *s)
{
	(void)s;
	return write_requests(path, r);
}

static int out_gaps(const char *path, const struct run *r,
		    const struct summary *s)
{
	(void)s;
	return write_gaps(path, r);
}

static int out_cmdline(const char *path, const struct run *r,
		       const struct summary *s)
{
	(void)s;
	return wfile_write_line(path, r->o->cmdline);
}

static int out_trajectory(const char *path, const struct run *r,
			  const struct summary *s)
{
	(void)s;
	return write_trajectory(path, r);
}

/* Taken while --cstates is still in force: the run's settings. */
static int out_snapshot(const char *path, const struct run *r,
			const struct summary *s)
{
	(void)s;
	return snapshot_write_json(path, "client", r->o->cmdline);
}

int output_write(struct run *r, char *err, size_t errlen)
{
	/* The summaries say "this run is done": renamed last. */
	const struct out_file files[] = {
		{ "requests.csv", r->o->raw.mode != RAW_NONE ? out_requests : NULL },
		{ "gaps.csv", out_gaps },
		{ "cmdline.txt", out_cmdline },
		{ "prequery-trajectory.csv", r->o->adaptive ? out_trajectory : NULL },
		{ "snapshot.json", out_snapshot },
		{ "summary.txt", write_text },
		{ "summary.csv", write_summary_csv },
		{ "summary.json", write_summary_json },
	};
	const struct client_opts *o = r->o;
	struct stage *st;
	struct summary s;
	char tmp[4096], why[512];
	int ret;

	summarize(r, &s);
	if (!o->quiet)
		print_text(stdout, r, &s, 1);
	else if (o->latency_spectrum)
		print_spectrum(stdout, r, &s);
	fflush(stdout);
	if (s.service_capped)
		fprintf(stderr, "%s: WARNING: the server capped the service time of %llu replies (asked %.3f us, applied down to %.3f us): raise its --max-service-us\n",
			PROG, (unsigned long long)s.service_capped,
			o->service_ns / 1e3, s.min_applied_ns / 1e3);
	/* The directory was made ready before the run (outdir_prepare). */
	if (!o->out_dir)
		return 0;
	st = stage_new(o->out_dir);
	if (!st) {
		snprintf(err, errlen, "cannot write %s: %s", o->out_dir,
			 strerror(ENOMEM));
		return -ENOMEM;
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (!files[i].write)
			continue;
		if (stop_asked()) {
			ret = -EINTR;
			goto interrupted;
		}
		ret = stage_add(st, files[i].name, tmp, sizeof(tmp));
		if (!ret)
			ret = files[i].write(tmp, r, &s);
		if (ret == -EINTR)
			goto interrupted;
		if (ret) {
			/* The final name: the temporary one goes with the
			 * stage, and it is this file that is missing. */
			snprintf(err, errlen, "cannot write %s/%s: %s", o->out_dir,
				 files[i].name, strerror(-ret));
			goto out;
		}
	}
	if (stop_asked()) {
		ret = -EINTR;
		goto interrupted;
	}
	ret = stage_commit(st, why, sizeof(why));
	if (ret)
		snprintf(err, errlen, "cannot write %s", why);
	goto out;
interrupted:
	/* stage_free removes what was written under temporary names */
	snprintf(err, errlen, "interrupted while writing the results to %s: no file written",
		 o->out_dir);
out:
	stage_free(st);
	return ret;
}
