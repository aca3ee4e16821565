# The CUPTI injection library (docs/CUDA.md); included by the top-level Makefile.
#
# Built, with its unit tests, where the CUDA toolkit's CUPTI is
# ($(CUDA_HOME)/include/cupti.h); elsewhere a line says it is left out.

CUDA_HOME ?= /usr/local/cuda
CUPTI_H := $(wildcard $(CUDA_HOME)/include/cupti.h)
CUPTI_SRCS := cupti/convert.c cupti/names.c
CUPTI_HDRS := $(wildcard cupti/*.h) bpf/cuda_rec.h include/scope_bpf/probe.h
CUPTI_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) -D_GNU_SOURCE -Iinclude -Ibpf -Icupti -I$(CUDA_HOME)/include

ifneq ($(CUPTI_H),)
all: $(BUILD)/libscope_bpf_cupti.so

$(BUILD)/libscope_bpf_cupti.so: cupti/inject.c cupti/dump.c $(CUPTI_SRCS) $(CUPTI_HDRS)
	$(call msg,LIB,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CUPTI_CFLAGS) -fPIC -shared -fvisibility=hidden $(LDFLAGS) \
		cupti/inject.c cupti/dump.c $(CUPTI_SRCS) -L$(CUDA_HOME)/lib64 -lcupti \
		-Wl,-rpath,$(CUDA_HOME)/lib64 -lpthread -o $@

UNIT_BINS += $(BUILD)/tests/cupti/test_cupti_convert $(BUILD)/tests/cupti/test_cupti_inject \
	$(BUILD)/tests/cupti/test_cupti_dump $(BUILD)/tests/cupti/test_cupti_cbids

$(BUILD)/tests/cupti/test_cupti_convert: tests/cupti/test_cupti_convert.c $(CUPTI_SRCS) $(CUPTI_HDRS)
	$(call msg,TEST,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CUPTI_CFLAGS) $(LDFLAGS) $< $(CUPTI_SRCS) -lcmocka -o $@

$(BUILD)/tests/cupti/test_cupti_dump: tests/cupti/test_cupti_dump.c cupti/dump.c $(CUPTI_HDRS)
	$(call msg,TEST,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CUPTI_CFLAGS) $(LDFLAGS) $< cupti/dump.c -lcmocka -o $@

# The recorder's names of CUDA API calls (user/model/cuda_api.c) against the toolkit's ids.
$(BUILD)/tests/cupti/test_cupti_cbids: tests/cupti/test_cupti_cbids.c user/model/cuda_api.c \
		user/model/cuda.h
	$(call msg,TEST,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CUPTI_CFLAGS) -Iuser $(LDFLAGS) $< user/model/cuda_api.c -lcmocka -o $@

$(BUILD)/tests/cupti/test_cupti_inject: tests/cupti/test_cupti_inject.c $(BUILD)/libscope_bpf_cupti.so
	$(call msg,TEST,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CUPTI_CFLAGS) $(LDFLAGS) \
		-DCUPTI_LIB='"$(abspath $(BUILD))/libscope_bpf_cupti.so"' $< -ldl -lcmocka -o $@

install: install-cupti
.PHONY: install-cupti
install-cupti: $(BUILD)/libscope_bpf_cupti.so
	install -D -m 0644 $< $(DESTDIR)$(PREFIX)/lib/scope-bpf/libscope_bpf_cupti.so
else
all: cupti-absent
.PHONY: cupti-absent
cupti-absent:
	@echo "  CUPTI    $(CUDA_HOME)/include/cupti.h not found: libscope_bpf_cupti.so not built (CUDA_HOME=...)"
endif
