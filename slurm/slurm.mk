# Slurm's SPANK plugin, srun --scope-bpf (docs/CLUSTERS.md); included by the top-level Makefile.
#
# Built where Slurm's spank.h is (Debian: libslurm-dev). The plugin runs
# record and merge: it is told where scope-bpf was installed.

SPANK_H := $(wildcard /usr/include/slurm/spank.h)
SPANK_SRCS := slurm/spank_scope_bpf.c slurm/step_merge.c slurm/spank_opts.c

ifneq ($(SPANK_H),)
all: $(BUILD)/spank_scope_bpf.so
integration: $(BUILD)/spank_scope_bpf.so

$(BUILD)/spank_scope_bpf.so: $(SPANK_SRCS) $(wildcard slurm/*.h)
	$(call msg,LIB,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 $(WARN) $(CFLAGS) -D_GNU_SOURCE -fPIC -shared \
		-DSCOPE_BPF_BIN='"$(BINDIR)/scope-bpf"' $(SPANK_SRCS) -o $@

install: install-spank
.PHONY: install-spank
install-spank: $(BUILD)/spank_scope_bpf.so
	install -D -m 0644 $< $(DESTDIR)$(PREFIX)/lib/scope-bpf/spank_scope_bpf.so
endif

# The options' parser needs no Slurm: its unit test is built everywhere.
$(BUILD)/tests/unit/slurm/test_spank_opts: tests/unit/slurm/test_spank_opts.c slurm/spank_opts.c \
		slurm/spank_opts.h
	$(call msg,TEST,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -Islurm $(LDFLAGS) $< slurm/spank_opts.c -lcmocka -o $@
