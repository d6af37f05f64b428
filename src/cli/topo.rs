//! `topo`: its options, with nvidia-smi's spellings.

use super::format::Formats;
use super::sub::{Own, Refusals, Shared::*, SubCommand};
use nvq_core::error::NvqError;

/// `nvq topo`'s arguments.
#[derive(clap::Args, Debug, Clone, Default)]
#[command(arg_required_else_help = true)]
pub struct TopoArgs {
    /// Print the GPU-to-GPU and GPU-to-NIC connection matrix with each GPU's nearby CPUs and NUMA nodes.
    #[arg(short = 'm', long = "matrix")]
    pub matrix: bool,
    /// Like -m, with PCIe paths only: GPUs joined by NVLink show their PCIe connection (also spelled -mp).
    #[arg(long = "matrix_pci")]
    pub matrix_pci: bool,
    /// GPUs (index, UUID, PCI bus id or serial): one with -n, a comma pair with -p.
    #[arg(short = 'i', long = "id", value_name = "ID")]
    pub id: Option<String>,
    /// Print the GPUs that reach the -i GPU through at most this PCIe level: 0 the switch of a dual-GPU
    /// board, 1 one switch, 2 several switches, 3 a host bridge, 4 host bridges of one CPU, 5 NUMA nodes.
    #[arg(short = 'n', long = "nearest_gpus", value_name = "LEVEL")]
    pub nearest: Option<String>,
    /// Print the most direct PCIe path between the two GPUs given with -i (-i 0,1).
    #[arg(short = 'p', long = "gpu_path")]
    pub path: bool,
    /// Print the GPUs with an affinity to this CPU number.
    #[arg(short = 'c', long = "cpu", value_name = "CPU")]
    pub cpu: Option<String>,
    /// Print each GPU pair's peer-to-peer status for one capability: r(ead), w(rite), n(vlink), a(tomics),
    /// p(cie); also spelled -p2p.
    #[arg(long = "p2p", alias = "p2pstatus", value_name = "r|w|n|a|p")]
    pub p2p: Option<String>,
    /// nvq: json prints -m/-mp's matrix as one JSON object (GPUs with their affinities and links, NICs),
    /// or -n/-p/-c's answer as a small object.
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
}

/// `topo` options of nvidia-smi that nvq does not implement yet: refused
/// with exit code 2, never ignored. None of them changes state.
pub const NOT_IMPLEMENTED: &[&str] = &[];

/// nvidia-smi's spellings of `topo` options that clap reads differently.
pub const SPELLINGS: &[(&str, &str)] = &[("-p2p", "--p2p"), ("-mp", "--matrix_pci")];

/// `topo` changes nothing.
pub const CHANGES_STATE: &[&str] = &[];

impl SubCommand for TopoArgs {
    fn own(&self) -> Result<Own<'_>, NvqError> {
        Ok(Own {
            format: self.format.as_deref(),
            formats: Some(Formats::TextOrJson("topo")),
            ..Own::with_id(&[Id, Format, Filename], &self.id)
        })
    }

    fn refusals() -> Option<Refusals> {
        Some(Refusals::of(NOT_IMPLEMENTED, CHANGES_STATE, SPELLINGS))
    }
}
