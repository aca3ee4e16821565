# The Kokkos Tools library (kokkos/, docs/ANNOTATIONS.md); included by the
# top-level Makefile after annot/annot.mk. No Kokkos needed: the interface is C.

all: $(BUILD)/libscope_bpf_kokkos.so

$(BUILD)/libscope_bpf_kokkos.so: kokkos/scope_bpf_kokkos.c $(ANNOT_LIB_DEPS)
	$(call annot_lib,)

install: install-kokkos
.PHONY: install-kokkos
install-kokkos: $(BUILD)/libscope_bpf_kokkos.so
	$(call annot_install,libscope_bpf_kokkos.so)

# kokkos_tools loads the library as Kokkos does, from KOKKOS_TOOLS_LIBS.
$(BUILD)/apps/kokkos_tools: | $(BUILD)/libscope_bpf_kokkos.so
