//! What `nvq serve`'s dcgm profile reads of a GPU beside its `--query-gpu`
//! fields: the minor number (the `device` label), GPM metrics, and each MIG
//! GPU instance's memory and GPM metrics.

/// One GPU's extra reads. GPM metrics are `(nvmlGpmMetricId_t, value)` in
/// NVML's units (percent, MiB/s) over the time since the previous
/// collection; a metric NVML could not give is left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GpuExtra {
    pub minor: Option<u32>,
    pub gpm: Vec<(u32, f64)>,
    /// One entry per GPU instance, in MIG mode only.
    pub instances: Vec<InstanceRead>,
    /// NVML's PCIe replay counter.
    pub pcie_replays: Option<u64>,
    /// PCIe throughput (sent, received) in KB/s, where it was asked for
    /// (nvidia_gpu_exporter's `--collect.pcie-throughput`).
    pub pcie_kb_per_s: Option<(u32, u32)>,
}

/// One MIG GPU instance.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InstanceRead {
    pub gpu_instance_id: u32,
    /// The profile name, e.g. `1g.10gb`.
    pub profile: String,
    pub fb_used_bytes: Option<u64>,
    pub fb_free_bytes: Option<u64>,
    pub fb_total_bytes: Option<u64>,
    pub fb_reserved_bytes: Option<u64>,
    pub gpm: Vec<(u32, f64)>,
    /// The instance's MIG devices (one per compute instance).
    pub devices: Vec<MigDeviceRead>,
}

/// One MIG device of a GPU instance.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MigDeviceRead {
    pub uuid: String,
    pub compute_instance_id: Option<u32>,
}
