//! NVLink facts of one GPU (`nvlink -s`, `-c`, `-e`, `-p`, `-R`, `-ec`, `-gt`).

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

/// The most lanes nvq asks a link's per-lane CRC counters for (NVML's
/// fields `NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L0` to `_L5`).
pub const MAX_LANES: u32 = 6;

/// `nvlink -gt`'s two counter kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Traffic {
    /// `d`: data payload only.
    Data,
    /// `r`: payload and protocol overhead.
    Raw,
}

impl Traffic {
    /// nvidia-smi's word before `Tx`/`Rx`.
    pub fn word(self) -> &'static str {
        match self {
            Traffic::Data => "Data",
            Traffic::Raw => "Raw",
        }
    }
}

/// One link of a GPU. What a listing did not ask for stays NOT_SUPPORTED.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkFacts {
    /// The link's number on its GPU, from 0.
    pub link: u32,
    /// The link's state; an error when NVML could not say (a link past the
    /// GPU's last, asked for with `-l`).
    pub active: Result<bool, NvmlCode>,
    /// How many of the GPU's active links come before this one (`-R`
    /// numbers its lines so; see `render::nvlink::Listing::Remote`).
    pub active_before: u32,
    /// Speed in MB/s (field `NVML_FI_DEV_NVLINK_GET_SPEED`).
    pub speed_mbps: Result<u64, NvmlCode>,
    /// One entry per [`CAPABILITIES`].
    pub capabilities: Vec<Result<bool, NvmlCode>>,
    /// One entry per [`ERROR_COUNTERS`].
    pub errors: Vec<Result<u64, NvmlCode>>,
    /// The PCI bus id of the device at the far end (a GPU or an NVSwitch).
    pub remote_bus_id: Result<String, NvmlCode>,
    /// The far end's own number for this link (field `NVML_FI_DEV_NVLINK_REMOTE_NVLINK_ID`).
    pub remote_link: Result<u64, NvmlCode>,
    /// KiB sent (`-gt`), of the [`Traffic`] kind asked for.
    pub tx_kib: Result<u64, NvmlCode>,
    /// KiB received (`-gt`), of the [`Traffic`] kind asked for.
    pub rx_kib: Result<u64, NvmlCode>,
    /// CRC errors per lane, lane 0 first (`-ec`).
    pub lane_crc: Vec<Result<u64, NvmlCode>>,
}

impl LinkFacts {
    /// A link of which only the state is known.
    pub fn new(link: u32, active: Result<bool, NvmlCode>) -> Self {
        let none = || Err(NvmlCode::NOT_SUPPORTED);
        LinkFacts {
            link,
            active,
            active_before: 0,
            speed_mbps: none(),
            capabilities: Vec::new(),
            errors: Vec::new(),
            remote_bus_id: Err(NvmlCode::NOT_SUPPORTED),
            remote_link: none(),
            tx_kib: none(),
            rx_kib: none(),
            lane_crc: Vec::new(),
        }
    }

    /// Whether NVML said the link is up; an error counts as not.
    pub fn is_active(&self) -> bool {
        self.active == Ok(true)
    }
}

/// A GPU and its links (none when NVML reports none; only link `-l` when
/// one was asked for).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuLinks {
    /// The GPU's NVML index.
    pub index: u32,
    /// Its product name, or the code `nvmlDeviceGetName` returned.
    pub name: Result<String, NvmlCode>,
    /// Its UUID (`GPU-…`), or the code `nvmlDeviceGetUUID` returned.
    pub uuid: Result<String, NvmlCode>,
    /// Whether any of the GPU's links (not only the listed ones) is active.
    pub any_active: bool,
    /// Whether NVML answers link queries for this GPU at all.
    pub support: LinkSupport,
    /// The links listed, in link order.
    pub links: Vec<LinkFacts>,
}

/// Why a GPU lists links or not, as NVML says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkSupport {
    /// The GPU has links (active or not: `nvmlDeviceGetNvLinkState` answers
    /// for link 0).
    Links,
    /// The GPU has no NVLink (link 0's state is NOT_SUPPORTED).
    NoNvlink,
    /// The GPU is in MIG mode, where nvidia-smi asks nothing of its links.
    MigMode,
}
