//! NVLink facts of one GPU (`nvlink -s`, `-c`, `-e`).

use super::NvmlCode;

/// The capabilities nvidia-smi lists per link, in NVML's order
/// (`nvmlNvLinkCapability_t`), with nvidia-smi's words.
pub const CAPABILITIES: [&str; 6] = [
    "P2P is supported",
    "Access to system memory supported",
    "P2P atomics supported",
    "System memory atomics supported",
    "SLI is supported",
    "Link is supported",
];

/// The error counters nvidia-smi lists per link (`nvmlNvLinkErrorCounter_t`
/// 0 to 2: replay, recovery, CRC of flits).
pub const ERROR_COUNTERS: [&str; 3] = ["Replay Errors", "Recovery Errors", "CRC Errors"];

/// One link of a GPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkFacts {
    pub link: u32,
    pub active: bool,
    /// Speed in MB/s (field `NVML_FI_DEV_NVLINK_GET_SPEED`).
    pub speed_mbps: Result<u64, NvmlCode>,
    /// One entry per [`CAPABILITIES`].
    pub capabilities: Vec<Result<bool, NvmlCode>>,
    /// One entry per [`ERROR_COUNTERS`].
    pub errors: Vec<Result<u64, NvmlCode>>,
}

/// A GPU and its links (none when NVML reports none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuLinks {
    pub index: u32,
    pub name: Result<String, NvmlCode>,
    pub uuid: Result<String, NvmlCode>,
    pub links: Vec<LinkFacts>,
}
