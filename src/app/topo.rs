//! `topo`: validate the options, read the matrix, print it.

use super::plan::Common;
use crate::cli::format::Format;
use crate::cli::topo::TopoArgs;
use crate::output::Sink;
use nvq_core::error::NvqError;
use nvq_core::model::topo::Level;
use nvq_core::nvml::{select, Session};
use nvq_core::{render, source};

/// nvidia-smi's answer to `-i` without `-n` or `-p`.
const ID_NEEDS_N_OR_P: &str =
    "The -i command line argument must be used in conjunction with -n or -p.";

/// How the matrix is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    Text,
    Json,
}

/// `-n` without `-i`, or with several GPUs (unverified: nvidia-smi's
/// wording for this case has not been seen; this follows its help).
const N_NEEDS_ONE_ID: &str =
    "The -n command line argument must be used in conjunction with -i which must be a single device ID.";

/// `-p` without `-i`, or without exactly two GPUs (unverified, as above).
const P_NEEDS_PAIR: &str =
    "The -p command line argument must be used in conjunction with -i which must be a pair of device IDs.";

/// What `topo` was asked for.
enum Report {
    Matrix { pci_only: bool },
    P2p(char),
    Nearest { id: String, level: Level },
    Path { from: String, to: String },
    Cpu(u32),
}

/// Check the combination before NVML is touched.
fn report(t: &TopoArgs, id: Option<&str>) -> Result<Report, NvqError> {
    let p2p = match t.p2p.as_deref() {
        None => None,
        Some(c @ ("r" | "w" | "n" | "a" | "p")) => c.chars().next(),
        Some(other) => {
            return Err(NvqError::Usage(format!(
                "\"{other}\" is not a -p2p capability; give one of r, w, n, a, p."
            )))
        }
    };
    let asked = usize::from(t.matrix)
        + usize::from(t.matrix_pci)
        + usize::from(p2p.is_some())
        + usize::from(t.nearest.is_some())
        + usize::from(t.path)
        + usize::from(t.cpu.is_some());
    if id.is_some() && t.nearest.is_none() && !t.path {
        return Err(NvqError::Refused(ID_NEEDS_N_OR_P));
    }
    if asked != 1 {
        return Err(NvqError::InvalidCombination);
    }
    let ids: Vec<&str> = id.map_or(Vec::new(), |i| i.split(',').collect());
    if let Some(level) = t.nearest.as_deref() {
        let level = level
            .trim()
            .parse::<usize>()
            .ok()
            .and_then(|n| Level::ALL.get(n).copied())
            .ok_or_else(|| {
                NvqError::Usage(format!(
                    "\"{level}\" is not a traversal level of -n; give a number from 0 to 5."
                ))
            })?;
        return match ids[..] {
            [id] => Ok(Report::Nearest {
                id: id.to_string(),
                level,
            }),
            _ => Err(NvqError::Refused(N_NEEDS_ONE_ID)),
        };
    }
    if t.path {
        return match ids[..] {
            [from, to] => Ok(Report::Path {
                from: from.to_string(),
                to: to.to_string(),
            }),
            _ => Err(NvqError::Refused(P_NEEDS_PAIR)),
        };
    }
    if let Some(cpu) = t.cpu.as_deref() {
        return cpu
            .trim()
            .parse()
            .map(Report::Cpu)
            .map_err(|_| NvqError::Usage(format!("\"{cpu}\" is not a CPU number (-c 0).")));
    }
    Ok(match p2p {
        Some(c) => Report::P2p(c),
        None => Report::Matrix {
            pci_only: t.matrix_pci,
        },
    })
}

/// Windows drivers before this one answer `topo -m` with an argument
/// error (591.86, captures/27: `Option -m is missing its value`, exit 255);
/// 610's Windows driver prints the matrix.
const WDDM_MATRIX_FROM: u32 = 610;

/// Does this driver refuse `topo -m` as nvidia-smi does on Windows before
/// [`WDDM_MATRIX_FROM`]? Keyed on the first GPU's driver model (WDDM).
fn wddm_without_matrix(session: &Session, gpus: &[u32]) -> bool {
    session.driver_major() < WDDM_MATRIX_FROM && session.wddm(gpus)
}

/// One GPU named by `-i` (index, UUID, PCI bus id or serial).
fn one_gpu(session: &Session, id: &str) -> Result<u32, NvqError> {
    let found = select::select(session, Some(id))?;
    found.first().copied().ok_or(NvqError::NoDevices)
}

/// Run `topo` with its arguments (`args`: the global ones, for the library and `-f`).
pub fn run(common: &Common<'_>, t: &TopoArgs) -> Result<(), NvqError> {
    // `--format` was read for topo (`Formats::TextOrJson`): json or nothing.
    let form = match common.format {
        Some(Format::Json) => Form::Json,
        _ => Form::Text,
    };
    let report = report(t, common.id)?;
    if matches!(report, Report::P2p(_)) && form == Form::Json {
        return Err(NvqError::InvalidCombination);
    }
    let session = common.session()?;
    let json = form == Form::Json;
    let text = match report {
        Report::P2p(c) => {
            let gpus = select::select(&session, None)?;
            render::topo::p2p_text(&source::topo::p2p(&session, &gpus, c))
        }
        Report::Matrix { pci_only } => {
            let gpus = select::select(&session, None)?;
            if !pci_only && wddm_without_matrix(&session, &gpus) {
                return Err(NvqError::MissingValue("-m".to_string()));
            }
            let m = source::topo::matrix(&session, &gpus, pci_only);
            if json {
                render::topo::json(&m)
            } else {
                render::topo::text(&m)
            }
        }
        Report::Nearest { id, level } => {
            let gpu = one_gpu(&session, &id)?;
            let n = source::topo::nearest(&session, gpu, level);
            let gpus = n
                .gpus
                .map_err(|code| NvqError::Device { index: gpu, code })?;
            if json {
                render::topo::nearest_json(gpu, level, &gpus)
            } else {
                render::topo::nearest_text(gpu, level, &gpus)
            }
        }
        Report::Path { from, to } => {
            let (from, to) = (one_gpu(&session, &from)?, one_gpu(&session, &to)?);
            let p = source::topo::path(&session, from, to);
            let level = p
                .level
                .map_err(|code| NvqError::Device { index: from, code })?;
            if json {
                render::topo::path_json(from, to, level)
            } else {
                render::topo::path_text(from, to, level)
            }
        }
        Report::Cpu(cpu) => {
            select::select(&session, None)?;
            let c = source::topo::cpu_gpus(&session, cpu);
            let gpus = c.gpus.map_err(|code| NvqError::System {
                what: format!("the GPUs near CPU {cpu}"),
                code,
            })?;
            if json {
                render::topo::cpu_json(cpu, &gpus)
            } else {
                render::topo::cpu_text(cpu, &gpus)
            }
        }
    };
    Sink::open(common.filename)?.write(text.as_bytes())
}
