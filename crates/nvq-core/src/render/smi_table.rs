//! The box-drawn summary table that plain `nvidia-smi` prints, in the
//! layout of the driver NVML names (`render::smi_layout` holds the facts of
//! each layout: 79 columns up to 525, 89 for 530 to 545, 91 from 550).
//! Pure: a [`SmiTable`] in, bytes out.
//!
//! Programs parse this table by position and by regex (nvidia-htop, nvgpu,
//! PyTorch's environment report), so every width reproduces real output.
//! Numbers are right-aligned in their cells, and a value that does not fit
//! pushes its cell wider rather than being cut, except GPU and process
//! names, which nvidia-smi truncates.

use super::smi_layout::{self, Layout, MigTable, NameTag};
use crate::model::smi_table::{
    ComputeMode, DriverModel, Ecc, MemoryUse, Reading, SmiTable, TableGpu, TableMig, TableProcess,
};
use crate::model::NvmlCode;

const MIB: u64 = 1024 * 1024;

/// A rule across cells of these widths: `-` with `+` at the edges and
/// between cells or, `double` (under a head), `=` with `|` at the edges.
fn rule(cells: &[usize], double: bool, t: &mut String) {
    let (edge, fill) = if double { ('|', '=') } else { ('+', '-') };
    t.push(edge);
    for (i, &width) in cells.iter().enumerate() {
        if i > 0 {
            t.push('+');
        }
        t.extend(std::iter::repeat(fill).take(width));
    }
    t.push(edge);
    t.push('\n');
}

/// `text` padded to the table's width, closed by its right edge.
fn full_line(l: &Layout, text: &str, t: &mut String) {
    let width = l.full + 1;
    t.push_str(&format!("{text:<width$}|\n"));
}

/// The head of a section under the GPU boxes: the full rule, the `heads`
/// lines, each without its closing `|` (where they split into cells, a
/// rule of those cells above the column heads) and the double rule.
fn section_head(l: &Layout, heads: &[&str], cells: &[usize], t: &mut String) {
    rule(&[l.full], false, t);
    let (title, columns) = heads.split_first().unwrap_or((&"", &[]));
    full_line(l, title, t);
    if cells.len() > 1 {
        rule(cells, false, t);
    }
    columns.iter().for_each(|h| full_line(l, h, t));
    rule(cells, true, t);
}

/// A section's one line when it has nothing to list.
fn nothing(l: &Layout, text: &str, t: &mut String) {
    full_line(l, &format!("|  {text}"), t);
}

/// The line after the GPU boxes and after the MIG devices: spaces before
/// 580, empty since.
fn spacer(l: &Layout, t: &mut String) {
    t.extend(std::iter::repeat(' ').take(l.spacer));
    t.push('\n');
}

/// Render the whole table. `colour` adds ANSI colours to the load cells
/// (memory use, GPU utilisation) without changing any visible width.
pub fn render(s: &SmiTable, colour: bool, out: &mut Vec<u8>) {
    let l = smi_layout::for_driver(s.driver_major());
    let mut t = String::with_capacity(4096);
    t.push_str(&s.date);
    t.push('\n');
    banner(l, s, &mut t);
    let windows = s.has_driver_model();
    gpu_header(l, windows, &mut t);
    for g in &s.gpus {
        gpu_box(l, g, windows, colour, &mut t);
    }
    spacer(l, &mut t);
    if s.any_mig() {
        mig_section(l, &s.mig_devices, &mut t);
        spacer(l, &mut t);
    }
    processes(l, &s.processes, windows, &mut t);
    out.extend_from_slice(t.as_bytes());
}

fn na<T: ToString>(r: &Reading<T>) -> String {
    match r {
        Ok(v) => v.to_string(),
        Err(_) => "N/A".to_string(),
    }
}

/// MiB as nvidia-smi computes them: rounded up.
fn mib(bytes: u64) -> u64 {
    bytes.div_ceil(MIB)
}

fn banner(l: &Layout, s: &SmiTable, t: &mut String) {
    let version = na(&s.driver_version);
    let b = &l.banner;
    rule(&[l.full], false, t);
    let (smi, driver, label) = (b.smi, b.driver, b.driver_label);
    let mut line = format!("| NVIDIA-SMI {version:<smi$}{label}{version:<driver$}");
    if let Some(cuda_label) = b.cuda_label {
        let cuda = match s.cuda_version {
            Ok(v) => format!("{}.{}", v / 1000, (v % 1000) / 10),
            Err(_) => "N/A".to_string(),
        };
        line.push_str(&format!("{cuda_label}{cuda:<9}"));
    }
    full_line(l, &line, t);
}

/// A line of the GPU boxes whose first two cells are blank and whose last
/// one holds `last`, right-aligned (`MIG M.`, the MIG mode).
fn third_cell_line(l: &Layout, last: &str, t: &mut String) {
    let [a, b, c] = l.gpu_cells;
    let c = c - 1;
    t.push_str(&format!("|{:a$}|{:b$}|{last:>c$} |\n", "", ""));
}

fn gpu_header(l: &Layout, windows: bool, t: &mut String) {
    let mut top = String::new();
    rule(&l.gpu_cells, false, &mut top);
    if l.open_banner_rule {
        top.replace_range(..1, "|");
    }
    t.push_str(&top);
    let heads = if windows {
        &l.gpu_heads_windows
    } else {
        &l.gpu_heads
    };
    for h in heads {
        t.push_str(h);
        t.push('\n');
    }
    if l.mig_row {
        third_cell_line(l, "MIG M.", t);
    }
    rule(&l.gpu_cells, true, t);
}

/// A GPU name as the table prints it: names longer than `max` keep their
/// first `max - 3` characters before `...`.
pub fn gpu_name(name: &str, max: usize) -> String {
    let name = &*super::printable(name);
    if name.chars().count() <= max {
        name.to_string()
    } else {
        let head: String = name.chars().take(max.saturating_sub(3)).collect();
        format!("{head}...")
    }
}

/// A process name as the table prints it: names longer than `max` keep
/// their last `max - 3` characters after `...`.
pub fn process_name(name: &str, max: usize) -> String {
    let name = &*super::printable(name);
    let n = name.chars().count();
    if n <= max {
        name.to_string()
    } else {
        let tail: String = name.chars().skip(n + 3 - max).collect();
        format!("...{tail}")
    }
}

fn on_off(r: &Reading<bool>) -> &'static str {
    match r {
        Ok(true) => "On",
        Ok(false) => "Off",
        Err(_) => "N/A",
    }
}

/// A box's first cell: index, name, then the tag where `tag` puts it.
fn name_cell(l: &Layout, index: u32, name: &str, text: &str, tag: &NameTag) -> String {
    let (col, w) = (tag.name_col, tag.width);
    let tag = if tag.right {
        format!("{text:>w$}")
    } else {
        format!("{text:<w$}")
    };
    let cell = l.gpu_cells[0];
    format!("{:<cell$}", format!("{index:>4}  {name:<col$}{tag}"))
}

fn gpu_box(l: &Layout, g: &TableGpu, windows: bool, colour: bool, t: &mut String) {
    let [first, second, third] = l.gpu_cells;
    let name = match &g.name {
        Ok(n) => gpu_name(n, l.gpu_name_max),
        Err(_) => "N/A".to_string(),
    };
    // Line 1: index, name, persistence mode or driver model | bus id,
    // display active | ECC.
    let cell = if windows {
        let model = match g.driver_model {
            Ok(DriverModel::Wddm) => "WDDM",
            Ok(DriverModel::Tcc) => "TCC",
            Ok(DriverModel::Mcdm) => "MCDM",
            Err(_) => "N/A",
        };
        name_cell(l, g.index, &name, model, &l.driver_model)
    } else {
        name_cell(
            l,
            g.index,
            &name,
            on_off(&g.persistence_mode),
            &l.persistence,
        )
    };
    t.push('|');
    t.push_str(&cell);
    let ecc = match g.ecc {
        Ecc::NotAvailable => "N/A".to_string(),
        Ecc::Disabled => "Off".to_string(),
        Ecc::Enabled(Some(n)) => n.to_string(),
        Ecc::Enabled(None) => "On".to_string(),
    };
    let (bus, ecc_w) = (second - 5, third - 1);
    t.push_str(&format!(
        "|{:>bus$} {:>3} |{ecc:>ecc_w$} |\n",
        na(&g.bus_id),
        on_off(&g.display_active)
    ));

    // Line 2: fan (4), temperature (6), perf state (6), power draw / cap |
    // memory use | utilisation (8), compute mode.
    let fan = g
        .fan
        .map_or_else(|_| "N/A".to_string(), |f| format!("{f}%"));
    let temp = g
        .temperature
        .map_or_else(|_| "N/A".to_string(), |c| format!("{c}C"));
    let perf = g
        .performance_state
        .map_or_else(|_| "N/A".to_string(), |p| format!("P{p}"));
    let draw = g
        .power_draw
        .map_or_else(|_| "N/A".to_string(), |mw| format!("{}W", mw / 1000));
    let p = &l.power;
    let (dw, cw) = (p.draw, p.cap);
    let cap = match g.power_limit {
        Ok(mw) => format!("{:>cw$}", format!("{}W", mw / 1000)),
        Err(_) if p.na_under_digits => format!("{:>w$} ", "N/A", w = cw - 1),
        Err(_) => format!("{:>cw$}", "N/A"),
    };
    let power = format!("{fan:>4}{temp:>6}{perf:>6}{draw:>dw$} / {cap}");
    t.push_str(&format!("|{power:<first$}|"));
    let w = second - 1;
    let memory = match g.memory {
        Ok(MemoryUse { used, total }) => {
            let tw = l.memory_total;
            let cell = format!(
                "{:>w$} ",
                format!("{}MiB / {:>tw$}MiB", mib(used), mib(total))
            );
            paint(cell, load(used, total), colour)
        }
        Err(NvmlCode::NOT_SUPPORTED) => format!(" {:<w$}", "Not Supported"),
        Err(_) => {
            let pad = l.memory_na_pad;
            format!("{:>w$}{:pad$}", "N/A", "", w = second - pad)
        }
    };
    t.push_str(&memory);
    let util = match g.gpu_util {
        Ok(u) => paint(
            format!("{:>8}", format!("{u}%")),
            Some(f64::from(u)),
            colour,
        ),
        Err(_) => format!("{:>8}", "N/A"),
    };
    let mode = match g.compute_mode {
        Ok(ComputeMode::Default) => "Default",
        Ok(ComputeMode::ExclusiveThread) => "E. Thread",
        Ok(ComputeMode::Prohibited) => "Prohibited",
        Ok(ComputeMode::ExclusiveProcess) => "E. Process",
        Err(_) => "N/A",
    };
    let mw = third - 9;
    t.push_str(&format!("|{util}{mode:>mw$} |\n"));

    // Line 3: MIG mode.
    if l.mig_row {
        // A change waiting for the next reset shows the pending mode with
        // a star; a library without nvmlDeviceGetMigMode, `ERR!`.
        let mig = match (g.mig_mode, g.mig_pending) {
            (Ok(current), Some(pending)) if pending != current => {
                if pending {
                    "Enabled*"
                } else {
                    "Disabled*"
                }
            }
            (Ok(true), _) => "Enabled",
            (Ok(false), _) => "Disabled",
            (Err(NvmlCode::FUNCTION_NOT_FOUND), _) => "ERR!",
            (Err(_), _) => "N/A",
        };
        third_cell_line(l, mig, t);
    }
    rule(&l.gpu_cells, false, t);
}

fn load(used: u64, total: u64) -> Option<f64> {
    (total > 0).then(|| used as f64 * 100.0 / total as f64)
}

/// Colour the non-blank part of a padded cell by load: green below 50 %,
/// yellow below 80 %, red above.
fn paint(cell: String, pct: Option<f64>, colour: bool) -> String {
    let Some(pct) = pct.filter(|_| colour) else {
        return cell;
    };
    let code = if pct < 50.0 {
        "32"
    } else if pct < 80.0 {
        "33"
    } else {
        "31"
    };
    let start = cell.len() - cell.trim_start().len();
    let end = cell.trim_end().len();
    format!(
        "{}\x1b[{code}m{}\x1b[0m{}",
        &cell[..start],
        &cell[start..end],
        &cell[end..]
    )
}

/// A MIG device's memory or BAR1 cell: `value` right-aligned in `width`
/// (cut to it with `...` where the layout cuts), padded to the cell.
fn mig_cell(m: &MigTable, r: &Reading<MemoryUse>, width: usize, cell: usize) -> String {
    let value = match r {
        Ok(u) if m.cut => {
            let v = format!("{:>7}MiB / {:>5}MiB", mib(u.used), mib(u.total));
            if v.len() > width {
                format!("{}...", &v[..width - 3])
            } else {
                v
            }
        }
        Ok(u) => format!("{}MiB / {:>5}MiB", mib(u.used), mib(u.total)),
        Err(_) => "N/A".to_string(),
    };
    format!("{:<cell$}", format!("{value:>width$}"))
}

fn mig_section(l: &Layout, devs: &[TableMig], t: &mut String) {
    let m = &l.mig;
    let mut heads = vec!["| MIG devices:"];
    heads.extend(m.heads);
    section_head(l, &heads, &m.cells, t);
    if devs.is_empty() {
        nothing(l, "No MIG devices found", t);
        rule(&[l.full], false, t);
        return;
    }
    let [_, memory_cell, sm_cell, shared_cell] = m.cells;
    let blank = |w: usize| " ".repeat(w);
    for d in devs {
        // Line 1: GPU (3), GI (5), CI (4), MIG (4) | memory | SM (3), ECC
        // (7) | CE (3), ENC (4), DEC (5), OFA (5), JPG (5).
        let (sm, shared) = match d.attributes {
            Ok(a) => (
                a.multiprocessors.to_string(),
                format!(
                    "{:>3}{:>4}{:>5}{:>5}{:>5}",
                    a.copy_engines, a.encoders, a.decoders, a.ofas, a.jpegs
                ),
            ),
            Err(_) => (
                "N/A".to_string(),
                format!(
                    "{:>3}{:>4}{:>5}{:>5}{:>5}",
                    "N/A", "N/A", "N/A", "N/A", "N/A"
                ),
            ),
        };
        let shared_w = shared_cell - 1;
        let ecc_w = sm_cell - 4;
        t.push_str(&format!(
            "|{:>3}{:>5}{:>4}{:>4}  |{}|{sm:>3}{:>ecc_w$} |{shared:<shared_w$} |\n",
            d.gpu,
            na(&d.gpu_instance),
            na(&d.compute_instance),
            d.index,
            mig_cell(m, &d.memory, m.memory, memory_cell),
            na(&d.ecc),
        ));
        // Line 2: BAR1.
        t.push_str(&format!(
            "|{}|{}|{}|{}|\n",
            blank(m.cells[0]),
            mig_cell(m, &d.bar1, m.bar1, memory_cell),
            blank(sm_cell),
            blank(shared_cell)
        ));
        rule(&m.cells, false, t);
    }
}

fn processes(l: &Layout, procs: &[TableProcess], windows: bool, t: &mut String) {
    let p = &l.processes;
    section_head(l, p.heads, &[l.full], t);
    // NVML lists processes nvidia-smi cannot name when it runs in another
    // PID namespace (a container): it leaves those rows out, and then says
    // nothing, not even that no process runs (public tables of 384 to 470
    // in containers, with memory in use). A name NVML may not read
    // (NO_PERMISSION) keeps its row.
    if procs.is_empty() {
        nothing(l, "No running processes found", t);
    }
    let procs = procs.iter().filter(|r| r.name != Err(NvmlCode::NOT_FOUND));
    // Memory is right-aligned in what is left of the line after the name.
    let name_max = p.name_max;
    let memory_w = l.full - (p.pid_end + 11) - name_max;
    for r in procs {
        // GPU (5); GI: a number in 5, N/A in 6; CI (5); then the PID ends at
        // its column whatever the instance ids took.
        let mut line = format!("|{:>5}", r.gpu);
        if p.instance_ids {
            match r.gpu_instance {
                Some(gi) => line.push_str(&format!("{gi:>5}")),
                None => line.push_str("   N/A"),
            }
            match r.compute_instance {
                Some(ci) => line.push_str(&format!("{ci:>5}")),
                None => line.push_str("  N/A"),
            }
        }
        let pid = r.pid.to_string();
        let width = (p.pid_end + 1)
            .saturating_sub(line.len())
            .max(pid.len() + 1);
        line.push_str(&format!("{pid:>width$}"));
        let kind = r.kind.letters();
        let name = match &r.name {
            Ok(n) => process_name(n, name_max),
            // Windows names a process it may not read.
            Err(NvmlCode::NO_PERMISSION) if windows => "Insufficient Permissions".to_string(),
            Err(_) => "N/A".to_string(),
        };
        // Type (7), 3 spaces, the name, then the memory or N/A.
        line.push_str(&format!("{kind:>7}   {name:<name_max$}"));
        match r.used_memory {
            Some(b) => line.push_str(&format!("{:>memory_w$} |\n", format!("{}MiB", mib(b)))),
            None => line.push_str(&format!("{:>memory_w$} |\n", "N/A     ")),
        }
        t.push_str(&line);
    }
    rule(&[l.full], false, t);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::smi_table::{MigAttributes, ProcessKind};

    fn gpu(index: u32) -> TableGpu {
        TableGpu {
            index,
            name: Ok("NVIDIA H100 80GB HBM3".into()),
            persistence_mode: Ok(true),
            driver_model: Err(NvmlCode::NOT_SUPPORTED),
            bus_id: Ok("00000000:00:09.0".into()),
            display_active: Ok(false),
            ecc: Ecc::Enabled(Some(0)),
            fan: Err(NvmlCode::NOT_SUPPORTED),
            temperature: Ok(41),
            performance_state: Ok(0),
            power_draw: Ok(69_620),
            power_limit: Ok(700_000),
            memory: Ok(MemoryUse {
                used: 0,
                total: 81559 * MIB,
            }),
            gpu_util: Ok(0),
            compute_mode: Ok(ComputeMode::Default),
            mig_mode: Ok(false),
            mig_pending: Some(false),
        }
    }

    fn summary(gpus: Vec<TableGpu>, processes: Vec<TableProcess>) -> SmiTable {
        SmiTable {
            date: "Tue Jul 14 08:12:38 2026       ".into(),
            driver_version: Ok("590.48.01".into()),
            cuda_version: Ok(13010),
            gpus,
            mig_devices: Vec::new(),
            processes,
        }
    }

    fn text(s: &SmiTable, colour: bool) -> String {
        crate::render::written(|out| render(s, colour, out))
    }

    fn proc(pid: u32, name: &str, mib_used: Option<u64>) -> TableProcess {
        TableProcess {
            gpu: 0,
            gpu_instance: None,
            compute_instance: None,
            pid,
            kind: ProcessKind {
                compute: true,
                ..ProcessKind::default()
            },
            name: Ok(name.into()),
            used_memory: mib_used.map(|m| m * MIB),
        }
    }

    #[test]
    fn every_line_is_91_columns_whatever_the_values() {
        let mut big = gpu(12);
        big.name = Ok("NVIDIA Some Very Long Product Name 141GB".into());
        big.memory = Ok(MemoryUse {
            used: 143_000 * MIB,
            total: 143_771 * MIB,
        });
        big.fan = Ok(100);
        big.temperature = Err(NvmlCode::GPU_IS_LOST);
        big.power_draw = Err(NvmlCode::NOT_SUPPORTED);
        big.power_limit = Err(NvmlCode::NOT_SUPPORTED);
        big.gpu_util = Ok(100);
        big.ecc = Ecc::Enabled(None);
        let long = "/very/long/path/to/some/python/interpreter/bin/python3.12";
        let s = summary(
            vec![gpu(0), big],
            vec![proc(4_194_303, long, Some(140_000)), proc(7, "x", None)],
        );
        let out = text(&s, false);
        for line in out.lines().skip(1).filter(|l| !l.is_empty()) {
            assert_eq!(line.len(), 91, "{line:?}");
        }
        assert!(
            out.contains("|  12  NVIDIA Some Very Long Pr...    On  |"),
            "{out}"
        );
        assert!(out.contains(
            "|100%   N/A    P0             N/A /  N/A  |  143000MiB / 143771MiB |    100%"
        ));
        assert!(
            out.contains("4194303      C   ...on/interpreter/bin/python3.12     140000MiB |"),
            "{out}"
        );
        assert!(out.contains("|                   On |"));
    }

    #[test]
    fn names_are_cut_as_nvidia_smi_cuts_them() {
        assert_eq!(
            gpu_name("NVIDIA GeForce RTX 2080 SUPER", 27),
            "NVIDIA GeForce RTX 2080 ..."
        );
        assert_eq!(
            gpu_name("NVIDIA GeForce RTX 2080 SUPER", 18),
            "NVIDIA GeForce ..."
        );
        assert_eq!(gpu_name("NVIDIA H200", 27), "NVIDIA H200");
        let exact = "a".repeat(27);
        assert_eq!(gpu_name(&exact, 27), exact);
        assert_eq!(
            process_name("C:\\Windows\\System32\\ApplicationFrameHost.exe", 32),
            "...em32\\ApplicationFrameHost.exe"
        );
        let exact = "b".repeat(32);
        assert_eq!(process_name(&exact, 32), exact);
    }

    #[test]
    fn empty_process_list_and_banner_by_driver() {
        let s = summary(vec![gpu(0)], Vec::new());
        let out = text(&s, false);
        assert!(out.contains("|  No running processes found "));
        assert!(out.contains("Driver Version: 590.48.01      CUDA Version: 13.1     |"));
        let mut s610 = s.clone();
        s610.driver_version = Ok("610.57.04".into());
        s610.cuda_version = Ok(13030);
        let out = text(&s610, false);
        assert!(out.contains("KMD Version: 610.57.04     CUDA UMD Version: 13.3     |"));
        assert!(!out.contains("MIG devices"));
    }

    #[test]
    fn mig_section_when_mig_is_on() {
        let mut g = gpu(0);
        g.mig_mode = Ok(true);
        g.ecc = Ecc::Enabled(None);
        let mut s = summary(vec![g], Vec::new());
        let out = text(&s, false);
        assert!(out.contains("|  No MIG devices found "));
        s.mig_devices.push(TableMig {
            gpu: 0,
            gpu_instance: Ok(13),
            compute_instance: Ok(0),
            index: 2,
            memory: Ok(MemoryUse {
                used: 36 * MIB,
                total: 9728 * MIB,
            }),
            bar1: Ok(MemoryUse {
                used: 0,
                total: 16383 * MIB,
            }),
            attributes: Ok(MigAttributes {
                multiprocessors: 14,
                copy_engines: 1,
                encoders: 0,
                decoders: 0,
                ofas: 0,
                jpegs: 0,
            }),
            ecc: Ok(0),
        });
        let out = text(&s, false);
        assert!(out.contains(
            "|  0   13   0   2  |              36MiB /  9728MiB    | 14      0 |  1   0    0    0    0 |\n\
             |                  |               0MiB / 16383MiB    |           |                       |\n"
        ), "{out}");
    }

    #[test]
    fn colour_keeps_the_layout() {
        let mut g = gpu(0);
        g.gpu_util = Ok(95);
        let s = summary(vec![g], Vec::new());
        let plain = text(&s, false);
        let coloured = text(&s, true);
        assert_ne!(plain, coloured);
        assert!(coloured.contains("\x1b[31m95%\x1b[0m"));
        let stripped = coloured
            .replace("\x1b[31m", "")
            .replace("\x1b[32m", "")
            .replace("\x1b[33m", "")
            .replace("\x1b[0m", "");
        assert_eq!(stripped, plain);
    }
}
