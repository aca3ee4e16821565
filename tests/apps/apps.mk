# Build rules for the test applications in tests/apps; included by the top-level Makefile.
#
# Every tests/apps/NAME.c or NAME.cc becomes $(BUILD)/apps/NAME. libuser also
# links $(BUILD)/apps/libsbtest.so (tests/apps/lib), found at run time
# beside it through $ORIGIN.

APPS_CFLAGS := -O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -Iinclude
APPS_LIBS := -pthread -lm
APPS_DEPS := $(MARKER_HDRS) tests/apps/busy.h tests/apps/pages.h

$(BUILD)/apps/libsbtest.so: tests/apps/lib/sbtest_lib.c tests/apps/lib/sbtest_lib.h $(APPS_DEPS)
	$(call msg,APP,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(APPS_CFLAGS) -fPIC -shared $< -o $@

$(BUILD)/apps/libuser $(BUILD)/apps/hotspots: $(BUILD)/apps/%: tests/apps/%.c $(BUILD)/apps/libsbtest.so $(APPS_DEPS)
	$(call msg,APP,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(APPS_CFLAGS) -Itests/apps/lib $< -L$(BUILD)/apps -lsbtest \
		-Wl,-rpath,'$$ORIGIN' $(APPS_LIBS) -o $@

# forker exec's count from its own directory.
$(BUILD)/apps/forker: | $(BUILD)/apps/count

# MPI test apps (mpi_*.c) are built with MPICH's compiler wrapper, named as
# such: Debian's alternatives point plain `mpicc` at Open MPI's once both are
# installed. Without mpicc.mpich (MPICH from elsewhere), plain mpicc.
ifeq ($(origin MPICC),undefined)
MPICC := $(if $(shell command -v mpicc.mpich 2>/dev/null),mpicc.mpich,mpicc)
endif

$(BUILD)/apps/mpi_%: tests/apps/mpi_%.c $(APPS_DEPS)
	$(call msg,MPIAPP,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(MPICC) $(APPS_CFLAGS) $< $(APPS_LIBS) -o $@

# Open MPI builds of three of them (ompi_calls, ompi_ranks, ompi_types), for
# tests/integration/test_ompi.c: Debian's Open MPI by its own wrapper's name.
MPICC_OMPI ?= mpicc.openmpi
APP_BINS += $(BUILD)/apps/ompi_calls $(BUILD)/apps/ompi_ranks $(BUILD)/apps/ompi_types

$(BUILD)/apps/ompi_%: tests/apps/mpi_%.c $(APPS_DEPS)
	$(call msg,OMPIAPP,$@)
	$(Q)command -v $(MPICC_OMPI) >/dev/null || { echo "$@: $(MPICC_OMPI) not found:" \
		"install Debian's openmpi-bin and libopenmpi-dev (tools/install-deps.sh)" >&2; exit 1; }
	$(Q)mkdir -p $(dir $@)
	$(Q)$(MPICC_OMPI) $(APPS_CFLAGS) $< $(APPS_LIBS) -o $@

# Open MPI's Fortran bindings (tests/integration/test_mpi_paths.c), by its own Fortran wrapper.
MPIF90_OMPI ?= mpif90.openmpi
APP_BINS += $(BUILD)/apps/ompi_fortran

$(BUILD)/apps/ompi_fortran: tests/apps/ompi_fortran.f90
	$(call msg,OMPIAPP,$@)
	$(Q)command -v $(MPIF90_OMPI) >/dev/null || { echo "$@: $(MPIF90_OMPI) not found:" \
		"install Debian's openmpi-bin, libopenmpi-dev and gfortran (tools/install-deps.sh)" >&2; \
		exit 1; }
	$(Q)mkdir -p $(dir $@)
	$(Q)$(MPIF90_OMPI) -O2 -g -Wall -Werror $< -o $@

# Fire the CUPTI library's probes with made-up CUDA activity (no toolkit needed);
# cuda_omp launches in OpenMP parallel bodies.
$(BUILD)/apps/cuda_synth $(BUILD)/apps/cuda_omp: APPS_CFLAGS += -iquote bpf -iquote cupti
$(BUILD)/apps/cuda_synth $(BUILD)/apps/cuda_omp: bpf/cuda_rec.h cupti/probes.h \
	tests/apps/cuda_fake.h
$(BUILD)/apps/cuda_omp: APPS_CFLAGS += -fopenmp

# The hybrid MPI + OpenMP app.
$(BUILD)/apps/mpi_omp: APPS_CFLAGS += -fopenmp

# OpenMP test apps (omp_*.c) use gcc's libgomp.
$(BUILD)/apps/omp_%: tests/apps/omp_%.c $(APPS_DEPS)
	$(call msg,OMPAPP,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(APPS_CFLAGS) -fopenmp $< $(APPS_LIBS) -o $@

$(BUILD)/apps/%: tests/apps/%.c $(APPS_DEPS)
	$(call msg,APP,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(APPS_CFLAGS) $< $(APPS_LIBS) -o $@

$(BUILD)/apps/%: tests/apps/%.cc $(APPS_DEPS)
	$(call msg,APP,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CXX) $(APPS_CFLAGS) $< $(APPS_LIBS) -o $@

# dlopen_loop loads libsbtest.so by the path it is given.
$(BUILD)/apps/dlopen_loop: | $(BUILD)/apps/libsbtest.so

# A library named as MPI's that no uprobe can probe; refused_lib loads it from its own directory.
$(BUILD)/apps/libmpi_refused.so: tests/apps/lib/mpi_refused.c tests/apps/lib/trap.h
	$(call msg,APP,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(APPS_CFLAGS) -fPIC -shared $< -o $@

# The same for OpenMP: a file named as libgomp's.
$(BUILD)/apps/libgomp.so.refused: tests/apps/lib/gomp_refused.c tests/apps/lib/trap.h
	$(call msg,APP,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(APPS_CFLAGS) -fPIC -shared $< -o $@

$(BUILD)/apps/refused_lib: | $(BUILD)/apps/libmpi_refused.so $(BUILD)/apps/libgomp.so.refused

# Two plugins from one source: the same layout, another region name. dlplugins
# loads them from its own directory.
$(BUILD)/apps/libplugin_%.so: tests/apps/plugin/plugin.c $(APPS_DEPS)
	$(call msg,APP,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(APPS_CFLAGS) -fPIC -shared -DPLUGIN_REGION='"plugin_$*"' $< -o $@

$(BUILD)/apps/dlplugins: | $(BUILD)/apps/libplugin_a.so $(BUILD)/apps/libplugin_b.so

# CUDA host-probe test apps (cuda_host*.c) call the CUDA runtime: built with
# the toolkit's headers and libcudart where the toolkit is, left out (with
# their integration test) elsewhere. No nvcc and no GPU needed.
# cuda_host_static is cuda_host with the runtime linked in, as nvcc links it;
# cuda_host_unmarked is cuda_host without markers.
CUDA_HOME ?= /usr/local/cuda
CUDART_H := $(wildcard $(CUDA_HOME)/include/cuda_runtime_api.h)
CUDA_HOST_APPS := $(filter $(BUILD)/apps/cuda_host%,$(APP_BINS))
ifeq ($(CUDART_H),)
APP_BINS := $(filter-out $(CUDA_HOST_APPS),$(APP_BINS))
INTEG_BINS := $(filter-out $(BUILD)/tests/integration/test_cuda_host,$(INTEG_BINS))
else
APP_BINS += $(BUILD)/apps/cuda_host_static $(BUILD)/apps/cuda_host_unmarked
endif
CUDA_APP_CFLAGS = $(APPS_CFLAGS) -I$(CUDA_HOME)/include

$(CUDA_HOST_APPS): $(BUILD)/apps/%: tests/apps/%.c $(APPS_DEPS)
	$(call msg,CUDAAPP,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CUDA_APP_CFLAGS) $< -L$(CUDA_HOME)/lib64 -lcudart \
		-Wl,-rpath,$(CUDA_HOME)/lib64 $(APPS_LIBS) -o $@

$(BUILD)/apps/cuda_host_static: tests/apps/cuda_host.c $(APPS_DEPS)
	$(call msg,CUDAAPP,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CUDA_APP_CFLAGS) $< -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt \
		$(APPS_LIBS) -o $@

$(BUILD)/apps/cuda_host_unmarked: tests/apps/cuda_host.c $(APPS_DEPS)
	$(call msg,CUDAAPP,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CUDA_APP_CFLAGS) -DUNMARKED $< -L$(CUDA_HOME)/lib64 -lcudart \
		-Wl,-rpath,$(CUDA_HOME)/lib64 $(APPS_LIBS) -o $@

# nested.c with its marker sites in %rbx on x86-64, not where the header puts them: the
# recorder must fetch them as each note says (tests/integration/test_fast.c).
APP_BINS += $(BUILD)/apps/nested_rbx
$(BUILD)/apps/nested_rbx: tests/apps/nested.c tests/apps/busy.h $(APPS_DEPS)
	$(call msg,APP,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(APPS_CFLAGS) $(if $(filter x86,$(ARCH)),'-DSCOPE_BPF_IMPL_SITE_REG="b"') $< \
		$(APPS_LIBS) -o $@

# nested.c built with the marker header as released before the fast path: such binaries keep
# the kernel path (tests/integration/test_fast.c).
APP_BINS += $(BUILD)/apps/nested_v1
$(BUILD)/apps/nested_v1: tests/apps/nested.c tests/apps/old_header/scope_bpf.h tests/apps/busy.h
	$(call msg,APP,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(subst -Iinclude,-Itests/apps/old_header -Iinclude,$(APPS_CFLAGS)) $< \
		$(APPS_LIBS) -o $@
