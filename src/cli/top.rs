//! `nvq top`'s options.

/// Values stay text here; `app::top` checks them (one message and exit code
/// for every bad value).
#[derive(clap::Args, Debug, Clone, Default)]
#[command(
    about = "nvq: an interactive view of the GPUs and their processes, with memory and utilization curves.",
    after_help = "Keys: h or ? help, q quit, s/< > sort, r reverse, / filter, up/down select a GPU, \
Enter its processes only, +/- or F2 refresh interval, p pause, z/Z zoom the curves. \
nvq top only reads: it never changes GPU state or signals processes."
)]
pub struct TopArgs {
    #[command(flatten)]
    pub gpus: super::shared::Gpus,
    /// Seconds between samples, 0.1 to 10 (default 1; 500ms is also accepted).
    #[arg(short = 'd', long = "interval", value_name = "SEC")]
    pub interval: Option<String>,
    /// Print one frame as plain text and exit (for bug reports and scripts).
    #[arg(long)]
    pub once: bool,
    /// Mark a process whose memory has been rising steadily this long, in seconds (default 300).
    #[arg(long = "leak-after", value_name = "SEC")]
    pub leak_after: Option<String>,
}
