//! What `nvq serve`'s dcgm profile reads of a GPU beside its `--query-gpu`
//! fields: the minor number (the `device` label), GPM metrics, and each MIG
//! GPU instance's memory and GPM metrics.

/// One GPU's extra reads. GPM metrics are `(nvmlGpmMetricId_t, value)` in
/// NVML's units (percent, MiB/s) over the time since the previous
/// collection; a metric NVML could not give is left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GpuExtra {
    /// The GPU's minor number (`/dev/nvidiaN`, `nvmlDeviceGetMinorNumber`); `None` when it failed.
    pub minor: Option<u32>,
    /// The GPU's GPM metrics, `(metric id, value)`; empty where GPM is unsupported.
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
    /// The GPU instance's id on its GPU.
    pub gpu_instance_id: u32,
    /// The profile name, e.g. `1g.10gb`.
    pub profile: String,
    /// Framebuffer memory in use, bytes; `None` when NVML could not say.
    pub fb_used_bytes: Option<u64>,
    /// Framebuffer memory free, bytes; `None` when NVML could not say.
    pub fb_free_bytes: Option<u64>,
    /// The instance's framebuffer memory, bytes; `None` when NVML could not say.
    pub fb_total_bytes: Option<u64>,
    /// Framebuffer memory reserved by the driver, bytes; `None` when NVML could not say.
    pub fb_reserved_bytes: Option<u64>,
    /// The instance's GPM metrics, `(metric id, value)`, like [`GpuExtra::gpm`].
    pub gpm: Vec<(u32, f64)>,
    /// The instance's MIG devices (one per compute instance).
    pub devices: Vec<MigDeviceRead>,
}

/// One MIG device of a GPU instance.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MigDeviceRead {
    /// The MIG device's UUID (`MIG-…`).
    pub uuid: String,
    /// The id of its compute instance within the GPU instance; `None` when NVML could not say.
    pub compute_instance_id: Option<u32>,
}

/// NVML's GPM metric ids (`nvmlGpmMetricId_t`), named once: dmon's
/// `--gpm-metrics` columns and the dcgm profile's `DCGM_FI_PROF_*` families
/// both name them here (`source::gpm`'s tests check them against NVML's
/// header).
pub mod id {
    /// Graphics engine activity, percent.
    pub const GRAPHICS_UTIL: u32 = 1;
    /// The share of SMs that were busy, percent.
    pub const SM_UTIL: u32 = 2;
    /// SM occupancy: resident warps over the most an SM can hold, percent.
    pub const SM_OCCUPANCY: u32 = 3;
    /// Integer pipe activity, percent.
    pub const INTEGER_UTIL: u32 = 4;
    /// Tensor pipe activity, any precision, percent.
    pub const ANY_TENSOR_UTIL: u32 = 5;
    /// FP64 (DFMA) tensor pipe activity, percent.
    pub const DFMA_TENSOR_UTIL: u32 = 6;
    /// FP16/BF16 (HMMA) tensor pipe activity, percent.
    pub const HMMA_TENSOR_UTIL: u32 = 7;
    /// Integer (IMMA) tensor pipe activity, percent.
    pub const IMMA_TENSOR_UTIL: u32 = 9;
    /// Memory bandwidth used, percent of the peak.
    pub const DRAM_BW_UTIL: u32 = 10;
    /// FP64 pipe activity, percent.
    pub const FP64_UTIL: u32 = 11;
    /// FP32 pipe activity, percent.
    pub const FP32_UTIL: u32 = 12;
    /// FP16 pipe activity, percent.
    pub const FP16_UTIL: u32 = 13;
    /// PCIe bytes sent, MiB/s.
    pub const PCIE_TX_PER_SEC: u32 = 20;
    /// PCIe bytes received, MiB/s.
    pub const PCIE_RX_PER_SEC: u32 = 21;
    /// Video decoder 0; decoder N (below 8) is `NVDEC_0_UTIL + N`.
    pub const NVDEC_0_UTIL: u32 = 30;
    /// JPEG decoder 0; decoder N (below 8) is `NVJPG_0_UTIL + N`.
    pub const NVJPG_0_UTIL: u32 = 40;
    /// Optical flow accelerator 0 activity, percent.
    pub const NVOFA_0_UTIL: u32 = 50;
    /// NVLink bytes received over all links, MiB/s.
    pub const NVLINK_TOTAL_RX_PER_SEC: u32 = 60;
    /// NVLink bytes sent over all links, MiB/s.
    pub const NVLINK_TOTAL_TX_PER_SEC: u32 = 61;
    /// Link 0's receive rate; link N's (below 18) is `NVLINK_L0_RX_PER_SEC
    /// + 2 N`, its send rate the id after it.
    pub const NVLINK_L0_RX_PER_SEC: u32 = 62;
    /// Video encoder 0; encoder N (below 4) is `NVENC_0_UTIL + N`.
    pub const NVENC_0_UTIL: u32 = 166;

    /// Video decoder `n`'s activity.
    pub const fn nvdec(n: u32) -> u32 {
        NVDEC_0_UTIL + n
    }

    /// JPEG decoder `n`'s activity.
    pub const fn nvjpg(n: u32) -> u32 {
        NVJPG_0_UTIL + n
    }

    /// Video encoder `n`'s activity.
    pub const fn nvenc(n: u32) -> u32 {
        NVENC_0_UTIL + n
    }

    /// NVLink `link`'s receive rate.
    pub const fn nvlink_rx(link: u32) -> u32 {
        NVLINK_L0_RX_PER_SEC + 2 * link
    }

    /// NVLink `link`'s send rate.
    pub const fn nvlink_tx(link: u32) -> u32 {
        nvlink_rx(link) + 1
    }
}

/// What a GPM metric that both dmon (`--gpm-metrics`) and the dcgm profile
/// (`DCGM_FI_PROF_*`) show measures, one sentence, written once by its id:
/// dmon's column prints it as it is, the dcgm family adds its unit. `None`
/// for a metric only dmon shows (its sentence is dmon's own).
pub const fn about(metric: u32) -> Option<&'static str> {
    Some(match metric {
        id::GRAPHICS_UTIL => "Share of time the graphics or compute engine was busy.",
        id::SM_UTIL => "Share of SM cycles with at least one warp resident, over all SMs.",
        id::SM_OCCUPANCY => "Resident warps as a share of the most the SMs can hold.",
        id::ANY_TENSOR_UTIL => "Share of cycles any tensor core pipe was busy.",
        id::DRAM_BW_UTIL => "Share of cycles device memory was sending or receiving data.",
        id::FP64_UTIL => "Share of cycles the FP64 pipe was busy.",
        id::FP32_UTIL => "Share of cycles the FP32 pipe was busy.",
        id::FP16_UTIL => "Share of cycles the FP16 pipe was busy.",
        id::PCIE_TX_PER_SEC => "PCIe traffic sent by the GPU, headers included.",
        id::PCIE_RX_PER_SEC => "PCIe traffic received by the GPU, headers included.",
        id::NVLINK_TOTAL_TX_PER_SEC => "NVLink traffic sent over all links.",
        id::NVLINK_TOTAL_RX_PER_SEC => "NVLink traffic received over all links.",
        _ => return None,
    })
}
