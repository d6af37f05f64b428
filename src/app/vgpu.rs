//! `vgpu`, `vgpu -s`, `vgpu -c`, `vgpu -q`: read whether the selected GPUs
//! are vGPU hosts and, for `-s`/`-c`, their vGPU types; print them.
//!
//! On a host without a vGPU host GPU every one of them prints nvidia-smi's
//! one line. On a vGPU host the summary table and `-q` read each host GPU's
//! running vGPUs; their VM names come from no NVML call, but from the VMs'
//! hypervisor processes in the host's `/proc` (`NVQ_HOST_PROC`; see
//! `source::vgpu_vm`, a hypothesis marked unverified in `docs/compat.md`).

use super::plan::Common;
use crate::cli::vgpu::VgpuArgs;
use crate::output::Sink;
use nvq_core::error::NvqError;
use nvq_core::source::procinfo::HostProc;
use nvq_core::source::vgpu::Types;
use nvq_core::{render, source};

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
            let host = HostProc::detect();
            let active = source::vgpu::active(&session, &selected, host.as_ref());
            if v.query {
                render::vgpu::query(&active)
            } else {
                let date = source::smi_table::date_line(std::time::SystemTime::now());
                render::vgpu::table(&active, &date)
            }
        }
    };
    Sink::open(common.filename)?.write(text.as_bytes())
}
