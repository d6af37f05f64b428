//! nvidia-smi's sub-commands that nvq implements (`nvq dmon`, `nvq topo -m`, ...).

use super::dmon::DmonArgs;
use super::pmon::PmonArgs;

/// A sub-command and its own arguments. nvq's short everyday commands
/// come first, so that `--help` lists them first.
#[derive(clap::Subcommand, Debug, Clone)]
pub enum Command {
    /// nvq: memory per GPU: total, used, free and percent used.
    Mem(super::short::ShortArgs),
    /// nvq: the compute processes of every GPU: GPU, PID, user, memory and command line.
    Ps(super::short::ShortArgs),
    /// nvq: the GPUs that are busy now (utilization above 0 or a compute process), with their load.
    Busy(super::short::ShortArgs),
    /// nvq: one line per GPU with its processes, as gpustat shows them (user:name/pid(memory)).
    Stat(super::short::StatArgs),
    /// nvq: wait until the GPUs are free, then run a command (nvq wait -i 1 -- python train.py).
    Wait(super::short::WaitArgs),
    /// Scrolling per-GPU monitor: one line per GPU per sample.
    Dmon(DmonArgs),
    /// Scrolling per-process monitor: one line per process per GPU per sample.
    Pmon(PmonArgs),
    /// Show where the GPUs sit: NVLink, PCIe switches, host bridges, NUMA nodes, nearby CPUs and NICs.
    Topo(super::topo::TopoArgs),
    /// Show each GPU's NVLinks: speed and state, capabilities, error counters, far ends, traffic.
    Nvlink(super::nvlink::NvlinkArgs),
    /// nvq: serve the GPUs' metrics over HTTP for Prometheus (an exporter).
    Serve(super::serve::ServeArgs),
    /// List MIG's GPU and compute instances and their profiles (read-only).
    Mig(super::mig::MigArgs),
    /// The running vGPUs of each vGPU host GPU and their VMs, or its vGPU types (read-only).
    Vgpu(super::vgpu::VgpuArgs),
    /// nvq: an interactive view of the GPUs and their processes, with history curves.
    Top(super::top::TopArgs),
    /// nvq: draw a log nvq wrote as SVG or PNG: memory and utilization over time, peaks, totals, leaks.
    Plot(super::plot::PlotArgs),
}
