//! `mig -lgi/-lci/-lgip/-lcip/-lgipp/-lcipp`: pick the listing, read the selected GPUs'
//! MIG state, print it.

use super::plan::Common;
use crate::cli::format::Format;
use crate::cli::mig::MigArgs;
use nvq_core::error::NvqError;
use nvq_core::model::mig::GpuMig;

use crate::output::Sink;
use nvq_core::render::mig::{Listing, Placements};
use nvq_core::source::mig::Depth;
use nvq_core::{render, source};

/// What `mig` lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum What {
    Table(Listing),
    Placements(Placements),
}

/// Run `mig` (`args`: the global ones, for the library and `-f`).
pub fn run(common: &Common<'_>, m: &MigArgs) -> Result<(), NvqError> {
    let asked = [
        (m.gpu_instances, What::Table(Listing::GpuInstances)),
        (m.compute_instances, What::Table(Listing::ComputeInstances)),
        (m.gpu_profiles, What::Table(Listing::GpuProfiles)),
        (m.compute_profiles, What::Table(Listing::ComputeProfiles)),
        (m.gpu_placements, What::Placements(Placements::Gpu)),
        (m.compute_placements, What::Placements(Placements::Compute)),
    ];
    let mut chosen = asked.iter().filter(|(on, _)| *on).map(|(_, w)| *w);
    let what = match (chosen.next(), chosen.next()) {
        (Some(w), None) => w,
        _ => return Err(NvqError::InvalidCombination),
    };
    // `--format` was read for mig (`Formats::TextOrJson`): json or nothing.
    let json = common.format == Some(Format::Json);
    let only = m
        .gpu_instance
        .as_deref()
        .map(gpu_instance_ids)
        .transpose()?;
    let per_gpu = matches!(
        what,
        What::Table(Listing::GpuProfiles) | What::Placements(Placements::Gpu)
    );
    if only.is_some() && per_gpu {
        return Err(NvqError::InvalidCombination);
    }
    let depth = match what {
        What::Table(Listing::GpuInstances | Listing::GpuProfiles)
        | What::Placements(Placements::Gpu) => Depth::GpuInstances,
        _ => Depth::ComputeInstances,
    };
    let session = common.session()?;
    let gpus = common.gpus(&session)?;
    let with_placements = matches!(what, What::Placements(_));
    let mut gpus = source::mig::gpus(&session, &gpus, depth, with_placements);
    if let Some(only) = only {
        for g in &mut gpus {
            if let GpuMig::Enabled { instances, .. } = &mut g.mig {
                instances.retain(|i| only.contains(&i.instance.id));
            }
        }
    }
    let text = match (what, json) {
        (What::Table(listing), false) => {
            render::mig::render(&gpus, listing, session.driver_major())
        }
        (What::Placements(p), false) => render::mig::placements(&gpus, p),
        (What::Table(listing), true) => render::mig::json(&gpus, listing),
        (What::Placements(Placements::Gpu), true) => render::mig::json(&gpus, Listing::GpuProfiles),
        (What::Placements(Placements::Compute), true) => {
            render::mig::json(&gpus, Listing::ComputeProfiles)
        }
    };
    Sink::open(common.filename)?.write(text.as_bytes())
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
