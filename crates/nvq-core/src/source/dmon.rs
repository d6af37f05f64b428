//! `dmon`: one row per GPU per sample, with the metric groups `-s` selects.
//!
//! Each metric is one [`Metric`] entry (its name and unit as nvidia-smi's
//! two header lines print them, nvq's unit and help, its `-s` group). A
//! [`DmonReader`] reads one GPU; it keeps what the rates need (the previous
//! violation counters), so a loop keeps one reader per GPU.

use super::gpm::GpmReader;
use super::gpu::GpuCtx;
pub use super::monitor::Metric;
use super::monitor::{m, Cell, Source, Table};
use super::Target;
use crate::model::gpm::{about, id};
use crate::model::{Fact, Fact as F, NvmlCode, Row, Value};
use crate::nvml::Session;
use nvml_wrapper::enum_wrappers::device::PerformancePolicy;
use std::sync::Arc;
use std::time::Instant;

/// Every dmon metric, in nvidia-smi's order within its group.
#[rustfmt::skip]
pub const METRICS: &[Metric] = &[
    m("pwr", "W", Some("W"), 'p', "Power drawn by the board, watts (truncated).").reads(F::PowerDraw, Cell::Whole),
    m("gtemp", "C", Some("C"), 'p', "GPU core temperature.").reads(F::TemperatureGpu, Cell::Same),
    m("mtemp", "C", Some("C"), 'p', "Memory (HBM) temperature; - where the board has no sensor.")
        .reads(F::TemperatureMemory, Cell::Same),
    m("sm", "%", Some("%"), 'u', "Time the SMs were busy over the driver's last sampling period.")
        .reads(F::UtilizationGpu, Cell::Same),
    m("mem", "%", Some("%"), 'u', "Time device memory was being read or written.")
        .reads(F::UtilizationMemory, Cell::Same),
    m("enc", "%", Some("%"), 'u', "Video encoder utilization.").reads(F::UtilizationEncoder, Cell::Same),
    m("dec", "%", Some("%"), 'u', "Video decoder utilization.").reads(F::UtilizationDecoder, Cell::Same),
    m("jpg", "%", Some("%"), 'u', "JPEG decoder utilization.").reads(F::UtilizationJpeg, Cell::Same),
    m("ofa", "%", Some("%"), 'u', "Optical flow accelerator utilization.").reads(F::UtilizationOfa, Cell::Same),
    m("mclk", "MHz", Some("MHz"), 'c', "Memory clock.").reads(F::ClocksCurrentMemory, Cell::Same),
    m("pclk", "MHz", Some("MHz"), 'c', "Graphics (processor) clock.").reads(F::ClocksCurrentGraphics, Cell::Same),
    m("pviol", "%", Some("%"), 'v', "Share of the last interval the GPU was held back by its power limit.")
        .source(Source::PowerViolation),
    m("tviol", "bool", None, 'v', "1 if the GPU was held back by temperature during the last interval.")
        .source(Source::ThermalViolation),
    m("fb", "MB", Some("MiB"), 'm', "Frame buffer memory in use.").reads(F::MemoryUsed, Cell::Mib),
    m("bar1", "MB", Some("MiB"), 'm', "BAR1 memory in use.").reads(F::Bar1MemoryUsed, Cell::Mib),
    m("ccpm", "MB", Some("MiB"), 'm', "Confidential-computing protected memory in use.")
        .reads(F::ProtectedMemoryUsed, Cell::Mib),
    m("sbecc", "errs", None, 'e', "Corrected (single-bit) ECC errors since the driver loaded.")
        .reads(F::EccErrorsCorrectedVolatileTotal, Cell::EccCount).named_by_fact(),
    m("dbecc", "errs", None, 'e', "Uncorrected (double-bit) ECC errors since the driver loaded.")
        .reads(F::EccErrorsUncorrectedVolatileTotal, Cell::EccCount).named_by_fact(),
    m("pci", "errs", None, 'e', "PCIe replay count.").reads(F::PcieReplayCounter, Cell::Same),
    m("rxpci", "MB/s", Some("MB/s"), 't', "PCIe receive throughput.").reads(F::PcieRxThroughput, Cell::KbAsMb),
    m("txpci", "MB/s", Some("MB/s"), 't', "PCIe transmit throughput.").reads(F::PcieTxThroughput, Cell::KbAsMb),
];

/// A GPM metric `--gpm-metrics` selects by NVML's `nvmlGpmMetricId_t`.
/// Its column is a [`Metric`] of group `g` (not an `-s` group).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GpmMetric {
    /// The metric's NVML id (`nvmlGpmMetricId_t`), as `--gpm-metrics` gives it.
    pub id: u32,
    /// How its column is headed, described and printed.
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

/// A GPM column whose help is the sentence its metric has for dmon and the
/// dcgm profile alike ([`about`]).
const fn shared(
    id: u32,
    name: &'static str,
    unit: (&'static str, Option<&'static str>),
) -> GpmMetric {
    let help = match about(id) {
        Some(help) => help,
        None => "",
    };
    g(id, name, unit, help)
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
    shared(id::GRAPHICS_UTIL, "gract", PCT),
    shared(id::SM_UTIL, "smutil", PCT),
    shared(id::SM_OCCUPANCY, "smocc", PCT),
    g(id::INTEGER_UTIL, "intact", PCT, "Share of cycles the integer pipe was busy."),
    shared(id::ANY_TENSOR_UTIL, "mmaact", PCT),
    g(id::DFMA_TENSOR_UTIL, "dfmaact", PCT, "Share of cycles the FP64 (DFMA) tensor pipe was busy."),
    g(id::HMMA_TENSOR_UTIL, "hmmaact", PCT, "Share of cycles the half-precision (HMMA) tensor pipe was busy."),
    g(id::IMMA_TENSOR_UTIL, "immaact", PCT, "Share of cycles the integer (IMMA) tensor pipe was busy."),
    shared(id::DRAM_BW_UTIL, "dram", PCT),
    shared(id::FP64_UTIL, "fp64", PCT),
    shared(id::FP32_UTIL, "fp32", PCT),
    shared(id::FP16_UTIL, "fp16", PCT),
    shared(id::PCIE_TX_PER_SEC, "pcitx", RATE),
    shared(id::PCIE_RX_PER_SEC, "pcirx", RATE),
    g(id::nvdec(0), "nvdec0", PCT, "Video decoder 0 activity."),
    g(id::nvdec(1), "nvdec1", PCT, "Video decoder 1 activity."),
    g(id::nvdec(2), "nvdec2", PCT, "Video decoder 2 activity."),
    g(id::nvdec(3), "nvdec3", PCT, "Video decoder 3 activity."),
    g(id::nvdec(4), "nvdec4", PCT, "Video decoder 4 activity."),
    g(id::nvdec(5), "nvdec5", PCT, "Video decoder 5 activity."),
    g(id::nvdec(6), "nvdec6", PCT, "Video decoder 6 activity."),
    g(id::nvdec(7), "nvdec7", PCT, "Video decoder 7 activity."),
    g(id::nvjpg(0), "nvjpg0", PCT, "JPEG decoder 0 activity."),
    g(id::nvjpg(1), "nvjpg1", PCT, "JPEG decoder 1 activity."),
    g(id::nvjpg(2), "nvjpg2", PCT, "JPEG decoder 2 activity."),
    g(id::nvjpg(3), "nvjpg3", PCT, "JPEG decoder 3 activity."),
    g(id::nvjpg(4), "nvjpg4", PCT, "JPEG decoder 4 activity."),
    g(id::nvjpg(5), "nvjpg5", PCT, "JPEG decoder 5 activity."),
    g(id::nvjpg(6), "nvjpg6", PCT, "JPEG decoder 6 activity."),
    g(id::nvjpg(7), "nvjpg7", PCT, "JPEG decoder 7 activity."),
    g(id::NVOFA_0_UTIL, "nvofa0", PCT, "Optical flow accelerator 0 activity."),
    shared(id::NVLINK_TOTAL_RX_PER_SEC, "nvlrx", RATE),
    shared(id::NVLINK_TOTAL_TX_PER_SEC, "nvltx", RATE),
    g(id::nvlink_rx(0), "nvl0rx", RATE, "NVLink traffic received over link 0."),
    g(id::nvlink_tx(0), "nvl0tx", RATE, "NVLink traffic sent over link 0."),
    g(id::nvlink_rx(1), "nvl1rx", RATE, "NVLink traffic received over link 1."),
    g(id::nvlink_tx(1), "nvl1tx", RATE, "NVLink traffic sent over link 1."),
    g(id::nvlink_rx(2), "nvl2rx", RATE, "NVLink traffic received over link 2."),
    g(id::nvlink_tx(2), "nvl2tx", RATE, "NVLink traffic sent over link 2."),
    g(id::nvlink_rx(3), "nvl3rx", RATE, "NVLink traffic received over link 3."),
    g(id::nvlink_tx(3), "nvl3tx", RATE, "NVLink traffic sent over link 3."),
    g(id::nvlink_rx(4), "nvl4rx", RATE, "NVLink traffic received over link 4."),
    g(id::nvlink_tx(4), "nvl4tx", RATE, "NVLink traffic sent over link 4."),
    g(id::nvlink_rx(5), "nvl5rx", RATE, "NVLink traffic received over link 5."),
    g(id::nvlink_tx(5), "nvl5tx", RATE, "NVLink traffic sent over link 5."),
    g(id::nvlink_rx(6), "nvl6rx", RATE, "NVLink traffic received over link 6."),
    g(id::nvlink_tx(6), "nvl6tx", RATE, "NVLink traffic sent over link 6."),
    g(id::nvlink_rx(7), "nvl7rx", RATE, "NVLink traffic received over link 7."),
    g(id::nvlink_tx(7), "nvl7tx", RATE, "NVLink traffic sent over link 7."),
    g(id::nvlink_rx(8), "nvl8rx", RATE, "NVLink traffic received over link 8."),
    g(id::nvlink_tx(8), "nvl8tx", RATE, "NVLink traffic sent over link 8."),
    g(id::nvlink_rx(9), "nvl9rx", RATE, "NVLink traffic received over link 9."),
    g(id::nvlink_tx(9), "nvl9tx", RATE, "NVLink traffic sent over link 9."),
    g(id::nvlink_rx(10), "nvl10rx", RATE, "NVLink traffic received over link 10."),
    g(id::nvlink_tx(10), "nvl10tx", RATE, "NVLink traffic sent over link 10."),
    g(id::nvlink_rx(11), "nvl11rx", RATE, "NVLink traffic received over link 11."),
    g(id::nvlink_tx(11), "nvl11tx", RATE, "NVLink traffic sent over link 11."),
    g(id::nvlink_rx(12), "nvl12rx", RATE, "NVLink traffic received over link 12."),
    g(id::nvlink_tx(12), "nvl12tx", RATE, "NVLink traffic sent over link 12."),
    g(id::nvlink_rx(13), "nvl13rx", RATE, "NVLink traffic received over link 13."),
    g(id::nvlink_tx(13), "nvl13tx", RATE, "NVLink traffic sent over link 13."),
    g(id::nvlink_rx(14), "nvl14rx", RATE, "NVLink traffic received over link 14."),
    g(id::nvlink_tx(14), "nvl14tx", RATE, "NVLink traffic sent over link 14."),
    g(id::nvlink_rx(15), "nvl15rx", RATE, "NVLink traffic received over link 15."),
    g(id::nvlink_tx(15), "nvl15tx", RATE, "NVLink traffic sent over link 15."),
    g(id::nvlink_rx(16), "nvl16rx", RATE, "NVLink traffic received over link 16."),
    g(id::nvlink_tx(16), "nvl16tx", RATE, "NVLink traffic sent over link 16."),
    g(id::nvlink_rx(17), "nvl17rx", RATE, "NVLink traffic received over link 17."),
    g(id::nvlink_tx(17), "nvl17tx", RATE, "NVLink traffic sent over link 17."),
    g(id::nvenc(0), "nvenc0", PCT, "Video encoder 0 activity."),
    g(id::nvenc(1), "nvenc1", PCT, "Video encoder 1 activity."),
    g(id::nvenc(2), "nvenc2", PCT, "Video encoder 2 activity."),
    g(id::nvenc(3), "nvenc3", PCT, "Video encoder 3 activity."),
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
    /// Print the GPU's own GPM rows (`d`).
    pub device: bool,
    /// Print a GPM row per MIG GPU instance (`m`).
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

/// dmon's metrics and `-s` groups (nvidia-smi's default: `puc`).
pub const TABLE: Table = Table {
    metrics: METRICS,
    groups: "pucvmet",
    default_groups: "puc",
};

/// The first driver (major version) whose dmon has six-character columns,
/// `gtemp` and `mtemp`, `jpg` and `ofa`. Public outputs show the narrow
/// layout on 352.99 (and on a CUDA 9.0 machine, a 384 driver) and the wide
/// one on 545 and later; no output of a driver in between was found, so the
/// boundary is an estimate within that range.
pub const WIDE_LAYOUT_FROM: u32 = 400;

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

fn int(v: impl Into<i64>) -> Value {
    Value::Int(v.into())
}

impl DmonReader {
    /// A reader of the `-s` metrics `metrics` only, no GPM metrics.
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
        if c.handle().is_err() {
            return rows;
        }
        for (gi, _) in super::gpm::gpu_instances(&c) {
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
        let viol = |p| super::gpu::read::violation_time(&c, p);
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
            cells.push(match m.source {
                Source::PowerViolation => self.power_share(now, power),
                Source::ThermalViolation => self.thermal_flag(thermal),
                Source::Fact(fact, cell) => read_metric(&c, fact, cell),
                Source::Own | Source::Process(_) => Value::err(NvmlCode::NOT_SUPPORTED),
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

/// A metric that needs no state: its fact through the catalogue's reader,
/// on the sample's context (so `fb` and `memory.used` are one
/// `nvmlDeviceGetMemoryInfo_v2` call).
fn read_metric(c: &GpuCtx, fact: Fact, cell: Cell) -> Value {
    if cell == Cell::EccCount {
        // ECC totals count only while ECC is on; with it off the cell is `-`.
        match c.ecc_mode() {
            Ok((true, _)) => {}
            Ok((false, _)) => return Value::err(NvmlCode::NOT_SUPPORTED),
            Err(code) => return Value::err(code),
        }
    }
    cell.of(c.fact(fact))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_in_the_order_given() {
        let names = |s| -> Vec<&str> { TABLE.select(s).unwrap().iter().map(|m| m.name).collect() };
        assert_eq!(
            names("puc"),
            ["pwr", "gtemp", "mtemp", "sm", "mem", "enc", "dec", "jpg", "ofa", "mclk", "pclk"]
        );
        assert_eq!(names("te"), ["rxpci", "txpci", "sbecc", "dbecc", "pci"]);
        assert_eq!(names("mm"), ["fb", "bar1", "ccpm"]);
        assert_eq!(TABLE.select("px"), Err('x'));
        assert_eq!(TABLE.select(TABLE.groups).unwrap().len(), METRICS.len());
    }

    /// nvq's names of GPM metric ids are NVML's (`nvmlGpmMetricId_t`): the
    /// first and last of each run of ids.
    #[test]
    #[rustfmt::skip]
    fn gpm_ids_are_nvmls() {
        use nvml_wrapper_sys::bindings as b;
        assert_eq!(id::GRAPHICS_UTIL, b::nvmlGpmMetricId_t_NVML_GPM_METRIC_GRAPHICS_UTIL);
        assert_eq!(id::IMMA_TENSOR_UTIL, b::nvmlGpmMetricId_t_NVML_GPM_METRIC_IMMA_TENSOR_UTIL);
        assert_eq!(id::PCIE_RX_PER_SEC, b::nvmlGpmMetricId_t_NVML_GPM_METRIC_PCIE_RX_PER_SEC);
        assert_eq!(id::nvdec(7), b::nvmlGpmMetricId_t_NVML_GPM_METRIC_NVDEC_7_UTIL);
        assert_eq!(id::nvjpg(7), b::nvmlGpmMetricId_t_NVML_GPM_METRIC_NVJPG_7_UTIL);
        assert_eq!(id::NVOFA_0_UTIL, b::nvmlGpmMetricId_t_NVML_GPM_METRIC_NVOFA_0_UTIL);
        assert_eq!(id::NVLINK_TOTAL_TX_PER_SEC, b::nvmlGpmMetricId_t_NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC);
        assert_eq!(id::nvlink_tx(17), b::nvmlGpmMetricId_t_NVML_GPM_METRIC_NVLINK_L17_TX_PER_SEC);
        assert_eq!(id::nvenc(3), b::nvmlGpmMetricId_t_NVML_GPM_METRIC_NVENC_3_UTIL);
    }

    /// Every GPM column says what it shows: its own sentence, or the one its
    /// metric shares with the dcgm profile ([`about`]).
    #[test]
    fn every_gpm_column_has_help() {
        for g in GPM_METRICS {
            assert!(!g.metric.help.is_empty(), "{} has no help", g.metric.name);
        }
    }

    /// Every dmon column that is no violation share reads a catalogue fact.
    #[test]
    fn every_dmon_column_has_a_source() {
        for m in METRICS {
            match m.source {
                Source::Fact(..) | Source::PowerViolation | Source::ThermalViolation => {}
                Source::Own | Source::Process(_) => panic!("{} has no source", m.name),
            }
        }
    }
}
