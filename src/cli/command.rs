//! nvq's subcommands: monitors and services that are not a field list.

/// A subcommand given after nvq's options (`nvq serve ...`).
#[derive(clap::Subcommand, Debug, Clone)]
pub enum Command {
    /// nvq: serve the GPUs' metrics over HTTP for Prometheus (an exporter).
    Serve(super::serve::ServeArgs),
}
