# The OMPT tool for LLVM's OpenMP runtime (docs/OPENMP.md); included by the top-level Makefile.
#
# Built where LLVM's omp-tools.h is (Debian: libomp-14-dev). -idirafter: only
# that header comes from clang's directory, never the compiler's own headers.

OMPT_H := $(firstword $(wildcard /usr/lib/llvm-*/lib/clang/*/include/omp-tools.h))

ifneq ($(OMPT_H),)
all: $(BUILD)/libscope_bpf_ompt.so

$(BUILD)/libscope_bpf_ompt.so: ompt/scope_bpf_ompt.c $(MARKER_HDRS)
	$(call msg,LIB,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 $(WARN) $(CFLAGS) -fPIC -shared -Iinclude -idirafter $(dir $(OMPT_H)) \
		$< -o $@

install: install-ompt
.PHONY: install-ompt
install-ompt: $(BUILD)/libscope_bpf_ompt.so
	install -D -m 0644 $< $(DESTDIR)$(PREFIX)/lib/scope-bpf/libscope_bpf_ompt.so

# omp_solve built with clang, for LLVM's runtime.
APP_BINS += $(BUILD)/apps/omp_solve_llvm

$(BUILD)/apps/omp_solve_llvm: tests/apps/omp_solve.c $(APPS_DEPS) | $(BUILD)/libscope_bpf_ompt.so
	$(call msg,LLVMAPP,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(APPS_CFLAGS) -fopenmp $< $(APPS_LIBS) -o $@
endif
