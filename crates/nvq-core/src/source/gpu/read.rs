//! Typed reads of what is more than one cell, for the views that lay it
//! out themselves: the accounting records (`-q`, `--query-accounted-apps`,
//! `nvq run`), the driver's sample buffers (`-q -d POWER,CLOCK,...`), the
//! violation times (dmon's `-s v`), the per-process utilization (pmon), the
//! energy counter (the exporter's), the supported clocks, the virtualization
//! mode and the accounting buffer's size (`vgpu`). With the getters of
//! [`super::get`] and [`super::report_get`], these are the only places
//! outside the GPU's context ([`super::ctx`]) and the raw layer that call
//! nvml-wrapper's device methods.

use super::GpuCtx;
use crate::model::NvmlCode;
use crate::nvml::raw;
use nvml_wrapper::enum_wrappers::device::{GpuVirtualizationMode, PerformancePolicy, Sampling};
use nvml_wrapper::struct_wrappers::device::{AccountingStats, ProcessUtilizationSample, Sample};

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

/// The GPU's virtualization mode (`nvmlDeviceGetVirtualizationMode`).
pub fn virtualization_mode(c: &GpuCtx) -> Result<GpuVirtualizationMode, NvmlCode> {
    c.call(|d| d.virtualization_mode())
}

/// How many processes the accounting buffer holds
/// (`nvmlDeviceGetAccountingBufferSize`).
pub fn accounting_buffer_size(c: &GpuCtx) -> Result<u32, NvmlCode> {
    c.call(|d| d.accounting_buffer_size())
}
