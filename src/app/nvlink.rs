//! `nvlink`: pick the listing, read the selected GPUs' links, print them.

use crate::cli::nvlink::NvlinkArgs;
use crate::cli::Args;
use crate::error::NvqError;
use crate::nvml::{select, Session};
use crate::output::Sink;
use crate::render::nvlink::Listing;
use crate::source::nvlink::Want;
use crate::{render, source};

/// Run `nvlink` (`args`: the global ones, for the library and `-f`).
pub fn run(args: &Args, n: &NvlinkArgs) -> Result<(), NvqError> {
    let (want, listing) = match (n.status, n.capabilities, n.errors) {
        (true, false, false) => (Want::Speed, Listing::Status),
        (false, true, false) => (Want::Capabilities, Listing::Capabilities),
        (false, false, true) => (Want::Errors, Listing::Errors),
        _ => return Err(NvqError::InvalidCombination),
    };
    let session = Session::open(&args.lib_source())?;
    let gpus = select::select(&session, n.id.as_deref())?;
    let text = render::nvlink::render(&source::nvlink::gpus(&session, &gpus, want), listing);
    Sink::open(args.filename.as_deref())?.write(text.as_bytes())
}
