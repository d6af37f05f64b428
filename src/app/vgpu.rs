//! `vgpu`, `vgpu -s`, `vgpu -c`, `vgpu -q`: read whether the selected GPUs
//! are vGPU hosts and, for `-s`/`-c`, their vGPU types; print them.
//!
//! On a host without a vGPU host GPU every one of them prints nvidia-smi's
//! one line. On a vGPU host the summary table and `-q` are refused (exit
//! 2): their VM names come from the driver's own interface, not from NVML,
//! so nvq cannot print what nvidia-smi prints.

use super::plan::Common;
use crate::cli::vgpu::VgpuArgs;
use crate::error::NvqError;
use crate::output::Sink;
use crate::source::vgpu::Types;
use crate::{render, source};

/// Run `vgpu`.
pub fn run(common: &Common<'_>, v: &VgpuArgs) -> Result<(), NvqError> {
    let types = match (v.supported, v.creatable, v.query) {
        (true, false, false) => Some(Types::Supported),
        (false, true, false) => Some(Types::Creatable),
        (false, false, _) => None,
        _ => return Err(NvqError::InvalidCombination),
    };
    let session = common.session()?;
    let selected = common.gpus(&session)?;
    let gpus = source::vgpu::gpus(&session, &selected, types);
    let text = match types {
        Some(_) => render::vgpu::types(&gpus),
        None if !render::vgpu::any_host(&gpus) => render::vgpu::NO_VGPU_HOST.to_string(),
        None => {
            let what = if v.query { "vgpu -q" } else { "vgpu" };
            return Err(NvqError::NotImplemented(format!("{what} (on a vGPU host)")));
        }
    };
    Sink::open(common.filename)?.write(text.as_bytes())
}
