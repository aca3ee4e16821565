# The ITT collector library (itt/, docs/ANNOTATIONS.md); included by the
# top-level Makefile after annot/annot.mk. No Intel header or library needed:
# itt/scope_bpf_itt.c declares the part of ITT's ABI a collector reads.

all: $(BUILD)/libscope_bpf_itt.so

$(BUILD)/libscope_bpf_itt.so: itt/scope_bpf_itt.c $(ANNOT_LIB_DEPS)
	$(call annot_lib,)

install: install-itt
.PHONY: install-itt
install-itt: $(BUILD)/libscope_bpf_itt.so
	$(call annot_install,libscope_bpf_itt.so)

# itt_tasks loads the library as ittnotify's static part does, from INTEL_LIBITTNOTIFY64.
$(BUILD)/apps/itt_tasks: | $(BUILD)/libscope_bpf_itt.so
