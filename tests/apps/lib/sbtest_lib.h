/* Interface of libsbtest.so, the shared library the libuser test app calls. */
#ifndef SBTEST_LIB_H
#define SBTEST_LIB_H

/* Runs region "lib_compute" (with one nested "lib_inner") once per call. */
void sbtest_lib_compute(int n);

/* Computes for ns nanoseconds of wall time inside the library (for sampling tests). */
void sbtest_lib_spin(unsigned long long ns);

#endif /* SBTEST_LIB_H */
