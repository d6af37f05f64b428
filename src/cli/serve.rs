//! `nvq serve`'s options. They follow the spellings of Prometheus exporters
//! (`--web.listen-address`, `--web.telemetry-path`, ...), so that existing
//! systemd units and scrape configs carry over. Durations and numbers are
//! read by clap (`cli::value`); the rest is checked by the runner
//! (`app::serve`).

use super::sub::{Own, Shared, SubCommand};

use super::value::{duration_or_zero, Span};
use nvq_core::error::NvqError;
use std::time::Duration;

/// The port of `utkuozdemir/nvidia_gpu_exporter`, which fleets already scrape.
pub const DEFAULT_PORT: u16 = 9835;

#[derive(clap::Args, Debug, Clone, Default)]
#[command(
    about = "Serve GPU metrics over HTTP for Prometheus: /metrics, / and /healthz.",
    after_help = "Stop with SIGTERM or Ctrl+C: open requests are answered first. Logs go to stderr, one line each."
)]
pub struct ServeArgs {
    /// Address to listen on, HOST:PORT; an empty host means every interface.
    #[arg(
        long = "web.listen-address",
        value_name = "HOST:PORT",
        default_value = ":9835"
    )]
    pub listen_address: String,
    /// Path under which the metrics are served.
    #[arg(
        long = "web.telemetry-path",
        value_name = "PATH",
        default_value = "/metrics"
    )]
    pub telemetry_path: String,
    /// Reuse a collection for scrapes within DURATION (500ms, 1s, 30s); 0 collects on every scrape.
    #[arg(
        long = "collect.interval",
        value_name = "DURATION",
        default_value = "0",
        value_parser = duration_or_zero("--collect.interval")
    )]
    pub collect_interval: Duration,
    /// Metric names, labels and units: nvq (as --format=prometheus), nvidia_gpu_exporter or dcgm.
    #[arg(long, value_name = "PROFILE", default_value = "nvq")]
    pub profile: String,
    /// nvq profile: also serve one series per GPU process (pid, name, user, container, memory).
    #[arg(long = "collect.processes")]
    pub collect_processes: bool,
    /// nvidia_gpu_exporter profile: also serve each GPU's PCIe throughput (two 20 ms NVML samples a collection).
    #[arg(long = "collect.pcie-throughput")]
    pub collect_pcie_throughput: bool,
    /// nvidia_gpu_exporter profile: label each process series with its MIG gpu_instance_id and compute_instance_id.
    #[arg(long = "collect.compute-apps-mig")]
    pub collect_compute_apps_mig: bool,
    /// Label GPU and process series with the Kubernetes pod, namespace and container holding the GPU.
    #[arg(long = "collect.pods")]
    pub collect_pods: bool,
    #[command(flatten)]
    pub trend: super::trend::TrendArgs,
    /// The kubelet's pod-resources socket, for --collect.pods.
    #[arg(
        long = "collect.pods.socket",
        value_name = "PATH",
        default_value = crate::pods::DEFAULT_SOCKET
    )]
    pub pods_socket: std::path::PathBuf,
    /// Ask the kubelet which pods hold which GPUs every DURATION, for --collect.pods.
    #[arg(
        long = "collect.pods.interval",
        value_name = "DURATION",
        default_value = "5s"
    )]
    pub pods_interval: Span,
    /// Fields to collect (see --help-query-gpu); by default every field the profile uses.
    #[arg(long = "query-gpu", value_name = "FIELDS")]
    pub query_gpu: Option<String>,
    /// `-i`: serve only these GPUs.
    #[command(flatten)]
    pub gpus: super::shared::Gpus,
    /// Close a connection whose answer has waited DURATION for its client to read it.
    #[arg(
        long = "web.write-timeout",
        value_name = "DURATION",
        default_value = "10s"
    )]
    pub write_timeout: Span,
    /// Close a connection that has not sent a whole request head within DURATION of its first byte (or of connecting).
    #[arg(
        long = "web.read-timeout",
        value_name = "DURATION",
        default_value = "10s"
    )]
    pub read_timeout: Span,
    /// Close a kept-alive connection that has sent no new request within DURATION of its last answer.
    #[arg(
        long = "web.idle-timeout",
        value_name = "DURATION",
        default_value = "2m"
    )]
    pub idle_timeout: Span,
    /// TLS and basic authentication, in the Prometheus exporter-toolkit's YAML format.
    #[arg(long = "web.config.file", value_name = "FILE")]
    pub web_config_file: Option<std::path::PathBuf>,
    /// Keep at most N connections open; a new one takes the place of the longest-stalled, else is closed.
    #[arg(
        long = "web.max-connections",
        value_name = "N",
        default_value = "256",
        value_parser = max_connections
    )]
    pub max_connections: usize,
    /// Internal, for ssh:// nodes: print one /api/v1/query answer (MODE:FIELDS, e.g.
    /// query-gpu:index,memory.used) on stdout and exit, without listening.
    #[arg(long, value_name = "MODE:FIELDS", hide = true)]
    pub answer: Option<String>,
    /// Internal: with --answer, answer within MS milliseconds, naming the GPUs that were late.
    #[arg(
        long = "answer-within",
        value_name = "MS",
        hide = true,
        default_value = "10000",
        requires = "answer"
    )]
    pub answer_within: u64,
}

/// `--web.max-connections`: from 1 to 65536.
fn max_connections(v: &str) -> Result<usize, NvqError> {
    v.trim()
        .parse::<usize>()
        .ok()
        .filter(|n| (1..=65_536).contains(n))
        .ok_or_else(|| {
            NvqError::Usage(format!(
                "--web.max-connections needs a number from 1 to 65536, not \"{v}\"."
            ))
        })
}

impl SubCommand for ServeArgs {
    fn own(&self) -> Result<Own<'_>, NvqError> {
        Ok(Own::with_id(&[Shared::Id], &self.gpus.id))
    }
}
