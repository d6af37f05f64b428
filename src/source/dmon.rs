//! `dmon`: one row per GPU per sample, with the metric groups `-s` selects.
//!
//! Each metric is one [`Metric`] entry (its name and unit as nvidia-smi's
//! two header lines print them, nvq's unit and help, its `-s` group). A
//! [`DmonReader`] reads one GPU; it keeps what the rates need (the previous
//! violation counters), so a loop keeps one reader per GPU.

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
    m("sbecc", "errs", None, 'e', "Corrected (single-bit) ECC errors since the driver loaded."),
    m("dbecc", "errs", None, 'e', "Uncorrected (double-bit) ECC errors since the driver loaded."),
    m("pci", "errs", None, 'e', "PCIe replay count."),
    m("rxpci", "MB/s", Some("MB/s"), 't', "PCIe receive throughput."),
    m("txpci", "MB/s", Some("MB/s"), 't', "PCIe transmit throughput."),
];

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
        DmonReader {
            metrics,
            last: None,
        }
    }

    /// One row: the GPU's index, then one cell per metric (a failed read is
    /// the cell's error code).
    pub fn read(&mut self, session: &Session, target: &Target, count: u32) -> Row {
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
        row.timestamp = Some(c.timestamp.clone());
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
        "pci" => v(c.call(|d| d.pcie_replay_counter()).map(int)),
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
