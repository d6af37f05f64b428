#!/usr/bin/env python3
"""Check nvq's layering: the top-level modules of src/ and of nvq-core's
crates/nvq-core/src/ form no cycle, each uses only the modules its layer
allows (ARCHITECTURE.md, "Layers"), the simulator's (nvml-sim/src/) likewise
against its own table (`SIM_ALLOWED`), nvq-core's normal dependencies
(`cargo tree`) hold no command line, server, terminal or picture crate, no
line of either is longer than 120 characters unless it holds a string literal,
every `unsafe` block has a `// SAFETY:` comment (an `unsafe fn` a `# Safety`
section), only the raw NVML layer (crates/nvq-core/src/nvml/raw/) touches NVML's
symbol table, only it and the catalogue's reader (crates/nvq-core/src/source/gpu/
and source/ctx.rs) call nvml-wrapper's getters (`wrapper_getters`), and inside each module the files
of one folder form no circle either (`inner_circles`). Also Cargo.toml's `dist` profile (the
packages') sets back to opt-level 3 every package override that the quick `release` profile
makes and `dist` inherits (`dist_profile`, issue #55).

Reads every `crate::<module>` path in both, and `nvq_core::<module>` in nvq (comments and doc comments
excluded; `#[cfg(test)]` code included: tests may not bend the layers
either). Exit 1 with one line per violation.
"""
import bisect
import collections
import os
import re
import subprocess
import sys
import tomllib

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
# The nvq crate's modules and nvq-core's (model, error, nvml, source, render):
# one set of layers across the two crates. ROOT is the one being read.
ROOTS = [os.path.join(REPO, "src"), os.path.join(REPO, "crates", "nvq-core", "src")]
ROOT = ROOTS[0]

# What nvq-core may never depend on (`cargo tree -p nvq-core -e normal`):
# the command line, the server, the terminal, the pictures.
CORE_FORBIDDEN = {
    "clap", "clap_complete", "clap_mangen", "tokio", "hyper", "hyper_util", "tokio_rustls", "prost",
    "ratatui", "crossterm", "plotters", "image", "tempfile", "bcrypt", "flate2", "ring",
}

# What each top-level module may use. The lowest layer first.
ALLOWED = {
    "model": set(),
    "test_support": set(),  # what nvq's own tests share (snapshots)
    "trust": set(),  # the files root may load, run or read as its own
    "error": {"model"},
    "nvml": {"model", "error", "trust"},
    "source": {"model", "error", "nvml"},
    "render": {"model", "error"},
    "plot": {"model", "error", "render"},
    "pods": {"model", "error", "nvml"},
    "output": {"model", "error", "trust"},
    "schedule": {"model", "error", "render", "output"},
    "child": {"model", "error", "schedule"},
    "script": {"model", "error", "source", "render"},
    "serve": {"model", "error", "nvml", "source", "render", "schedule", "trust"},
    "hosts": {"model", "error", "source", "render", "serve", "schedule"},
    "tui": {"model", "error", "render", "test_support"},
    "cli": {"model", "error", "nvml", "source", "render", "script", "pods"},
    "app": {
        "model", "error", "nvml", "source", "render", "output", "schedule", "script", "cli", "serve", "tui",
        "plot", "pods", "trust", "hosts", "child",
    },
    "lib": None,  # the crate root declares the modules
    "main": None,
    "bin": None,  # src/bin/: binaries besides main.rs (`nvq-top`), the crate's users like main
}

# The simulator's layers (nvml-sim/src/), the lowest first: the symbol list, the
# scenario (data and validation), the live processes' control files, the state a
# scenario becomes, the call machinery
# that enters it, the export files by domain, and the generated stubs and signature
# checks on top of every export.
SIM_EXPORTS = {"device", "events", "gpm", "instances", "procs", "system", "topo", "units", "vgpu"}
SIM_ALLOWED = {
    "symbols": set(),
    "scenario": {"symbols"},
    "live": set(),  # the live processes' control files, read into the state
    "state": {"scenario", "live"},
    "call": {"scenario", "state", "live"},
    "pci": {"scenario", "call"},  # the PCI struct a GPU and its NVLink peers report
    "topo": {"scenario", "state", "call", "pci"},
    **{m: {"scenario", "live", "state", "call", "pci", "topo"} for m in SIM_EXPORTS - {"topo"}},
    "generated": {"call"} | SIM_EXPORTS,
    "lib": None,
}
SIM_ROOT = os.path.join(REPO, "nvml-sim", "src")

MAX_LINE = 120

# Where nvml-wrapper's getters may be called: the raw NVML layer, and the
# catalogue's reader (its getters, `source/gpu/`, and the GPU context they read
# through, `source/ctx.rs`). Every other file reads a GPU's facts through `GpuCtx`
# and the rest through the raw layer's typed reads.
WRAPPER_PLACES = tuple(
    os.path.join("crates", "nvq-core", "src", *p)
    for p in (("nvml", "raw", ""), ("source", "gpu", ""), ("source", "ctx.rs"))
)
# The methods of nvml-wrapper 0.13's `Nvml`, `Device`, `Unit`, `NvLink`, `EventSet`,
# `VgpuInstance` and `VgpuType` that take `&self`, less the few that nvq's own
# types (or std's `File::metadata`, the builder's `init`) also have: `name`, `uuid`,
# `serial`, `index`, `mig_mode`, `ecc_mode`, `driver_model`, `encoder_stats`, ...
# Those cannot be told apart by name; outside these places no value of the
# wrapper's types is reachable to call them on (`Session::nvml` is the nvml
# module's, `GpuCtx`'s device the catalogue's), and naming the types fails here.
WRAPPER_GETTERS = frozenset((
    "accounting_buffer_size", "accounting_mode", "accounting_pids", "accounting_stats_for",
    "active_vgpus", "applications_clock", "architecture", "are_devices_on_same_board",
    "are_pages_pending_retired", "attributes", "auto_boosted_clocks_enabled", "bar1_info",
    "bar1_memory_info", "board_id", "board_part_number", "brand", "bridge_chip_info", "bus_type",
    "bw_mode", "capabilities", "check_confidential_compute_status", "class_name",
    "clear_accounting_pids", "clear_cpu_affinity", "clear_ecc_error_counts", "clock", "clock_info",
    "clock_offset", "compute_mode", "confidential_compute_gpu_attestation_report",
    "confidential_compute_gpu_certificate", "config_checksum", "cpu_affinity",
    "cpu_affinity_within_scope", "create_event_set", "cuda_compute_capability",
    "current_pcie_link_gen", "current_pcie_link_width", "current_throttle_reasons",
    "current_throttle_reasons_strict", "decoder_utilization", "default_applications_clock",
    "detailed_ecc_errors", "device", "device_by_index", "device_id", "devices", "discover_gpus",
    "encoder_capacity", "encoder_sessions", "encoder_utilization", "enforced_power_limit",
    "error_counter", "excluded_device_count", "excluded_device_info", "fan_control_policy",
    "fan_info", "fan_speed", "fan_speed_rpm", "fb_reservation", "fb_usage", "fbc_session_count",
    "fbc_sessions", "fbc_sessions_info", "fbc_stats", "field_id_scheme", "field_values_for",
    "frame_rate_limit", "framebuffer_size", "freeze_utilization_counter",
    "get_confidential_compute_capabilities", "get_confidential_compute_state",
    "gpc_clock_vf_offset", "gpm_mig_sample", "gpm_sample", "gpm_streaming_enabled", "gpm_support",
    "gpu_instance_id", "gpu_operation_mode", "gpu_pci_id", "gsp_firmware_mode",
    "gsp_firmware_version", "gsp_heap_size", "has_capability", "hic_count", "hic_versions",
    "info_rom_image_version", "info_rom_version", "instance_profile_id", "instance_type",
    "irq_num", "is_accounting_enabled", "is_api_restricted", "is_cc_dev_mode_enabled",
    "is_cc_enabled", "is_display_active", "is_display_connected", "is_ecc_enabled",
    "is_in_persistent_mode", "is_multi_gpu_board", "is_multi_gpu_protected_pcie_enabled",
    "is_on_same_board_as", "is_power_management_algo_active", "led_state", "license",
    "license_info", "license_info_v2", "link_wrapper_for", "max_clock_info",
    "max_customer_boost_clock", "max_instances", "max_instances_per_vm", "max_pcie_link_gen",
    "max_pcie_link_speed", "max_pcie_link_width", "mdev_uuid", "mem_clock_vf_offset",
    "memory_affinity", "memory_bus_width", "memory_error_counter", "memory_info",
    "mig_device_by_index", "mig_device_count", "mig_is_mig_device_handle", "mig_parent_device",
    "min_max_clock_of_pstate", "min_max_fan_speed", "minor_number",
    "mps_running_compute_processes", "num_cores", "num_display_heads", "num_fans", "numa_node_id",
    "p2p_status", "pci_info", "pcie_link_speed", "pcie_replay_counter", "pcie_throughput",
    "performance_modes", "performance_state", "placement_id", "possible_placements",
    "power_management_limit", "power_management_limit_constraints",
    "power_management_limit_default", "power_mizer_mode", "power_source", "power_state",
    "power_usage", "process_utilization_stats", "profile_info", "psu_info", "register_events",
    "remote_device_type", "remote_pci_info", "reset_applications_clocks", "reset_error_counters",
    "reset_gpu_locked_clocks", "reset_mem_locked_clocks", "reset_utilization_counter",
    "resolution", "running_compute_processes", "running_compute_processes_count",
    "running_compute_processes_count_v2", "running_compute_processes_v2",
    "running_graphics_processes", "running_graphics_processes_count",
    "running_graphics_processes_count_v2", "running_graphics_processes_v2", "runtime_state_size",
    "set_accounting", "set_api_restricted", "set_applications_clocks", "set_auto_boosted_clocks",
    "set_auto_boosted_clocks_default", "set_bw_mode", "set_clock_offset", "set_compute_mode",
    "set_confidential_compute_state", "set_cpu_affinity", "set_default_fan_speed",
    "set_driver_model", "set_ecc", "set_encoder_capacity", "set_fan_control_policy",
    "set_fan_speed", "set_gpc_clock_vf_offset", "set_gpm_streaming_enabled",
    "set_gpu_locked_clocks", "set_gpu_op_mode", "set_led_color", "set_mem_clock_vf_offset",
    "set_mem_locked_clocks", "set_mig_mode", "set_persistent", "set_power_management_limit",
    "set_power_mizer_mode", "set_temperature_threshold", "set_utilization_control",
    "set_vgpu_scheduler_state", "set_vgpu_version", "supported_event_types",
    "supported_event_types_strict", "supported_graphics_clocks", "supported_memory_clocks",
    "supported_performance_states", "supported_throttle_reasons",
    "supported_throttle_reasons_strict", "sys_cuda_driver_version", "sys_driver_version",
    "sys_nvml_version", "sys_process_name", "temperature", "temperature_threshold",
    "topology_common_ancestor", "topology_gpu_set", "topology_nearest_gpus", "total_ecc_errors",
    "total_energy_consumption", "unfreeze_utilization_counter", "unit_by_index", "unit_count",
    "utilization_control", "utilization_counter", "utilization_rates", "validate_info_rom",
    "vbios_version", "version", "vgpu_accounting_instance", "vgpu_accounting_pids",
    "vgpu_capabilities", "vgpu_creatable_types", "vgpu_driver_capabilities", "vgpu_host_mode",
    "vgpu_scheduler_capabilities", "vgpu_scheduler_log", "vgpu_scheduler_state",
    "vgpu_set_capabilities", "vgpu_supported_types", "vgpu_version", "violation_status",
    "virtualization_mode", "vm_id",
))
WRAPPER_GETTER_CALL = re.compile(r"\.([a-z_0-9]+)\s*(?:::<[^>]*>)?\s*\(")
# The wrapper's types that hold a device, a unit or the library, and the ways to a
# device: the raw layer's (`raw::wrapper`) and the context's (`GpuCtx::call`, a
# closure on its device). `nvml/mod.rs` owns the `Nvml`.
WRAPPER_TYPES = re.compile(
    r"\bnvml_wrapper::(?:\{[^}]*\b(?:Device|Nvml|Unit|EventSet)\b|(?:Device|Nvml|Unit|EventSet)\b"
    r"|vgpu::|nv_link::NvLink\b|high_level::)|\braw::wrapper\s*\(|\.call\(\s*(?:move\s*)?\|"
)
WRAPPER_TYPES_OWNER = os.path.join("crates", "nvq-core", "src", "nvml", "mod.rs")


def wrapper_getters(rel, text):
    """Calls of nvml-wrapper's getters, and uses of its device types, outside WRAPPER_PLACES."""
    if rel.startswith(WRAPPER_PLACES):
        return []
    problems = []
    code = blank(text)
    for n, line in enumerate(code.splitlines(), 1):
        if "(" in line:
            for name in WRAPPER_GETTER_CALL.findall(line):
                if name in WRAPPER_GETTERS:
                    problems.append(
                        f"{rel}:{n}: calls nvml-wrapper's `{name}` outside the raw layer and the "
                        f"catalogue's reader (read it through `GpuCtx` or a typed read of `nvml::raw`)"
                    )
        if ("wrapper" in line or ".call(" in line) and rel != WRAPPER_TYPES_OWNER and WRAPPER_TYPES.search(line):
            problems.append(
                f"{rel}:{n}: reaches nvml-wrapper's device (its types, `raw::wrapper`, `GpuCtx::call`) "
                f"outside the raw layer and the catalogue's reader"
            )
    return problems

# `mod x;` at the start of a line. `[ \t]*`, not `\s*`: in a blanked text (comments
# as spaces) `\s*` would rescan a whole blanked doc comment from each of its lines.
DECLARED_MOD = re.compile(r"^[ \t]*(?:pub(?:\([a-z]+\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;", re.M)


def top_module(path):
    rel = os.path.relpath(path, ROOT)
    first = rel.split(os.sep)[0]
    return first[:-3] if first.endswith(".rs") else first


# A comment, a raw string, a string or a char literal (as `string_lines` reads them).
LITERAL = re.compile(
    r"//[^\n]*|/\*.*?(?:\*/|\Z)|(?<![A-Za-z0-9_])r(#*)\".*?(?:\"\1|\Z)|\"(?:\\.|[^\"\\])*(?:\"|\Z)"
    r"|'(?:\\(?:u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^\\'\n])'",
    re.S,
)
NOT_NEWLINE = re.compile(r"[^\n]")


def string_lines(text):
    """The numbers (1-based) of the lines that hold part of a string literal."""
    newlines = [m.start() for m in re.finditer("\n", text)]
    lines = set()
    for m in LITERAL.finditer(text):
        if m.group(0)[0] in "\"r":
            first = bisect.bisect_left(newlines, m.start()) + 1
            last = bisect.bisect_left(newlines, m.end() - 1) + 1
            lines.update(range(first, last + 1))
    return lines


def code_lines(text):
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        if stripped.startswith("//"):
            continue
        yield n, line


# ---- Circles inside a module: between the files of one folder.


def blank(text):
    """Comments and string/char literals replaced by spaces (newlines kept)."""
    return LITERAL.sub(lambda m: NOT_NEWLINE.sub(" ", m.group(0)), text)


def modpath(path):
    rel = os.path.relpath(path, ROOT)[:-3].split(os.sep)
    if rel[-1] == "mod":
        rel = rel[:-1]
    if rel in (["lib"], ["main"]):
        return []
    return rel

def inline_depths(text):
    """For each offset, how many inline `mod x { }` blocks enclose it: a list of (start, end)."""
    spans = []
    for m in re.finditer(r"\bmod\s+[a-z_][a-z0-9_]*\s*\{", text):
        depth, j = 0, m.end() - 1
        while j < len(text):
            if text[j] == "{": depth += 1
            elif text[j] == "}":
                depth -= 1
                if depth == 0: break
            j += 1
        spans.append((m.end(), j))
    return spans

def group_heads(s):
    """`{a, b::c, self}` (s starts after `{`): the first segment of each item."""
    heads, depth, cur = [], 0, ""
    for ch in s:
        if ch == "{": depth += 1
        elif ch == "}":
            if depth == 0:
                heads.append(cur); break
            depth -= 1
        elif ch == "," and depth == 0:
            heads.append(cur); cur = ""; continue
        if depth == 0 and ch != "}":
            cur += ch
    return [re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)?", h).group(1) for h in heads]

def uses(path, text, F=None, declared=None):
    """Absolute paths (lists of segments, one step past the module) that the file names."""
    if F is None:
        F = modpath(path)
    spans = inline_depths(text)
    if declared is None:
        declared = set(DECLARED_MOD.findall(text))
    found = []
    newlines = [m.start() for m in re.finditer("\n", text)]

    def line_of(offset):
        return bisect.bisect_left(newlines, offset) + 1

    pat = re.compile(r"(?<![A-Za-z0-9_:])(crate|self|super|[a-z_][a-z0-9_]*)((?:::super)*)::")
    for m in pat.finditer(text):
        first = m.group(1)
        k = sum(1 for a, b in spans if a <= m.start() < b)
        if first == "crate":
            base = []
        elif first == "super":
            ups = 1 + m.group(2).count("super")
            if ups <= k:
                continue
            ups -= k
            if ups > len(F):
                continue
            base = F[:len(F) - ups]
        elif first == "self":
            if k:
                continue
            base = list(F)
        elif first in declared and k == 0:
            base = list(F) + [first]
        else:
            continue
        rest = text[m.end():]
        if rest.startswith("{"):
            heads = group_heads(rest[1:])
        else:
            mm = re.match(r"([A-Za-z_][A-Za-z0-9_]*)((?:::[A-Za-z_][A-Za-z0-9_]*)*)", rest)
            if not mm:
                continue
            segs = [mm.group(1)] + [x for x in mm.group(2).split("::") if x]
            after = rest[mm.end():]
            if after.startswith("::{"):
                base = base + segs
                heads = group_heads(after[3:])
            else:
                found.append((base + segs, line_of(m.start())))
                continue
        for h in heads:
            if h and h != "self":
                found.append((base + [h], line_of(m.start())))
            elif h == "self":
                found.append((base, line_of(m.start())))
    return F, found

def children(modp):
    """The child modules of module `modp` if it is a folder (files and sub-folders), else None."""
    d = os.path.join(ROOT, *modp)
    if not os.path.isdir(d):
        return None
    out = set()
    for e in os.listdir(d):
        if e.endswith(".rs") and e != "mod.rs":
            out.add(e[:-3])
        elif os.path.isdir(os.path.join(d, e)):
            out.add(e)
    return out

def reexports_of(path, text):
    """`pub use` in a file: name -> absolute path of what it names."""
    F = modpath(path)
    declared = set(DECLARED_MOD.findall(text))
    out = {}
    for m in re.finditer(r"\bpub(?:\([a-z]+\))?\s+use\s+([^;]*);", text):
        stmt = "use " + m.group(1) + ";"
        _, found = uses(path, stmt, F, declared)
        for S, _ in found:
            if S:
                out[S[-1]] = S
    return tuple(F), out


def resolve(S, rex):
    for _ in range(8):
        for i in range(1, len(S)):
            r = rex.get(tuple(S[:i]), {}).get(S[i])
            if r is not None and r != S[:i + 1]:
                S = r + S[i + 1:]
                break
        else:
            return S
    return S


def without_tests(path, text, test_files):
    """Test code is above what it tests: `#[cfg(test)] mod x { ... }` is blanked,
    and the files of `#[cfg(test)] mod x;` are noted in `test_files`."""
    d = os.path.dirname(path)
    here = d if os.path.basename(path) in ("mod.rs", "lib.rs", "main.rs") else os.path.join(d, os.path.basename(path)[:-3])
    for m in re.finditer(r"#\[cfg\(test\)\]\s*(?:pub(?:\([a-z]+\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;", text):
        test_files.add(os.path.join(here, m.group(1) + ".rs"))
        test_files.add(os.path.join(here, m.group(1), "mod.rs"))
    out = list(text)
    for m in re.finditer(r"#\[cfg\(test\)\]\s*(?:pub(?:\([a-z]+\))?\s+)?mod\s+[a-z_][a-z0-9_]*\s*\{", text):
        depth, j = 0, m.end() - 1
        while j < len(text):
            if text[j] == "{":
                depth += 1
            elif text[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        for k in range(m.start(), min(j + 1, len(text))):
            if out[k] != "\n":
                out[k] = " "
    return "".join(out)



def inner_circles():
    """Circles between the files of one folder (its children: files and sub-folders). The
    folder's own file (`mod.rs`, or `x.rs` beside `x/`) declares, re-exports and dispatches to
    its children and is not counted; a name it re-exports counts as its child's. Test code
    (`#[cfg(test)]` modules and files) is above what it tests and is not counted either."""
    rex = {}
    texts = {}
    test_files = set()
    for dp, _, files in os.walk(ROOT):
        for name in sorted(files):
            if name.endswith(".rs"):
                p = os.path.join(dp, name)
                texts[p] = without_tests(p, blank(open(p, encoding="utf-8").read()), test_files)
                F, r = reexports_of(p, texts[p])
                rex.setdefault(F, {}).update(r)
    edges = collections.defaultdict(lambda: collections.defaultdict(set))  # folder -> a -> {b}
    where = {}
    for dp, _, files in os.walk(ROOT):
        for name in sorted(files):
            if not name.endswith(".rs"):
                continue
            p = os.path.join(dp, name)
            if p in test_files:
                continue
            text = texts[p]
            F, found = uses(p, text)
            for S, line in found:
                S = resolve(S, rex)
                # the deepest folder holding both the file and the target
                c = 0
                while c < len(F) and c < len(S) and F[c] == S[c]:
                    c += 1
                while c >= 1:
                    D = F[:c]
                    kids = children(D)
                    if kids is not None:
                        break
                    c -= 1
                if c < 1:
                    continue
                D = tuple(F[:c])
                kids = children(list(D))
                a = F[c] if len(F) > c else None
                b = S[c] if len(S) > c and S[c] in kids else None
                if a is not None and b is not None and a != b:
                    edges[D][a].add(b)
                    where.setdefault((D, a, b), f"{os.path.relpath(p, REPO)}:{line}")
    problems = []
    for D in sorted(edges):
        g = edges[D]
        # strongly connected components (Tarjan)
        index, low, st, on, comps = {}, {}, [], set(), []
        def sc(v):
            index[v] = low[v] = len(index); st.append(v); on.add(v)
            for w in sorted(g.get(v, ())):
                if w not in index:
                    sc(w); low[v] = min(low[v], low[w])
                elif w in on:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = st.pop(); on.discard(w); comp.append(w)
                    if w == v: break
                if len(comp) > 1: comps.append(sorted(comp))
        for v in sorted(g):
            if v not in index: sc(v)
        for comp in comps:
            eg = [f"{a}->{b} ({where[(D, a, b)]})" for a in comp for b in sorted(g[a]) if b in comp]
            problems.append(f"circle inside {'::'.join(D)}: {', '.join(comp)}: " + "; ".join(eg))
    return problems, sum(len(g) for g in edges.values())


def core_dependencies():
    """What `cargo tree` says nvq-core depends on (normal dependencies only) that it may not."""
    try:
        out = subprocess.run(
            ["cargo", "tree", "-p", "nvq-core", "-e", "normal", "--prefix", "none", "--format", "{lib}"],
            cwd=REPO, capture_output=True, text=True, check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        return [f"cargo tree -p nvq-core failed: {e}"]
    libs = {line.split()[0] for line in out.splitlines() if line.strip()}
    return [f"nvq-core depends on `{lib}` (cargo tree -p nvq-core -e normal)" for lib in sorted(libs & CORE_FORBIDDEN)]


def dist_profile():
    """Each `[profile.release.package.X]` (a lower opt-level for the README's quick build) comes back to
    opt-level 3 in `[profile.dist.package.X]`: `dist` inherits the release overrides, which outrank its own."""
    with open(os.path.join(REPO, "Cargo.toml"), "rb") as f:
        profiles = tomllib.load(f).get("profile", {})
    release = profiles.get("release", {}).get("package", {})
    dist = profiles.get("dist", {}).get("package", {})
    problems = []
    for name in sorted(release):
        if dist.get(name) != {"opt-level": 3}:
            problems.append(
                f"Cargo.toml: [profile.release.package.{name}] without [profile.dist.package.{name}] "
                f"opt-level = 3 (and nothing else): the dist build would inherit the quick build's setting"
            )
    return problems


def main():
    global ROOT, ALLOWED
    edges = collections.defaultdict(set)
    problems = []
    inner, inner_edges = [], 0
    for ROOT in ROOTS:
        read_root(edges, problems)
        found, n = inner_circles()
        inner += found
        inner_edges += n
    problems += core_dependencies()
    problems += dist_profile()
    check_cycles(edges, problems)
    # The simulator: a crate of its own, with its own table and its own graph.
    nvq_allowed, ALLOWED, ROOT = ALLOWED, SIM_ALLOWED, SIM_ROOT
    sim_edges = collections.defaultdict(set)
    read_root(sim_edges, problems)
    found, n = inner_circles()
    inner += found
    inner_edges += n
    check_cycles(sim_edges, problems)
    ALLOWED = nvq_allowed
    problems += inner
    for p in problems:
        print(p)
    if problems:
        return 1
    print(
        f"layers: {len(edges)} modules, no cycle, every use allowed, no line over {MAX_LINE}; "
        f"nvml-sim: {len(sim_edges)} modules, no cycle, every use allowed; "
        f"no circle among the files of a folder ({inner_edges} file-to-file uses); nvq-core free of "
        f"the command line, the server and the pictures; the dist profile at opt-level 3"
    )
    return 0


def read_root(edges, problems):
    """The checks of every file under ROOT, and its top-level module's uses into `edges`."""
    for dirpath, _, files in os.walk(ROOT):
        for name in sorted(files):
            if not name.endswith(".rs"):
                continue
            path = os.path.join(dirpath, name)
            mod = top_module(path)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            rel = os.path.relpath(path, REPO)
            strings = string_lines(text)
            for n, line in enumerate(text.splitlines(), 1):
                if len(line) > MAX_LINE and n not in strings:
                    problems.append(f"{rel}:{n}: line of {len(line)} characters (limit {MAX_LINE})")
            lines = text.splitlines()
            for n, line in enumerate(lines, 1):
                if n in strings or line.lstrip().startswith("//"):
                    continue
                # (the `in` tests first: a plain substring test is much cheaper than a regex)
                if "unsafe" in line and re.search(r"\bunsafe\s*\{", line):
                    before = "\n".join(lines[max(0, n - 8):n])
                    if "SAFETY:" not in before:
                        problems.append(f"{rel}:{n}: `unsafe` block without a `// SAFETY:` comment above it")
                if "unsafe" in line and re.search(r"\bunsafe\s+(extern\s+\"C\"\s+)?fn\s+\w", line):
                    before = "\n".join(lines[max(0, n - 15):n])
                    if "# Safety" not in before:
                        problems.append(f"{rel}:{n}: `unsafe fn` without a `# Safety` section in its docs")
                if (".lib()" in line or "NvmlLib::new" in line) and re.search(r"\.lib\(\)\.|\.lib\(\)$|NvmlLib::new", line) and not rel.startswith(os.path.join("crates", "nvq-core", "src", "nvml", "raw") + os.sep) and "self.nvml.lib()" not in line:
                    problems.append(f"{rel}:{n}: NVML symbol table used outside crates/nvq-core/src/nvml/raw/")
            problems += wrapper_getters(rel, text)
            for n, line in code_lines(text):
                # nvq names the core's modules by its crate (`nvq_core::model`).
                for used in re.findall(r"\b(?:crate|nvq_core)::([a-z_][a-z0-9_]*)", line) if "::" in line else ():
                    if used == mod or used in ("Personality", "ExitCode", "NvqError"):
                        continue
                    edges[mod].add(used)
                    allowed = ALLOWED.get(mod, set())
                    if allowed is not None and used not in allowed:
                        problems.append(f"{rel}:{n}: `{mod}` uses `{used}`, which its layer may not use")
            if mod not in ALLOWED:
                problems.append(f"{rel}: module `{mod}` has no layer in scripts/check-layers.py")


def check_cycles(edges, problems):
    """Cycles between top-level modules, whatever the table says."""
    state = {}

    def visit(m, stack):
        state[m] = 1
        for d in sorted(edges.get(m, ())):
            if state.get(d) == 1:
                cyc = stack[stack.index(d):] + [d] if d in stack else [m, d]
                problems.append("cycle: " + " -> ".join(cyc))
            elif d not in state:
                visit(d, stack + [d])
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m, [m])


if __name__ == "__main__":
    sys.exit(main())
