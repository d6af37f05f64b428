//! `mig`: its read-only listings, with nvidia-smi's spellings; the options
//! that create or destroy instances are refused.

use super::format::Formats;
use super::sub::{Own, Refusals, Shared::*, SubCommand};
use nvq_core::error::NvqError;

/// `nvq mig`'s arguments.
#[derive(clap::Args, Debug, Clone, Default)]
#[command(arg_required_else_help = true)]
pub struct MigArgs {
    /// List the GPU instances of each MIG-enabled GPU: profile, id, placement (also spelled -lgi).
    #[arg(long = "list-gpu-instances")]
    pub gpu_instances: bool,
    /// List the compute instances inside each GPU instance (also spelled -lci).
    #[arg(long = "list-compute-instances")]
    pub compute_instances: bool,
    /// List the GPU instance profiles: free and total instances, memory, engines (also spelled -lgip).
    #[arg(long = "list-gpu-instance-profiles")]
    pub gpu_profiles: bool,
    /// List the compute instance profiles of each GPU instance; * marks the one filling it (also spelled -lcip).
    #[arg(long = "list-compute-instance-profiles")]
    pub compute_profiles: bool,
    /// List where each GPU instance profile's instances may sit: {first slices}:size (also spelled -lgipp).
    #[arg(long = "list-gpu-instance-possible-placements")]
    pub gpu_placements: bool,
    /// List where each compute instance profile's instances may sit in each GPU instance (also spelled -lcipp).
    #[arg(long = "list-compute-instance-possible-placements")]
    pub compute_placements: bool,
    #[command(flatten)]
    pub gpus: super::shared::ShownGpus,
    /// Only these GPU instances (comma list of GPU instance ids; also spelled -gi).
    #[arg(long = "gpu-instance-id", value_name = "IDS")]
    pub gpu_instance: Option<String>,
    /// nvq: json prints the listing as one JSON object (GPUs, their instances or profiles, placements).
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
}

/// `mig` options of nvidia-smi that read state but that nvq does not
/// implement yet: refused with exit code 2, never ignored.
pub const NOT_IMPLEMENTED: &[&str] = &["-ci", "--compute-instance-id"];

/// nvidia-smi's multi-letter short options, as clap reads them.
pub const SPELLINGS: &[(&str, &str)] = &[
    ("-lgi", "--list-gpu-instances"),
    ("-lci", "--list-compute-instances"),
    ("-lgip", "--list-gpu-instance-profiles"),
    ("-lcip", "--list-compute-instance-profiles"),
    ("-lgipp", "--list-gpu-instance-possible-placements"),
    ("-lcipp", "--list-compute-instance-possible-placements"),
    ("-gi", "--gpu-instance-id"),
];

/// `mig` options that create or destroy instances: nvq never does.
pub const CHANGES_STATE: &[&str] = &[
    "-cgi",
    "--create-gpu-instance",
    "-dgi",
    "--destroy-gpu-instance",
    "-cci",
    "--create-compute-instance",
    "-dci",
    "--destroy-compute-instance",
    "-C",
    "--default-compute-instance",
];

impl SubCommand for MigArgs {
    fn own(&self) -> Result<Own<'_>, NvqError> {
        Ok(Own {
            format: self.format.as_deref(),
            formats: Some(Formats::TextOrJson("mig")),
            ..Own::with_id(&[Id, Format, Filename], &self.gpus.id)
        })
    }

    fn refusals() -> Option<Refusals> {
        Some(Refusals::of(NOT_IMPLEMENTED, CHANGES_STATE, SPELLINGS))
    }
}
