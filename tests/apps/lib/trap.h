/* The instruction no uprobe can be put on: the test libraries begin their functions with it. */
#ifndef SB_TEST_TRAP_H
#define SB_TEST_TRAP_H

#if defined(__x86_64__)
#define TRAP "int3"
#elif defined(__aarch64__)
#define TRAP "brk #0"
#else
#error "no trap instruction known for this architecture"
#endif

#endif
