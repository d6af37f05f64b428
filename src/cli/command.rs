//! nvidia-smi's sub-commands that nvq implements (`nvq topo -m`, ...).

/// A sub-command and its own arguments.
#[derive(clap::Subcommand, Debug, Clone)]
pub enum Command {
    /// Show where the GPUs sit: NVLink, PCIe switches, host bridges, NUMA nodes, nearby CPUs and NICs.
    Topo(super::topo::TopoArgs),
    /// Show each GPU's NVLinks: speed and state, capabilities, error counters.
    Nvlink(super::nvlink::NvlinkArgs),
}
