//! Typed reads of what is more than one cell, for the views that lay it
//! out themselves: the accounting records (`-q`, `--query-accounted-apps`,
//! `nvq run`), the driver's sample buffers (`-q -d POWER,CLOCK,...`), the
//! violation times (dmon's `-s v`), the per-process utilization (pmon), the
//! energy counter (the exporter's), the supported clocks and a MIG device's
//! numbers (`-q`). With the getters of [`super::get`] and
//! [`super::report_get`], these are the only places outside the GPU's
//! context ([`crate::source::ctx`]) that call nvml-wrapper's device methods.

use super::GpuCtx;
use crate::model::NvmlCode;
use crate::nvml::raw;
use crate::nvml::Session;
use nvml_wrapper::enum_wrappers::device::{EccCounter, MemoryError, PerformancePolicy, Sampling};
use nvml_wrapper::struct_wrappers::device::{
    AccountingStats, BAR1MemoryInfo, DeviceAttributes, MemoryInfo, ProcessUtilizationSample, Sample,
};
use nvml_wrapper::Device;

/// Whether accounting mode is on (`nvmlDeviceGetAccountingMode`).
pub fn accounting_enabled(c: &GpuCtx) -> Result<bool, NvmlCode> {
    c.call(|d| d.is_accounting_enabled())
}

/// The PIDs the accounting buffer holds (`nvmlDeviceGetAccountingPids`).
pub fn accounting_pids(c: &GpuCtx) -> Result<Vec<u32>, NvmlCode> {
    c.call(|d| d.accounting_pids())
}

/// One accounted process's record (`nvmlDeviceGetAccountingStats`).
pub fn accounting_stats(c: &GpuCtx, pid: u32) -> Result<AccountingStats, NvmlCode> {
    c.call(|d| d.accounting_stats_for(pid))
}

/// The driver's sample buffer of `which`, every sample it holds
/// (`nvmlDeviceGetSamples`).
pub fn samples(c: &GpuCtx, which: Sampling) -> Result<Vec<Sample>, NvmlCode> {
    c.call(|d| d.samples(which, None))
}

/// The time the GPU was held back by `policy`, in ns since the driver
/// loaded (`nvmlDeviceGetViolationStatus`).
pub fn violation_time(c: &GpuCtx, policy: PerformancePolicy) -> Result<u64, NvmlCode> {
    c.call(|d| d.violation_status(policy))
        .map(|v| v.violation_time)
}

/// The processes' utilization samples newer than `since` (µs), through the
/// older call (`nvmlDeviceGetProcessUtilization`).
pub fn process_utilization(
    c: &GpuCtx,
    since: u64,
) -> Result<Vec<ProcessUtilizationSample>, NvmlCode> {
    c.call(|d| d.process_utilization_stats(since))
}

/// The GPU's energy counter since the driver loaded, in millijoules
/// (`nvmlDeviceGetTotalEnergyConsumption`; Volta and later).
pub fn total_energy_mj(c: &GpuCtx) -> Result<u64, NvmlCode> {
    c.call(|d| d.total_energy_consumption())
}

/// The supported memory clocks (`mem` `None`), or the graphics clocks
/// supported with memory clock `mem`, in MHz.
pub fn supported_clocks(c: &GpuCtx, mem: Option<u32>) -> Result<Vec<u32>, NvmlCode> {
    raw::supported_clocks(&c.raw(), mem)
}

/// What `-q` shows of one MIG device: its index, its GPU and compute
/// instance, its attributes, its memory and BAR1, and its volatile
/// uncorrected SRAM count where it keeps one.
pub struct MigRead {
    /// NVML's index of the MIG device's handle.
    pub index: Result<u32, NvmlCode>,
    /// Its GPU instance id.
    pub gpu_instance: Result<u32, NvmlCode>,
    /// Its compute instance id.
    pub compute_instance: Result<u32, NvmlCode>,
    /// Its share of the GPU (multiprocessors, engines).
    pub attributes: Result<DeviceAttributes, NvmlCode>,
    /// Its memory.
    pub memory: Result<MemoryInfo, NvmlCode>,
    /// Its BAR1 aperture.
    pub bar1: Result<BAR1MemoryInfo, NvmlCode>,
    /// Its volatile uncorrected ECC count.
    pub sram_uncorrected: Result<u64, NvmlCode>,
}

/// Read a MIG device `m` of this session.
pub fn mig_device(session: &Session, m: &Device) -> MigRead {
    let raw_dev = raw::Dev::of(session, m);
    MigRead {
        attributes: m.attributes().map_err(NvmlCode::from),
        memory: m.memory_info().map_err(NvmlCode::from),
        bar1: m.bar1_memory_info().map_err(NvmlCode::from),
        index: m.index().map_err(NvmlCode::from),
        gpu_instance: raw::gpu_instance_id(&raw_dev),
        compute_instance: raw::compute_instance_id(&raw_dev),
        sram_uncorrected: m
            .total_ecc_errors(MemoryError::Uncorrected, EccCounter::Volatile)
            .map_err(NvmlCode::from),
    }
}
