//! `topo`: validate the options, read the matrix, print it.

use crate::cli::topo::TopoArgs;
use crate::cli::Args;
use crate::error::NvqError;
use crate::nvml::{select, Session};
use crate::output::Sink;
use crate::{render, source};

/// nvidia-smi's answer to `-i` without `-n` or `-p`.
const ID_NEEDS_N_OR_P: &str =
    "The -i command line argument must be used in conjunction with -n or -p.";

/// How the matrix is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    Text,
    Json,
}

fn form(t: &TopoArgs) -> Result<Form, NvqError> {
    match t.format.as_deref() {
        None => Ok(Form::Text),
        Some("json") => Ok(Form::Json),
        Some(other) => Err(NvqError::Usage(format!(
            "\"{other}\" is not a format of topo -m; it prints text, or json with --format=json."
        ))),
    }
}

/// Run `topo` with its arguments (`args`: the global ones, for the library and `-f`).
pub fn run(args: &Args, t: &TopoArgs) -> Result<(), NvqError> {
    if t.id.is_some() {
        return Err(NvqError::Refused(ID_NEEDS_N_OR_P));
    }
    let form = form(t)?;
    let p2p = match t.p2p.as_deref() {
        None => None,
        Some(c @ ("r" | "w" | "n" | "a" | "p")) => c.chars().next(),
        Some(other) => {
            return Err(NvqError::Usage(format!(
                "\"{other}\" is not a -p2p capability; give one of r, w, n, a, p."
            )))
        }
    };
    let reports = usize::from(t.matrix) + usize::from(t.matrix_pci) + usize::from(p2p.is_some());
    if reports != 1 || (p2p.is_some() && form == Form::Json) {
        return Err(NvqError::InvalidCombination);
    }
    let session = Session::open(&args.lib_source())?;
    let gpus = select::select(&session, None)?;
    let text = match (p2p, form) {
        (Some(c), _) => render::topo::p2p_text(&source::topo::p2p(&session, &gpus, c)),
        (None, Form::Text) => {
            render::topo::text(&source::topo::matrix(&session, &gpus, t.matrix_pci))
        }
        (None, Form::Json) => {
            render::topo::json(&source::topo::matrix(&session, &gpus, t.matrix_pci))
        }
    };
    Sink::open(args.filename.as_deref())?.write(text.as_bytes())
}
