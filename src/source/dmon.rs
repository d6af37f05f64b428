//! `dmon`: one row per GPU per sample, with the metric groups `-s` selects.
//!
//! Each metric is one [`Metric`] entry (its name and unit as nvidia-smi's
//! two header lines print them, nvq's unit and help, its `-s` group). A
//! [`DmonReader`] reads one GPU; it keeps what the rates need (the previous
//! violation counters), so a loop keeps one reader per GPU.

use super::gpm::GpmReader;
use super::gpu::GpuCtx;
use super::monitor::m;
pub use super::monitor::Metric;
use super::Target;
use crate::model::{NvmlCode, Row, Value};
use crate::nvml::raw;
use crate::nvml::Session;
use nvml_wrapper::enum_wrappers::device::{
    Clock, EccCounter, MemoryError, PcieUtilCounter, PerformancePolicy, TemperatureSensor,
};
use std::sync::Arc;
use std::time::Instant;

/// Every dmon metric, in nvidia-smi's order within its group.
#[rustfmt::skip]
pub const METRICS: &[Metric] = &[
    m("pwr", "W", Some("W"), 'p', "Power drawn by the board, watts (truncated)."),
    m("gtemp", "C", Some("C"), 'p', "GPU core temperature."),
    m("mtemp", "C", Some("C"), 'p', "Memory (HBM) temperature; - where the board has no sensor."),
    m("sm", "%", Some("%"), 'u', "Time the SMs were busy over the driver's last sampling period."),
    m("mem", "%", Some("%"), 'u', "Time device memory was being read or written."),
    m("enc", "%", Some("%"), 'u', "Video encoder utilization."),
    m("dec", "%", Some("%"), 'u', "Video decoder utilization."),
    m("jpg", "%", Some("%"), 'u', "JPEG decoder utilization."),
    m("ofa", "%", Some("%"), 'u', "Optical flow accelerator utilization."),
    m("mclk", "MHz", Some("MHz"), 'c', "Memory clock."),
    m("pclk", "MHz", Some("MHz"), 'c', "Graphics (processor) clock."),
    m("pviol", "%", Some("%"), 'v', "Share of the last interval the GPU was held back by its power limit."),
    m("tviol", "bool", None, 'v', "1 if the GPU was held back by temperature during the last interval."),
    m("fb", "MB", Some("MiB"), 'm', "Frame buffer memory in use."),
    m("bar1", "MB", Some("MiB"), 'm', "BAR1 memory in use."),
    m("ccpm", "MB", Some("MiB"), 'm', "Confidential-computing protected memory in use."),
    m("sbecc", "errs", None, 'e', "Corrected (single-bit) ECC errors since the driver loaded.")
        .fact("ecc.errors.corrected.volatile.total"),
    m("dbecc", "errs", None, 'e', "Uncorrected (double-bit) ECC errors since the driver loaded.")
        .fact("ecc.errors.uncorrected.volatile.total"),
    m("pci", "errs", None, 'e', "PCIe replay count."),
    m("rxpci", "MB/s", Some("MB/s"), 't', "PCIe receive throughput."),
    m("txpci", "MB/s", Some("MB/s"), 't', "PCIe transmit throughput."),
];

/// A GPM metric `--gpm-metrics` selects by NVML's `nvmlGpmMetricId_t`.
/// Its column is a [`Metric`] of group `g` (not an `-s` group).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GpmMetric {
    pub id: u32,
    pub metric: Metric,
}

/// nvidia-smi's second header line of GPM columns: percent, or (for
/// traffic) MB/s. The percent label is the one a public capture shows; the
/// traffic label is unverified (no public capture found).
const PCT: (&str, Option<&str>) = ("GPM:%", Some("%"));
const RATE: (&str, Option<&str>) = ("GPM:MB/s", Some("MB/s"));

const fn g(
    id: u32,
    name: &'static str,
    unit: (&'static str, Option<&'static str>),
    help: &'static str,
) -> GpmMetric {
    GpmMetric {
        id,
        metric: m(name, unit.0, unit.1, 'g', help),
    }
}

/// The GPM metrics `dmon --gpm-metrics` lists (Hopper and later), by id.
/// Column names: `gract`, `smutil`, `fp16` and the `GPM:%` unit line are as
/// a public capture of `dmon --gpm-metrics 1,2,13` shows them
/// (leimao.github.io, "NVIDIA NVML GPU Statistics"); `smocc`, `mmaact`,
/// `dram`, `fp64`, `fp32`, `nvenc0`, `nvlrx`, `nvltx` and `nvl<N>rx/tx` as
/// public scripts parse them from nvidia-smi; the others are unverified
/// names in the same pattern. The C2C, cache and context-switch metrics
/// (100 to 165, 170 to 209) are not offered yet.
#[rustfmt::skip]
pub const GPM_METRICS: &[GpmMetric] = &[
    g(1, "gract", PCT, "Share of time the graphics or compute engine was busy."),
    g(2, "smutil", PCT, "Share of SM cycles with at least one warp resident, over all SMs."),
    g(3, "smocc", PCT, "Resident warps as a share of the most the SMs can hold."),
    g(4, "intact", PCT, "Share of cycles the integer pipe was busy."),
    g(5, "mmaact", PCT, "Share of cycles any tensor core pipe was busy."),
    g(6, "dfmaact", PCT, "Share of cycles the FP64 (DFMA) tensor pipe was busy."),
    g(7, "hmmaact", PCT, "Share of cycles the half-precision (HMMA) tensor pipe was busy."),
    g(9, "immaact", PCT, "Share of cycles the integer (IMMA) tensor pipe was busy."),
    g(10, "dram", PCT, "Share of cycles device memory was sending or receiving data."),
    g(11, "fp64", PCT, "Share of cycles the FP64 pipe was busy."),
    g(12, "fp32", PCT, "Share of cycles the FP32 pipe was busy."),
    g(13, "fp16", PCT, "Share of cycles the FP16 pipe was busy."),
    g(20, "pcitx", RATE, "PCIe traffic sent by the GPU."),
    g(21, "pcirx", RATE, "PCIe traffic received by the GPU."),
    g(30, "nvdec0", PCT, "Video decoder 0 activity."),
    g(31, "nvdec1", PCT, "Video decoder 1 activity."),
    g(32, "nvdec2", PCT, "Video decoder 2 activity."),
    g(33, "nvdec3", PCT, "Video decoder 3 activity."),
    g(34, "nvdec4", PCT, "Video decoder 4 activity."),
    g(35, "nvdec5", PCT, "Video decoder 5 activity."),
    g(36, "nvdec6", PCT, "Video decoder 6 activity."),
    g(37, "nvdec7", PCT, "Video decoder 7 activity."),
    g(40, "nvjpg0", PCT, "JPEG decoder 0 activity."),
    g(41, "nvjpg1", PCT, "JPEG decoder 1 activity."),
    g(42, "nvjpg2", PCT, "JPEG decoder 2 activity."),
    g(43, "nvjpg3", PCT, "JPEG decoder 3 activity."),
    g(44, "nvjpg4", PCT, "JPEG decoder 4 activity."),
    g(45, "nvjpg5", PCT, "JPEG decoder 5 activity."),
    g(46, "nvjpg6", PCT, "JPEG decoder 6 activity."),
    g(47, "nvjpg7", PCT, "JPEG decoder 7 activity."),
    g(50, "nvofa0", PCT, "Optical flow accelerator 0 activity."),
    g(60, "nvlrx", RATE, "NVLink traffic received over all links."),
    g(61, "nvltx", RATE, "NVLink traffic sent over all links."),
    g(62, "nvl0rx", RATE, "NVLink traffic received over link 0."),
    g(63, "nvl0tx", RATE, "NVLink traffic sent over link 0."),
    g(64, "nvl1rx", RATE, "NVLink traffic received over link 1."),
    g(65, "nvl1tx", RATE, "NVLink traffic sent over link 1."),
    g(66, "nvl2rx", RATE, "NVLink traffic received over link 2."),
    g(67, "nvl2tx", RATE, "NVLink traffic sent over link 2."),
    g(68, "nvl3rx", RATE, "NVLink traffic received over link 3."),
    g(69, "nvl3tx", RATE, "NVLink traffic sent over link 3."),
    g(70, "nvl4rx", RATE, "NVLink traffic received over link 4."),
    g(71, "nvl4tx", RATE, "NVLink traffic sent over link 4."),
    g(72, "nvl5rx", RATE, "NVLink traffic received over link 5."),
    g(73, "nvl5tx", RATE, "NVLink traffic sent over link 5."),
    g(74, "nvl6rx", RATE, "NVLink traffic received over link 6."),
    g(75, "nvl6tx", RATE, "NVLink traffic sent over link 6."),
    g(76, "nvl7rx", RATE, "NVLink traffic received over link 7."),
    g(77, "nvl7tx", RATE, "NVLink traffic sent over link 7."),
    g(78, "nvl8rx", RATE, "NVLink traffic received over link 8."),
    g(79, "nvl8tx", RATE, "NVLink traffic sent over link 8."),
    g(80, "nvl9rx", RATE, "NVLink traffic received over link 9."),
    g(81, "nvl9tx", RATE, "NVLink traffic sent over link 9."),
    g(82, "nvl10rx", RATE, "NVLink traffic received over link 10."),
    g(83, "nvl10tx", RATE, "NVLink traffic sent over link 10."),
    g(84, "nvl11rx", RATE, "NVLink traffic received over link 11."),
    g(85, "nvl11tx", RATE, "NVLink traffic sent over link 11."),
    g(86, "nvl12rx", RATE, "NVLink traffic received over link 12."),
    g(87, "nvl12tx", RATE, "NVLink traffic sent over link 12."),
    g(88, "nvl13rx", RATE, "NVLink traffic received over link 13."),
    g(89, "nvl13tx", RATE, "NVLink traffic sent over link 13."),
    g(90, "nvl14rx", RATE, "NVLink traffic received over link 14."),
    g(91, "nvl14tx", RATE, "NVLink traffic sent over link 14."),
    g(92, "nvl15rx", RATE, "NVLink traffic received over link 15."),
    g(93, "nvl15tx", RATE, "NVLink traffic sent over link 15."),
    g(94, "nvl16rx", RATE, "NVLink traffic received over link 16."),
    g(95, "nvl16tx", RATE, "NVLink traffic sent over link 16."),
    g(96, "nvl17rx", RATE, "NVLink traffic received over link 17."),
    g(97, "nvl17tx", RATE, "NVLink traffic sent over link 17."),
    g(166, "nvenc0", PCT, "Video encoder 0 activity."),
    g(167, "nvenc1", PCT, "Video encoder 1 activity."),
    g(168, "nvenc2", PCT, "Video encoder 2 activity."),
    g(169, "nvenc3", PCT, "Video encoder 3 activity."),
];

/// The GPM metrics of `--gpm-metrics LIST` (comma-separated ids, no spaces),
/// in the order given (an id given twice counts once). `Err(item)` for an
/// item that is not an id of [`GPM_METRICS`].
pub fn select_gpm(list: &str) -> Result<Vec<GpmMetric>, String> {
    let mut out: Vec<GpmMetric> = Vec::new();
    for item in list.split(',') {
        let found = item
            .parse::<u32>()
            .ok()
            .and_then(|id| GPM_METRICS.iter().find(|g| g.id == id));
        match found {
            Some(g) if !out.contains(g) => out.push(*g),
            Some(_) => {}
            None => return Err(item.to_string()),
        }
    }
    Ok(out)
}

/// `--gpm-options`: GPM rows of the GPU (`d`), of its MIG GPU instances
/// (`m`), or both (`dm`, `md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GpmLevel {
    pub device: bool,
    pub mig: bool,
}

impl GpmLevel {
    /// nvidia-smi's default is the device level.
    pub fn parse(s: Option<&str>) -> Option<Self> {
        match s.unwrap_or("d") {
            "d" => Some(GpmLevel {
                device: true,
                mig: false,
            }),
            "m" => Some(GpmLevel {
                device: false,
                mig: true,
            }),
            "dm" | "md" => Some(GpmLevel {
                device: true,
                mig: true,
            }),
            _ => None,
        }
    }
}

/// The `-s` letters dmon knows, in the order `-s` lists them.
pub const GROUPS: &str = "pucvmet";

/// nvidia-smi's default `-s`.
pub const DEFAULT_GROUPS: &str = "puc";

/// The first driver (major version) whose dmon has six-character columns,
/// `gtemp` and `mtemp`, `jpg` and `ofa`. Public outputs show the narrow
/// layout on 352.99 (and on a CUDA 9.0 machine, a 384 driver) and the wide
/// one on 545 and later; no output of a driver in between was found, so the
/// boundary is an estimate within that range.
pub const WIDE_LAYOUT_FROM: u32 = 400;

/// The metrics of `-s LETTERS`, group by group in the order given.
pub fn select(letters: &str) -> Result<Vec<Metric>, char> {
    super::monitor::select(METRICS, GROUPS, letters)
}

/// Reads one GPU's dmon row; keeps the previous violation counters so that
/// `pviol`/`tviol` describe the interval since the last sample.
pub struct DmonReader {
    metrics: Vec<Metric>,
    /// `--gpm-metrics` and `--gpm-options`, with the GPU's GPM samples and
    /// how many samples this reader has taken.
    gpm: Vec<GpmMetric>,
    level: GpmLevel,
    gpm_reader: GpmReader,
    samples: u64,
    /// When the previous sample was read, with the power and thermal
    /// violation times (ns) it saw.
    last: Option<(Instant, Option<u64>, Option<u64>)>,
}

const MIB: u64 = 1024 * 1024;

fn int(v: impl Into<i64>) -> Value {
    Value::Int(v.into())
}

fn mib(bytes: u64) -> Value {
    Value::count(bytes / MIB)
}

impl DmonReader {
    pub fn new(metrics: Vec<Metric>) -> Self {
        Self::with_gpm(metrics, Vec::new(), GpmLevel::default())
    }

    /// A reader that also reads the GPM metrics `gpm` at `level`.
    pub fn with_gpm(metrics: Vec<Metric>, gpm: Vec<GpmMetric>, level: GpmLevel) -> Self {
        DmonReader {
            metrics,
            gpm,
            level,
            gpm_reader: GpmReader::default(),
            samples: 0,
            last: None,
        }
    }

    /// One sample's rows: the GPU's row (the GPU's index, then one cell per
    /// metric, a failed read being the cell's error code, then the GPM
    /// metrics), and with `--gpm-options m` one row per MIG GPU instance
    /// (its id in the `gi` column, `-` for the metrics that are the GPU's,
    /// then its GPM metrics; this row layout is unverified: no public
    /// capture of MIG-level GPM output was found).
    pub fn read(&mut self, session: &Arc<Session>, target: &Target, count: u32) -> Vec<Row> {
        self.samples += 1;
        let mut row = self.read_gpu(session, target, count);
        if self.gpm.is_empty() {
            return vec![row];
        }
        let c = target.context(session, count);
        let dev = c.raw();
        let ids: Vec<u32> = self.gpm.iter().map(|g| g.id).collect();
        // A public capture shows `-` in the GPM columns of the first two
        // samples and values from the third on: the first sample only
        // starts the interval, and the second's values are not printed.
        let show = self.samples > 2;
        let none = || Value::err(NvmlCode::NOT_SUPPORTED);
        let got = if self.level.device {
            self.gpm_reader.read(session, &dev, &ids)
        } else {
            Vec::new()
        };
        row.cells.extend(cells_of(&ids, &got, show));
        if !self.level.mig {
            return vec![row];
        }
        row.cells.insert(1, none());
        let mut rows = vec![row];
        let Ok(d) = c.dev() else {
            return rows;
        };
        for (gi, _) in super::gpm::gpu_instances(session, d) {
            let got = self.gpm_reader.read_mig(session, &dev, gi, &ids);
            let mut cells = vec![int(target.index), int(gi)];
            cells.extend(self.metrics.iter().map(|_| none()));
            cells.extend(cells_of(&ids, &got, show));
            let mut r = Row::new(cells);
            r.gpu = Some(target.ident(&c));
            r.timestamp = Some(c.timestamp().to_string());
            rows.push(r);
        }
        rows
    }

    /// The GPU's row without the GPM cells.
    fn read_gpu(&mut self, session: &Session, target: &Target, count: u32) -> Row {
        let c = target.context(session, count);
        let now = Instant::now();
        let wants_v = self.metrics.iter().any(|m| m.group == 'v');
        let viol = |p| c.call(|d| d.violation_status(p)).map(|v| v.violation_time);
        let (power, thermal) = if wants_v {
            (
                viol(PerformancePolicy::Power),
                viol(PerformancePolicy::Thermal),
            )
        } else {
            (Err(NvmlCode::NOT_SUPPORTED), Err(NvmlCode::NOT_SUPPORTED))
        };
        let mut cells = Vec::with_capacity(self.metrics.len() + 1);
        cells.push(int(target.index));
        for m in &self.metrics {
            cells.push(match m.name {
                "pviol" => self.power_share(now, power),
                "tviol" => self.thermal_flag(thermal),
                _ => read_metric(&c, m.name),
            });
        }
        if wants_v {
            self.last = Some((now, power.ok(), thermal.ok()));
        }
        let mut row = Row::new(cells);
        row.gpu = Some(target.ident(&c));
        row.timestamp = Some(c.timestamp().to_string());
        row
    }

    /// `pviol`: the share of the time since the last sample spent power
    /// capped, in percent (0 on the first sample).
    fn power_share(&self, now: Instant, power: Result<u64, NvmlCode>) -> Value {
        let p = match power {
            Ok(p) => p,
            Err(code) => return Value::err(code),
        };
        match self.last {
            Some((then, Some(prev), _)) => {
                let span = now.duration_since(then).as_nanos().max(1);
                let pct = u128::from(p.saturating_sub(prev)) * 100 / span;
                Value::count(u64::try_from(pct.min(100)).unwrap_or(100))
            }
            _ => int(0),
        }
    }

    /// `tviol`: 1 if the thermal violation time grew since the last sample.
    fn thermal_flag(&self, thermal: Result<u64, NvmlCode>) -> Value {
        let t = match thermal {
            Ok(t) => t,
            Err(code) => return Value::err(code),
        };
        match self.last {
            Some((_, _, Some(prev))) => int(i64::from(t > prev)),
            _ => int(0),
        }
    }
}

/// The GPM cells of `ids` from what NVML gave (`-` for a metric it did not
/// give, and for every metric while `show` is false). nvidia-smi prints
/// whole numbers (truncation is assumed: the capture cannot tell it from
/// rounding).
fn cells_of(ids: &[u32], got: &[(u32, f64)], show: bool) -> Vec<Value> {
    ids.iter()
        .map(|id| match got.iter().find(|(i, _)| i == id) {
            Some((_, v)) if show => Value::Int(v.trunc() as i64),
            _ => Value::err(NvmlCode::NOT_SUPPORTED),
        })
        .collect()
}

/// A metric that needs no state.
fn read_metric(c: &GpuCtx, name: &str) -> Value {
    let v = |r: Result<Value, NvmlCode>| r.unwrap_or_else(Value::err);
    match name {
        "pwr" => v(c.call(|d| d.power_usage()).map(|mw| int(mw / 1000))),
        "gtemp" => v(c.call(|d| d.temperature(TemperatureSensor::Gpu)).map(int)),
        "mtemp" => v(c.field_value(82, 0).map(|f| int(f.as_i64()))),
        "sm" => v(c.utilization().map(|u| int(u.gpu))),
        "mem" => v(c.utilization().map(|u| int(u.memory))),
        "enc" => v(c
            .call(|d| d.encoder_utilization())
            .map(|u| int(u.utilization))),
        "dec" => v(c
            .call(|d| d.decoder_utilization())
            .map(|u| int(u.utilization))),
        "jpg" => v(raw::engine_utilization(&c.raw(), false).map(int)),
        "ofa" => v(raw::engine_utilization(&c.raw(), true).map(int)),
        "mclk" => v(c.call(|d| d.clock_info(Clock::Memory)).map(int)),
        "pclk" => v(c.call(|d| d.clock_info(Clock::Graphics)).map(int)),
        "fb" => v(c.memory().map(|m| mib(m.used))),
        "bar1" => v(c.call(|d| d.bar1_memory_info()).map(|b| mib(b.used))),
        "ccpm" => v(c.protected_memory().map(|p| mib(p.used))),
        "sbecc" => v(ecc_total(c, MemoryError::Corrected)),
        "dbecc" => v(ecc_total(c, MemoryError::Uncorrected)),
        "pci" => v(super::gpu::get::pcie_replays(c).map(int)),
        "rxpci" => v(c
            .call(|d| d.pcie_throughput(PcieUtilCounter::Receive))
            .map(kb_to_mb)),
        "txpci" => v(c
            .call(|d| d.pcie_throughput(PcieUtilCounter::Send))
            .map(kb_to_mb)),
        _ => Value::err(NvmlCode::NOT_SUPPORTED),
    }
}

/// ECC totals count only while ECC is on; with it off the cell is `-`.
fn ecc_total(c: &GpuCtx, kind: MemoryError) -> Result<Value, NvmlCode> {
    match c.ecc_mode() {
        Ok((true, _)) => c
            .call(|d| d.total_ecc_errors(kind, EccCounter::Volatile))
            .map(Value::count),
        Ok((false, _)) => Err(NvmlCode::NOT_SUPPORTED),
        Err(code) => Err(code),
    }
}

fn kb_to_mb(kb: u32) -> Value {
    int(kb / 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_in_the_order_given() {
        let names = |s| -> Vec<&str> { select(s).unwrap().iter().map(|m| m.name).collect() };
        assert_eq!(
            names("puc"),
            ["pwr", "gtemp", "mtemp", "sm", "mem", "enc", "dec", "jpg", "ofa", "mclk", "pclk"]
        );
        assert_eq!(names("te"), ["rxpci", "txpci", "sbecc", "dbecc", "pci"]);
        assert_eq!(names("mm"), ["fb", "bar1", "ccpm"]);
        assert_eq!(select("px"), Err('x'));
        assert_eq!(select(GROUPS).unwrap().len(), METRICS.len());
    }
}
