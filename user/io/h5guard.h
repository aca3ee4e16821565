/* Running HDF5 reads so that a crash or hang inside libhdf5 becomes the one-line error. */
#ifndef SB_H5GUARD_H
#define SB_H5GUARD_H

/*
 * Call fn(ctx), which reads the HDF5 file path, with the address space capped
 * to what a file of its size can need; should the library crash
 * or run past a watchdog sized from the file, print "scope-bpf: path:
 * corrupt HDF5 file (...)" and exit with status 2. Returns fn's value.
 */
int sb_h5_guarded(const char *path, int (*fn)(void *ctx), void *ctx);

#endif
