//! `vgpu`: its read-only options, with nvidia-smi's spellings: the summary
//! table (no option), the running vGPUs in detail (`-q`) and the type
//! listings (`-s`, `-c`); see `app::vgpu`.

use super::sub::{Own, Refusals, Shared::*, SubCommand};
use nvq_core::error::NvqError;

/// `nvq vgpu`'s arguments.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct VgpuArgs {
    /// List the vGPU types (profiles) each vGPU host GPU supports.
    #[arg(short = 's', long = "supported")]
    pub supported: bool,
    /// List the vGPU types that could be started on each vGPU host GPU now.
    #[arg(short = 'c', long = "creatable")]
    pub creatable: bool,
    /// Detail of each running vGPU: its VM, type, UUIDs, guest driver, licence, memory, utilization, sessions.
    #[arg(short = 'q', long = "query")]
    pub query: bool,
    #[command(flatten)]
    pub gpus: super::shared::ShownGpus,
}

/// `vgpu` options of nvidia-smi that read state but that nvq does not
/// implement: refused with exit code 2, never ignored. (`-v`'s layout is
/// known from its first three lines only; the monitors need NVML's vGPU
/// utilization samples.)
pub const NOT_IMPLEMENTED: &[&str] = &[
    "-v",
    "--verbose",
    "-u",
    "--utilization",
    "-p",
    "-m",
    "-es",
    "-fs",
    "-l",
    "--loop",
    "-gi",
    "-ci",
    "--query-accounted-apps",
];

/// `vgpu` options that change state: none is known from a public output,
/// so none is listed; any option clap does not know is refused anyway.
pub const CHANGES_STATE: &[&str] = &[];

/// nvidia-smi's multi-letter short options, as clap reads them: none here.
pub const SPELLINGS: &[(&str, &str)] = &[];

impl SubCommand for VgpuArgs {
    fn own(&self) -> Result<Own<'_>, NvqError> {
        Ok(Own::with_id(&[Id, Filename], &self.gpus.id))
    }

    fn refusals() -> Option<Refusals> {
        Some(Refusals::of(NOT_IMPLEMENTED, CHANGES_STATE, SPELLINGS))
    }
}
