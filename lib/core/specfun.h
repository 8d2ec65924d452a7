/* SPDX-License-Identifier: GPL-2.0 */
/*
 * specfun: the few special functions the run tests need for p-values
 * (lib/gof): the regularized incomplete gamma and beta functions, and the
 * tail probabilities built on them. Accurate to about 1e-12 relative over
 * the ranges the tests use (checked against scipy.special in
 * tests/unit/test_gof.c); they return NAN for arguments outside their
 * domain, never abort.
 */
#ifndef WB_SPECFUN_H
#define WB_SPECFUN_H

/* Q(a, x) = Gamma(a, x) / Gamma(a), a > 0, x >= 0. */
double specfun_gamma_q(double a, double x);
/* I_x(a, b), a > 0, b > 0, 0 <= x <= 1. */
double specfun_beta_inc(double a, double b, double x);
/* P(X > x) for X ~ chi-square with k > 0 degrees of freedom. */
double specfun_chi2_sf(double x, double k);
/* P(|T| > |t|) for T ~ Student's t with df > 0 degrees of freedom. */
double specfun_t_sf2(double t, double df);
/* P(Z > z) for Z ~ N(0, 1). */
double specfun_norm_sf(double z);

#endif
