//! The sub-commands nvq implements (`nvq dmon`, `nvq topo -m`, `nvq top`,
//! ...), each declared once: one line of [`sub_commands!`] (its variant, its
//! name and its arguments' type) and one file of `cli/` with its options and
//! its [`SubCommand`] entry (`cli::sub`) (whether it is nvq's own, which shared options
//! it takes and how it spells them, which of nvidia-smi's options it
//! refuses). Its runner is one file of `app/`, which `app::run_as` calls
//! (the compiler asks for that arm).

use super::sub::{Refusals, SubCommand};

/// Declares [`Command`] from one line per sub-command: its doc comment
/// (`--help`'s line), variant, name and arguments' type, which implements
/// [`SubCommand`].
macro_rules! sub_commands {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal ($args:ty), )+) => {
        /// A sub-command and its own arguments. nvq's short everyday
        /// commands come first, so that `--help` lists them first.
        #[derive(clap::Subcommand, Debug, Clone)]
        pub enum Command {
            $( $(#[$doc])* #[command(name = $name)] $variant($args), )+
        }

        impl Command {
            /// Its name, as typed.
            pub fn name(&self) -> &'static str {
                match self {
                    $( Command::$variant(_) => $name, )+
                }
            }

            /// What nvq knows of it beside its options.
            pub fn spec(&self) -> &dyn SubCommand {
                match self {
                    $( Command::$variant(a) => a, )+
                }
            }

            /// Is `word` a sub-command's name? Then its refusals, which
            /// apply to the words after it (`None` within: none of its own).
            pub fn refusals_of(word: &str) -> Option<Option<Refusals>> {
                $( if word == $name {
                    return Some(<$args as SubCommand>::refusals());
                } )+
                None
            }
        }
    };
}

sub_commands! {
    /// nvq: memory per GPU: total, used, free and percent used.
    Mem = "mem" (super::short::ShortArgs),
    /// nvq: the compute processes of every GPU: GPU, PID, user, memory and command line.
    Ps = "ps" (super::short::ShortArgs),
    /// nvq: the GPUs that are busy now (utilization above 0 or a compute process), with their load.
    Busy = "busy" (super::short::ShortArgs),
    /// nvq: one line per GPU with its processes, as gpustat shows them (user:name/pid(memory)).
    Stat = "stat" (super::short::StatArgs),
    /// nvq: wait until the GPUs are free, then run a command (nvq wait -i 1 -- python train.py).
    Wait = "wait" (super::short::WaitArgs),
    /// nvq: run a command and report the GPU memory of its processes: peak per GPU, when, who held the rest.
    Run = "run" (super::run::RunArgs),
    /// Scrolling per-GPU monitor: one line per GPU per sample.
    Dmon = "dmon" (super::dmon::DmonArgs),
    /// Scrolling per-process monitor: one line per process per GPU per sample.
    Pmon = "pmon" (super::pmon::PmonArgs),
    /// Show where the GPUs sit: NVLink, PCIe switches, host bridges, NUMA nodes, nearby CPUs and NICs.
    Topo = "topo" (super::topo::TopoArgs),
    /// Show each GPU's NVLinks: speed and state, capabilities, error counters, far ends, traffic.
    Nvlink = "nvlink" (super::nvlink::NvlinkArgs),
    /// nvq: serve the GPUs' metrics over HTTP for Prometheus (an exporter).
    Serve = "serve" (super::serve::ServeArgs),
    /// List MIG's GPU and compute instances and their profiles (read-only).
    Mig = "mig" (super::mig::MigArgs),
    /// The running vGPUs of each vGPU host GPU and their VMs, or its vGPU types (read-only).
    Vgpu = "vgpu" (super::vgpu::VgpuArgs),
    /// nvq: an interactive view of the GPUs and their processes, with history curves.
    Top = "top" (super::top::TopArgs),
    /// nvq: draw a log nvq wrote as SVG or PNG: memory and utilization over time, peaks, totals, leaks.
    Plot = "plot" (super::plot::PlotArgs),
}
