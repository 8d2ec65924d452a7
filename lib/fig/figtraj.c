// SPDX-License-Identifier: GPL-2.0
/* figtraj: the adaptive pre-query trajectory figure (see figtraj.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "csvtable.h"
#include "errmsg.h"
#include "figgp.h"
#include "figtraj.h"

#define MAX_TRAJ (256u << 20)

int figtraj_write(const struct figtraj_src *src, size_t n, FILE *dat, FILE *vars,
		  char *err, size_t errlen)
{
	size_t nt = 0, maxlab = 0;
	double maxw = 0;
	int ret = 0;

	figgp_array(vars, "names", n);
	figgp_array(vars, "bestw", n);
	figgp_array(vars, "bestlead", n);
	for (size_t i = 0; i < n && !ret; i++) {
		struct csvtable t;
		int cw, cv, ca, cb, old;
		double prev = NAN, bw = NAN, bl = NAN, ba = INFINITY;

		ret = csvtable_read(src[i].path, MAX_TRAJ, &t, err, errlen);
		if (ret)
			break;
		cw = csvtable_col(&t, "window");
		cv = csvtable_col(&t, "value_us");
		ca = csvtable_col(&t, "window_avg_ns");
		cb = csvtable_col(&t, "best_us");
		old = csvtable_col(&t, "next_us") < 0;
		if (cw < 0 || cv < 0 || ca < 0 || cb < 0) {
			errmsg_set(err, errlen, "%s has no window, value_us, window_avg_ns "
				   "or best_us column", src[i].path);
			ret = -EINVAL;
		}
		if (!ret && t.n && nt)
			fputs("\n\n", dat);
		for (size_t r = 0; r < t.n && !ret; r++) {
			double w, v, a, b, lead;

			if (csvtable_getnum(&t, r, cw, &w, err, errlen) != 1 ||
			    csvtable_getnum(&t, r, cv, &v, err, errlen) != 1 ||
			    csvtable_getnum(&t, r, ca, &a, err, errlen) != 1 ||
			    csvtable_getnum(&t, r, cb, &b, err, errlen) != 1) {
				errmsg_set(err, errlen, "%s:%zu: window, value_us, window_avg_ns "
					   "and best_us must be numbers", src[i].path, t.ln[r]);
				ret = -EINVAL;
				break;
			}
			lead = old ? (r ? prev : b) : v;
			prev = v;
			fprintf(dat, "%.10g ", w);
			figgp_num(dat, lead);
			fputc(' ', dat);
			figgp_num(dat, a / 1e3);
			fputc(' ', dat);
			figgp_num(dat, b);
			fputc('\n', dat);
			if (a < ba) {
				ba = a;
				bw = w;
				bl = lead;
			}
			if (w > maxw)
				maxw = w;
		}
		if (!ret && t.n) {
			nt++;
			figgp_elem_str(vars, "names", nt, src[i].label);
			if (figgp_chars(src[i].label) > maxlab)
				maxlab = figgp_chars(src[i].label);
			figgp_elem_num(vars, "bestw", nt, bw);
			figgp_elem_num(vars, "bestlead", nt, bl);
		}
		csvtable_free(&t);
	}
	if (ret)
		return ret;
	figgp_var_num(vars, "ntraj", (double)nt);
	figgp_var_num(vars, "maxwindow", maxw);
	figgp_var_num(vars, "maxlab", (double)maxlab);
	return (int)nt;
}
