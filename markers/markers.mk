# The runtime-named marker library and its Fortran and Python modules
# (markers/, docs/MARKERS.md); included by the top-level Makefile.
#
# libscope_bpf_markers.so.0 (with the .so link to it) and .a, from one
# position-independent object; their tests: a unit test of the name table and
# the apps that tests/integration/test_named_markers.c records.

MARKERS_SO := $(BUILD)/libscope_bpf_markers.so
MARKERS_SONAME := libscope_bpf_markers.so.0
MARKERS_LIBS := $(MARKERS_SO) $(BUILD)/$(MARKERS_SONAME) $(BUILD)/libscope_bpf_markers.a
MARKERS_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) -Iinclude -fPIC -fvisibility=hidden

all: $(MARKERS_LIBS)

$(BUILD)/markers/scope_bpf_markers.o: markers/scope_bpf_markers.c $(MARKER_HDRS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(MARKERS_CFLAGS) -c $< -o $@

$(BUILD)/$(MARKERS_SONAME): $(BUILD)/markers/scope_bpf_markers.o
	$(call msg,LIB,$@)
	$(Q)$(CC) $(LDFLAGS) -shared -Wl,-soname,$(MARKERS_SONAME) $< -pthread -o $@

$(MARKERS_SO): $(BUILD)/$(MARKERS_SONAME)
	$(Q)ln -sf $(MARKERS_SONAME) $@

$(BUILD)/libscope_bpf_markers.a: $(BUILD)/markers/scope_bpf_markers.o
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

UNIT_BINS += $(BUILD)/tests/markers/test_named_sites

$(BUILD)/tests/markers/test_named_sites: tests/markers/test_named_sites.c markers/scope_bpf_markers.c $(MARKER_HDRS)
	$(call msg,TEST,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 $(WARN) $(CFLAGS) -Iinclude $(LDFLAGS) $< markers/scope_bpf_markers.c \
		-pthread -lcmocka -o $@

# Test apps, found beside the library through $ORIGIN/.. as an installed one would be.
$(BUILD)/apps/named_markers: tests/apps/named_markers.c $(MARKERS_SO) $(APPS_DEPS)
	$(call msg,APP,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(APPS_CFLAGS) $< -L$(BUILD) -lscope_bpf_markers -Wl,-rpath,'$$ORIGIN/..' \
		$(APPS_LIBS) -o $@

APP_BINS += $(BUILD)/apps/fortran_markers
# make's built-in FC is f77.
ifeq ($(origin FC),default)
FC := gfortran
endif

$(BUILD)/apps/fortran_markers: markers/scope_bpf.f90 tests/apps/fortran_markers.f90 $(MARKERS_SO)
	$(call msg,FC,$@)
	$(Q)mkdir -p $(BUILD)/markers/fortran $(dir $@)
	$(Q)$(FC) -O2 -g -fno-omit-frame-pointer -Wall -Werror -J$(BUILD)/markers/fortran \
		markers/scope_bpf.f90 tests/apps/fortran_markers.f90 -L$(BUILD) -lscope_bpf_markers \
		-Wl,-rpath,'$$ORIGIN/..' -o $@
