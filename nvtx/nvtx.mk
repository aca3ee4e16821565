# The NVTX injection library (nvtx/, docs/ANNOTATIONS.md); included by the
# top-level Makefile after annot/annot.mk.
#
# Built, with its unit test and test apps, where the CUDA toolkit's NVTX v3
# headers are ($(CUDA_HOME)/include/nvtx3, header-only: no GPU, no library);
# elsewhere a line says it is left out, and test_annotations leaves out NVTX.

CUDA_HOME ?= /usr/local/cuda
NVTX_H := $(wildcard $(CUDA_HOME)/include/nvtx3/nvToolsExt.h)

ifneq ($(NVTX_H),)
all: $(BUILD)/libscope_bpf_nvtx.so

$(BUILD)/libscope_bpf_nvtx.so: nvtx/scope_bpf_nvtx.c nvtx/names.c nvtx/names.h $(ANNOT_LIB_DEPS)
	$(call annot_lib,-Invtx -I$(CUDA_HOME)/include)

UNIT_BINS += $(BUILD)/tests/nvtx/test_nvtx_names

$(BUILD)/tests/nvtx/test_nvtx_names: tests/nvtx/test_nvtx_names.c nvtx/names.c nvtx/names.h \
		annot/tags.c annot/tags.h
	$(call msg,TEST,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 $(WARN) $(CFLAGS) -Invtx -Iannot $(LDFLAGS) $< nvtx/names.c annot/tags.c \
		-lcmocka -o $@

install: install-nvtx
.PHONY: install-nvtx
install-nvtx: $(BUILD)/libscope_bpf_nvtx.so
	$(call annot_install,libscope_bpf_nvtx.so)

$(BUILD)/apps/nvtx_ranges: APPS_CFLAGS += -I$(CUDA_HOME)/include -fopenmp
$(BUILD)/apps/nvtx_ranges: | $(BUILD)/libscope_bpf_nvtx.so
$(BUILD)/apps/mpi_nvtx: APPS_CFLAGS += -I$(CUDA_HOME)/include
$(BUILD)/apps/mpi_nvtx: | $(BUILD)/libscope_bpf_nvtx.so
$(BUILD)/tests/integration/test_annotations: ALL_CFLAGS += -DSB_TEST_NVTX
$(BUILD)/tests/integration/test_daemon: ALL_CFLAGS += -DSB_TEST_NVTX
else
APP_BINS := $(filter-out $(BUILD)/apps/nvtx_ranges $(BUILD)/apps/mpi_nvtx,$(APP_BINS))
all: nvtx-absent
.PHONY: nvtx-absent
nvtx-absent:
	@echo "  NVTX     $(CUDA_HOME)/include/nvtx3/nvToolsExt.h not found: libscope_bpf_nvtx.so not built (CUDA_HOME=...)"
endif
