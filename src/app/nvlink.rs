//! `nvlink`: pick the listing, read the selected GPUs' links, print them.

use super::plan::Common;
use crate::cli::nvlink::NvlinkArgs;
use nvq_core::error::NvqError;
use nvq_core::model::nvlink::Traffic;

use crate::output::Sink;
use nvq_core::render::nvlink::Listing;
use nvq_core::source::nvlink::{Want, MAX_LINKS};
use nvq_core::{render, source};

/// What `-g` prints: the sentence of the driver's `nvlink -h` for it.
/// Unverified: no public output of `-g` on a driver that deprecates it.
const GET_COUNTERS: &str =
    "Getting counters using option -g is deprecated. Please use option -gt/--getthroughput instead.\n";
/// What `-gc` prints, from the same help line (unverified the same way).
const GET_CONTROL: &str = "Getting counter control is deprecated!\n";

/// The one listing the options ask for.
fn listing(n: &NvlinkArgs) -> Result<Option<(Want, Listing)>, NvqError> {
    let mut chosen = Vec::new();
    let mut pick = |on: bool, v: Option<(Want, Listing)>| {
        if on {
            chosen.push(v);
        }
    };
    pick(n.status, Some((Want::Speed, Listing::Status)));
    pick(
        n.capabilities,
        Some((Want::Capabilities, Listing::Capabilities)),
    );
    pick(n.errors, Some((Want::Errors, Listing::Errors)));
    pick(n.pci_bus_id, Some((Want::Remote, Listing::PciBusId)));
    pick(n.remote, Some((Want::Remote, Listing::Remote)));
    pick(n.lane_crc, Some((Want::LaneCrc, Listing::LaneCrc)));
    pick(n.counters.is_some() || n.control.is_some(), None);
    if let Some(t) = &n.throughput {
        let kind = match t.as_str() {
            "d" => Traffic::Data,
            "r" => Traffic::Raw,
            _ => {
                return Err(NvqError::Usage(format!(
                    "-gt takes d (data payload) or r (payload and protocol overhead), not \"{t}\"."
                )))
            }
        };
        chosen.push(Some((Want::Throughput(kind), Listing::Throughput(kind))));
    }
    match chosen.as_slice() {
        [one] => Ok(*one),
        _ => Err(NvqError::InvalidCombination),
    }
}

/// `-l`'s link number. The text of nvidia-smi's refusal is unverified.
fn link(n: &NvlinkArgs) -> Result<Option<u32>, NvqError> {
    let Some(v) = n.link.as_deref() else {
        return Ok(None);
    };
    match v.trim().parse::<u32>() {
        Ok(k) if k < MAX_LINKS => Ok(Some(k)),
        _ => Err(NvqError::Usage(format!(
            "Invalid link \"{v}\": a link is a number from 0 to {}.",
            MAX_LINKS - 1
        ))),
    }
}

/// Run `nvlink` (`args`: the global ones, for the library and `-f`).
pub fn run(common: &Common<'_>, n: &NvlinkArgs) -> Result<(), NvqError> {
    let chosen = listing(n)?;
    let only = link(n)?;
    let Some((want, listing)) = chosen else {
        let text = if n.counters.is_some() {
            GET_COUNTERS
        } else {
            GET_CONTROL
        };
        return Sink::open(common.filename)?.write(text.as_bytes());
    };
    let session = common.session()?;
    let gpus = common.gpus(&session)?;
    let links = source::nvlink::gpus(&session, &gpus, want, only);
    let text = render::nvlink::render(&links, listing);
    Sink::open(common.filename)?.write(text.as_bytes())
}
