# The kernel matrix: scope-bpf's BPF integration tests on Debian's own kernels, each booted
# under QEMU (TCG, no KVM needed). See docs/KERNELS.md.
#   make check-kernels                                  all five kernels, the default tests
#   make check-kernels KERNELS=6.1 KTESTS="record cli"  one kernel, two tests
# KTESTS names tests as tools/kernels/tests.sh does: record, record:kernel (the kernel-path
# run), smoke, smoke:kernel, all (every test), or any test_X of tests/integration (the test_
# prefix is optional). KJOBS=2 boots two kernels at a time (one TCG guest uses one core).
KERNELS ?= 5.10 6.1 6.12 6.18 7
KTESTS ?=

# What the integration target builds: scope-bpf, the tests, the apps and the tools they run.
check-kernels: $(BUILD)/scope-bpf $(INTEG_BINS) $(APP_BINS) $(TOOL_BINS)
	$(Q)KBUILD=$(BUILD) tools/kernels/matrix.sh $(KERNELS) -- $(KTESTS)

.PHONY: check-kernels
