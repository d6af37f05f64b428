//! `mig -lgi/-lci/-lgip/-lcip`: pick the listing, read the selected GPUs'
//! MIG state, print it.

use crate::cli::mig::MigArgs;
use crate::cli::Args;
use crate::error::NvqError;
use crate::model::mig::GpuMig;
use crate::nvml::{select, Session};
use crate::output::Sink;
use crate::render::mig::Listing;
use crate::source::mig::Depth;
use crate::{render, source};

/// Run `mig` (`args`: the global ones, for the library and `-f`).
pub fn run(args: &Args, m: &MigArgs) -> Result<(), NvqError> {
    let listing = match (
        m.gpu_instances,
        m.compute_instances,
        m.gpu_profiles,
        m.compute_profiles,
    ) {
        (true, false, false, false) => Listing::GpuInstances,
        (false, true, false, false) => Listing::ComputeInstances,
        (false, false, true, false) => Listing::GpuProfiles,
        (false, false, false, true) => Listing::ComputeProfiles,
        _ => return Err(NvqError::InvalidCombination),
    };
    let only = m
        .gpu_instance
        .as_deref()
        .map(gpu_instance_ids)
        .transpose()?;
    if only.is_some() && listing == Listing::GpuProfiles {
        return Err(NvqError::InvalidCombination);
    }
    let depth = match listing {
        Listing::GpuInstances | Listing::GpuProfiles => Depth::GpuInstances,
        Listing::ComputeInstances | Listing::ComputeProfiles => Depth::ComputeInstances,
    };
    let session = Session::open(&args.lib_source())?;
    let gpus = select::select(&session, m.id.as_deref())?;
    let mut gpus = source::mig::gpus(&session, &gpus, depth);
    if let Some(only) = only {
        for g in &mut gpus {
            if let GpuMig::Enabled { instances, .. } = &mut g.mig {
                instances.retain(|i| only.contains(&i.instance.id));
            }
        }
    }
    let text = render::mig::render(&gpus, listing, session.driver_major());
    Sink::open(args.filename.as_deref())?.write(text.as_bytes())
}

/// `-gi`'s comma list of GPU instance ids.
fn gpu_instance_ids(s: &str) -> Result<Vec<u32>, NvqError> {
    s.split(',')
        .map(|v| {
            v.trim().parse::<u32>().map_err(|_| {
                NvqError::Usage(format!(
                    "\"{s}\" is not a list of GPU instance ids (-gi 1,2)."
                ))
            })
        })
        .collect()
}
