/*
 * LIKWID's CPU -> perfgroups directory choice. Models are the CPUID display
 * models LIKWID's topology code switches on; Kaby Lake and Comet Lake use
 * the skylake groups, Cascade Lake is model 0x55 from stepping 5.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "counters/likwid_arch.h"

struct intel_model {
	unsigned int model;
	const char *arch;
};

static const struct intel_model intel_family6[] = {
	{ 0x09, "pentiumm" }, { 0x0D, "pentiumm" },
	{ 0x0F, "core2" }, { 0x17, "core2" }, { 0x1D, "core2" },
	{ 0x1C, "atom" }, { 0x26, "atom" }, { 0x27, "atom" }, { 0x35, "atom" }, { 0x36, "atom" },
	{ 0x37, "silvermont" }, { 0x4A, "silvermont" }, { 0x4C, "silvermont" },
	{ 0x4D, "silvermont" }, { 0x5A, "silvermont" }, { 0x5D, "silvermont" },
	{ 0x5C, "goldmont" }, { 0x5F, "goldmont" }, { 0x7A, "goldmont" },
	{ 0x1A, "nehalem" }, { 0x1E, "nehalem" }, { 0x1F, "nehalem" }, { 0x2E, "nehalemEX" },
	{ 0x25, "westmere" }, { 0x2C, "westmere" }, { 0x2F, "westmereEX" },
	{ 0x2A, "sandybridge" }, { 0x2D, "sandybridgeEP" },
	{ 0x3A, "ivybridge" }, { 0x3E, "ivybridgeEP" },
	{ 0x3C, "haswell" }, { 0x45, "haswell" }, { 0x46, "haswell" }, { 0x3F, "haswellEP" },
	{ 0x3D, "broadwell" }, { 0x47, "broadwell" }, { 0x56, "broadwellD" },
	{ 0x4F, "broadwellEP" },
	{ 0x4E, "skylake" }, { 0x5E, "skylake" }, { 0x8E, "skylake" }, { 0x9E, "skylake" },
	{ 0xA5, "skylake" }, { 0xA6, "skylake" },
	{ 0x55, "skylakeX" },
	{ 0x57, "knl" }, { 0x85, "knl" },
	{ 0x7D, "ICL" }, { 0x7E, "ICL" }, { 0x6A, "ICX" }, { 0x6C, "ICX" },
	{ 0x8C, "TGL" }, { 0x8D, "TGL" }, { 0xA7, "RKL" },
};

static const char *intel_arch(unsigned int family, unsigned int model, unsigned int stepping)
{
	size_t i;

	if (family == 0x0B)
		return "phi";
	if (family != 6)
		return NULL;
	if (model == 0x55 && stepping >= 5)
		return "CLX";
	for (i = 0; i < sizeof(intel_family6) / sizeof(intel_family6[0]); i++)
		if (intel_family6[i].model == model)
			return intel_family6[i].arch;
	return NULL;
}

static const char *amd_arch(unsigned int family, unsigned int model)
{
	switch (family) {
	case 0x0F:
		return "k8";
	case 0x10:
		return "k10";
	case 0x15:
		return "interlagos";
	case 0x16:
		return "kabini";
	case 0x17:	/* Zen and Zen+ below model 0x30, Zen 2 from there */
		return model < 0x30 ? "zen" : "zen2";
	case 0x19:	/* Zen 3: 0x00-0x0F, 0x20-0x5F; Zen 4: 0x10-0x1F, 0x60-0xAF */
		return (model >= 0x10 && model < 0x20) || (model >= 0x60 && model < 0xB0) ? "zen4"
											: "zen3";
	default:
		return NULL;
	}
}

const char *sb_likwid_arch_of(const char *vendor, unsigned int family, unsigned int model,
			      unsigned int stepping)
{
	if (!strcmp(vendor, "GenuineIntel"))
		return intel_arch(family, model, stepping);
	if (!strcmp(vendor, "AuthenticAMD"))
		return amd_arch(family, model);
	return NULL;
}

const char *sb_likwid_groups_root(void)
{
	const char *env = getenv("SCOPE_BPF_LIKWID_GROUPS");

	return env && *env ? env : SB_LIKWID_GROUPS_DIR;
}

static bool arch_dir_exists(const char *arch)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", sb_likwid_groups_root(), arch);
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* This CPU from /proc/cpuinfo's first processor: vendor, family, model, stepping. */
static int read_cpuinfo(char vendor[64], unsigned int id[3])
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];
	int found = 0;

	if (!f)
		return -errno;
	while (found < 4 && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		if (!strncmp(line, "vendor_id", 9) && sscanf(colon + 1, " %63s", vendor) == 1)
			found++;
		else if (!strncmp(line, "cpu family", 10))
			found += sscanf(colon + 1, "%u", &id[0]) == 1;
		else if (!strncmp(line, "model\t", 6) || !strncmp(line, "model ", 6))
			found += sscanf(colon + 1, "%u", &id[1]) == 1;
		else if (!strncmp(line, "stepping", 8))
			found += sscanf(colon + 1, "%u", &id[2]) == 1;
	}
	fclose(f);
	return found == 4 ? 0 : -ENOENT;
}

const char *sb_likwid_arch_detect(struct sb_error *err)
{
	unsigned int id[3] = { 0, 0, 0 };
	char vendor[64] = "";
	const char *arch;

	if (read_cpuinfo(vendor, id)) {
		sb_fail(err, ENOENT, "/proc/cpuinfo: no vendor_id, cpu family, model and stepping");
		return NULL;
	}
	arch = sb_likwid_arch_of(vendor, id[0], id[1], id[2]);
	if (arch && !strcmp(arch, "zen4") && !arch_dir_exists(arch))
		arch = "zen3";	/* LIKWID before 5.3 has no zen4 groups; Zen 4 counts Zen 3's events */
	if (!arch) {
		sb_fail(err, ENOENT, "LIKWID groups: no perfgroups directory for this CPU (%s family "
			"0x%x model 0x%x)", vendor, id[0], id[1]);
		return NULL;
	}
	if (!arch_dir_exists(arch)) {
		sb_fail(err, ENOENT, "%s/%s: missing (is LIKWID installed? Debian package likwid)",
			sb_likwid_groups_root(), arch);
		return NULL;
	}
	return arch;
}

struct arch_pmu {
	const char *arch, *pmu;
};

/* libpfm4 has no Tiger Lake or Rocket Lake core PMU: their cores are Ice Lake's successors. */
static const struct arch_pmu arch_pmus[] = {
	{ "skylake", "skl" }, { "skylakeX", "skx" }, { "CLX", "clx" },
	{ "ICL", "icl" }, { "ICX", "icx" }, { "TGL", "icl" }, { "RKL", "icl" },
	{ "haswell", "hsw" }, { "haswellEP", "hsw_ep" },
	{ "broadwell", "bdw" }, { "broadwellD", "bdw_ep" }, { "broadwellEP", "bdw_ep" },
	{ "sandybridge", "snb" }, { "sandybridgeEP", "snb_ep" },
	{ "ivybridge", "ivb" }, { "ivybridgeEP", "ivb_ep" },
	{ "nehalem", "nhm" }, { "nehalemEX", "nhm_ex" },
	{ "westmere", "wsm" }, { "westmereEX", "wsm_dp" },
	{ "core2", "core" }, { "atom", "atom" }, { "silvermont", "slm" }, { "goldmont", "glm" },
	{ "knl", "knl" }, { "phi", "knc" },
	{ "zen", "amd64_fam17h_zen1" }, { "zen2", "amd64_fam17h_zen2" },
	{ "zen3", "amd64_fam19h_zen3" }, { "zen4", "amd64_fam19h_zen4" },
	{ "interlagos", "amd64_fam15h_interlagos" }, { "kabini", "amd64_fam16h" },
	{ "k10", "amd64_fam10h_barcelona" }, { "k8", "amd64_k8_revg" },
};

const char *sb_likwid_arch_pmu(const char *arch)
{
	size_t i;

	for (i = 0; i < sizeof(arch_pmus) / sizeof(arch_pmus[0]); i++)
		if (!strcmp(arch_pmus[i].arch, arch))
			return arch_pmus[i].pmu;
	return NULL;
}
