//! `nvlink`: its read-only options, with nvidia-smi's spellings.

use super::sub::{Own, Refusals, Shared::*, SubCommand};
use nvq_core::error::NvqError;

/// `nvq nvlink`'s arguments.
#[derive(clap::Args, Debug, Clone, Default)]
#[command(arg_required_else_help = true)]
pub struct NvlinkArgs {
    /// Print each link's speed, or <inactive>.
    // (This comment is the --help text: `<inactive>` is nvidia-smi's word, not HTML.)
    #[allow(rustdoc::invalid_html_tags)]
    #[arg(short = 's', long = "status")]
    pub status: bool,
    /// Print what each link supports (P2P, system memory, atomics, SLI).
    #[arg(short = 'c', long = "capabilities")]
    pub capabilities: bool,
    /// Print the PCI bus id of the device at the far end of each active link.
    #[arg(short = 'p', long = "pcibusid")]
    pub pci_bus_id: bool,
    /// Print the far end of each active link: its device's PCI bus id and its own link number.
    #[arg(short = 'R', long = "remotelinkinfo")]
    pub remote: bool,
    /// Print each active link's replay, recovery and CRC error counts.
    #[arg(short = 'e', long = "errorcounters")]
    pub errors: bool,
    /// Print each active link's CRC error count per lane (also spelled -ec).
    #[arg(long = "crcerrorcounters")]
    pub lane_crc: bool,
    /// Print each active link's traffic counters in KiB: d for data payload, r for payload with protocol
    /// overhead (also spelled -gt).
    #[arg(long = "getthroughput", value_name = "d|r")]
    pub throughput: Option<String>,
    /// Deprecated in nvidia-smi (use -gt): prints the driver's notice (also spelled -g).
    #[arg(long = "getcounters", value_name = "COUNTER")]
    pub counters: Option<String>,
    /// Deprecated in nvidia-smi: prints the driver's notice (also spelled -gc).
    #[arg(long = "getcontrol", value_name = "COUNTER")]
    pub control: Option<String>,
    /// Show only this link (a number from 0).
    #[arg(short = 'l', long = "link", value_name = "LINK")]
    pub link: Option<String>,
    #[command(flatten)]
    pub gpus: super::shared::ShownGpus,
}

/// `nvlink` options of nvidia-smi that read state but that nvq does not
/// implement yet: refused with exit code 2, never ignored. (`-info` is in
/// newer drivers' help only; no public output of it on a non-GB200 GPU.)
pub const NOT_IMPLEMENTED: &[&str] = &[
    "-info",
    "--info",
    "-gLowPwrInfo",
    "--getLowPowerInfo",
    "-cBridge",
    "--checkBridge",
];

/// nvidia-smi's spellings of `nvlink` options that clap reads differently
/// (several letters after one dash).
pub const SPELLINGS: &[(&str, &str)] = &[
    ("-ec", "--crcerrorcounters"),
    ("-gt", "--getthroughput"),
    ("-gc", "--getcontrol"),
    ("-g", "--getcounters"),
];

/// `nvlink` options that change the GPU's state: nvq never does.
pub const CHANGES_STATE: &[&str] = &[
    "-sc",
    "--setcontrol",
    "-r",
    "--resetcounters",
    "-re",
    "--reseterrorcounters",
    "-sLowPwrThres",
    "--setLowPowerThreshold",
];

impl SubCommand for NvlinkArgs {
    fn own(&self) -> Result<Own<'_>, NvqError> {
        Ok(Own::with_id(&[Id, Filename], &self.gpus.id))
    }

    fn refusals() -> Option<Refusals> {
        Some(Refusals::of(NOT_IMPLEMENTED, CHANGES_STATE, SPELLINGS))
    }
}
