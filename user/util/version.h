/* The program's version, written into every profile's metadata. */
#ifndef SB_VERSION_H
#define SB_VERSION_H
#define SCOPE_BPF_VERSION "0.1.0"
#endif
