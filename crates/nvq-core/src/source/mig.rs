//! `mig -lgi/-lci/-lgip/-lcip/-lgipp/-lcipp`: each selected GPU's MIG mode, GPU instance
//! profiles and GPU instances, and (when asked) each GPU instance's compute
//! instance profiles and compute instances, read through the raw layer.

use crate::model::mig::{Gpu, GpuInstance, GpuMig, Profile};
use crate::model::NvmlCode;
use crate::nvml::raw::{self, Dev, GiHandle, MAX_PROFILE_INDEX};
use crate::nvml::Session;
use crate::source::gpu::GpuCtx;

/// Whether to read each GPU instance's compute instance profiles and
/// compute instances (`-lci`, `-lcip`) or not (`-lgi`, `-lgip`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    /// Only the GPU instances (or their profiles): `-lgi`, `-lgip`.
    GpuInstances,
    /// The GPU instances and, within each, its compute instances (or profiles): `-lci`, `-lcip`.
    ComputeInstances,
}

/// The MIG state of the GPUs `devices`; with `placements`, each profile's
/// possible placements too (`-lgipp`, `-lcipp`).
pub fn gpus(session: &Session, devices: &[u32], depth: Depth, placements: bool) -> Vec<Gpu> {
    devices
        .iter()
        .map(|&index| Gpu {
            index,
            mig: gpu(session, index, depth, placements).unwrap_or_else(GpuMig::Failed),
        })
        .collect()
}

/// An error that says a profile index does not exist here, not that the
/// GPU failed.
fn absent(code: NvmlCode) -> bool {
    code == NvmlCode::NOT_SUPPORTED || code == NvmlCode::INVALID_ARGUMENT
}

/// The profiles at indices `0..MAX_PROFILE_INDEX` that `read` finds, in
/// nvidia-smi's order: by slice count, then by index.
fn profiles(
    mut read: impl FnMut(u32) -> Result<Profile, NvmlCode>,
) -> Result<Vec<Profile>, NvmlCode> {
    let mut out = Vec::new();
    for index in 0..MAX_PROFILE_INDEX {
        match read(index) {
            Ok(p) => out.push(p),
            Err(c) if absent(c) => {}
            Err(c) => return Err(c),
        }
    }
    out.sort_by_key(|p| p.slices);
    Ok(out)
}

fn gpu(session: &Session, index: u32, depth: Depth, placements: bool) -> Result<GpuMig, NvmlCode> {
    // The GPU count is no part of the MIG listing.
    let c = GpuCtx::new(session, index, 0);
    c.handle()?;
    match c.mig_mode() {
        Ok((1, _)) => {}
        Ok(_) => return Ok(GpuMig::Disabled),
        Err(code) => {
            return if code == NvmlCode::NOT_SUPPORTED {
                Ok(GpuMig::Disabled)
            } else {
                Err(code)
            };
        }
    }
    let dev = c.raw();
    let mut profiles = profiles(|i| raw::gi_profile(&dev, i))?;
    if placements && depth == Depth::GpuInstances {
        for p in &mut profiles {
            p.placements = Some(raw::gi_placements(&dev, p.id));
        }
    }
    let mut instances = Vec::new();
    for p in &profiles {
        for (handle, instance) in raw::gpu_instances(&dev, p)? {
            let (ci_profiles, compute_instances) = match depth {
                Depth::GpuInstances => (Vec::new(), Vec::new()),
                Depth::ComputeInstances => compute(&dev, handle, placements)?,
            };
            instances.push(GpuInstance {
                instance,
                ci_profiles,
                compute_instances,
            });
        }
    }
    Ok(GpuMig::Enabled {
        profiles,
        instances,
    })
}

type Compute = (Vec<Profile>, Vec<crate::model::mig::Instance>);

/// A GPU instance's compute instance profiles (with their placements when
/// asked) and compute instances.
fn compute(dev: &Dev<'_>, gi: GiHandle, placements: bool) -> Result<Compute, NvmlCode> {
    let mut ci_profiles = profiles(|i| raw::ci_profile(dev, gi, i))?;
    if placements {
        for p in &mut ci_profiles {
            p.placements = Some(raw::ci_placements(dev, gi, p.id));
        }
    }
    let mut cis = Vec::new();
    for p in &ci_profiles {
        cis.extend(raw::compute_instances(dev, gi, p)?);
    }
    Ok((ci_profiles, cis))
}
